/**
 * `compileQuery`: the in-memory backend. A bound query compiles once into closures that filter,
 * sort, page and project arrays of rows, in the order PROT 11.2.1 prescribes: `$search`,
 * `$filter`, `$count`, `$orderby`, `$skip`, `$top`, then `$expand` and `$select`.
 */
import { DYNAMIC_PROPERTIES } from '../../storage/dynamic-properties.js';
import { joinedKeys, orderedByApply } from '../../semantic/apply/output-order.js';
import type { Property, StructuredType } from '../../model/model.js';
import type { NodeRows } from './hierarchy.js';
import type { BoundExpandItem, BoundQuery, BoundQueryOptions, BoundSearch } from '../../semantic/bound-ast.js';
import { fromReference } from '../../semantic/types.js';
import { ReferenceCompiler } from '../../reference/evaluator.js';
import { propertyGetter, type NavigationResolver, type Row } from '../../reference/rows.js';
import { compareKeys, keyValues, type SortKey } from './ordering.js';
import { compileApply } from './apply-pipeline.js';
import { dataResolver } from './data-resolver.js';
import { NO_STORAGE, type StorageMapping } from '../../storage/storage-mapping.js';
import { defaultSearch, type SearchFunction } from '../../reference/search.js';
import { unknownTarget, unsupportedFeature } from '../../passes/unsupported.js';
import { domainOf, storedForm } from '../../reference/values.js';

/** Options of {@link compileQuery}. */
export interface MemoryBackendOptions {
  /**
   * Rows of every stored table, by name: entity sets by their names, contained entities by their
   * implicit sets' (`Person_Trips`), link tables by theirs. Navigation properties in `$filter` and
   * `$expand` are followed through them by the storage mapping (referential constraints, foreign
   * keys, containers' keys and link tables; see `storedTables`). Rows are then in stored form: an
   * open type's dynamic properties are members of the object in its JSON column
   * (`DynamicProperties`, storage/dynamic-properties.ts); without `data`, they are the row's own.
   */
  readonly data?: Readonly<Record<string, readonly Row[]>>;
  /** Overrides of the storage conventions (the same as the SQL and MongoDB mappings'). */
  readonly storage?: StorageMapping;
  /** A custom way to follow navigation properties (instead of, or on top of, `data`). */
  readonly resolve?: NavigationResolver;
  /** A custom `$search` matcher; the default matches every term in the string properties. */
  readonly search?: SearchFunction;
}

/** The result of {@link CompiledQuery.apply}. */
export interface QueryResult {
  readonly value: Row[];
  readonly count?: number;
}

/**
 * A compiled query. With `$apply`, `predicate`, `compare` and `project` read the rows `$apply`
 * gives (its output type), and `apply` runs `$apply` first.
 */
export interface CompiledQuery {
  /** `$search` and `$filter`: true for the rows that belong to the result. */
  predicate(row: Row): boolean;
  /** `$orderby` (with the key appended when paging needs a unique order), nulls first ascending. */
  compare(a: Row, b: Row): number;
  /** `$select` and `$expand` applied to one row. */
  project(row: Row): Row;
  /** The whole query over `rows`: `{ value, count }` (`count` with `$count=true`). */
  apply(rows: readonly Row[]): QueryResult;
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);

/** Sets an own property, even one named `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Compiles a bound query for arrays of rows. The result runs any number of times.
 *
 * @example
 * ```ts
 * const query = compileQuery(bindQuery("$filter=price gt 50&$orderby=name&$top=10", { model, entitySet: 'products' }));
 * const { value } = query.apply(products);
 * ```
 */
export function compileQuery(bound: BoundQuery, options: MemoryBackendOptions = {}): CompiledQuery {
  const fromData = options.data === undefined ? undefined : dataResolver(options.data, options.storage);
  const resolve: NavigationResolver = options.resolve ?? fromData ?? ((navigation) => (navigation.collection ? [] : null));
  return compileOptions(
    bound,
    bound.entityType,
    resolve,
    options.search ?? defaultSearch,
    options.resolve === undefined && fromData !== undefined ? (options.storage ?? NO_STORAGE) : undefined,
    options.data,
  );
}

