/**
 * `$apply` in memory: the reference semantics of the Data Aggregation transformations over
 * arrays of rows. Each transformation is a function from rows to rows; aggregated rows are plain
 * objects holding the grouping properties (nested objects for paths through complex and
 * navigation properties) and the aliases, in the storage form of their types.
 *
 * Choices where the extension leaves room (grammar/DEVIATIONS.md, "$apply"): groups come in the
 * order of their first row; null is a group of its own; `topcount`… give their rows ordered by
 * the value (highest first for `top…`, lowest first for `bottom…`), null values last.
 *
 * A `groupby` whose nested pipeline is an `aggregate` (after any `filter`, `search`, `compute`
 * and `identity`), or nothing, with no aggregate along a navigation path, streams (issue 30): each
 * row is folded into its group's accumulators (reference/aggregation.ts, `accumulator`) as it is
 * read, so no group keeps its rows and the rows are read once. Every other `groupby` collects each
 * group's rows and runs the nested pipeline on them; both give the same rows.
 */
import type { StructuredType } from '../../model/model.js';
import type { BoundAggregate, BoundApply, BoundGroupKey, BoundPath, BoundTransformation } from '../../semantic/bound-ast.js';
import type { ReferenceCompiler } from '../../reference/evaluator.js';
import type { Evaluator, Row } from '../../reference/rows.js';
import { accumulator, aggregation, CountAccumulator, storedValue, valueKey, type Accumulator } from '../../reference/aggregation.js';
import type { SearchFunction } from '../../reference/search.js';
import { domainOf, toNumber } from '../../reference/values.js';
import { isPrimitive } from '../../semantic/types.js';
import { ODataError } from '../../errors/odata-error.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import { sortRows, type SortKey } from './ordering.js';
import { hierarchyStep, rollupRecursiveStep, type NodeRows, type Portion } from './hierarchy.js';
import { someExpression, transformationExpressions } from '../../semantic/walk/index.js';

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);
/** The group key of null (and of a value that is no string) where strings are their own keys. */
const NULL_KEY = Symbol('null');

type Step = (rows: readonly Row[]) => Row[];

/** Sets an own property, even one named `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** How {@link compileApply} runs `groupby`: `streaming: false` collects every group's rows (to compare both ways in tests). */
export interface ApplyOptions {
  readonly streaming: boolean;
  /** The rows of an entity set, for the nodes of a hierarchy (`ancestors`, `descendants`, `traverse`). */
  readonly nodes?: NodeRows;
}

const STREAMING: ApplyOptions = { streaming: true };

/** Compiles a bound `$apply` into one function from the input rows to the rows it gives. */
export function compileApply(apply: BoundApply, compiler: ReferenceCompiler, search: SearchFunction, options: ApplyOptions = STREAMING): Step {
  compiler.option = '$apply';
  return pipeline(apply.transformations, compiler, search, options);
}

function pipeline(transformations: readonly BoundTransformation[], compiler: ReferenceCompiler, search: SearchFunction, options: ApplyOptions): Step {
  const steps = transformations.map((t) => transformation(t, compiler, search, options));
  return (rows) => {
    let current = rows as Row[];
    for (const step of steps) {
      // The current collection of $these/aggregate(…): the transformation's input rows.
      compiler.collection = current;
      current = step(current);
    }
    return current;
  };
}

