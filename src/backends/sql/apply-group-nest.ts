/**
 * `groupby` whose nested transformations end in `nest` (Data Aggregation 3.2.3.1 with 3.4.2,
 * example 129): one row per group of the input, its grouping properties and, per nest item, the
 * JSON array of the rows the item's pipeline gives from the group's rows, as a top-level `nest`
 * builds it (apply-nesting.ts: in their kept order, else by every column). A group keeps its row
 * when the nested transformations leave none of its rows: its collections are then empty (an
 * `aggregate` gives its one row of no rows).
 *
 * - The input is a common table expression, read by the groups (a GROUP BY of the grouping
 *   properties) and by each item. Row-wise steps before the nest (`filter`, `search`, `compute`)
 *   run on the whole input once (a row passes them alone as within its group); the groups come
 *   from the input before them.
 * - Where a derived table can read the outer row, each item is a correlated scalar subquery: its
 *   pipeline (any transformations that compile without common table expressions of their own,
 *   after the steps before the nest that are not row-wise) over the group's rows, the input rows
 *   whose grouping values are the group's (null equal to null, strings by code point).
 * - Where it cannot (MariaDB), the correlation stays one level deep: the item's pipeline runs over
 *   every group's rows at once, the group's grouping values carried as hidden columns, and the
 *   scalar subquery picks the group's rows in its WHERE. That is compiled for row-wise steps,
 *   then nothing more, `orderby`/`top`/`skip` (each group's rows numbered by a window partitioned by its grouping values), a `groupby` with grouping properties only or an `aggregate` of them, or an `aggregate` (filters as
 *   conditions inside the aggregates, so that a group whose rows are all left out gives its row);
 *   other pipelines are refused with `unsupported_feature`.
 */
import type { StructuredType } from '../../model/model.js';
import type { BoundAggregate, BoundGroupKey, BoundSearch, BoundTransformation } from '../../semantic/bound-ast.js';
import { isPrimitive } from '../../semantic/types.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { ApplyRelation, SqlApplyCompiler } from './apply.js';
import type { Scope } from './compiler.js';

type Nest = Extract<BoundTransformation, { kind: 'nest' }>;

/** The transformations that keep rows apart: within a group as over the whole input. */
const ROW_WISE: ReadonlySet<BoundTransformation['kind']> = new Set(['filter', 'search', 'compute', 'identity']);

const unsupported = (what: string, node: { readonly span: { readonly start: number } }) => unsupportedFeature('SQL', what, { node, option: '$apply' });

/** The relation of `groupby((keys), before/nest(items))` over `input`. */
export function groupNest(
  host: SqlApplyCompiler,
  keys: readonly BoundGroupKey[],
  before: readonly BoundTransformation[],
  nest: Nest,
  output: StructuredType,
  input: ApplyRelation,
): ApplyRelation {
  if (input.presence !== undefined) throw unsupported('nest() inside groupby() of rows of different properties (after rollup() or concat())', nest);
  const shared = host.shared({ ...input, order: undefined });
  // The leading row-wise steps once over the whole input; the rest per group.
  const at = before.findIndex((step) => !ROW_WISE.has(step.kind));
  const rowWise = at < 0 ? before : before.slice(0, at);
  const perGroup = at < 0 ? [] : before.slice(at);
  const groups = host.aggregate(keys, [], [], output, shared);
  const g = host.alias();
  const group = { alias: g, output };
  const correlated = host.compiler.dialect.correlatedDerivedTables !== false;
  const rows = correlated && rowWise.length > 0 ? host.shared(host.pipeline(rowWise, shared)) : shared;
  const columns = nest.items.map((item) => {
    const array = correlated
      ? correlatedItem(host, keys, group, [...perGroup, ...item.apply], rows)
      : partitionedItem(host, keys, group, [...before, ...item.apply], shared);
    return `${array} AS ${host.quote(host.column(output, [item.alias]))}`;
  });
  return { from: `(SELECT ${g}.*, ${columns.join(', ')} FROM ${groups.from} ${g})`, type: output, entity: false };
}

/** An item as a correlated subquery: `apply` over the rows of `rows` in the group. */
function correlatedItem(
  host: SqlApplyCompiler,
  keys: readonly BoundGroupKey[],
  group: { alias: string; output: StructuredType },
  apply: readonly BoundTransformation[],
  rows: ApplyRelation,
): string {
  const scope = host.scope(rows);
  const inGroup = host.inGroup(keys, scope, group, () => '');
  const start: ApplyRelation = {
    ...rows,
    from: `(SELECT ${scope.alias}.* FROM ${host.fromOf(rows, scope)} WHERE ${inGroup.join(' AND ') || '1 = 1'})`,
  };
  const sub = host.nested();
  const relation = sub.relationFrom(start, apply, '$apply');
  if (relation.presence !== undefined) throw unsupported('rows of different properties (rollup(), concat()) inside nest()', apply[0] as BoundTransformation);
  const inner = sub.scope(relation);
  return sub.nestedArray(relation, inner);
}