function compileOptions(
  options: BoundQueryOptions,
  entityType: StructuredType,
  resolve: NavigationResolver,
  search: SearchFunction,
  stored: StorageMapping | undefined,
  data?: Readonly<Record<string, readonly Row[]>>,
  outer?: NodeRows,
): CompiledQuery {
  const compiler = new ReferenceCompiler(resolve, search, stored !== undefined, stored);
  // The nodes of a hierarchy: its entity set's rows in `data`, else the rows queried when they are
  // of its type; inside `$expand(…)` and `$select(…)` options, the request's (not the related rows).
  let queried: readonly Row[] = [];
  const nodes: NodeRows =
    outer ?? ((set) => (data !== undefined ? (Object.hasOwn(data, set.name) ? data[set.name] : undefined) : set.type === entityType ? queried : undefined));
  compiler.nodes = nodes;
  // $apply first: the other options read the rows it gives, of its output type.
  const transform = options.apply === undefined ? undefined : compileApply(options.apply, compiler, search, { streaming: true, nodes });
  const type = options.apply?.output ?? entityType;
  // Errors inside an expansion's options are placed in $expand, as the SQL and MongoDB backends place them.
  const nested = !('kind' in options);
  compiler.option = nested ? '$expand' : '$filter';
  const filterEvaluator = options.filter === undefined ? undefined : compiler.compile(options.filter);
  const filter = filterEvaluator === undefined ? undefined : (row: Row): boolean => filterEvaluator(row, NO_VARIABLES) === true;
  const searchExpression: BoundSearch | undefined = options.search;
  const predicate =
    searchExpression === undefined
      ? (filter ?? (() => true))
      : filter === undefined
        ? (row: Row) => search(row, searchExpression)
        : (row: Row) => search(row, searchExpression) && filter(row);

  compiler.option = nested ? '$expand' : '$orderby';
  const keys: SortKey[] = (options.orderBy ?? []).map((item) => ({
    evaluate: compiler.compile(item.expression),
    domain: domainOf(item.expression.type),
    descending: item.direction === 'desc',
  }));
  // PROT 11.2.6.3: paging needs a stable, unique order; append the key unless it is already ordered by
  // (not where $apply's rows come in an order of their own and $orderby gives none: its order is the
  // result's, and the pipeline gives it the same on every request; semantic/apply/output-order.ts).
  const applyOrder = options.orderBy === undefined && options.apply !== undefined && orderedByApply(options.apply.transformations);
  if ((options.top !== undefined || options.skip !== undefined) && !applyOrder) {
    const ordered = new Set(
      (options.orderBy ?? []).flatMap((item) =>
        item.expression.kind === 'path' &&
        item.expression.root.kind === 'it' &&
        item.expression.steps.length === 1 &&
        item.expression.steps[0]?.kind === 'property'
          ? [item.expression.steps[0].property.name]
          : [],
      ),
    );
    for (const name of type.key) {
      if (ordered.has(name)) continue;
      const property = type.properties.get(name);
      if (property === undefined) continue;
      const get = propertyGetter(name);
      keys.push({ evaluate: (row) => get(row) ?? null, domain: domainOf(fromReference(property.type)), descending: false });
    }
    // Joined rows: the key of each joined entity too (the rows' own key repeats).
    for (const { alias, key } of joinedKeys(type)) {
      const [of, get] = [propertyGetter(alias.name), propertyGetter(key.name)];
      keys.push({
        evaluate: (row) => {
          const entity = of(row);
          return entity === null || typeof entity !== 'object' ? null : (get(entity as Row) ?? null);
        },
        domain: domainOf(fromReference(key.type)),
        descending: false,
      });
    }
  }
  const sortKey = (row: Row): unknown[] => keyValues(keys, row);
  const compare = (a: Row, b: Row): number => compareKeys(keys, sortKey(a), sortKey(b));

  compiler.option = nested ? '$expand' : '$compute';
  const project = projector(options, type, resolve, search, stored, computedValues(options, compiler), nodes);

  // What apply needs of the options, read once here: apply closures of every compiled query share
  // their optimized code, and reading the bound options (whose shapes differ from query to query)
  // on each call made that code deoptimize over and over when two queries ran in turn.
  const withCount = options.count === true;
  const skip = options.skip ?? 0;
  const end = options.top === undefined ? undefined : skip + options.top;
  const paged = skip > 0 || end !== undefined;
  const matches = (rows: readonly Row[]): Row[] => {
    // The current collection of $these/aggregate(…) in $filter, $orderby and $compute.
    compiler.collection = rows;
    const matching: Row[] = [];
    if (filterEvaluator !== undefined && searchExpression === undefined) {
      // The common case, without the predicate wrapper: one call per row.
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Row;
        if (filterEvaluator(row, NO_VARIABLES) === true) matching.push(row);
      }
    } else {
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Row;
        if (predicate(row)) matching.push(row);
      }
    }
    return matching;
  };
  // (A null element of a collection of complex values, under options of a $select item, stays null.)
  const projectOrNull = (row: Row): Row => (row === null ? row : project(row));
  // Two forms, so that a query without order or paging runs code of its own (with feedback of its own).
  const apply =
    keys.length === 0 && !paged
      ? (rows: readonly Row[]): QueryResult => {
          const matching = matches(rows);
          const value = matching.map(projectOrNull);
          return withCount ? { value, count: matching.length } : { value };
        }
      : (rows: readonly Row[]): QueryResult => {
          const matching = matches(rows);
          const count = withCount ? matching.length : undefined;
          let ordered = matching;
          if (keys.length > 0) {
            // Decorate, sort, undecorate: every key is computed once per row; ties keep input order.
            const decorated = matching.map((row, index) => ({ row, index, key: sortKey(row) }));
            decorated.sort((a, b) => compareKeys(keys, a.key, b.key) || a.index - b.index);
            ordered = decorated.map((entry) => entry.row);
          }
          const page = paged ? ordered.slice(skip, end) : ordered;
          const value = page.map(projectOrNull);
          return count === undefined ? { value } : { value, count };
        };
  return {
    predicate,
    compare,
    project,
    apply: (rows) => {
      queried = rows;
      return transform === undefined ? apply(rows) : apply(transform(rows));
    },
  };
}

