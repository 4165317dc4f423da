/**
 * The cross-backend harness: for random rows and random valid queries, a backend must return
 * exactly the rows the in-memory backend (the reference) returns, in the same order where the
 * order is defined (an `$orderby` that ends in the key, or any page), and the same `$count`.
 */
import fc from 'fast-check';
import { compileQuery } from '../backends/memory/compile-query.js';
import type { Row } from '../reference/rows.js';
import { domainOf } from '../reference/values.js';
import type { Model } from '../model/model.js';
import { bindQuery } from '../semantic/bind-query.js';
import type { BoundQuery, BoundQueryOptions } from '../semantic/bound-ast.js';
import type { BindSettings } from '../semantic/settings.js';
import { fromReference } from '../semantic/types.js';
import { compareComputed, compareStructured, type FormCheck } from './compare-values.js';
import { modelQueryArbitrary, rowsArbitrary, type TestRow } from './model-arbitraries.js';

/** What a backend returns for a query: the rows, and the count when `$count=true`. */
export interface BackendResult {
  readonly value: readonly Row[];
  readonly count?: number;
  /**
   * `'storage'` when the rows claim the in-memory backend's storage forms (docs/memory.md), as
   * `fromMongoApplyDocument` gives them: then each value must be in such a form too (ISO text for a
   * DateTimeOffset, not a `Date`), not only equal. Otherwise values may come in any form a driver
   * gives (a `Date`, digit strings, 0/1) or as OData JSON (`readSqlRows`), compared by their types.
   */
  readonly forms?: 'storage';
  /**
   * The OData JSON records a user gets for these rows (`readSqlRows`), when the backend has them:
   * then the differential runner compares them too, with the reference's rows through `jsonRecord`
   * (both with `IEEE754Compatible=true`), value by value in the same JSON form (a string where the
   * reference's record has a string, a number where it has a number).
   */
  readonly json?: readonly Record<string, unknown>[];
}

/** Runs a bound query on a backend that holds `rows` in the entity set. */
export type BackendRunner = (query: BoundQuery, rows: readonly TestRow[]) => Promise<BackendResult> | BackendResult;

export interface HarnessOptions {
  readonly model: Model;
  readonly entitySet: string;
  readonly runner: BackendRunner;
  /** fast-check runs (default 100). */
  readonly numRuns?: number;
  readonly seed?: number;
  /** Queries to try (default: {@link modelQueryArbitrary}). */
  readonly queries?: fc.Arbitrary<string>;
  /** Rows to try (default: {@link rowsArbitrary}). */
  readonly rows?: fc.Arbitrary<TestRow[]>;
  /** Bind settings besides model and entity set (limits are raised by default). */
  readonly settings?: Partial<BindSettings>;
}

const MAX_EXACT = 2n ** 53n;

/** The key of a row as comparable text (GUIDs ignore case, numbers ignore their JS type). */
export function keyText(row: Row, query: BoundQueryOptions): string {
  const type = rowType(query);
  return type.key
    .map((name) => {
      const property = type.properties.get(name);
      const value = Object.hasOwn(row, name) ? row[name] : undefined;
      const normalized = property === undefined || value === undefined || value === null ? null : domainOf(fromReference(property.type)).normalize(value);
      // Beyond 2^53 an integer key is compared as a double: drivers and JSON.parse read such keys as doubles (see compare-values.ts, `lossy`).
      if (typeof normalized === 'bigint') return normalized >= MAX_EXACT || normalized <= -MAX_EXACT ? `${Number(normalized)}~` : `${normalized}n`;
      return JSON.stringify(normalized);
    })
    .join('|');
}

/**
 * The type of the rows a query gives: `$apply`'s output type when it has one (aggregated rows have
 * no key, so they are compared as a multiset: each expected row must equal a distinct returned row).
 */
export function rowType(query: BoundQueryOptions): BoundQueryOptions['entityType'] {
  return query.apply?.output ?? query.entityType;
}

/**
 * Rows without a key (`$apply` after an aggregation): equal row by row when `ordered`, else as
 * multisets (each expected row equals a distinct returned row).
 */
