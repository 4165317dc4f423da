/**
 * `groupby` whose nested transformations end in `nest` (Data Aggregation 3.2.3.1 with 3.4.2,
 * example 129): one row per group of the input, its grouping properties and, per nest item, the
 * JSON array of the rows the item's pipeline gives from the group's rows, as a top-level `nest`
 * builds it (in their kept order, else by every column). A group keeps its row when the nested
 * transformations leave none of its rows: its collections are then empty (an `aggregate` gives its
 * one row of no rows).
 *
 * - The input rows are numbered by their group (`DENSE_RANK() OVER (ORDER BY` the grouping values,
 *   null one value, strings by code point), a common table expression: the groups are a GROUP BY
 *   of that number, and each item's rows carry it.
 * - An item whose pipeline is row-wise steps (`filter`, `search`, `compute`, also those before the
 *   nest) followed by nothing, `orderby`/`top`/`skip`, a `groupby` with an `aggregate` at most, or
 *   an `aggregate` runs over every group's rows at once, partitioned by the number (grouped by it
 *   too; a window partitioned by it numbers the rows of a page; an `aggregate` takes the filters as
 *   conditions, so that every group has its row), and its JSON arrays are one GROUP BY of the number
 *   (the dialect's `groupArray`), joined to the groups by it: work that grows with the rows, on
 *   every dialect, MariaDB included.
 * - Another item, where a derived table can read the outer row, is a correlated scalar subquery
 *   per group: its pipeline over the group's rows (any transformations that compile without common
 *   table expressions of their own), which reads the input once per group. MySQL/MariaDB and SQL
 *   Server refuse it (`unsupported_feature`: a derived table there cannot read the group).
 */
import type { StructuredType } from '../../model/model.js';
import type { BoundAggregate, BoundGroupKey, BoundTransformation } from '../../semantic/bound-ast.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import { someExpression, transformationExpressions } from '../../semantic/walk/index.js';
import type { ApplyRelation, SqlApplyCompiler } from './apply.js';
import type { Scope } from './compiler.js';

type Nest = Extract<BoundTransformation, { kind: 'nest' }>;

/** The transformations that keep rows apart: within a group as over the whole input. */
const ROW_WISE: ReadonlySet<BoundTransformation['kind']> = new Set(['filter', 'search', 'compute', 'identity']);

/** The column of a row's group number, under a name no OData identifier has. */
const GROUP = '~group';

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
  // $these inside groupby() is the group's rows: the numbered rows here are every group's.
  const these = transformationExpressions([...before, nest]).some((root) =>
    someExpression(root, (node) => node.kind === 'aggregateValue' && node.collection === undefined),
  );
  if (these) throw unsupported(`'$these' inside groupby()`, nest);
  const c = host.compiler;
  const group = host.quote(GROUP);
  // The input rows with their group's number.
  const source = host.shared({ ...input, order: undefined });
  const s = host.scope(source);
  const ranked = keys.length === 0 ? '1' : `DENSE_RANK() OVER (ORDER BY ${keys.map((key) => host.groupExpression(key, s)).join(', ')})`;
  const numbered = host.shared({ ...source, from: `(SELECT ${s.alias}.*, ${ranked} AS ${group} FROM ${host.fromOf(source, s)})` });
  // The groups: their number and grouping values (a value grouped by another expression, a string by code point: any of the group's equal ones).
  const n = host.scope(numbered);
  const values = keys.map((key) => {
    const value = c.expression(key.path, n);
    const grouped = host.groupExpression(key, n, value);
    return { select: `${grouped === value ? value : `MIN(${value})`} AS ${host.quote(host.column(output, key.names))}`, grouped };
  });
  const by = [`${n.alias}.${group}`, ...values.map((v) => v.grouped)].join(', ');
  const groups = `(SELECT ${[`${n.alias}.${group}`, ...values.map((v) => v.select)].join(', ')} FROM ${host.fromOf(numbered, n)} GROUP BY ${by})`;
  const g = host.alias();
  const joins: string[] = [];
  const columns = nest.items.map((item) => {
    const column = host.quote(host.column(output, [item.alias]));
    const arrays = partitioned(host, [...before, ...item.apply], numbered);
    if (arrays !== undefined) {
      const a = host.alias();
      joins.push(`LEFT JOIN ${arrays} ${a} ON ${a}.${group} = ${g}.${group}`);
      return `COALESCE(${a}.${host.quote('~array')}, ${(c.dialect.groupArray as { empty: string }).empty}) AS ${column}`;
    }
    return `${correlated(host, g, [...before, ...item.apply], numbered)} AS ${column}`;
  });
  const own = keys.map((key) => `${g}.${host.quote(host.column(output, key.names))}`);
  return { from: `(SELECT ${[...own, ...columns].join(', ')} FROM ${groups} ${g}${joins.map((join) => ` ${join}`).join('')})`, type: output, entity: false };
}