/**
 * An item where a derived table cannot read the group (MariaDB): `apply` over every group's rows
 * (`input`), the grouping values carried as hidden columns, the group's picked in the WHERE of
 * the JSON array.
 */
function partitionedItem(
  host: SqlApplyCompiler,
  keys: readonly BoundGroupKey[],
  group: { alias: string; output: StructuredType },
  apply: readonly BoundTransformation[],
  input: ApplyRelation,
): string {
  const c = host.compiler;
  const dialect = c.dialect;
  const at = apply.findIndex((step) => !ROW_WISE.has(step.kind));
  const steps = at < 0 ? apply : apply.slice(0, at);
  const rest = at < 0 ? [] : apply.slice(at);
  const last = rest[0];
  const refuse = (node: { readonly span: { readonly start: number } }): never => {
    throw unsupported(
      `this pipeline inside nest() inside groupby() on ${dialect.displayName} (a derived table cannot read the group: only filter, search, compute, then orderby, top, skip, a groupby() with an aggregate() at most, or an aggregate())`,
      node,
    );
  };
  if (last !== undefined && rest.every((step, i) => (step.kind === 'orderby' && i === 0) || step.kind === 'top' || step.kind === 'skip'))
    return pagedItem(host, keys, group, steps, rest, input);
  if (rest.length > 1) refuse(rest[1] as BoundTransformation);
  // A grouped value: grouped by another expression (a string by code point), any of the group's equal values.
  const keyValue = (key: BoundGroupKey, scope: Scope): string => {
    const value = c.expression(key.path, scope);
    return host.groupExpression(key, scope, value) === value ? value : `MIN(${value})`;
  };
  // The group's rows compared with the group's grouping values (`g.k`), in a hidden column each (`~o0`, …) where grouped again.
  const hidden = (i: number): string => host.quote(`~o${i}`);
  const picked = (value: (key: BoundGroupKey, i: number) => string): string =>
    keys
      .map((key, i) => {
        const g = `${group.alias}.${host.quote(host.column(group.output, key.names))}`;
        const strings = isPrimitive(key.path.type, 'Edm.String') && !dialect.binaryEquality;
        return dialect.notDistinct(
          () => (strings ? dialect.binary(value(key, i)) : value(key, i)),
          () => (strings ? dialect.binary(g) : g),
        );
      })
      .join(' AND ') || '1 = 1';
  if (last === undefined) {
    const relation = host.pipeline(steps, input);
    const scope = host.scope(relation);
    const where = picked((key) => c.expression(key.path, scope));
    return host.nestedArray(relation, scope, where);
  }
  if (last.kind === 'groupby') {
    // Its own aggregate (of the rows' own values) partitioned too: a group of the item is one of the group's rows.
    const own = last.apply[0];
    const local =
      own === undefined ||
      (own.kind === 'aggregate' && last.apply.length === 1 && own.aggregates.every((a) => a.through === undefined && a.from === undefined));
    if (!local || last.sets !== undefined || last.recursive !== undefined) return refuse(last);
    const relation = host.pipeline(steps, input);
    const scope = host.scope(relation);
    const aggregates = own?.kind === 'aggregate' ? own.aggregates : [];
    const select = [
      ...keys.map((key, i) => `${keyValue(key, scope)} AS ${hidden(i)}`),
      ...last.keys.map((key) => `${keyValue(key, scope)} AS ${host.quote(host.column(last.output, key.names))}`),
      ...aggregates.map((a) => `${host.aggregateOver(a, scope, '')} AS ${host.quote(host.column(last.output, [a.alias]))}`),
    ];
    const by = [...keys, ...last.keys].map((key) => host.groupExpression(key, scope)).join(', ');
    const partitioned: ApplyRelation = {
      from: `(SELECT ${select.join(', ')} FROM ${host.fromOf(relation, scope)} GROUP BY ${by})`,
      type: last.output,
      entity: false,
    };
    const inner = host.scope(partitioned);
    const where = picked((_key, i) => `${inner.alias}.${hidden(i)}`);
    return host.nestedArray(partitioned, inner, where);
  }
  if (last.kind === 'aggregate') {
    if (last.aggregates.some((a) => a.through !== undefined || a.from !== undefined)) return refuse(last);
    // Filters as conditions inside the aggregates, computed values as columns: each group its row.
    let rows = input;
    const conditions: ((scope: Scope) => string)[] = [];
    for (const step of steps) {
      if (step.kind === 'filter') {
        const predicate = step.predicate;
        conditions.push((scope) => c.condition(predicate, scope));
      } else if (step.kind === 'search') {
        const search: BoundSearch = step.search;
        conditions.push((scope) => c.search(search, scope));
      } else if (step.kind === 'compute') rows = host.transformation(step, rows);
    }
    const scope = host.scope(rows);
    const kept = conditions.map((condition) => condition(scope)).join(' AND ');
    const select = [
      ...keys.map((key, i) => `${keyValue(key, scope)} AS ${hidden(i)}`),
      ...last.aggregates.map((a: BoundAggregate) => `${host.aggregateOver(a, scope, kept)} AS ${host.quote(host.column(last.output, [a.alias]))}`),
    ];
    const by = keys.map((key) => host.groupExpression(key, scope)).join(', ');
    const partitioned: ApplyRelation = {
      from: `(SELECT ${select.join(', ')} FROM ${host.fromOf(rows, scope)}${by === '' ? '' : ` GROUP BY ${by}`})`,
      type: last.output,
      entity: false,
    };
    const inner = host.scope(partitioned);
    const where = picked((_key, i) => `${inner.alias}.${hidden(i)}`);
    return host.nestedArray(partitioned, inner, where);
  }
  return refuse(last);
}