function transformation(node: BoundTransformation, compiler: ReferenceCompiler, search: SearchFunction, options: ApplyOptions): Step {
  switch (node.kind) {
    case 'identity':
      return (rows) => [...rows];
    case 'filter': {
      const predicate = compiler.predicate(node.predicate);
      return (rows) => rows.filter(predicate);
    }
    case 'search': {
      const bound = node.search;
      return (rows) => rows.filter((row) => search(row, bound));
    }
    case 'compute': {
      const compute = computeRow(node, compiler);
      return (rows) => rows.map(compute);
    }
    case 'orderby': {
      const keys: SortKey[] = node.items.map((item) => ({
        evaluate: compiler.compile(item.expression),
        domain: domainOf(item.expression.type),
        descending: item.direction === 'desc',
      }));
      return (rows) => sortRows(keys, rows);
    }
    case 'top':
      return (rows) => rows.slice(0, node.count);
    case 'skip':
      return (rows) => rows.slice(node.count);
    case 'aggregate': {
      const aggregates = node.aggregates.map((a) => aggregate(a, compiler));
      return (rows) => {
        const result: Record<string, unknown> = {};
        for (const [alias, compute] of aggregates) setOwn(result, alias, compute(rows));
        return [result];
      };
    }
    case 'groupby': {
      const recursive = node.recursive;
      if (recursive !== undefined) {
        // rolluprecursive(…): the other grouping properties and the nested transformations on each node's portion;
        // without either, one row per node (as aggregate() would give).
        const steps: Step =
          node.keys.length > 0
            ? groupby(node.keys, node.apply, node.output, compiler, search, options)
            : node.apply.length > 0
              ? pipeline(node.apply, compiler, search, options)
              : () => [{}];
        // A nested pipeline that streams (per-row steps, then one aggregate): each portion's rows
        // folded into accumulators where they lie, no portion made.
        const streaming = node.keys.length === 0 && options.streaming ? streamed(node.apply, compiler, search) : undefined;
        const portion: Portion =
          streaming === undefined
            ? (rows, from, to) => steps(rows.slice(from, to))
            : (rows, from, to) => {
                const { prepare, aliases, reads, makers } = streaming;
                const accumulators = makers.map((make) => make());
                for (let r = from; r < to; r++) {
                  const input = prepare === undefined ? (rows[r] as Row) : prepare(rows[r] as Row);
                  if (input === undefined) continue;
                  for (let a = 0; a < accumulators.length; a++) {
                    const read = reads[a];
                    (accumulators[a] as Accumulator).add(read === undefined ? null : read(input, NO_VARIABLES));
                  }
                }
                const out: Record<string, unknown> = {};
                for (let a = 0; a < accumulators.length; a++) setOwn(out, aliases[a] as string, storedValue((accumulators[a] as Accumulator).result()));
                return [out];
              };
        const grouped = node.keys.map((key) => key.names[0] as string);
        return rollupRecursiveStep(
          recursive,
          portion,
          grouped,
          compiler,
          (steps) => pipeline(steps, compiler, search, options),
          options.nodes ?? (() => undefined),
        );
      }
      const sets = node.sets;
      if (sets === undefined) return groupby(node.keys, node.apply, node.output, compiler, search, options);
      // rollup(…): the groups of each grouping set, the finest first; a row has its set's keys only.
      const steps = sets.map((set) =>
        groupby(
          set.map((i) => node.keys[i] as BoundGroupKey),
          node.apply,
          node.output,
          compiler,
          search,
          options,
        ),
      );
      return (rows) => steps.flatMap((step) => step(rows));
    }
    case 'concat': {
      const branches = node.branches.map((branch) => {
        const rows = pipeline(branch, compiler, search, options);
        const type = branch.at(-1)?.output;
        // A branch of entities (a type with a key, and no groupby, aggregate or concat at its level) gives
        // each its type's properties, null where the row lacks one; the others' rows have theirs already.
        const made = branch.some((t) => t.kind === 'groupby' || t.kind === 'aggregate' || t.kind === 'concat');
        if (type === undefined || type.key.length === 0 || made) return rows;
        const names = [...type.properties.keys()];
        return (input: readonly Row[]) => rows(input).map((row) => complete(row, names));
      });
      return (rows) => branches.flatMap((branch) => branch(rows));
    }
    case 'rank':
      return rank(node, compiler);
    case 'join':
      return join(node, compiler, search, options);
    case 'custom':
      return customStep(node);
    case 'nest': {
      const items = node.items.map((item) => [item.alias, pipeline(item.apply, compiler, search, options)] as const);
      return (rows) => {
        const result: Record<string, unknown> = {};
        for (const [alias, nested] of items) setOwn(result, alias, nested(rows));
        return [result];
      };
    }
    case 'addnested': {
      const collection = collectionOf(node.path, compiler);
      const items = node.items.map((item) => [item.alias, pipeline(item.apply, compiler, search, options)] as const);
      return (rows) =>
        rows.map((row) => {
          const result: Record<string, unknown> = { ...row };
          const elements = collection(row);
          for (const [alias, nested] of items) setOwn(result, alias, nested(elements));
          return result;
        });
    }
    case 'ancestors':
    case 'descendants':
    case 'traverse':
      return hierarchyStep(node, compiler, (steps) => pipeline(steps, compiler, search, options), options.nodes ?? (() => undefined));
  }
}

