/**
 * `diffODataServers`: the same random valid queries sent to two OData servers of the same model and
 * data (the cross-backend harness, for whole services: SAP CAP against `createODataHandler`, a
 * service before and after a migration), and every difference in status, count or rows reported
 * with both answers.
 *
 * Each query gets the key properties appended to its `$orderby`, so that both services must return
 * the same rows in the same order; expanded collections are compared in any order. Where the
 * `$orderby` orders strings, whose collation OData leaves to the service, rows are compared in any
 * order, and only their number where `$top` or `$skip` picks some of them. Two refusals
 * (4xx) are the same answer whatever their messages; a 5xx is always a difference. A property only
 * one service returns is a difference, but for key properties (which `$select` lets a service add).
 */
import fc from 'fast-check';
import type { Model, StructuredType } from '../model/model.js';
import { parseJsonText } from '../util/json-text.js';
import { bindQuery } from '../semantic/bind-query.js';
import type { BoundQuery } from '../semantic/bound-ast.js';
import { compareProperty } from './compare-values.js';
import { shownRow, storedValue } from './json-rows.js';
import { modelQueryArbitrary, type ModelQueryOptions } from './model-arbitraries.js';
import { answerLines, findings, send, withReproduction, type Answer, type Endpoint, type KnownDeviation, type MetDeviation } from './server-requests.js';

/** One of the two services: the collection's URL, headers, timeout, and a name for reports. */
export interface DiffEndpoint extends Endpoint {
  /** How reports call it (default `A` and `B`). */
  readonly name?: string;
  /** The count from a success body (`$count=true`); by default `@odata.count`. */
  readonly count?: (body: unknown) => unknown;
}

/** What {@link diffODataServers} needs. */
export interface DiffServersOptions {
  readonly a: DiffEndpoint;
  readonly b: DiffEndpoint;
  readonly model: Model;
  readonly entitySet: string;
  /** Queries (default 100). */
  readonly numRuns?: number;
  readonly seed?: number;
  /** Differences already known: a difference whose report matches one is counted, not failed. */
  readonly known?: readonly KnownDeviation[];
  /** Queries not to send (tested on the percent-encoded query), such as one that takes a service down. */
  readonly skip?: RegExp;
  /** Valid-query options (depth, functions, navigation) for the generated queries. */
  readonly queries?: ModelQueryOptions;
  /** Pages followed through `@odata.nextLink` on each side (default 20); beyond, the rows both sides gave so far are compared. */
  readonly maxPages?: number;
}

/** What {@link diffODataServers} ran: queries sent to both, and the known differences it met. */
export interface DiffServersResult {
  readonly queries: number;
  readonly known: readonly MetDeviation[];
}

/** A whole answer: every page's rows, the count, and the first page's answer for the report. */
interface Whole {
  readonly answer: Answer;
  readonly rows?: readonly unknown[];
  readonly count?: unknown;
  /** More pages followed than `maxPages`: `rows` are the first of the answer's. */
  readonly truncated?: boolean;
}

/** The query with the key appended to its `$orderby` (or as its `$orderby`), so that one order is right. */
export function totallyOrdered(query: string, type: StructuredType): string {
  const parts = query === '' ? [] : query.split('&');
  const at = parts.findIndex((part) => decodeURIComponent(part.split('=')[0] ?? '').toLowerCase() === '$orderby');
  if (at < 0) return [...parts, `$orderby=${type.key.join(',')}`].join('&');
  const given = decodeURIComponent(parts[at]!.slice(parts[at]!.indexOf('=') + 1));
  const items = new Set(given.split(',').map((item) => item.trim().replace(/\s+(asc|desc)$/i, '')));
  const missing = type.key.filter((name) => !items.has(name));
  if (missing.length === 0) return query;
  const ordered = [...parts];
  ordered[at] = `$orderby=${encodeURIComponent([given, ...missing].join(','))}`;
  return ordered.join('&');
}

async function whole(endpoint: DiffEndpoint, query: string, maxPages: number): Promise<Whole> {
  const answer = await send(endpoint, query);
  if (answer.status !== 200) return { answer };
  const first = read(answer, endpoint.count);
  if (first === undefined) return { answer };
  const rows = [...first.rows];
  let next = first.next;
  for (let page = 1; next !== undefined && page < maxPages; page++) {
    const more = read(await send(endpoint, query, new URL(next, answer.url).href));
    if (more === undefined) break;
    rows.push(...more.rows);
    next = more.next;
  }
  return { answer, rows, count: first.count, ...(next === undefined ? {} : { truncated: true }) };
}

