/**
 * The rows of `$crossjoin(…)`'s virtual set (semantic/resource-path/crossjoin.ts) in memory: one
 * virtual row per combination of the joined sets' rows, holding the stored key of each
 * (`{ Products_ID: 'P1', Sales_ID: '3' }`), from which the navigation properties lead to the
 * rows as any other (data-resolver.ts). The combinations are made one at a time and only those
 * the query's leading filter keeps are collected: the product is never held whole.
 */
import type { BoundExpression, BoundQuery } from '../../semantic/bound-ast.js';
import { checkCrossJoinRows, type CrossJoin } from '../../semantic/resource-path/crossjoin.js';
import { someExpression } from '../../semantic/walk/index.js';
import { columnName, navigationLink } from '../../storage/links.js';
import { NO_STORAGE } from '../../storage/storage-mapping.js';
import { propertyGetter, type Row } from '../../reference/rows.js';
import { compileQuery, type MemoryBackendOptions } from './compile-query.js';

/** Whether `node` reads the current collection (`$these/aggregate(…)`, `$these/$count`): then it needs every row first. */
const readsThese = (node: BoundExpression): boolean => someExpression(node, (n) => n.kind === 'aggregateValue' && n.collection === undefined);

/**
 * The conditions that decide of each combination alone, before any other option reads the rows:
 * `$filter` without `$apply`, else the `filter` transformations `$apply` starts with (none that
 * reads `$these`). The query applies them again to the rows collected: they keep the same rows.
 */
function leadingConditions(query: BoundQuery): BoundExpression[] {
  if (query.apply === undefined) return query.filter === undefined || readsThese(query.filter) ? [] : [query.filter];
  const found: BoundExpression[] = [];
  for (const transformation of query.apply.transformations) {
    if (transformation.kind !== 'filter' || readsThese(transformation.predicate)) break;
    found.push(transformation.predicate);
  }
  return found;
}

/** A test of a virtual row by the query's leading conditions (all true), or `undefined` when there are none. */
function leadingTest(query: BoundQuery, options: MemoryBackendOptions): ((row: Row) => boolean) | undefined {
  const tests = leadingConditions(query).map(
    (filter) =>
      compileQuery(
        { kind: 'boundQuery', entitySet: query.entitySet, entityType: query.entityType, maxTop: query.maxTop, filter, select: query.select, expand: [] },
        options,
      ).predicate,
  );
  if (tests.length === 0) return undefined;
  return (row) => tests.every((test) => test(row));
}

/**
 * The virtual rows of `query`'s cross join (`join`) over `options.data` that its leading filter
 * keeps (every one without a filter), in the order of the sets' rows, the first set's outermost.
 * Throws `crossjoin_limit_exceeded` when the sets' rows make more combinations than `join.maxRows`,
 * unless the caller has `checked` them (`createODataHandler` counts each set's rows in the
 * request's scope first, which a query's conditions on the combinations cannot tell here).
 *
 * @example
 * ```ts
 * const set = crossJoinSet(model, [products, sales]);
 * const query = bindQueryToSet('$filter=Products/ID eq Sales/Product/ID', { model, entitySet: set.name }, set);
 * compileQuery(query, { data }).apply(crossJoinRows(query, crossJoinOf(set)!, { data }));
 * ```
 */
export function crossJoinRows(query: BoundQuery, join: CrossJoin, options: MemoryBackendOptions, checked = false): Row[] {
  const data = options.data ?? {};
  const tables = join.sets.map((set) => (Object.hasOwn(data, set.name) ? (data[set.name] as readonly Row[]) : []));
  if (!checked)
    checkCrossJoinRows(
      join,
      tables.map((rows) => rows.length),
    );
  // Each row's part of a virtual row: its stored key in the columns of its navigation property.
  const parts = join.navigation.map((navigation, i) => {
    const link = navigationLink(query.entitySet.type, navigation, options.storage ?? NO_STORAGE);
    if (link === undefined || link.kind !== 'direct') throw new Error(`internal error: no stored key for '$crossjoin' of '${navigation.name}'`);
    const pairs = link.pairs.map(({ source, target }) => [columnName(source), propertyGetter(columnName(target))] as const);
    return (tables[i] as readonly Row[]).map((row) => pairs.map(([name, get]) => [name, get(row) ?? null] as const));
  });
  const keep = leadingTest(query, options);
  const rows: Row[] = [];
  if (parts.some((part) => part.length === 0)) return rows;
  // An odometer over the sets' rows, the last set turning fastest.
  const at = parts.map(() => 0);
  for (;;) {
    const row: Record<string, unknown> = {};
    for (let s = 0; s < parts.length; s++) for (const [name, value] of (parts[s] as (typeof parts)[number])[at[s] as number] ?? []) row[name] = value;
    if (keep === undefined || keep(row)) rows.push(row);
    let s = parts.length - 1;
    while (s >= 0 && (at[s] = (at[s] as number) + 1) === (parts[s] as (typeof parts)[number]).length) at[s--] = 0;
    if (s < 0) return rows;
  }
}