/** The elements of the collection a path reaches from a row (none for null). */
function collectionOf(path: BoundPath, compiler: ReferenceCompiler): (row: Row) => Row[] {
  const evaluate = compiler.compile(path);
  return (row) => {
    const value = evaluate(row, NO_VARIABLES);
    return Array.isArray(value) ? (value as Row[]) : [];
  };
}

/**
 * `join`/`outerjoin` (Data Aggregation 3.4.3–4): a copy of each row per instance of its collection
 * (after the nested pipeline, run on each row's instances), the instance as the alias; `outerjoin`
 * keeps a row without any once, the alias null. The pipeline's `$these` is the row's instances.
 */
function join(node: Extract<BoundTransformation, { kind: 'join' }>, compiler: ReferenceCompiler, search: SearchFunction, options: ApplyOptions): Step {
  const collection = collectionOf(node.path, compiler);
  const nested = node.apply.length === 0 ? undefined : pipeline(node.apply, compiler, search, options);
  // Each row's related entities in the order of their key (the order SQL and MongoDB give joined
  // rows too, where a ranking, a top or a page takes some of a row's rows): a row's joined rows
  // are the same rows on every backend. (Before nested transformations, which keep it or order anew.)
  const alias = node.output.properties.get(node.alias)?.type;
  const entity = alias?.kind === 'entity' ? alias.type : undefined;
  const byKey: SortKey[] =
    entity === undefined
      ? []
      : entity.key.flatMap((name) => {
          const property = entity.properties.get(name);
          if (property === undefined || property.type.kind !== 'primitive') return [];
          return [
            {
              evaluate: (row: Row) => (row as Record<string, unknown>)[name] ?? null,
              domain: domainOf({ kind: 'primitive', name: property.type.name }),
              descending: false,
            },
          ];
        });
  return (rows) => {
    const out: Row[] = [];
    for (const row of rows) {
      const elements = byKey.length === 0 ? collection(row) : sortRows(byKey, collection(row));
      const related = nested === undefined ? elements : nested(elements);
      if (related.length === 0 && node.outer) {
        const result: Record<string, unknown> = { ...row };
        setOwn(result, node.alias, null);
        out.push(result);
      }
      for (const instance of related) {
        const result: Record<string, unknown> = { ...row };
        setOwn(result, node.alias, instance);
        out.push(result);
      }
    }
    return out;
  };
}

/** `compute`: a copy of a row with the computed properties. */
function computeRow(node: Extract<BoundTransformation, { kind: 'compute' }>, compiler: ReferenceCompiler): (row: Row) => Row {
  const items = node.items.map((item) => [item.alias, compiler.compile(item.expression)] as const);
  return (row) => {
    const result: Record<string, unknown> = { ...row };
    for (const [alias, evaluate] of items) setOwn(result, alias, storedValue(evaluate(row, NO_VARIABLES)));
    return result;
  };
}

/** `row` with every property of `names` (null where it has none); the row itself when it has them all. */
function complete(row: Row, names: readonly string[]): Row {
  if (names.every((name) => Object.hasOwn(row, name))) return row;
  const result: Record<string, unknown> = { ...row };
  for (const name of names) if (!Object.hasOwn(result, name)) setOwn(result, name, null);
  return result;
}