/** Which of a group's rows a page keeps, `[from, to)` of their numbers 1, 2, …, and their order: `orderby`, `top`, `skip` in turn. */
function pageOf(rest: readonly BoundTransformation[], host: SqlApplyCompiler): { from: number; to: number; order?: (scope: Scope) => string } {
  let from = 0;
  let to = Number.POSITIVE_INFINITY;
  let order: ((scope: Scope) => string) | undefined;
  for (const step of rest) {
    if (step.kind === 'orderby') {
      const items = step.items;
      order = (scope) => host.orderItems(items, scope);
    } else if (step.kind === 'top') to = Math.min(to, from + step.count);
    else if (step.kind === 'skip') from = Math.min(from + step.count, to);
  }
  return order === undefined ? { from, to } : { from, to, order };
}

/**
 * An item ending in `orderby`, `top`, `skip` where a derived table cannot read the group
 * (MariaDB): every group's rows numbered within their group (`ROW_NUMBER() OVER (PARTITION BY`
 * the grouping values), the group's grouping values carried as hidden columns; the JSON array
 * picks the group's rows in range.
 */
function pagedItem(
  host: SqlApplyCompiler,
  keys: readonly BoundGroupKey[],
  group: { alias: string; output: StructuredType },
  steps: readonly BoundTransformation[],
  rest: readonly BoundTransformation[],
  input: ApplyRelation,
): string {
  const c = host.compiler;
  const dialect = c.dialect;
  const page = pageOf(rest, host);
  const relation = host.pipeline(steps, input);
  const ordered: ApplyRelation = page.order === undefined ? relation : { ...relation, order: page.order };
  const scope = host.scope(ordered);
  const hidden = (i: number): string => host.quote(`~o${i}`);
  const number = host.quote('~number');
  const partition = keys.map((key) => host.groupExpression(key, scope)).join(', ');
  const window = `ROW_NUMBER() OVER (${partition === '' ? '' : `PARTITION BY ${partition} `}ORDER BY ${host.totalOrder(ordered, scope)})`;
  const carried = keys.map((key, i) => `${c.expression(key.path, scope)} AS ${hidden(i)}`);
  const numbered: ApplyRelation = {
    ...ordered,
    from: `(SELECT ${[`${scope.alias}.*`, ...carried, `${window} AS ${number}`].join(', ')} FROM ${host.fromOf(ordered, scope)})`,
  };
  const inner = host.scope(numbered);
  const conditions = keys.map((key, i) => {
    const g = `${group.alias}.${host.quote(host.column(group.output, key.names))}`;
    const value = `${inner.alias}.${hidden(i)}`;
    const strings = isPrimitive(key.path.type, 'Edm.String') && !dialect.binaryEquality;
    return dialect.notDistinct(
      () => (strings ? dialect.binary(value) : value),
      () => (strings ? dialect.binary(g) : g),
    );
  });
  if (page.from > 0) conditions.push(`${inner.alias}.${number} > ${c.value(page.from, 'rowCount')}`);
  if (page.to < Number.POSITIVE_INFINITY) conditions.push(`${inner.alias}.${number} <= ${c.value(page.to, 'rowCount')}`);
  return host.nestedArray(numbered, inner, conditions.join(' AND ') || '1 = 1');
}