/** The computed properties `$select` returns (`select.computed`), each its name and value as rows store values of its type. */
type ComputedValue = readonly [name: string, value: (row: Row) => unknown];
function computedValues(options: BoundQueryOptions, compiler: ReferenceCompiler): readonly ComputedValue[] {
  const names = options.select.computed;
  if (names === undefined || names.length === 0) return [];
  return (options.compute ?? [])
    .filter((item) => names.includes(item.name))
    .map((item): ComputedValue => {
      const evaluate = compiler.compile(item.expression);
      return [item.name, (row) => storedForm(item.type, evaluate(row, NO_VARIABLES))];
    });
}

function projector(
  options: BoundQueryOptions,
  type: StructuredType,
  resolve: NavigationResolver,
  search: SearchFunction,
  stored: StorageMapping | undefined,
  computed: readonly ComputedValue[],
  nodes: NodeRows,
): (row: Row) => Row {
  const select = options.select;
  // With `*`, a property listed with options (`*,Places($top=1)`) keeps them.
  const items: readonly { readonly path: readonly Property[]; readonly options?: BoundQueryOptions }[] = select.all
    ? [...type.properties.values()]
        .filter((property) => property.selectable)
        .map(
          (property) =>
            select.properties.find((item) => item.options !== undefined && item.path.length === 1 && item.path[0] === property) ?? { path: [property] },
        )
    : select.properties;
  const properties = items.map((item) => item.path);
  const expansions = options.expand.map((item) => expansion(item, resolve, search, stored, nodes));
  // Rows of $apply after an aggregation have only their own properties (a concat branch's: Data
  // Aggregation, examples 74 and 75): one it has not is left out, not made null as an entity's.
  const sparse = options.apply !== undefined && !options.apply.entity;
  // Structured values of $apply's rows are shaped to their types (see shapeMade).
  const made = options.apply !== undefined;
  const structured = (property: Property): boolean => property.type.kind === 'entity' || property.type.kind === 'complex';
  // Top-level properties with ordinary names: a plain copy loop.
  const plain = items.every(
    ({ path, options: nested }) =>
      nested === undefined &&
      !(made && structured(path[path.length - 1] as Property)) &&
      path.length === 1 &&
      !((path[0] as { name: string }).name in Object.prototype) &&
      (path[0] as { name: string }).name !== '__proto__',
  );
  if (plain && expansions.length === 0 && computed.length === 0 && sparse) {
    const names = properties.map((path) => (path[0] as { name: string }).name);
    return (row) => {
      const result: Record<string, unknown> = {};
      for (const name of names) if (Object.hasOwn(row, name)) result[name] = (row as Record<string, unknown>)[name];
      return result;
    };
  }
  if (plain && expansions.length === 0 && computed.length === 0) {
    const names = properties.map((path) => (path[0] as { name: string }).name);
    // Each result a copy of a template with every property (nulls), then filled: an object of its
    // exact size with its properties in the object itself, as a spread makes it (adding them to
    // `{}` one by one moves the fifth and later ones to a store of their own: more memory per row).
    // (Made by JSON.parse, which gives an object its properties in the object itself; one built by
    // assignment, whose copies would inherit its layout, has a separate store from the fifth on.)
    const template = JSON.parse(JSON.stringify(Object.fromEntries(names.map((name) => [name, null])))) as Record<string, unknown>;
    return (row) => {
      const result: Record<string, unknown> = { ...template };
      const source = row as Record<string, unknown>;
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string;
        const value = source[name];
        result[name] = value === undefined ? null : value;
      }
      return result;
    };
  }
  // Otherwise a copier per path (made only here: the plain loop above needs none).
  const copiers = items.map(({ path, options: nested }) => {
    const getters = path.map((property) => propertyGetter(property.name));
    const names = path.map((property) => property.name);
    const first = names[0] as string;
    // Options of a collection of complex values (`Places($filter=…;$top=2)`): applied to its elements.
    const last = path[path.length - 1] as Property;
    const elements =
      nested === undefined ? undefined : compileOptions(nested, (last.type as { type: StructuredType }).type, resolve, search, stored, undefined, nodes);
    return (source: Row, target: Record<string, unknown>): void => {
      if (sparse && !Object.hasOwn(source, first)) return;
      let value: unknown = source;
      for (const get of getters) value = value === null || value === undefined ? undefined : get(value);
      if (value === undefined) value = null;
      if (made && (last.type.kind === 'entity' || last.type.kind === 'complex')) value = shapeMade(last.type.type, value);
      let count: number | undefined;
      if (elements !== undefined && Array.isArray(value)) {
        const result = elements.apply(value as Row[]);
        value = result.value;
        count = result.count;
      }
      // A path into a complex value keeps its nesting: {address: {city}}.
      let into = target;
      for (let i = 0; i < names.length - 1; i++) {
        const name = names[i] as string;
        const existing = Object.hasOwn(into, name) ? into[name] : undefined;
        if (typeof existing !== 'object' || existing === null) setOwn(into, name, Object.create(null));
        into = into[name] as Record<string, unknown>;
      }
      setOwn(into, names[names.length - 1] as string, value);
      if (count !== undefined) setOwn(into, `${names[names.length - 1] as string}@odata.count`, count);
    };
  });
  return (row) => {
    const result: Record<string, unknown> = {};
    for (const copy of copiers) copy(row, result);
    for (const [name, value] of computed) setOwn(result, name, value(row));
    for (const expand of expansions) expand(row, result);
    return result;
  };
}