/** `rank` (topcount … bottomsum): the rows in value order, cut by count, by percentage of the total, or by sum. */
function rank(node: Extract<BoundTransformation, { kind: 'rank' }>, compiler: ReferenceCompiler): Step {
  const evaluate = compiler.compile(node.value);
  const domain = domainOf(node.value.type);
  // Highest first (lowest first for bottom…); null values last either way.
  const keys: SortKey[] = [
    { evaluate: (row) => (evaluate(row, NO_VARIABLES) === null ? 1 : 0), domain: domainOf({ kind: 'primitive', name: 'Edm.Int32' }), descending: false },
    { evaluate, domain, descending: node.direction === 'top' },
  ];
  // The limit: a literal, or computed once over the input (the current collection of $these).
  const over = node.limitOver === undefined ? undefined : compiler.compile(node.limitOver);
  const limitOf = (rows: readonly Row[]): number | null =>
    over === undefined ? node.limit : toNumber(over(rows[0] ?? Object.create(null), NO_VARIABLES) as never);
  if (node.measure === 'count')
    return (rows) => {
      const limit = limitOf(rows);
      return limit === null || limit <= 0 ? [] : sortRows(keys, rows).slice(0, limit);
    };
  const percent = node.measure === 'percent';
  return (rows) => {
    const limit = limitOf(rows);
    if (limit === null) return [];
    const sorted = sortRows(keys, rows);
    const values = sorted.map((row) => toNumber(evaluate(row, NO_VARIABLES)) ?? 0);
    const total = values.reduce((a, b) => a + b, 0);
    const target = percent ? (total * limit) / 100 : limit;
    // The fewest rows (in that order) whose values reach the target (all when they never do).
    let sum = 0;
    for (let i = 0; i < sorted.length; i++) {
      if (sum >= target) return sorted.slice(0, i);
      sum += values[i] as number;
    }
    return sorted;
  };
}

/** The related entities `through` reaches from all rows, each once (Data Aggregation 3.2.1.1). */
function relatedOnce(through: BoundPath, compiler: ReferenceCompiler): (rows: readonly Row[]) => Row[] {
  const follow = compiler.compile(through);
  return (rows) => {
    const seen = new Set<unknown>();
    const related: Row[] = [];
    for (const row of rows) {
      const value = follow(row, NO_VARIABLES);
      for (const entity of Array.isArray(value) ? (value as Row[]) : value === null || value === undefined ? [] : [value as Row]) {
        if (!seen.has(entity)) {
          seen.add(entity);
          related.push(entity);
        }
      }
    }
    return related;
  };
}

function aggregate(node: BoundAggregate, compiler: ReferenceCompiler): readonly [string, (rows: readonly Row[]) => unknown] {
  // With `from` steps: the reference's aggregate expression (the same semantics, grouped first).
  if (node.from !== undefined) return [node.alias, compiler.aggregateOver(node)];
  const source = node.through === undefined ? (rows: readonly Row[]) => rows : relatedOnce(node.through, compiler);
  if (node.kind === 'count') return [node.alias, (rows) => BigInt(source(rows).length)];
  const evaluate: Evaluator = compiler.compile(node.expression);
  const read = (row: Row): unknown => evaluate(row, NO_VARIABLES);
  const combine = aggregation<Row>(node.method, node.expression.type);
  return [node.alias, (rows) => storedValue(combine(source(rows), read))];
}