/**
 * An item's JSON arrays per group number (`SELECT "~group", array AS "~array" … GROUP BY "~group"`),
 * its pipeline `apply` run over every group's rows at once (`rows`, numbered); `undefined` where the
 * pipeline is not one of those (see the module's description) or the dialect has no `groupArray`.
 */
function partitioned(host: SqlApplyCompiler, apply: readonly BoundTransformation[], rows: ApplyRelation): string | undefined {
  const c = host.compiler;
  if (c.dialect.groupArray === undefined) return undefined;
  const at = apply.findIndex((step) => !ROW_WISE.has(step.kind));
  const steps = at < 0 ? apply : apply.slice(0, at);
  const rest = at < 0 ? [] : apply.slice(at);
  const last = rest[0];
  const group = host.quote(GROUP);
  // The JSON arrays of `relation`'s rows, one per group number.
  const arrays = (relation: ApplyRelation): string => {
    const scope = host.scope(relation);
    const array = host.groupedArray(relation, scope);
    return `(SELECT ${scope.alias}.${group}, ${array} AS ${host.quote('~array')} FROM ${host.fromOf(relation, scope)} GROUP BY ${scope.alias}.${group})`;
  };
  if (last === undefined) return arrays(host.pipeline(steps, rows));
  if (rest.every((step, i) => (step.kind === 'orderby' && i === 0) || step.kind === 'top' || step.kind === 'skip'))
    return arrays(paged(host, rest, host.pipeline(steps, rows)));
  if (rest.length > 1) return undefined;
  if (last.kind === 'groupby') {
    const own = last.apply[0];
    const local =
      own === undefined ||
      (own.kind === 'aggregate' && last.apply.length === 1 && own.aggregates.every((a) => a.through === undefined && a.from === undefined));
    if (!local || last.sets !== undefined || last.recursive !== undefined) return undefined;
    const relation = host.pipeline(steps, rows);
    const scope = host.scope(relation);
    const aggregates = own?.kind === 'aggregate' ? own.aggregates : [];
    const grouped = last.keys.map((key) => {
      const value = c.expression(key.path, scope);
      return { value, grouped: host.groupExpression(key, scope, value), column: host.quote(host.column(last.output, key.names)) };
    });
    const select = [
      `${scope.alias}.${group}`,
      ...grouped.map((k) => `${k.grouped === k.value ? k.value : `MIN(${k.value})`} AS ${k.column}`),
      ...aggregates.map((a) => `${host.aggregateOver(a, scope, '')} AS ${host.quote(host.column(last.output, [a.alias]))}`),
    ];
    const by = [`${scope.alias}.${group}`, ...grouped.map((k) => k.grouped)].join(', ');
    return arrays({ from: `(SELECT ${select.join(', ')} FROM ${host.fromOf(relation, scope)} GROUP BY ${by})`, type: last.output, entity: false });
  }
  if (last.kind === 'aggregate') {
    if (last.aggregates.some((a) => a.through !== undefined || a.from !== undefined)) return undefined;
    // Filters as conditions inside the aggregates, computed values as columns: each group its row.
    const { rows: relation, conditions } = host.rowWise(steps, rows);
    const scope = host.scope(relation);
    const kept = conditions.map((condition) => condition(scope)).join(' AND ');
    const select = [
      `${scope.alias}.${group}`,
      ...last.aggregates.map((a: BoundAggregate) => `${host.aggregateOver(a, scope, kept)} AS ${host.quote(host.column(last.output, [a.alias]))}`),
    ];
    return arrays({
      from: `(SELECT ${select.join(', ')} FROM ${host.fromOf(relation, scope)} GROUP BY ${scope.alias}.${group})`,
      type: last.output,
      entity: false,
    });
  }
  return undefined;
}

