/**
 * `$expand` in SQL: each expanded navigation property a correlated subquery in the select list
 * that the dialect turns into JSON (an object, or an array ordered and paged), `/$count` a
 * `COUNT(*)`, `/$ref` the keys only; and the stored columns a `$select` returns.
 */
import { geoFamilyOf } from '../../reference/geo.js';
import { DYNAMIC_PROPERTIES } from '../../storage/dynamic-properties.js';
import type { Property, StructuredType } from '../../model/model.js';
import type { BoundComputeItem, BoundExpandItem, BoundPath, BoundQueryOptions, BoundSelect, BoundTransformation } from '../../semantic/bound-ast.js';
import { isUntyped } from '../../semantic/types.js';
import { unknownTarget, unsupportedFeature } from '../../passes/unsupported.js';
import { SqlApplyCompiler } from './apply.js';
import type { Scope, SqlCompiler } from './compiler.js';
import type { JsonEntry } from './dialect.js';
import { columnName, dynamicColumnName } from './mapping.js';
import { orderByItems } from './ordering.js';
import { selectOptionsRefusal } from '../../semantic/select-options.js';
import { selectOptionsRefused } from './select-options.js';
import { spatialText } from './spatial-text.js';

const unsupported = (what: string) => unsupportedFeature('SQL', what);

/**
 * The stored columns to return for a select (every selectable property without `$select`):
 * complex values as their flattened leaves, each with its path from the row.
 */
export function selected(compiler: SqlCompiler, options: BoundQueryOptions, type: StructuredType, withOptions = false): readonly Leaf[] {
  // Options on $select items (semantic/select-options.ts): on the request's rows (select-options.ts), not inside $expand.
  for (const item of options.select.properties) {
    if (item.options === undefined) continue;
    const last = item.path[item.path.length - 1] as Property;
    const refused = withOptions ? selectOptionsRefused(item, compiler) : `${selectOptionsRefusal(last)} inside $expand`;
    if (refused !== undefined) throw unsupportedFeature('SQL', refused, { node: item, option: '$select' });
  }
  if (options.select.all) return allLeaves(compiler, type);
  return options.select.properties.flatMap((item) => {
    // A path into a complex value: the leaves under its last step, with the path before it.
    let owner = type;
    let prefix = '';
    const path = item.path as Property[];
    for (const property of path.slice(0, -1)) {
      prefix += `${columnName(owner, property, compiler.mapping)}_`;
      owner = (property.type as { type: StructuredType }).type;
    }
    const last = path[path.length - 1] as Property;
    if (last.collection && last.type.kind === 'complex' && path.length > 1)
      throw unsupported(`selecting the collection of complex values '${last.name}' inside a complex value (it has no column)`);
    if (last.collection && last.type.kind === 'complex' && compiler.dialect.complexCollections === undefined)
      throw unsupported(`selecting the collection of complex values '${last.name}' on ${compiler.dialect.displayName}`);
    return compiler
      .leaves(owner, last, prefix)
      .map((leaf) => ({ ...leaf, path: [...path.slice(0, -1), ...leaf.path], ...(item.options === undefined ? {} : { item }) }));
  });
}

/** A stored column to return; with `item`, the options of a `$select` item apply to it (select-options.ts). */
type Leaf = { readonly path: readonly Property[]; readonly column: string; readonly property: Property; readonly item?: BoundSelect['properties'][number] };

const NONE: readonly BoundComputeItem[] = [];

/** The computed properties (`$compute`) a select returns, in `$compute` order. */
export function selectedComputed(options: BoundQueryOptions): readonly BoundComputeItem[] {
  const names = options.select.computed;
  if (names === undefined || names.length === 0 || options.compute === undefined) return NONE;
  return options.compute.filter((item) => names.includes(item.name));
}

/** The value expressions of computed properties on the rows of `scope` (errors placed in `$compute`, or `$expand` when nested). */
export function computedColumns(compiler: SqlCompiler, items: readonly BoundComputeItem[], scope: Scope): string[] {
  return compiler.withOption('$compute', () =>
    items.map((item) =>
      spatialText(compiler.dialect, item.type.kind === 'primitive' ? item.type.name : undefined, false, compiler.expression(item.expression, scope)),
    ),
  );
}