function groupby(
  keys: readonly BoundGroupKey[],
  nested: readonly BoundTransformation[],
  output: StructuredType,
  compiler: ReferenceCompiler,
  search: SearchFunction,
  options: ApplyOptions,
): Step {
  const grouped = new Set(keys.map((key) => key.names[0]));
  const added = [...output.properties.keys()].filter((name) => !grouped.has(name));
  const readers = keys.map((key) => {
    const domain = domainOf(key.path.type);
    // A string groups by its exact value: no normalization to make.
    const exact = isPrimitive(key.path.type, 'Edm.String');
    const keyOf = exact
      ? (value: unknown): unknown => (typeof value === 'string' ? value : NULL_KEY)
      : (value: unknown): unknown => {
          const stored = storedValue(value);
          return valueKey(stored === null ? null : domain.normalize(stored));
        };
    return { evaluate: compiler.compile(key.path), keyOf, names: key.names };
  });
  const streaming = options.streaming ? streamed(nested, compiler, search) : undefined;
  const perGroup = streaming !== undefined || nested.length === 0 ? undefined : pipeline(nested, compiler, search, options);
  const last = readers.length - 1;
  /**
   * The group of `row` under `root`: one Map per grouping property, nested (no key text made per
   * row); `create` makes it at its first row (so groups come in first-row order).
   */
  const groupOf = <G>(root: Map<unknown, unknown>, row: Row, create: (first: Row) => G): G => {
    let level = root;
    for (let i = 0; i < last; i++) {
      const reader = readers[i] as (typeof readers)[number];
      const part = reader.keyOf(reader.evaluate(row, NO_VARIABLES));
      let next = level.get(part) as Map<unknown, unknown> | undefined;
      if (next === undefined) level.set(part, (next = new Map()));
      level = next;
    }
    const reader = readers[last];
    const part = reader === undefined ? '' : reader.keyOf(reader.evaluate(row, NO_VARIABLES));
    let group = level.get(part) as G | undefined;
    if (group === undefined) level.set(part, (group = create(row)));
    return group;
  };
  /** A row of the grouping properties of `first`, nested along their paths. */
  const groupRow = (first: Row): Record<string, unknown> => {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const reader of readers) {
      let into = out;
      for (const name of reader.names.slice(0, -1)) {
        if (typeof into[name] !== 'object' || into[name] === null) setOwn(into, name, {});
        into = into[name] as Record<string, unknown>;
      }
      setOwn(into, reader.names[reader.names.length - 1] as string, storedValue(reader.evaluate(first, NO_VARIABLES)));
    }
    return out;
  };

  if (streaming !== undefined) {
    const { prepare, aliases, reads, makers } = streaming;
    const count = makers.length;
    return (rows) => {
      type Group = { first: Row; accumulators: Accumulator[] };
      const groups: Group[] = [];
      const create = (first: Row): Group => {
        const group: Group = { first, accumulators: makers.map((make) => make()) };
        groups.push(group);
        return group;
      };
      const root = new Map<unknown, unknown>();
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r] as Row;
        const group = groupOf(root, row, create);
        // The group exists from its first row on, even if the nested filter leaves it no row.
        const input = prepare === undefined ? row : prepare(row);
        if (input === undefined) continue;
        const accumulators = group.accumulators;
        for (let a = 0; a < count; a++) {
          const read = reads[a];
          (accumulators[a] as Accumulator).add(read === undefined ? null : read(input, NO_VARIABLES));
        }
      }
      const result: Row[] = [];
      for (const group of groups) {
        const out = groupRow(group.first);
        for (let a = 0; a < count; a++) setOwn(out, aliases[a] as string, storedValue((group.accumulators[a] as Accumulator).result()));
        result.push({ ...out });
      }
      return result;
    };
  }

  return (rows) => {
    type Group = { first: Row; rows: Row[] };
    const groups: Group[] = [];
    const create = (first: Row): Group => {
      const group: Group = { first, rows: [] };
      groups.push(group);
      return group;
    };
    const root = new Map<unknown, unknown>();
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as Row;
      groupOf(root, row, create).rows.push(row);
    }
    const result: Row[] = [];
    for (const group of groups) {
      const out = groupRow(group.first);
      if (perGroup === undefined) {
        result.push({ ...out });
        continue;
      }
      // Each row the nested transformations give, with the group's grouping properties and the
      // properties those transformations added (3.2.3.1: the others are projected away).
      for (const made of perGroup(group.rows)) {
        const row: Record<string, unknown> = { ...out };
        for (const name of added) if (Object.hasOwn(made, name)) setOwn(row, name, made[name]);
        result.push(row);
      }
    }
    return result;
  };
}