/** The rows (numbers read exactly), count and next link of a page, or `undefined` when it has no `value` list. */
function read(answer: Answer, counted?: (body: unknown) => unknown): { rows: unknown[]; count: unknown; next: string | undefined } | undefined {
  if (answer.status !== 200) return undefined;
  let body: Record<string, unknown>;
  try {
    body = parseJsonText(answer.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || !Array.isArray(body['value'])) return undefined;
  const next = body['@odata.nextLink'];
  const count = counted === undefined ? (answer.body as Record<string, unknown>)['@odata.count'] : counted(answer.body);
  return { rows: body['value'] as unknown[], count, next: typeof next === 'string' ? next : undefined };
}

const statusClass = (status: number): string => (status >= 200 && status < 300 ? '2xx' : status >= 400 && status < 500 ? '4xx' : String(status));

/** The first difference between two rows of `type` (see the module's comment), or `undefined`. */
export function rowDifference(
  type: StructuredType,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  names: readonly [string, string] = ['A', 'B'],
): string | undefined {
  const [A, B] = names;
  const members = new Set([...Object.keys(a), ...Object.keys(b)].filter((name) => !name.includes('@')));
  for (const name of members) {
    const member = type.properties.get(name) ?? type.navigation.get(name);
    if (member === undefined) continue;
    const inA = Object.hasOwn(a, name);
    const inB = Object.hasOwn(b, name);
    if (inA !== inB) {
      if (member.kind === 'property' && type.key.includes(name)) continue;
      return `${name}: only ${inA ? A : B} returns it`;
    }
    if (member.kind === 'property') {
      const difference = compareProperty(member, storedValue(member, a[name]), storedValue(member, b[name]));
      if (difference !== undefined) return `${name}: ${difference}`;
      continue;
    }
    const [x, y] = [a[name], b[name]];
    if (x === null || y === null || x === undefined || y === undefined) {
      if ((x ?? null) !== (y ?? null)) return `${name}: ${x === null || x === undefined ? A : B} has none`;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y)) return `${name}: one is a collection`;
    if (!Array.isArray(x) || !Array.isArray(y)) {
      const difference = rowDifference(member.target, x as Record<string, unknown>, y as Record<string, unknown>, names);
      if (difference !== undefined) return `${name}/${difference}`;
      continue;
    }
    if (x.length !== y.length) return `${name}: ${x.length} entities from ${A}, ${y.length} from ${B}`;
    // Expanded entities in any order: each of A's matched once among B's.
    const left = [...y] as Record<string, unknown>[];
    for (const [i, item] of (x as Record<string, unknown>[]).entries()) {
      const at = left.findIndex((candidate) => rowDifference(member.target, item, candidate, names) === undefined);
      if (at < 0) return `${name}: ${A}'s entity ${i} (${shownRow(item)}) is not among ${B}'s`;
      left.splice(at, 1);
    }
  }
  return undefined;
}

/**
 * How the rows of a query are compared: in order (`exact`), in any order where its `$orderby`
 * orders strings (`any`), and only by number where it also picks rows by `$top` or `$skip` (`picked`).
 */
type RowOrder = 'exact' | 'any' | 'picked';

function rowOrder(model: Model, entitySet: string, query: string): RowOrder {
  let bound: BoundQuery;
  try {
    bound = bindQuery(query, { model, entitySet });
  } catch {
    return 'any';
  }
  const strings = (bound.orderBy ?? []).some((item) => item.expression.type.kind === 'primitive' && item.expression.type.name === 'Edm.String');
  if (!strings) return 'exact';
  return bound.top !== undefined || bound.skip !== undefined ? 'picked' : 'any';
}