function expansion(
  item: BoundExpandItem,
  resolve: NavigationResolver,
  search: SearchFunction,
  stored: StorageMapping | undefined,
  nodes: NodeRows,
): (row: Row, target: Record<string, unknown>) => void {
  const navigation = item.navigation;
  if (stored !== undefined && item.entitySet === undefined) throw unsupportedFeature('in-memory', unknownTarget(navigation), { option: '$expand' });
  const nested = compileOptions(item.options, navigation.target, resolve, search, stored, undefined, nodes);
  const name = navigation.name;
  if (!navigation.collection) {
    const related = item.made === undefined ? (row: Row) => resolve(navigation, row, item.entitySet) : madeEntity(item, nodes);
    return (row, target) => {
      const one = related(row);
      const single = Array.isArray(one) ? (one[0] ?? null) : one;
      if (item.options.apply !== undefined) {
        // $apply over the one related entity (or none): the first row it gives, or null.
        const result = nested.apply(single === null || single === undefined ? [] : [single as Row]);
        setOwn(target, name, result.value[0] ?? null);
        return;
      }
      if (single === null || single === undefined || !nested.predicate(single as Row)) setOwn(target, name, null);
      else setOwn(target, name, item.form === '$ref' ? keyOnly(single as Row, navigation.target) : nested.project(single as Row));
    };
  }
  return (row, target) => {
    const related = resolve(navigation, row, item.entitySet);
    const rows = Array.isArray(related) ? (related as readonly Row[]) : [];
    if (item.form === '$count') {
      setOwn(target, `${name}@odata.count`, rows.filter((r) => nested.predicate(r)).length);
      return;
    }
    const result = nested.apply(rows);
    setOwn(target, name, item.form === '$ref' ? result.value.map((r) => keyOnly(r, navigation.target)) : result.value);
    if (result.count !== undefined) setOwn(target, `${name}@odata.count`, result.count);
  };
}