/** What a streaming `groupby` does with each row: `prepare` (nested filter, search, compute; undefined drops the row), then one accumulator per aggregate. */
interface Streamed {
  readonly prepare: ((row: Row) => Row | undefined) | undefined;
  readonly aliases: readonly string[];
  /** The value each accumulator is given (none for `$count`). */
  readonly reads: readonly (Evaluator | undefined)[];
  readonly makers: readonly (() => Accumulator)[];
}

/** The nested transformations a streaming `groupby` runs on each row before its `aggregate`. */
const PER_ROW: ReadonlySet<BoundTransformation['kind']> = new Set(['identity', 'filter', 'search', 'compute']);

/**
 * The streaming form of a nested pipeline: `filter`, `search`, `compute` and `identity` steps then
 * one `aggregate` without navigation paths, or nothing; undefined for any other.
 */
function streamed(nested: readonly BoundTransformation[], compiler: ReferenceCompiler, search: SearchFunction): Streamed | undefined {
  const final = nested.at(-1);
  if (final === undefined) return { prepare: undefined, aliases: [], reads: [], makers: [] };
  const before = nested.slice(0, -1);
  if (
    final.kind !== 'aggregate' ||
    final.aggregates.some((a) => a.through !== undefined || a.from !== undefined) ||
    !before.every((step) => PER_ROW.has(step.kind))
  )
    return undefined;
  // $these/aggregate(…) inside is the group's rows, which a row read alone does not know.
  if (transformationExpressions(nested).some((e) => someExpression(e, (node) => node.kind === 'aggregateValue' && node.collection === undefined)))
    return undefined;
  const steps: ((row: Row) => Row | undefined)[] = [];
  for (const step of before) {
    if (step.kind === 'filter') {
      const predicate = compiler.predicate(step.predicate);
      steps.push((row) => (predicate(row) ? row : undefined));
    } else if (step.kind === 'search') {
      const bound = step.search;
      steps.push((row) => (search(row, bound) ? row : undefined));
    } else if (step.kind === 'compute') steps.push(computeRow(step, compiler));
  }
  const prepare =
    steps.length === 0
      ? undefined
      : steps.length === 1
        ? steps[0]
        : (row: Row): Row | undefined => {
            let current: Row | undefined = row;
            for (let i = 0; i < steps.length && current !== undefined; i++) current = (steps[i] as (row: Row) => Row | undefined)(current);
            return current;
          };
  return {
    prepare,
    aliases: final.aggregates.map((a) => a.alias),
    reads: final.aggregates.map((a) => (a.kind === 'count' ? undefined : compiler.compile(a.expression))),
    makers: final.aggregates.map((a) => (a.kind === 'count' ? () => new CountAccumulator() : accumulator(a.method, a.expression.type))),
  };
}

/**
 * A custom transformation (BindSettings.customTransformations): the host's `memory` function over
 * the rows and the arguments; of each row it gives, the properties of the output type. Its
 * failures and results of another form are service errors (500, `invalid_result`).
 */
function customStep(node: Extract<BoundTransformation, { kind: 'custom' }>): Step {
  const run = node.definition.memory;
  if (run === undefined)
    throw unsupportedFeature('in-memory', `the custom transformation '${node.name}' (the service defines no memory function for it)`, {
      node,
      option: '$apply',
    });
  const names = [...node.output.properties.keys()];
  const failed = (why: string): ODataError =>
    new ODataError({ code: 'invalid_result', status: 500, reason: `The service's custom transformation '${node.name}' ${why}`, appendLocation: false });
  return (rows) => {
    let result: unknown;
    try {
      result = run(rows, node.args);
    } catch (error) {
      if (error instanceof ODataError) throw error;
      throw failed(`failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!Array.isArray(result)) throw failed('gave no array of rows');
    return result.map((row: unknown) => {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) throw failed('gave a row that is no object');
      const out: Record<string, unknown> = {};
      for (const name of names) if (Object.hasOwn(row, name)) setOwn(out, name, (row as Record<string, unknown>)[name]);
      return out;
    });
  };
}