function compareKeyless(
  options: BoundQueryOptions,
  expected: readonly Row[],
  actual: readonly Row[],
  where: string,
  ordered: boolean,
  storage: FormCheck,
): string | undefined {
  const type = rowType(options);
  const show = (row: Row): string => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}` : v));
  // Expected row first: `storage` checks the forms of the returned row's values.
  const presence = exactPresence(options);
  const differs = (a: Row, b: Row): string | undefined => compareStructured(type, a, b, storage, presence) ?? compareComputed(options, a, b, storage);
  if (expected.length !== actual.length)
    return `rows${where} differ: expected ${expected.length} rows, got ${actual.length}: expected ${expected.map(show).join(', ')}, got ${actual.map(show).join(', ')}`;
  if (ordered) {
    for (let i = 0; i < expected.length; i++) {
      const difference = differs(expected[i] as Row, actual[i] as Row);
      if (difference !== undefined) return `values${where} differ in row ${i} (in order): ${difference}`;
    }
    return undefined;
  }
  const unused = [...actual];
  for (const row of expected) {
    const index = unused.findIndex((other) => differs(row, other) === undefined);
    if (index < 0) {
      // What tells it from the first row left (the only one, for an aggregate).
      const first = unused[0] === undefined ? '' : ` (the first row left: ${differs(row, unused[0]) ?? ''})`;
      return `values${where} differ: no returned row equals ${show(row)}${first} (returned: ${actual.map(show).join(', ')})`;
    }
    unused.splice(index, 1);
  }
  return undefined;
}

/**
 * Whether the rows' properties must be present exactly as in the reference's rows: rows of `$apply`
 * that are no longer entities, whose properties the transformations make (a row of a `concat`
 * branch has only its branch's). An entity's property whose value the store lacks may be missing
 * or null (MongoDB leaves out a field the document has not, the reference gives null).
 */
function exactPresence(options: BoundQueryOptions): boolean {
  return options.apply !== undefined && !options.apply.entity;
}

/** Whether the query fixes the order of its result (then the order must match too). */
function orderIsDefined(query: BoundQueryOptions): boolean {
  return query.top !== undefined || query.skip !== undefined;
}

/** Key texts of `rows`, sorted unless `ordered`. */
function keys(rows: readonly Row[], options: BoundQueryOptions, ordered: boolean): string[] {
  const texts = rows.map((row) => keyText(row, options));
  return ordered ? texts : texts.sort();
}

/** Options of {@link compareResults}. */
export interface CompareOptions {
  /**
   * Whether the top-level rows must come in the same order (default: when `$top` or `$skip` pages
   * the result). Expanded rows follow the same default.
   */
  readonly ordered?: boolean;
  /**
   * `'json'`: both results are OData JSON records, compared in the reference's JSON forms too;
   * `'json-decimal-as-double'`: so, with Decimals equal at double precision (see {@link FormCheck}).
   */
  readonly forms?: 'json' | 'json-decimal-as-double';
}

/** Describes the first difference between a backend's result and the reference's, or `undefined`. */
export function compareResults(query: BoundQuery, expected: BackendResult, actual: BackendResult, options: CompareOptions = {}): string | undefined {
  const storage: FormCheck = options.forms ?? actual.forms === 'storage';
  const rows = compareRows(query, expected.value, actual.value, '', options.ordered, storage);
  return rows ?? (expected.count !== actual.count ? `count differs: expected ${expected.count}, got ${actual.count}` : undefined);
}

function compareRows(
  options: BoundQueryOptions,
  expected: readonly Row[],
  actual: readonly Row[],
  where: string,
  ordered = orderIsDefined(options),
  storage: FormCheck = false,
): string | undefined {
  if (rowType(options).key.length === 0) return compareKeyless(options, expected, actual, where, ordered, storage);
  const left = keys(expected, options, ordered);
  const right = keys(actual, options, ordered);
  if (left.length !== right.length || left.some((key, i) => key !== right[i])) {
    return `rows${where} differ${ordered ? ' (in order)' : ''}: expected [${left.join(', ')}], got [${right.join(', ')}]`;
  }
  // Values, then expanded content, row by row (matched by key).
  const byKey = new Map(actual.map((row) => [keyText(row, options), row]));
  if (byKey.size < actual.length) {
    // Keys not selected (or repeated): each expected row must equal a distinct returned row.
    const unused = [...actual];
    for (const row of expected) {
      const presence = exactPresence(options);
      const equal = (other: Row): boolean =>
        compareStructured(rowType(options), row, other, storage, presence) === undefined && compareComputed(options, row, other, storage) === undefined;
      const index = unused.findIndex(equal);
      if (index < 0) return `values${where} differ: no returned row equals ${JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}` : v))}`;
      unused.splice(index, 1);
    }
    return undefined;
  }
  for (const row of expected) {
    const key = keyText(row, options);
    const other = byKey.get(key) as Row;
    const difference = compareStructured(rowType(options), row, other, storage, exactPresence(options)) ?? compareComputed(options, row, other, storage);
    if (difference !== undefined) return `values${where} differ in row ${key}: ${difference}`;
    for (const item of options.expand) {
      const name = item.navigation.name;
      const e = row[name];
      const a = Object.hasOwn(other, name) ? other[name] : undefined;
      const expectedRows = Array.isArray(e) ? e : e === null || e === undefined ? [] : [e as Row];
      const actualRows = Array.isArray(a) ? a : a === null || a === undefined ? [] : [a as Row];
      const difference = compareRows(item.options, expectedRows as Row[], actualRows as Row[], ` of ${name} of row ${key}`, undefined, storage);
      if (difference !== undefined) return difference;
    }
  }
  return undefined;
}

/**
 * Checks a backend against the in-memory reference with fast-check; rejects with the shrunk
 * counterexample (rows, query and the difference) when they disagree.
 *
 * @example
 * ```ts
 * await assertBackendMatchesMemory({ model, entitySet: 'assets', runner: async (query, rows) => mySqlRunner(query, rows) });
 * ```
 */
export async function assertBackendMatchesMemory(options: HarnessOptions): Promise<void> {
  const settings: BindSettings = {
    model: options.model,
    entitySet: options.entitySet,
    maxNodeCount: 10_000,
    maxAnyAllExpressionDepth: 4,
    maxOrderByNodeCount: 10,
    ...options.settings,
  };
  const queries = options.queries ?? modelQueryArbitrary(options.model, options.entitySet);
  const rows = options.rows ?? rowsArbitrary(options.model, options.entitySet);
  const details = await fc.check(
    fc.asyncProperty(rows, queries, async (data, text) => {
      const bound = bindQuery(text, settings);
      const expected = compileQuery(bound, { data: { [options.entitySet]: data } }).apply(data);
      const actual = await options.runner(bound, data);
      const difference = compareResults(bound, expected, actual);
      if (difference !== undefined) throw new Error(`${difference}\nquery: ${text}`);
    }),
    { numRuns: options.numRuns ?? 100, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
  if (details.failed) {
    const [data] = (details.counterexample ?? []) as [TestRow[] | undefined, string | undefined];
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    const shown = JSON.stringify(data, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
    throw new Error(
      `The backend disagrees with the in-memory reference (seed ${details.seed}, path ${details.counterexamplePath}, after ${details.numRuns} runs):\n${cause}\nrows: ${shown}`,
    );
  }
}