/**
 * The leaves of every selectable property of a type (the select without `$select`); collections
 * of complex values (one JSON column each) where the dialect stores them. They depend on the type,
 * the naming and that only, unless the mapping names columns, so they are kept per type, naming
 * and storage (a model's types are immutable) instead of being derived on every compile.
 */
const allLeavesByType = new WeakMap<StructuredType, Partial<Record<string, readonly Leaf[]>>>();
function allLeaves(compiler: SqlCompiler, type: StructuredType): readonly Leaf[] {
  const json = compiler.dialect.complexCollections !== undefined;
  const derive = (): readonly Leaf[] =>
    [...type.properties.values()]
      .filter((p) => p.selectable && (json || !(p.collection && p.type.kind === 'complex')))
      .flatMap((p) => compiler.leaves(type, p));
  if (compiler.mapping.columns !== undefined) return derive();
  const key = `${compiler.mapping.naming === 'snake_case' ? 'snake_case' : 'asIs'}${json ? '+json' : ''}`;
  let kept = allLeavesByType.get(type);
  if (kept === undefined) allLeavesByType.set(type, (kept = {}));
  return (kept[key] ??= derive());
}

/**
 * The entries of the JSON object of a row in `scope`: its selected properties (paths into
 * complex values keep their nesting) and its nested expansions. The dialect builds the JSON.
 */
export function jsonEntries(
  compiler: SqlCompiler,
  options: BoundQueryOptions,
  scope: Scope,
  keysOnly: boolean,
  /** Rows `$apply` made: a dynamic property's JSON text (a grouped or computed one) as its JSON value (the dialect's `asJson`). */
  applied = false,
): JsonEntry[] {
  const asJson = applied ? compiler.dialect.dynamicProperties?.asJson : undefined;
  const columns = keysOnly
    ? scope.type.key.map((k) => compiler.leaves(scope.type, scope.type.properties.get(k) as Property)).flat()
    : selected(compiler, options, scope.type);
  const entries: JsonEntry[] = columns.map(({ path, column }) => {
    const property = path[path.length - 1] as Property;
    const value = `${scope.alias}.${compiler.dialect.quote(column)}`;
    if (asJson !== undefined && property.type.kind === 'primitive' && property.type.name === 'Edm.Untyped' && !property.collection)
      return { path: path.map((p) => p.name), value: asJson(value), kind: 'json' as const };
    // A spatial value of such rows as its GeoJSON object (the reference's form), not the text of one.
    if (asJson !== undefined && property.type.kind === 'primitive' && geoFamilyOf(property.type.name) !== undefined && !property.collection)
      return { path: path.map((p) => p.name), value: asJson(spatialText(compiler.dialect, property.type.name, false, value)), kind: 'json' as const };
    return {
      path: path.map((p) => p.name),
      value: spatialText(compiler.dialect, property.type.kind === 'primitive' ? property.type.name : undefined, property.collection, value),
      kind: property.collection ? 'collection' : 'value',
    };
  });
  // The dynamic properties of rows `$apply` made of an open type's rows (`nest(identity as x)`): their column's JSON object, as the reference's rows hold it.
  const dynamic = applied && asJson !== undefined && options.select.all ? dynamicColumnName(scope.type, compiler.mapping) : undefined;
  if (!keysOnly && dynamic !== undefined && asJson !== undefined)
    entries.push({ path: [DYNAMIC_PROPERTIES], value: asJson(`${scope.alias}.${compiler.dialect.quote(compiler.storedName(dynamic))}`), kind: 'json' });
  if (!keysOnly) {
    const computed = selectedComputed(options);
    if (computed.length > 0) {
      // A dynamic property (its JSON text) would be a string in the expansion's JSON.
      const dynamic = computed.find((item) => isUntyped(item.type));
      if (dynamic !== undefined) throw unsupportedFeature('SQL', `the dynamic property '${dynamic.name}' in $select inside $expand`, { option: '$expand' });
      const values = computedColumns(compiler, computed, scope);
      computed.forEach((item, i) => entries.push({ path: [item.name], value: values[i] as string, kind: 'value' }));
    }
    for (const item of options.expand) {
      for (const [name, sql] of expansion(compiler, item, scope))
        entries.push({ path: [name], value: sql(), kind: name.endsWith('@odata.count') ? 'value' : 'json' });
    }
  }
  return entries;
}