/** What differs between the two whole answers, or `undefined`. */
function difference(type: StructuredType, query: string, a: Whole, b: Whole, names: readonly [string, string], order: RowOrder): string | undefined {
  const [A, B] = names;
  const [x, y] = [a.answer.status, b.answer.status];
  if (x >= 500 || y >= 500 || statusClass(x) !== statusClass(y)) return `${A} answered ${x}, ${B} ${y}`;
  if (x !== 200 || y !== 200) return undefined;
  if (a.rows === undefined || b.rows === undefined) return `${a.rows === undefined ? A : B} answered 200 without a list of rows`;
  if (/(^|&)\$count=true(&|$)/i.test(query)) {
    const [m, n] = [a.count === undefined ? undefined : Number(a.count), b.count === undefined ? undefined : Number(b.count)];
    if (m !== n) return `counts differ: ${String(a.count)} from ${A}, ${String(b.count)} from ${B}`;
  }
  // (Where one side has more pages than were followed, the rows both have so far are compared.)
  const length = Math.min(a.truncated === true ? a.rows.length : Infinity, b.truncated === true ? b.rows.length : Infinity);
  if (Number.isFinite(length)) {
    if ((a.truncated !== true && a.rows.length < length) || (b.truncated !== true && b.rows.length < length))
      return `${a.rows.length} rows from ${A}, ${b.rows.length} from ${B}`;
    return difference(
      type,
      query,
      { ...a, rows: a.rows.slice(0, length), truncated: false },
      { ...b, rows: b.rows.slice(0, length), truncated: false },
      names,
      order === 'exact' ? 'exact' : 'picked',
    );
  }
  if (a.rows.length !== b.rows.length) return `${a.rows.length} rows from ${A}, ${b.rows.length} from ${B}`;
  if (a.rows.some((row) => typeof row !== 'object' || row === null) || b.rows.some((row) => typeof row !== 'object' || row === null))
    return 'a row is not an object';
  const [rowsA, rowsB] = [a.rows as Record<string, unknown>[], b.rows as Record<string, unknown>[]];
  if (order === 'picked') return undefined;
  if (order === 'any') {
    const left = [...rowsB];
    for (const [i, row] of rowsA.entries()) {
      const at = left.findIndex((candidate) => rowDifference(type, row, candidate, names) === undefined);
      if (at < 0) return `${A}'s row ${i} (${shownRow(row)}) is not among ${B}'s`;
      left.splice(at, 1);
    }
    return undefined;
  }
  for (let i = 0; i < rowsA.length; i++) {
    const found = rowDifference(type, rowsA[i]!, rowsB[i]!, names);
    if (found !== undefined) return `row ${i} differs: ${found}`;
  }
  return undefined;
}

/**
 * Sends the same random valid queries to two services and rejects with the first difference,
 * shrunk, and both answers (status, headers, body, `curl`); resolves with what it ran.
 *
 * @example
 * ```ts
 * await diffODataServers({ a: { url: 'http://localhost:4004/odata/v4/catalog/Products', name: 'CAP' }, b: { url: 'http://localhost:3000/Products' }, model, entitySet: 'Products' });
 * ```
 */
export async function diffODataServers(options: DiffServersOptions): Promise<DiffServersResult> {
  const type = options.model.entitySets.get(options.entitySet)?.type;
  if (type === undefined) throw new Error(`The model has no entity set '${options.entitySet}'`);
  const run = findings(options.known);
  const [nameA, nameB] = [options.a.name ?? 'A', options.b.name ?? 'B'];
  let queries = 0;
  try {
    await fc.assert(
      fc.asyncProperty(modelQueryArbitrary(options.model, options.entitySet, options.queries), async (generated) => {
        fc.pre(options.skip?.test(generated) !== true);
        const query = totallyOrdered(generated, type);
        queries++;
        const [a, b] = await Promise.all([whole(options.a, query, options.maxPages ?? 20), whole(options.b, query, options.maxPages ?? 20)]);
        const found = difference(type, query, a, b, [nameA, nameB], rowOrder(options.model, options.entitySet, query));
        if (found === undefined) return;
        run.found(
          [
            found,
            `  query:   ${query}`,
            `  ${nameA}:`,
            ...answerLines(options.a, a.answer, '    '),
            `  ${nameB}:`,
            ...answerLines(options.b, b.answer, '    '),
          ].join('\n'),
        );
      }),
      { numRuns: options.numRuns ?? 100, ...(options.seed === undefined ? {} : { seed: options.seed }) },
    );
  } catch (error) {
    throw withReproduction(error);
  }
  return { queries, known: run.met() };
}