/**
 * The rows of each group that `orderby`, `top`, `skip` keep (`[from, to)` of their numbers in
 * that order, `ROW_NUMBER() OVER (PARTITION BY` the group's number`)`), their order kept.
 */
function paged(host: SqlApplyCompiler, rest: readonly BoundTransformation[], relation: ApplyRelation): ApplyRelation {
  const c = host.compiler;
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
  const ordered: ApplyRelation = order === undefined ? relation : { ...relation, order };
  if (from === 0 && to === Number.POSITIVE_INFINITY) return ordered;
  const scope = host.scope(ordered);
  const number = host.quote('~number');
  const window = `ROW_NUMBER() OVER (PARTITION BY ${scope.alias}.${host.quote(GROUP)} ORDER BY ${host.totalOrder(ordered, scope)})`;
  const numbered = `(SELECT ${scope.alias}.*, ${window} AS ${number} FROM ${host.fromOf(ordered, scope)})`;
  const outer = host.alias();
  const range = [
    ...(from > 0 ? [`${outer}.${number} > ${c.value(from, 'rowCount')}`] : []),
    ...(to < Number.POSITIVE_INFINITY ? [`${outer}.${number} <= ${c.value(to, 'rowCount')}`] : []),
  ];
  return { ...ordered, from: `(SELECT ${outer}.* FROM ${numbered} ${outer} WHERE ${range.join(' AND ')})` };
}

/**
 * An item as a correlated subquery: `apply` over the rows of `rows` in the group (`group`, the
 * alias of the groups, by its number). Refused where a derived table cannot read the group.
 */
function correlated(host: SqlApplyCompiler, group: string, apply: readonly BoundTransformation[], rows: ApplyRelation): string {
  const dialect = host.compiler.dialect;
  if (dialect.correlatedDerivedTables === false) {
    const other = apply.find((step) => !ROW_WISE.has(step.kind)) ?? (apply[0] as BoundTransformation);
    throw unsupported(
      dialect.groupArray === undefined
        ? `nest() inside groupby() on ${dialect.displayName} (no JSON array aggregate here, and a derived table cannot read the group)`
        : `this pipeline inside nest() inside groupby() on ${dialect.displayName} (a derived table cannot read the group: only filter, search, compute, then orderby, top, skip, a groupby() with an aggregate() at most, or an aggregate())`,
      other,
    );
  }
  const scope = host.scope(rows);
  const start: ApplyRelation = {
    ...rows,
    from: `(SELECT ${scope.alias}.* FROM ${host.fromOf(rows, scope)} WHERE ${scope.alias}.${host.quote(GROUP)} = ${group}.${host.quote(GROUP)})`,
  };
  const sub = host.nested();
  const relation = sub.relationFrom(start, apply, '$apply');
  if (relation.presence !== undefined) throw unsupported('rows of different properties (rollup(), concat()) inside nest()', apply[0] as BoundTransformation);
  return sub.nestedArray(relation, sub.scope(relation));
}