/**
 * The columns for one expanded navigation property: `[name, sql]` pairs. A single-valued one is
 * a JSON object (or null); a collection a JSON array, ordered and paged; `/$count` a number.
 */
export function expansion(compiler: SqlCompiler, item: BoundExpandItem, from: Scope): [string, () => string][] {
  const options = item.options;
  const name = item.navigation.name;
  if (options.apply !== undefined) return applyExpansion(compiler, item, from);
  // Every piece is built when the returned function runs (statement() numbers the placeholders
  // in the order of the text, whatever order the pieces are built in).
  const parts = () => {
    // The target entity set is the expansion's own: a refusal of it is placed in $expand.
    if (item.entitySet === undefined) throw unsupportedFeature('SQL', unknownTarget(item.navigation), { option: '$expand' });
    const related = item.made === undefined ? compiler.related(item, from) : compiler.madeRelated(item.made, item, from);
    const scope: Scope = { ...related.scope, variables: new Map() };
    const where = compiler.conditions(options, scope);
    return { related, scope, where: where === '' ? related.join : `${related.join} AND ${where}` };
  };
  const count = (): string => {
    const { related, where } = parts();
    return `(SELECT COUNT(*) FROM ${related.from} WHERE ${where})`;
  };
  if (item.form === '$count') return [[`${name}@odata.count`, count]];
  const { expandOne, expandMany } = compiler.dialect;
  if (expandOne === undefined || expandMany === undefined) throw unsupported(`$expand on ${compiler.dialect.displayName} (yet)`);
  const keysOnly = item.form === '$ref';
  const key = (text: string): string => compiler.value(text, 'string');
  if (!item.navigation.collection) {
    return [
      [
        name,
        () => {
          const { related, scope, where } = parts();
          return expandOne({ entries: jsonEntries(compiler, options, scope, keysOnly), from: related.from, where }, key);
        },
      ],
    ];
  }
  const array = (): string => {
    const { related, scope, where } = parts();
    const order = (): string =>
      orderByItems(compiler, options, scope) ||
      scope.type.key.map((k) => `${compiler.column(scope.type, scope.type.properties.get(k) as Property, scope.alias)} ASC`).join(', ');
    const top = options.top === undefined ? undefined : compiler.value(options.top, 'rowCount');
    const skip = options.skip === undefined ? undefined : compiler.value(options.skip, 'rowCount');
    return expandMany(
      {
        entries: jsonEntries(compiler, options, scope, keysOnly),
        from: related.from,
        where,
        order,
        paging: top === undefined && skip === undefined ? '' : compiler.dialect.paging(top, skip),
      },
      key,
    );
  };
  const columns: [string, () => string][] = [[name, array]];
  if (options.count === true) columns.push([`${name}@odata.count`, count]);
  return columns;
}

/**
 * An expanded collection with `$apply` (Data Aggregation 3.8): the pipeline over the related
 * entities of the row (a correlated SELECT), then the expansion's own options over what it gives,
 * as a JSON array (an `aggregate` of no related entities still gives its one row), or for a
 * single-valued navigation property the one row it gives (or null). Refused where the rows would
 * differ in their properties (rollup, concat: the objects are built with every property) and
 * where the pipeline reads its rows twice.
 */