/**
 * The entity an expansion of an entity `$apply` wrote into the row reads (`BoundExpandItem.made`):
 * the entity of its set with the key of the row's value (its navigation properties followed from
 * there), or the value itself where the set's rows are not at hand; null when the value or a key
 * value is null, or no entity has that key.
 */
function madeEntity(item: BoundExpandItem, nodes: NodeRows): (row: Row) => Row | null {
  const get = propertyGetter(item.navigation.name);
  const type = item.navigation.target;
  const keyGetters = type.key.map((name) => propertyGetter(name));
  const keyText = (values: readonly unknown[]): string => JSON.stringify(values.map((value) => [typeof value, String(value)]));
  let index: Map<string, Row> | undefined;
  let rows: readonly Row[] | undefined | null = null;
  return (row) => {
    const value = get(row);
    if (value === null || typeof value !== 'object') return null;
    const keys = keyGetters.map((key) => key(value as Row));
    if (keys.some((key) => key === null || key === undefined)) return null;
    if (rows === null) rows = item.entitySet === undefined ? undefined : nodes(item.entitySet);
    if (rows === undefined) return value as Row;
    if (index === undefined) {
      index = new Map();
      for (const entity of rows) index.set(keyText(keyGetters.map((key) => key(entity))), entity);
    }
    return index.get(keyText(keys)) ?? null;
  };
}

/**
 * A structured value (or a collection of them) in a row `$apply` made, as its type has it: its
 * properties (and dynamic properties), each structured one shaped the same, without the columns
 * of a stored row that are no property (the foreign keys of an entity a join or a nest holds,
 * which the steps of `$apply` may still read: navigation from a join alias). A type that may hold
 * more (open, or with derived types) keeps every member.
 */
function shapeMade(type: StructuredType, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => shapeMade(type, item));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const source = value as Record<string, unknown>;
  const closed = !type.open && type.derivedTypes.length === 0;
  const result: Record<string, unknown> = closed ? {} : { ...source };
  for (const property of type.properties.values()) {
    if (!Object.hasOwn(source, property.name)) continue;
    const item = source[property.name];
    setOwn(result, property.name, property.type.kind === 'entity' || property.type.kind === 'complex' ? shapeMade(property.type.type, item) : item);
  }
  if (closed && Object.hasOwn(source, DYNAMIC_PROPERTIES)) setOwn(result, DYNAMIC_PROPERTIES, source[DYNAMIC_PROPERTIES]);
  return result;
}

function keyOnly(row: Row, type: StructuredType): Row {
  const result: Record<string, unknown> = {};
  for (const name of type.key) setOwn(result, name, propertyGetter(name)(row) ?? null);
  return result;
}
