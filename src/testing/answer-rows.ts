/**
 * Whether the rows a server returned for a query keep its `$filter` and `$orderby`, judged from the
 * answer alone: the reference evaluates the query over the returned rows (read back from OData
 * JSON into the forms rows store values in). Only what the rows can tell is judged:
 *
 * - a query with `$apply` or `$compute`, or whose `$filter` or `$orderby` reads a navigation
 *   property, a dynamic property, `now()` or a property the rows leave out, is not judged;
 * - a row that fails a `$filter` comparing strings by order (`lt`, `le`, `gt`, `ge`) is not judged
 *   either: OData leaves the collation to the service;
 * - two rows out of `$orderby`'s order are a finding only when no usual collation (code points,
 *   the locale's, case-insensitive) puts them in that order.
 */
import type { Model } from '../model/model.js';
import { bindQuery } from '../semantic/bind-query.js';
import type { BoundExpression, BoundQuery } from '../semantic/bound-ast.js';
import { someExpression } from '../semantic/walk/index.js';
import { compileQuery } from '../backends/memory/compile-query.js';
import type { Row } from '../reference/rows.js';
import { shownRow as shown, storedRow } from './json-rows.js';

/** The options of a percent-encoded query by lower-case name (parameter aliases too); `undefined` where one cannot be decoded. */
function options(query: string): Map<string, string> | undefined {
  const found = new Map<string, string>();
  for (const part of query.split('&')) {
    const equals = part.indexOf('=');
    if (equals <= 0) continue;
    try {
      found.set(decodeURIComponent(part.slice(0, equals)).toLowerCase(), decodeURIComponent(part.slice(equals + 1)));
    } catch {
      return undefined;
    }
  }
  return found;
}

/** The items of an `$orderby` text, split at the commas outside brackets and strings: each expression and its direction. */
function orderItems(text: string): { readonly expression: string; readonly descending: boolean }[] {
  const items: { expression: string; descending: boolean }[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && (c === ',' || c === undefined)) {
      const item = text.slice(start, i).trim();
      const direction = /\s+(asc|desc)$/i.exec(item);
      items.push({ expression: direction === null ? item : item.slice(0, direction.index), descending: direction?.[1]?.toLowerCase() === 'desc' });
      start = i + 1;
    }
  }
  return items;
}

/** Whether an expression reads only what the rows hold: no navigation, dynamic property or `now()`, and only `present` properties at the top. */
function judgeable(expression: BoundExpression, present: (name: string) => boolean): boolean {
  return !someExpression(expression, (node) => {
    if (node.kind === 'call') return node.name === 'now';
    if (node.kind === 'aggregateValue' || node.kind === 'hierarchyTest' || node.kind === 'rollupNode' || node.kind === 'count') return true;
    if (node.kind !== 'path') return false;
    if (node.steps.some((step) => step.kind !== 'property')) return true;
    const first = node.steps[0];
    return node.root.kind === 'it' && first?.kind === 'property' && !present(first.property.name);
  });
}

/** Whether a `$filter` compares strings by order, which depends on the service's collation. */
const ordersStrings = (expression: BoundExpression): boolean =>
  someExpression(
    expression,
    (node) =>
      node.kind === 'binary' &&
      (node.operator === 'lt' || node.operator === 'le' || node.operator === 'gt' || node.operator === 'ge') &&
      node.operandType.kind === 'primitive' &&
      node.operandType.name === 'Edm.String',
  );

const collators = [new Intl.Collator(undefined, { sensitivity: 'variant' }), new Intl.Collator(undefined, { sensitivity: 'accent' })];
const codePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * What the returned rows break of the query's `$filter` or `$orderby` (see the module's comment),
 * or `undefined`. `rows` are read from the answer's text by `parseJsonText`, so that Int64 and
 * Decimal numbers keep their digits.
 */
export function rowsProblem(model: Model, entitySet: string, query: string, rows: readonly unknown[]): string | undefined {
  const given = options(query);
  if (given === undefined || given.has('$apply') || given.has('$compute') || rows.length === 0) return undefined;
  const filter = given.get('$filter');
  const orderby = given.get('$orderby');
  if (filter === undefined && orderby === undefined) return undefined;
  const type = model.entitySets.get(entitySet)?.type;
  if (type === undefined || rows.some((row) => typeof row !== 'object' || row === null || Array.isArray(row))) return undefined;
  const aliases = [...given].filter(([name]) => name.startsWith('@')).map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  const text = (parts: string[]): string => [...parts, ...aliases].join('&');
  let bound: BoundQuery;
  try {
    bound = bindQuery(
      text([
        ...(filter === undefined ? [] : [`$filter=${encodeURIComponent(filter)}`]),
        ...(orderby === undefined ? [] : [`$orderby=${encodeURIComponent(orderby)}`]),
      ]),
      { model, entitySet },
    );
  } catch {
    return undefined;
  }
  const returned = rows as readonly Record<string, unknown>[];
  const present = (name: string): boolean => returned.every((row) => Object.hasOwn(row, name));
  const stored = returned.map((row) => storedRow(type, row));
  const compiled = compileQuery(bound);
  if (bound.filter !== undefined && judgeable(bound.filter, present) && !ordersStrings(bound.filter)) {
    const failing = stored.findIndex((row) => !compiled.predicate(row));
    if (failing >= 0) return `row ${failing} does not satisfy $filter=${filter}: ${shown(returned[failing])}`;
  }
  if (orderby !== undefined && bound.orderBy !== undefined && bound.orderBy.every((item) => judgeable(item.expression, present))) {
    for (let i = 1; i < stored.length; i++) {
      if (compiled.compare(stored[i - 1]!, stored[i]!) <= 0) continue;
      if (collationExplains(model, entitySet, orderby, text, [stored[i - 1]!, stored[i]!])) continue;
      return `rows ${i - 1} and ${i} are out of the order of $orderby=${orderby}: ${shown(returned[i - 1])}, then ${shown(returned[i])}`;
    }
  }
  return undefined;
}

/**
 * Whether two rows the reference puts in the other order are in order by a usual collation: the
 * first `$orderby` item they differ by is a string that a locale or case-insensitive collation
 * orders as the service did.
 */
function collationExplains(model: Model, entitySet: string, orderby: string, text: (parts: string[]) => string, [a, b]: [Row, Row]): boolean {
  for (const { expression, descending } of orderItems(orderby)) {
    let key: BoundQuery;
    try {
      key = bindQuery(
        text([`$compute=${encodeURIComponent(`${expression} as orderKey`)}`, `$orderby=${encodeURIComponent(expression)}${descending ? '%20desc' : ''}`]),
        { model, entitySet },
      );
    } catch {
      return true;
    }
    const compiled = compileQuery(key);
    const order = compiled.compare(a, b);
    if (order === 0) continue;
    if (order < 0) return false;
    const computed = key.compute?.[0];
    if (computed === undefined || computed.type.kind !== 'primitive' || computed.type.name !== 'Edm.String') return false;
    const [x, y] = [compiled.project(a)['orderKey'], compiled.project(b)['orderKey']];
    if (typeof x !== 'string' || typeof y !== 'string') return false;
    const sign = descending ? -1 : 1;
    return [codePoints, ...collators.map((collator) => collator.compare)].some((compare) => sign * compare(x, y) <= 0);
  }
  return false;
}