function applyExpansion(compiler: SqlCompiler, item: BoundExpandItem, from: Scope): [string, () => string][] {
  const options = item.options;
  const apply = options.apply as NonNullable<BoundQueryOptions['apply']>;
  const name = item.navigation.name;
  const { expandOne, expandMany } = compiler.dialect;
  if (expandOne === undefined || expandMany === undefined) throw unsupported(`$expand on ${compiler.dialect.displayName} (yet)`);
  // Where a derived table cannot read the expanded row (MariaDB): the pipeline over every related
  // row at once, the row's own picked by the expansion's WHERE, or an aggregate's scalar subqueries.
  const decorrelated = compiler.dialect.correlatedDerivedTables === false;
  if (decorrelated) {
    const aggregated = aggregateExpansion(compiler, item, from);
    if (aggregated !== undefined) return aggregated;
    const other = notDecorrelated(apply.transformations);
    if (other !== undefined)
      throw unsupportedFeature(
        'SQL',
        `${other.kind === 'rank' ? 'topcount() and its kin' : `${other.kind}()`} in $apply inside $expand on ${compiler.dialect.displayName} (a derived table cannot read the expanded row: only filter, search, compute, orderby, or filters then an aggregate())`,
        { node: other, option: '$expand' },
      );
  }
  const parts = () => {
    if (item.entitySet === undefined) throw unsupportedFeature('SQL', unknownTarget(item.navigation), { option: '$expand' });
    const related = item.made === undefined ? compiler.related(item, from) : compiler.madeRelated(item.made, item, from);
    if (decorrelated) {
      const table = `${compiler.table(item.entitySet)} ${related.scope.alias}`;
      if (related.from !== table)
        throw unsupportedFeature(
          'SQL',
          `$apply inside $expand over a link table on ${compiler.dialect.displayName} (a derived table cannot read the expanded row)`,
          {
            option: '$expand',
          },
        );
      // Row-wise steps keep every column of the related table: the link's columns too, which the join reads.
      const every = `(SELECT ${related.scope.alias}.* FROM ${table})`;
      const relation = new SqlApplyCompiler(compiler, item.entitySet, `${related.scope.alias}a`).relationOver(apply, every, '$expand');
      const scope: Scope = { alias: related.scope.alias, type: relation.type, set: item.entitySet, variables: new Map() };
      const own = compiler.conditions(options, scope);
      return { relation, scope, where: own === '' ? related.join : `${related.join} AND ${own}` };
    }
    const rows = `(SELECT ${related.scope.alias}.* FROM ${related.from} WHERE ${related.join})`;
    const relation = new SqlApplyCompiler(compiler, item.entitySet, `${related.scope.alias}a`).relationOver(apply, rows, '$expand');
    if (relation.presence !== undefined)
      throw unsupportedFeature('SQL', 'rows of different properties (rollup(), concat()) in $apply inside $expand', { option: '$expand' });
    const scope: Scope = { alias: `${related.scope.alias}r`, type: relation.type, set: item.entitySet, variables: new Map() };
    return { relation, scope, where: compiler.conditions(options, scope) || '1 = 1' };
  };
  if (!item.navigation.collection) {
    // The pipeline over the one related entity (or none) gives one row at most (concat, the only
    // transformation that could give more, is refused above): its object, or null.
    return [
      [
        name,
        () => {
          const { relation, scope, where } = parts();
          return expandOne({ entries: jsonEntries(compiler, options, scope, false, true), from: `${relation.from} ${scope.alias}`, where }, (text) =>
            compiler.value(text, 'string'),
          );
        },
      ],
    ];
  }
  const array = (): string => {
    const { relation, scope, where } = parts();
    const order = (): string => {
      const requested = orderByItems(compiler, options, scope);
      if (requested !== '') return requested;
      const kept = relation.order?.(scope);
      // Entities by their key; other rows by every column (a page is the same on every run).
      const columns = relation.entity
        ? scope.type.key.map((k) => compiler.column(scope.type, scope.type.properties.get(k) as Property, scope.alias))
        : allLeaves(compiler, scope.type).map((leaf) => `${scope.alias}.${compiler.dialect.quote(leaf.column)}`);
      return (
        [
          ...(kept === undefined || kept === '' ? [] : [kept]),
          ...columns.map((c) => (compiler.dialect.nullsFirstByDefault ? `${c} ASC` : `${c} ASC NULLS FIRST`)),
        ].join(', ') || '1'
      );
    };
    const top = options.top === undefined ? undefined : compiler.value(options.top, 'rowCount');
    const skip = options.skip === undefined ? undefined : compiler.value(options.skip, 'rowCount');
    return expandMany(
      {
        entries: jsonEntries(compiler, options, scope, false, true),
        from: `${relation.from} ${scope.alias}`,
        where,
        order,
        paging: top === undefined && skip === undefined ? '' : compiler.dialect.paging(top, skip),
      },
      (text) => compiler.value(text, 'string'),
    );
  };
  const columns: [string, () => string][] = [[name, array]];
  if (options.count === true) {
    columns.push([
      `${name}@odata.count`,
      () => {
        const { relation, scope, where } = parts();
        return `(SELECT COUNT(*) FROM ${relation.from} ${scope.alias} WHERE ${where})`;
      },
    ]);
  }
  return columns;
}

/** The transformations whose rows keep every column of the related table (and so the link's): see {@link applyExpansion}. */
const DECORRELATED: ReadonlySet<BoundTransformation['kind']> = new Set(['filter', 'search', 'compute', 'identity', 'orderby']);

/**
 * Whether a pipeline over a row's related entities compiles where a derived table cannot read the
 * row (MariaDB): row-wise steps and `orderby`, or filters then an `aggregate`; else the first
 * transformation that does not.
 */
export function notDecorrelated(transformations: readonly BoundTransformation[]): BoundTransformation | undefined {
  const last = transformations.at(-1);
  if (last?.kind === 'aggregate' && transformations.slice(0, -1).every((t) => t.kind === 'filter' || t.kind === 'search' || t.kind === 'identity'))
    return last.aggregates.every((a) => a.from === undefined && a.through === undefined) ? undefined : last;
  return transformations.find((t) => !DECORRELATED.has(t.kind));
}

/**
 * `$expand=Nav($apply=…/aggregate(…))` after filters only, where a derived table cannot read the
 * expanded row (MariaDB): the one row of aggregates (also of no related entities, 3.8), each a
 * scalar subquery over the row's related entities that pass the filters (as the aggregate function
 * `Nav/aggregate(…)` compiles), in a JSON array of one object (or the object, for a single-valued
 * navigation property). `undefined` for other pipelines; refused with options beside `$apply`.
 */
function aggregateExpansion(compiler: SqlCompiler, item: BoundExpandItem, from: Scope): [string, () => string][] | undefined {
  const options = item.options;
  const transformations = (options.apply as NonNullable<BoundQueryOptions['apply']>).transformations;
  const last = transformations.at(-1);
  const before = transformations.slice(0, -1);
  if (last?.kind !== 'aggregate' || !before.every((t) => t.kind === 'filter' || t.kind === 'search' || t.kind === 'identity')) return undefined;
  if (notDecorrelated(transformations) !== undefined) return undefined;
  const others =
    options.filter !== undefined ||
    options.search !== undefined ||
    options.orderBy !== undefined ||
    options.top !== undefined ||
    options.skip !== undefined ||
    options.count === true ||
    (options.compute?.length ?? 0) > 0 ||
    options.expand.length > 0 ||
    !options.select.all;
  if (others)
    throw unsupportedFeature(
      'SQL',
      `options beside $apply=…/aggregate(…) inside $expand on ${compiler.dialect.displayName} (a derived table cannot read the expanded row)`,
      { option: '$expand' },
    );
  const { expandOne, expandMany } = compiler.dialect;
  if (expandOne === undefined || expandMany === undefined) throw unsupported(`$expand on ${compiler.dialect.displayName} (yet)`);
  const span = last.span;
  const path: BoundPath = {
    kind: 'path',
    root: { kind: 'it' },
    steps: [{ kind: 'navigation', navigation: item.navigation, entitySet: item.entitySet, span }],
    type: { kind: 'collection', element: { kind: 'entity', type: item.navigation.target } },
    span,
  };
  const keep = before.some((t) => t.kind !== 'identity')
    ? (related: Scope): string =>
        before
          .flatMap((t) => (t.kind === 'filter' ? [compiler.condition(t.predicate, related)] : t.kind === 'search' ? [compiler.search(t.search, related)] : []))
          .join(' AND ')
    : undefined;
  const sql = (): string => {
    const entries: JsonEntry[] = last.aggregates.map((aggregate) => ({
      path: [aggregate.alias],
      value: compiler.withOption('$expand', () => compiler.relatedAggregate(path, aggregate, from, aggregate.span, keep)),
      kind: 'value',
    }));
    // One row to build the object from; the array's order reads it, so that JSON_ARRAYAGG belongs
    // to this SELECT (MariaDB places an aggregate whose arguments read only outer rows in the outer query).
    const one = compiler.freshAlias();
    const rows = { entries, from: `(SELECT 1 AS ${compiler.dialect.quote('x')}) ${one}`, where: '1 = 1' };
    const key = (text: string): string => compiler.value(text, 'string');
    if (!item.navigation.collection) return expandOne(rows, key);
    return expandMany({ ...rows, order: () => `${one}.${compiler.dialect.quote('x')}`, paging: '' }, key);
  };
  return [[item.navigation.name, sql]];
}
