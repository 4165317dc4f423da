/**
 * `$apply` (OData Data Aggregation 4.0) on MongoDB: the transformations as stages of an
 * aggregation pipeline, with the in-memory reference's semantics (src/backends/memory/apply-pipeline.ts):
 *
 * - `filter` and `search` are `$match` stages (the filter compiler of `$filter`), `compute` an
 *   `$addFields`, `orderby` a sort, `top`/`skip` `$limit`/`$skip`, `identity` nothing;
 * - `aggregate` is a `$group` on `_id: null` inside a `$facet`, so that empty input still gives its
 *   one row (counts 0, the other aggregates null); `groupby` a `$group` on the grouping values
 *   (each `$ifNull`-ed, so that a missing field is the null group), its output nested as the
 *   output type says (`{ product: { name } }`);
 * - aggregates leave null values out: `sum` and `average` count the values they add (null when
 *   none, where MongoDB's `$sum` gives 0), `min`/`max` take the first value of `$topN` sorted with
 *   nulls last (mingo's `$min` does not skip a first null, nor strings), `countdistinct` is the
 *   size of `$addToSet` without null; an integer sum beyond Int64 is null;
 * - aggregating along a navigation path (`product/price`, `sales/$count`) looks the related
 *   documents up per row, pushes their keys and values, and unions them per group, so that each
 *   related entity counts once;
 * - `concat` is a `$facet` of the branches, their arrays concatenated and unwound;
 * - `topcount`/`bottomcount` a numbering in value order (nulls last), `toppercent`/`topsum`… a
 *   running sum over that order (`$setWindowFields`);
 * - an aggregate with `from` steps: nested `$group` stages over a branch of the rows of its own
 *   (`fromGroups`).
 *
 * Order: the reference keeps input order (groups in the order of their first row). Where anything
 * depends on order (`orderby`, `top`, `skip`, `topcount`…, or the request's `$orderby`, `$top`,
 * `$skip`), the rows carry a sequence number: the key order of the collection at the start (the
 * order in which MongoDB pages entities), renumbered by each ordering transformation, the smallest
 * of a group's rows for a group. Without, no order is promised (as MongoDB gives `$group` rows).
 *
 * Refused, with the position of the transformation (`unsupported_feature`): `$apply` inside
 * `$expand`; `concat` inside a `concat` branch, and an `aggregate` followed by more
 * transformations inside a `concat` branch (`$facet` cannot nest); in a `groupby`, nested
 * transformations other than `filter` and `compute` before the final `aggregate`;
 * `min`/`max` of flag enums; `min`/`max` of an enum or Duration along a navigation path.
 */
import type { EntitySet, Property, StructuredType } from '../../model/model.js';
import type {
  BoundAggregate,
  BoundApply,
  BoundExpression,
  BoundFromStep,
  BoundGroupKey,
  BoundOrderByItem,
  BoundPath,
  BoundSearch,
  BoundTransformation,
} from '../../semantic/bound-ast.js';
import { isIntegerType, type ExpressionType } from '../../semantic/types.js';
import { forEachTransformation, someTransformation } from '../../semantic/walk/index.js';
import { outputProperty, outputType, referenceOf } from '../../semantic/apply/output-type.js';
import { rollupRecursiveStages } from './rollup-recursive.js';
import { MongoExpressionCompiler, isDuration, newContext, rootFrame, theseContext, type Aggregation, type Context, type Frame } from './expression.js';
import { fieldOf, linkLookup, scopeFilter, storageKeyFields, unsupported, type MongoDocument, type MongoMapping } from './mapping.js';
import { customMongoAggregate } from './custom-methods.js';
import { hierarchyStages, traverseStages } from './hierarchy.js';

/** What the apply compiler needs of the query compiler (to reuse its filter and sort-key compilers). */
export interface ApplyHooks {
  /** The query document of a condition on the documents of `context`. */
  condition(predicate: BoundExpression, context: Context, expressions: MongoExpressionCompiler): MongoDocument;
  /** The query document of a `search()`. */
  search(search: BoundSearch, context: Context): MongoDocument;
  /** Sort keys of `orderby()` items: computed keys into `computed`, the sort into `sort`. */
  order(
    items: readonly BoundOrderByItem[],
    frame: Frame,
    expressions: MongoExpressionCompiler,
    computed: MongoDocument,
    sort: MongoDocument,
    temporary: string[],
  ): void;
}

/** Matches no document. */
const NOTHING: MongoDocument = { $nor: [{}] };
const INT64_LIMIT = 2 ** 63;

/** Rows between two transformations: their type, and their entity set while they are its entities. */
interface Rows {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
}

/** The stages of a bound `$apply` and the field that holds the rows' order (when kept). */
export interface ApplyStages {
  readonly stages: MongoDocument[];
  /** The field of the sequence number, when `ordered`: the result's order, ascending. */
  readonly sequence: string | undefined;
}

/** An aggregate with `from` steps, compiled as a branch of its grouping (`fromGroups`). */
interface FromAggregate {
  readonly aggregate: BoundAggregate;
  readonly steps: readonly BoundFromStep[];
  /** The output field of its value. */
  readonly field: string;
  /** Its value per group of every step's properties, after the first `$group` (the aggregate without its steps). */
  readonly value: Aggregation;
  /** Per step, the fields of its grouping values. */
  readonly keys: readonly (readonly string[])[];
}

/** The value of an aggregate over no rows: 0 for counts (the last step's method when it has `from` steps), else null. */
function ofNothing(a: BoundAggregate): 0 | null {
  const last = a.from?.at(-1);
  if (last !== undefined) return last.method === 'countdistinct' ? 0 : null;
  return a.kind === 'count' || (a.kind === 'method' && a.method === 'countdistinct') ? 0 : null;
}

/** The transformations that depend on the order of their input rows. */
const ORDER_DEPENDENT: ReadonlySet<BoundTransformation['kind']> = new Set(['orderby', 'top', 'skip', 'rank', 'traverse']);

/** Whether a transformation (or one nested in it) depends on the order of its input rows. */
function orderDependent(transformations: readonly BoundTransformation[]): boolean {
  return someTransformation(transformations, (t) => ORDER_DEPENDENT.has(t.kind));
}

/** Every field name of the types an `$apply` goes through (so that temporary fields avoid them). */
function fieldNames(apply: BoundApply, start: StructuredType, mapping: MongoMapping): Set<string> {
  const names = new Set<string>();
  const add = (type: StructuredType): void => {
    for (const property of type.properties.values()) {
      names.add(fieldOf(type, property, mapping));
      if (property.type.kind === 'complex') add(property.type.type);
    }
  };
  add(start);
  forEachTransformation(apply.transformations, (t) => add(t.output));
  return names;
}

/**
 * The pipeline stages of `$apply` over the documents of `set`. With `ordered`, the rows carry a
 * sequence number (see the module comment) whose field is returned.
 */
export function applyStages(
  apply: BoundApply,
  type: StructuredType,
  set: EntitySet | undefined,
  mapping: MongoMapping,
  hooks: ApplyHooks,
  ordered: boolean,
): ApplyStages {
  const compiler = new MongoApplyCompiler(mapping, hooks, fieldNames(apply, type, mapping), ordered || orderDependent(apply.transformations));
  const stages: MongoDocument[] = [];
  const scope = scopeFilter(mapping);
  if (scope !== undefined) stages.push({ $match: scope });
  if (compiler.sequence !== undefined) {
    // The key order: how MongoDB pages entities, and the order of the rows the reference is given.
    stages.push({ $setWindowFields: { sortBy: compiler.keySort(type), output: { [compiler.sequence]: { $documentNumber: {} } } } });
  }
  compiler.pipeline(apply.transformations, { type, set }, stages, false);
  return { stages, sequence: compiler.sequence };
}

class MongoApplyCompiler {
  readonly sequence: string | undefined;
  private temporaryCount = 0;
  private readonly expressions: MongoExpressionCompiler;

  constructor(
    private readonly mapping: MongoMapping,
    private readonly hooks: ApplyHooks,
    private readonly taken: Set<string>,
    ordered: boolean,
  ) {
    this.expressions = new MongoExpressionCompiler(mapping, '$apply');
    this.sequence = ordered ? this.temporary('seq') : undefined;
  }

  /** A field name no property uses. */
  private temporary(name: string): string {
    let field = `__odata_${name}${name === 'seq' ? '' : this.temporaryCount++}`;
    while (this.taken.has(field)) field = `_${field}`;
    this.taken.add(field);
    return field;
  }

  private fail(what: string, node: { span: { start: number } }): never {
    throw unsupported(what, { node, option: '$apply' });
  }

  /** `{ key: 1, … }` of an entity type's key fields. */
  keySort(type: StructuredType): MongoDocument {
    const sort: MongoDocument = {};
    for (const name of type.key) sort[fieldOf(type, type.properties.get(name) as Property, this.mapping)] = 1;
    if (Object.keys(sort).length === 0) sort['_id'] = 1;
    return sort;
  }

  /** Compiles transformations onto `stages`; `inFacet`: inside a `concat` branch (a `$facet`). */
  pipeline(transformations: readonly BoundTransformation[], input: Rows, stages: MongoDocument[], inFacet: boolean): Rows {
    let rows = input;
    transformations.forEach((t, i) => {
      if (inFacet && t.kind === 'aggregate' && i < transformations.length - 1) {
        this.fail('aggregate() followed by other transformations inside concat()', transformations[i + 1] as BoundTransformation);
      }
      rows = this.transformation(t, rows, stages, inFacet);
    });
    return rows;
  }

  /** The lookup fields of a context, to drop after the stage that needed them. */
  private dropLookups(context: Context, stages: MongoDocument[], more: readonly string[] = []): void {
    const fields = [...[...context.lookups.values()].map((l) => l.field), ...more];
    if (fields.length > 0) stages.push({ $unset: fields });
  }

  private transformation(t: BoundTransformation, rows: Rows, stages: MongoDocument[], inFacet: boolean): Rows {
    const seq = this.sequence;
    switch (t.kind) {
      case 'identity':
        return rows;
      case 'filter': {
        const context = theseContext(rows.type, rows.set);
        const condition = this.hooks.condition(t.predicate, context, this.expressions);
        stages.push(...context.stages, { $match: condition });
        this.dropLookups(context, stages);
        return rows;
      }
      case 'search': {
        const context = newContext(rows.type, rows.set);
        stages.push({ $match: this.hooks.search(t.search, context) });
        return rows;
      }
      case 'compute': {
        const context = theseContext(rows.type, rows.set);
        const frame = rootFrame(context);
        const fields: MongoDocument = {};
        for (const item of t.items)
          fields[fieldOf(t.output, t.output.properties.get(item.alias) as Property, this.mapping)] = this.expressions.value(item.expression, frame);
        stages.push(...context.stages, { $addFields: fields });
        this.dropLookups(context, stages);
        return { type: t.output, set: rows.set };
      }
      case 'orderby': {
        const context = theseContext(rows.type, rows.set);
        const computed: MongoDocument = {};
        const sort: MongoDocument = {};
        const temporary: string[] = [];
        this.hooks.order(t.items, rootFrame(context), this.expressions, computed, sort, temporary);
        stages.push(...context.stages);
        if (Object.keys(computed).length > 0) stages.push({ $addFields: computed });
        this.renumber(sort, stages);
        this.dropLookups(context, stages, temporary);
        return rows;
      }
      case 'top':
      case 'skip':
        if (seq !== undefined) stages.push({ $sort: { [seq]: 1 } });
        if (t.kind === 'top') stages.push(t.count === 0 ? { $match: NOTHING } : { $limit: t.count });
        else if (t.count > 0) stages.push({ $skip: t.count });
        return rows;
      case 'aggregate':
        this.aggregate(t, rows, stages, inFacet);
        return { type: t.output, set: undefined };
      case 'groupby':
        if (t.recursive !== undefined) {
          if (inFacet) this.fail(`rolluprecursive() inside concat() or inside the start transformations of a hierarchical transformation`, t.recursive);
          rollupRecursiveStages(t, rows, stages, {
            mapping: this.mapping,
            expressions: this.expressions,
            temporary: (name) => this.temporary(name),
            groupby: (node, input, into) => this.groupby(node, input, into),
            pipeline: (transformations, input, into) => void this.pipeline(transformations, input, into, false),
            ofNothing,
            field: (type, name) => this.field(type, name),
            dropLookups: (context, into, more) => this.dropLookups(context, into, more),
            fail: (what, at) => this.fail(what, at),
          });
          return { type: t.output, set: undefined };
        }
        this.groupby(t, rows, stages);
        return { type: t.output, set: undefined };
      case 'concat':
        return this.concat(t, rows, stages, inFacet);
      case 'rank':
        this.rank(t, rows, stages);
        return rows;
      case 'join':
        return this.join(t, rows, stages);
      case 'addnested':
        return this.addnested(t, rows, stages);
      case 'custom':
        return this.fail(`the custom transformation '${t.name}' (the service defines it in memory only)`, t);
      case 'nest':
        return this.nest(t, rows, stages, inFacet);
      case 'ancestors':
      case 'descendants':
        if (inFacet) this.fail(`${t.kind}() inside concat() or inside the start transformations of ancestors() or descendants() (a $facet does not nest)`, t);
        hierarchyStages(t, rows, stages, {
          mapping: this.mapping,
          expressions: this.expressions,
          temporary: (name) => this.temporary(name),
          pipeline: (transformations, input, into) => void this.pipeline(transformations, input, into, true),
          dropLookups: (context, into, more) => this.dropLookups(context, into, more),
          fail: (what) => this.fail(what, t),
        });
        return rows;
      case 'traverse': {
        if (inFacet) this.fail(`traverse() inside concat() or inside the start transformations of a hierarchical transformation (a $facet does not nest)`, t);
        const sequence = this.sequence as string;
        traverseStages(t, rows, stages, {
          mapping: this.mapping,
          expressions: this.expressions,
          sequence,
          temporary: (name) => this.temporary(name),
          pipeline: (transformations, input, into) => void this.pipeline(transformations, input, into, true),
          dropLookups: (context, into, more) => this.dropLookups(context, into, more),
          keySort: (type) => this.keySort(type),
          order: (items, context, computed, sort, temporary) => this.hooks.order(items, rootFrame(context), this.expressions, computed, sort, temporary),
          renumber: (sort, into) => this.renumber(sort, into),
          fail: (what) => this.fail(what, t),
        });
        return rows;
      }
    }
  }

  /** Sorts by `sort` (then the sequence: ties keep their order) and numbers the rows in that order. */
  private renumber(sort: MongoDocument, stages: MongoDocument[], output: MongoDocument = {}): void {
    const seq = this.sequence;
    if (seq === undefined) {
      stages.push({ $sort: sort });
      return;
    }
    stages.push({ $setWindowFields: { sortBy: { ...sort, [seq]: 1 }, output: { ...output, [seq]: { $documentNumber: {} } } } });
    // $setWindowFields gives its rows in that order; the sort says so (and costs nothing then).
    stages.push({ $sort: { [seq]: 1 } });
  }

  /** `rank` (topcount …: highest first; bottom…: lowest first; null values last either way). */
  private rank(t: Extract<BoundTransformation, { kind: 'rank' }>, rows: Rows, stages: MongoDocument[]): void {
    const seq = this.sequence as string;
    const context = theseContext(rows.type, rows.set);
    const value = this.temporary('v');
    const isNull = this.temporary('n');
    const fields: MongoDocument = { [value]: this.expressions.value(t.value, rootFrame(context)) };
    fields[isNull] = { $cond: [{ $eq: [`$${value}`, null] }, 1, 0] };
    // A limit computed from the input ($these): on every document, by the context's windows.
    const limit = this.temporary('limit');
    if (t.limitOver !== undefined) fields[limit] = this.expressions.value(t.limitOver, rootFrame(context));
    stages.push(...context.stages, { $addFields: { [value]: fields[value] } }, { $addFields: { [isNull]: fields[isNull] } });
    if (t.limitOver !== undefined) stages.push({ $addFields: { [limit]: fields[limit] } });
    const sort = { [isNull]: 1, [value]: t.direction === 'top' ? -1 : 1 };
    const temporary = t.limitOver === undefined ? [value, isNull] : [value, isNull, limit];
    const bound: Aggregation = t.limitOver === undefined ? t.limit : `$${limit}`;
    if (t.measure === 'count' && t.limitOver !== undefined) {
      this.renumber(sort, stages);
      // None where the limit is null.
      stages.push({ $match: { $expr: { $and: [{ $ne: [`$${limit}`, null] }, { $lte: [`$${seq}`, `$${limit}`] }] } } });
    } else if (t.measure === 'count') {
      this.renumber(sort, stages);
      stages.push({ $match: t.limit === 0 ? NOTHING : { [seq]: { $lte: t.limit } } });
    } else {
      // The fewest rows (in that order) whose values reach the target: a row stays while the sum
      // of the values before it is below the target (null values add nothing).
      const before = this.temporary('before');
      const total = this.temporary('total');
      const reached = this.temporary('reached');
      this.renumber(sort, stages, {
        [before]: { $sum: `$${value}`, window: { documents: ['unbounded', -1] } },
        [total]: { $sum: `$${value}`, window: { documents: ['unbounded', 'unbounded'] } },
      });
      const target = t.measure === 'percent' ? { $divide: [{ $multiply: [`$${total}`, bound] }, 100] } : bound;
      // (A null limit keeps no row.)
      const reachedNow =
        t.limitOver === undefined
          ? { $gte: [{ $ifNull: [`$${before}`, 0] }, target] }
          : { $or: [{ $eq: [`$${limit}`, null] }, { $gte: [{ $ifNull: [`$${before}`, 0] }, target] }] };
      stages.push({ $addFields: { [reached]: { $cond: [reachedNow, 1, 0] } } });
      // Once reached, every later row is out too (values may be negative).
      stages.push({
        $setWindowFields: { sortBy: { [seq]: 1 }, output: { [reached]: { $max: `$${reached}`, window: { documents: ['unbounded', 'current'] } } } },
      });
      stages.push({ $match: { [reached]: 0 } });
      temporary.push(before, total, reached);
    }
    this.dropLookups(context, stages, temporary);
  }

  /** `concat`: a `$facet` of the branches, their rows one after the other. */
  private concat(t: Extract<BoundTransformation, { kind: 'concat' }>, rows: Rows, stages: MongoDocument[], inFacet: boolean): Rows {
    if (inFacet) this.fail('concat() inside concat()', t);
    const seq = this.sequence;
    const facet: MongoDocument = {};
    const arrays: Aggregation[] = [];
    t.branches.forEach((branch, i) => {
      const branchStages: MongoDocument[] = [];
      const out = this.pipeline(branch, rows, branchStages, true);
      // A branch of entities (a type with a key, and no groupby, aggregate or concat at its level) gives each
      // its type's properties, null where the document lacks the field, as the reference and SQL give them.
      const entities = out.type.key.length > 0 && !branch.some((b) => b.kind === 'groupby' || b.kind === 'aggregate' || b.kind === 'concat');
      // Each under its field in the output type (the key is in `_id` only in the entities' type).
      if (t.output !== rows.type && entities) {
        const fields: MongoDocument = {};
        const moved: string[] = [];
        for (const property of out.type.properties.values()) {
          const from = fieldOf(out.type, property, this.mapping);
          const to = fieldOf(t.output, t.output.properties.get(property.name) ?? property, this.mapping);
          fields[to] = { $ifNull: [`$${from}`, null] };
          if (from !== to) moved.push(from);
        }
        branchStages.push({ $addFields: fields });
        if (moved.length > 0) branchStages.push({ $unset: moved });
      }
      if (seq !== undefined) branchStages.push({ $sort: { [seq]: 1 } });
      const name = `b${i}`;
      facet[name] = branchStages.length === 0 ? [{ $match: {} }] : branchStages;
      // A branch ending in aggregate() gives its one row also for empty input.
      const last = branch.at(-1);
      arrays.push(last?.kind === 'aggregate' ? { $cond: [{ $eq: [{ $size: `$${name}` }, 0] }, [this.aggregateDefaults(last)], `$${name}`] } : `$${name}`);
    });
    const all = this.temporary('all');
    const index = this.temporary('i');
    stages.push({ $facet: facet }, { $project: { [all]: { $concatArrays: arrays } } }, { $unwind: { path: `$${all}`, includeArrayIndex: index } });
    stages.push({ $replaceRoot: { newRoot: seq === undefined ? `$${all}` : { $mergeObjects: [`$${all}`, { [seq]: `$${index}` }] } } });
    const entity = t.output === rows.type;
    return entity ? rows : { type: t.output, set: undefined };
  }

  /**
   * The related documents of a navigation step (the only step of `path`), in a `$lookup` whose
   * pipeline runs `apply` over them (a pipeline of its own: it has no sequence of the outer rows);
   * a pipeline ending in `aggregate` gives its row for no documents too.
   */
  private related(
    path: BoundPath,
    apply: readonly BoundTransformation[],
    rows: Rows,
    as: string,
    what: string,
    node: { span: { start: number } },
  ): MongoDocument[] {
    const steps = path.steps.filter((step) => step.kind !== 'typeCast');
    const step = steps[0];
    if (steps.length !== 1 || step?.kind !== 'navigation' || path.steps.length !== 1)
      this.fail(`${what} of a collection of complex values or a path through complex values`, node);
    const set = step.entitySet ?? this.fail(`${what} of '${step.navigation.name}', whose entity set the model does not say`, node);
    const link = linkLookup(newContext(rows.type, rows.set), step.navigation, set, this.mapping);
    const output = apply.at(-1)?.output ?? step.navigation.target;
    const nested = applyStages(
      { transformations: apply, output, entity: output === step.navigation.target },
      step.navigation.target,
      set,
      this.mapping,
      this.hooks,
      false,
    );
    const stages: MongoDocument[] = [{ $lookup: { from: link.from, let: link.let, pipeline: [...link.pipeline, ...nested.stages], as } }];
    const last = apply.at(-1);
    if (last?.kind === 'aggregate') stages.push({ $set: { [as]: { $cond: [{ $eq: [{ $size: `$${as}` }, 0] }, [this.aggregateDefaults(last)], `$${as}`] } } });
    return stages;
  }

  /** `join`/`outerjoin`: the related documents (after the nested pipeline) in a `$lookup`, unwound; `outerjoin` keeps a row without any, its alias null. */
  private join(t: Extract<BoundTransformation, { kind: 'join' }>, rows: Rows, stages: MongoDocument[]): Rows {
    const field = this.field(t.output, t.alias);
    stages.push(...this.related(t.path, t.apply, rows, field, t.outer ? 'outerjoin()' : 'join()', t));
    const seq = this.sequence;
    const index = this.temporary('j');
    stages.push({ $unwind: { path: `$${field}`, preserveNullAndEmptyArrays: t.outer, ...(seq === undefined ? {} : { includeArrayIndex: index }) } });
    if (t.outer) stages.push({ $set: { [field]: { $ifNull: [`$${field}`, null] } } });
    if (seq !== undefined) {
      // Each row's instances in their order, after the rows before it.
      stages.push(
        { $setWindowFields: { sortBy: { [seq]: 1, [index]: 1 }, output: { [seq]: { $documentNumber: {} } } } },
        { $unset: index },
        { $sort: { [seq]: 1 } },
      );
    }
    return { type: t.output, set: rows.set };
  }

  /** `addnested`: each item's rows, a `$lookup` of the related documents with the item's pipeline. */
  private addnested(t: Extract<BoundTransformation, { kind: 'addnested' }>, rows: Rows, stages: MongoDocument[]): Rows {
    for (const item of t.items) stages.push(...this.related(t.path, item.apply, rows, this.field(t.output, item.alias), 'addnested()', item));
    return { type: t.output, set: rows.set };
  }

  /** `nest`: one document, each item's rows an array of it (`$facet`); an item ending in `aggregate` has its row for no rows too. */
  private nest(t: Extract<BoundTransformation, { kind: 'nest' }>, rows: Rows, stages: MongoDocument[], inFacet: boolean): Rows {
    if (inFacet) this.fail('nest() inside concat() or nest()', t);
    const seq = this.sequence;
    const facet: MongoDocument = {};
    const defaults: MongoDocument = {};
    for (const item of t.items) {
      const field = this.field(t.output, item.alias);
      const itemStages: MongoDocument[] = [];
      this.pipeline(item.apply, rows, itemStages, true);
      if (seq !== undefined) itemStages.push({ $sort: { [seq]: 1 } }, { $unset: seq });
      facet[field] = itemStages.length === 0 ? [{ $match: {} }] : itemStages;
      const last = item.apply.at(-1);
      if (last?.kind === 'aggregate') defaults[field] = { $cond: [{ $eq: [{ $size: `$${field}` }, 0] }, [this.aggregateDefaults(last)], `$${field}`] };
    }
    stages.push({ $facet: facet });
    if (Object.keys(defaults).length > 0) stages.push({ $set: defaults });
    if (seq !== undefined) stages.push({ $set: { [seq]: 1 } });
    return { type: t.output, set: undefined };
  }

  /** The field of a property of `type` named `name`. */
  private field(type: StructuredType, name: string): string {
    return fieldOf(type, type.properties.get(name) as Property, this.mapping);
  }

  /** The row of an aggregate of no rows: counts 0, everything else null. */
  private aggregateDefaults(t: Extract<BoundTransformation, { kind: 'aggregate' }>): MongoDocument {
    const row: MongoDocument = {};
    for (const a of t.aggregates) row[this.field(t.output, a.alias)] = ofNothing(a);
    if (this.sequence !== undefined) row[this.sequence] = 1;
    return { $literal: row };
  }

  /** `aggregate` of all rows: one row, also for no rows. */
  private aggregate(t: Extract<BoundTransformation, { kind: 'aggregate' }>, rows: Rows, stages: MongoDocument[], inFacet: boolean): void {
    const context = theseContext(rows.type, rows.set);
    const before: MongoDocument = {};
    const after: MongoDocument = {};
    const group: MongoDocument = { _id: null };
    const out: MongoDocument = {};
    const derived: FromAggregate[] = [];
    for (const a of t.aggregates) {
      const field = this.field(t.output, a.alias);
      if (a.from !== undefined) derived.push(this.fromBase(a, field, context, before, after, group));
      else out[field] = this.accumulate(a, context, undefined, before, after, group);
    }
    if (this.sequence !== undefined) out[this.sequence] = { $literal: 1 };
    const prepared: MongoDocument[] = [...context.stages];
    if (Object.keys(before).length > 0) prepared.push({ $addFields: before });
    if (Object.keys(after).length > 0) prepared.push({ $addFields: after });
    const grouped = derived.length === 0 ? [{ $group: group }, { $replaceRoot: { newRoot: out } }] : this.fromGroups(undefined, group, out, derived, undefined);
    if (inFacet) {
      stages.push(...prepared, ...grouped);
      return;
    }
    // $group of no documents gives no row: inside $facet, the missing row becomes the defaults.
    const result = this.temporary('r');
    stages.push(
      ...prepared,
      { $facet: { [result]: grouped } },
      { $replaceRoot: { newRoot: { $ifNull: [{ $arrayElemAt: [`$${result}`, 0] }, this.aggregateDefaults(t)] } } },
    );
  }

  /**
   * One aggregate: fields to add before the `$group` (`before`, then `after`, which reads them), its accumulators (`group`), and
   * the expression of its value after the `$group`. `keep`, inside a groupby with filters: the
   * field that says whether a row passed them.
   */
  private accumulate(
    a: BoundAggregate,
    context: Context,
    keep: string | undefined,
    before: MongoDocument,
    after: MongoDocument,
    group: MongoDocument,
  ): Aggregation {
    // `from` steps are compiled by fromBase/fromGroups (nested $group stages), never here.
    if (a.from !== undefined) return this.fail(`'from' in an aggregate here`, a);
    const kept = (value: Aggregation, otherwise: Aggregation): Aggregation =>
      keep === undefined ? value : { $cond: [{ $eq: [`$${keep}`, true] }, value, otherwise] };
    if (a.through !== undefined) return this.accumulateRelated(a, context, kept, before, group);
    if (a.kind === 'count') {
      const count = this.temporary('c');
      group[count] = { $sum: kept(1, 0) };
      return `$${count}`;
    }
    const frame = rootFrame(context);
    const type = a.expression.type;
    const value = this.temporary('a');
    before[value] = kept(this.expressions.value(a.expression, frame), null);
    if (typeof a.method === 'object') {
      const pushed = this.temporary('q');
      group[pushed] = { $push: `$${value}` };
      return customMongoAggregate(a.method, `$${pushed}`, a, '$apply');
    }
    switch (a.method) {
      case 'sum':
      case 'average': {
        const sum = this.temporary('s');
        const count = this.temporary('n');
        group[sum] = { $sum: `$${value}` };
        group[count] = { $sum: { $cond: [{ $eq: [`$${value}`, null] }, 0, 1] } };
        return this.sumValue(a.method, type, `$${sum}`, `$${count}`);
      }
      case 'min':
      case 'max': {
        // The first value sorted with nulls last: null only when all are null.
        const nullFlag = this.temporary('f');
        const key = this.orderKey(a, type, `$${value}`, frame, before, after);
        after[nullFlag] = { $cond: [{ $eq: [`$${value}`, null] }, 1, 0] };
        const best = this.temporary('m');
        group[best] = { $topN: { n: 1, sortBy: { [nullFlag]: 1, [key]: a.method === 'min' ? 1 : -1 }, output: `$${value}` } };
        return { $arrayElemAt: [`$${best}`, 0] };
      }
      case 'countdistinct': {
        const distinct = this.temporary('d');
        if (isDuration(type)) before[value] = kept(this.expressions.durationValue(a.expression, frame), null);
        group[distinct] = { $addToSet: `$${value}` };
        return { $size: { $setDifference: [`$${distinct}`, [null]] } };
      }
    }
  }

  /** The field to sort values of `type` by (min/max): the value, or an enum's member value, a Duration's length. */
  private orderKey(
    a: Extract<BoundAggregate, { kind: 'method' }>,
    type: ExpressionType,
    value: string,
    frame: Frame,
    before: MongoDocument,
    after: MongoDocument,
  ): string {
    const field = value.slice(1);
    if (type.kind === 'enum') {
      if (type.type.isFlags) this.fail(`${a.method} of a flag enumeration value`, a);
      // Stored by name, ordered by member value (a row left out has a null value: sorted last by its flag).
      const key = this.temporary('o');
      before[key] = this.expressions.orderable(a.expression, type, frame);
      return key;
    }
    if (isDuration(type)) {
      const key = this.temporary('o');
      after[key] = this.expressions.durationSeconds(value);
      return key;
    }
    return field;
  }

  /** sum (null without values, integers null beyond Int64) or average (sum / count) of accumulated fields. */
  private sumValue(method: 'sum' | 'average', type: ExpressionType, sum: Aggregation, count: Aggregation): Aggregation {
    if (method === 'average') return { $cond: [{ $eq: [count, 0] }, null, { $divide: [sum, count] }] };
    const value = isIntegerType(type) ? { $cond: [{ $and: [{ $gte: [sum, -INT64_LIMIT] }, { $lt: [sum, INT64_LIMIT] }] }, sum, null] } : sum;
    return { $cond: [{ $eq: [count, 0] }, null, value] };
  }

  /**
   * An aggregate along a navigation path: per row, the related entities' keys and values
   * (`{ k, v }`), pushed per group and united, so that each related entity counts once.
   */
  private accumulateRelated(
    a: BoundAggregate,
    context: Context,
    kept: (value: Aggregation, otherwise: Aggregation) => Aggregation,
    before: MongoDocument,
    group: MongoDocument,
  ): Aggregation {
    const through = a.through as NonNullable<BoundAggregate['through']>;
    const related = this.expressions.path(through, rootFrame(context));
    if (related.kind === 'value' || related.context === undefined) return this.fail('aggregating along this path', through);
    const target = related.context.type;
    const element = `odata_e${this.temporaryCount++}`;
    const inner: Frame = { context: related.context, it: `$$${element}.`, variables: new Map() };
    const array = related.kind === 'collection' ? related.ref : { $cond: [{ $eq: [related.ref, null] }, [], [related.ref]] };
    // The related entity's storage key (contained entities': their container's key too).
    const key: MongoDocument = {};
    storageKeyFields(target, related.context.set, this.mapping).forEach((field, i) => {
      key[`k${i}`] = { $ifNull: [`$$${element}.${field}`, null] };
    });
    let value: Aggregation = null;
    if (a.kind === 'method') {
      if ((a.method === 'min' || a.method === 'max') && (a.expression.type.kind === 'enum' || isDuration(a.expression.type))) {
        this.fail(`${a.method} of an enumeration or Duration value along a navigation path`, a);
      }
      value = isDuration(a.expression.type) ? this.expressions.durationValue(a.expression, inner) : this.expressions.value(a.expression, inner);
    }
    const pairs = this.temporary('p');
    before[pairs] = kept({ $map: { input: array, as: element, in: { k: key, v: value } } }, []);
    const pushed = this.temporary('q');
    group[pushed] = { $push: `$${pairs}` };
    const united = { $reduce: { input: `$${pushed}`, initialValue: [], in: { $setUnion: ['$$value', '$$this'] } } };
    const all = `u${this.temporaryCount++}`;
    if (a.kind === 'count') return { $size: united };
    const values = `w${this.temporaryCount++}`;
    const present = {
      $filter: { input: { $map: { input: `$$${all}`, as: 'odata_x', in: '$$odata_x.v' } }, as: 'odata_y', cond: { $ne: ['$$odata_y', null] } },
    };
    let result: Aggregation;
    switch (a.method) {
      case 'sum':
      case 'average':
        result = this.sumValue(a.method, a.expression.type, { $sum: `$$${values}` }, { $size: `$$${values}` });
        break;
      case 'min':
      case 'max':
        result = {
          $reduce: {
            input: `$$${values}`,
            initialValue: null,
            in: { $cond: [{ $or: [{ $eq: ['$$value', null] }, { [a.method === 'min' ? '$lt' : '$gt']: ['$$this', '$$value'] }] }, '$$this', '$$value'] },
          },
        };
        break;
      case 'countdistinct':
        result = { $size: { $setUnion: [`$$${values}`] } };
        break;
      default:
        // A custom method (custom-methods.ts).
        result = customMongoAggregate(a.method, `$$${values}`, a, '$apply');
    }
    return { $let: { vars: { [all]: united }, in: { $let: { vars: { [values]: present }, in: result } } } };
  }

  /**
   * `groupby` ending in `nest` (3.2.3.1, example 129): each group's rows (those the nested filters
   * keep) run each item's transformations as one pipeline over all groups, partitioned by the
   * group (its grouping values in a field, a grouping value of every nested `groupby` and
   * `aggregate`); a `$facet` holds the groups and each item's rows, and each group takes the rows
   * of its partition (an item ending in `aggregate` the aggregates of none where it has none). The
   * result is one document until it is unwound, as `nest`'s.
   */
  private groupbyNest(t: Extract<BoundTransformation, { kind: 'groupby' }>, rows: Rows, stages: MongoDocument[]): void {
    const nest = t.apply.at(-1) as Extract<BoundTransformation, { kind: 'nest' }>;
    if (t.sets !== undefined) this.fail('nest() at the end of a groupby() with rollup()', nest);
    const seq = this.sequence;
    const context = newContext(rows.type, rows.set);
    const frame = rootFrame(context);
    const group = this.temporary('g');
    const id: MongoDocument = {};
    const representatives: MongoDocument = {};
    const fields: MongoDocument = {};
    t.keys.forEach((key, i) => {
      if (isDuration(key.path.type)) {
        id[`k${i}`] = this.expressions.durationValue(key.path, frame);
        const representative = this.temporary('r');
        fields[representative] = this.expressions.value(key.path, frame);
        representatives[`r${i}`] = { $first: `$${representative}` };
      } else id[`k${i}`] = this.expressions.value(key.path, frame);
    });
    stages.push(...context.stages, { $addFields: { ...fields, [group]: id } });
    this.dropLookups(context, stages);
    // The nested filters and computes before the nest: a filter marks the rows it keeps (a group
    // whose rows it drops stays, with empty collections).
    let keep: string | undefined;
    let current = rows;
    const partition = (): Aggregation => (keep === undefined ? `$${group}` : { g: `$${group}`, keep: `$${keep}` });
    for (const nested of t.apply.slice(0, -1)) {
      const nestedContext: Context = { ...newContext(current.type, current.set), these: { partitionBy: partition() } };
      const nestedFrame = rootFrame(nestedContext);
      if (nested.kind === 'compute') {
        const computed: MongoDocument = {};
        for (const item of nested.items) computed[this.field(nested.output, item.alias)] = this.expressions.value(item.expression, nestedFrame);
        stages.push(...nestedContext.stages, { $addFields: computed });
        this.dropLookups(nestedContext, stages);
        current = { type: nested.output, set: current.set };
      } else if (nested.kind === 'filter') {
        const holds = this.expressions.holds(nested.predicate, nestedFrame);
        const field = this.temporary('keep');
        stages.push(...nestedContext.stages, { $addFields: { [field]: keep === undefined ? holds : { $and: [{ $eq: [`$${keep}`, true] }, holds] } } });
        this.dropLookups(nestedContext, stages);
        keep = field;
      } else if (nested.kind !== 'identity') this.fail(`${nested.kind}() before nest() inside groupby() (only filter() and compute())`, nested);
    }
    const groups = this.temporary('groups');
    const groupStage: MongoDocument = { _id: `$${group}`, ...representatives };
    if (seq !== undefined) groupStage[seq] = { $min: `$${seq}` };
    const facet: MongoDocument = { [groups]: [{ $group: groupStage }] };
    const values: MongoDocument = {};
    for (const item of nest.items) {
      const field = this.field(t.output, item.alias);
      const itemStages: MongoDocument[] = keep === undefined ? [] : [{ $match: { [keep]: true } }];
      const made = this.partitioned(item.apply, current, itemStages, group);
      facet[field] = itemStages.length === 0 ? [{ $match: {} }] : itemStages;
      // The partition's rows, each with the item's properties only.
      const row: MongoDocument = {};
      for (const property of made.type.properties.values()) {
        const name = this.field(made.type, property.name);
        row[name] = `$$odata_x.${name}`;
      }
      // A navigation that traverse placed a node in (through a collection: seed 3116, model 2002) is a field of the rows too.
      for (const property of item.type.properties.values()) {
        if (!made.type.properties.has(property.name) && made.type.navigation.has(property.name)) row[property.name] = `$$odata_x.${property.name}`;
      }
      const mine = { $filter: { input: `$${field}`, as: 'odata_x', cond: { $eq: [`$$odata_x.${group}`, `$${groups}._id`] } } };
      const mapped = { $map: { input: mine, as: 'odata_x', in: row } };
      const last = item.apply.at(-1);
      values[field] = last?.kind === 'aggregate' ? { $cond: [{ $eq: [{ $size: mine }, 0] }, [this.aggregateDefaults(last)], mapped] } : mapped;
    }
    const placed: MongoDocument = {};
    this.keyOutput(t.keys, t.output, placed);
    stages.push({ $facet: facet }, { $unwind: `$${groups}` });
    if (seq !== undefined) stages.push({ $sort: { [`${groups}.${seq}`]: 1 } });
    stages.push({ $replaceRoot: { newRoot: { ...rebase(placed, groups), ...values, ...(seq === undefined ? {} : { [seq]: `$${groups}.${seq}` }) } } });
  }

  /**
   * A `nest` item's transformations over the rows of every group at once, partitioned by the
   * field `partition` (the group's grouping values), which every row they give keeps: filters and
   * computes per row (`$these` the partition's rows), `groupby` and a final `aggregate` grouped by
   * it too; the rest is refused.
   */
  private partitioned(transformations: readonly BoundTransformation[], input: Rows, stages: MongoDocument[], partition: string): Rows {
    let rows = input;
    // A trailing orderby with top/skip (or either alone): each partition's rows numbered in that order, those in range.
    let paged = 0;
    while (paged < transformations.length && /^(top|skip)$/.test(transformations[transformations.length - 1 - paged]?.kind ?? '')) paged++;
    if (transformations[transformations.length - 1 - paged]?.kind === 'orderby') paged++;
    const paging = transformations.slice(transformations.length - paged);
    transformations.slice(0, transformations.length - paged).forEach((step, i) => {
      const context: Context = { ...newContext(rows.type, rows.set), these: { partitionBy: `$${partition}` } };
      if (step.kind === 'identity') return;
      if (step.kind === 'filter') {
        const condition = this.hooks.condition(step.predicate, context, this.expressions);
        stages.push(...context.stages, { $match: condition });
        this.dropLookups(context, stages);
      } else if (step.kind === 'compute') {
        const frame = rootFrame(context);
        const computed: MongoDocument = {};
        for (const item of step.items) computed[this.field(step.output, item.alias)] = this.expressions.value(item.expression, frame);
        stages.push(...context.stages, { $addFields: computed });
        this.dropLookups(context, stages);
        rows = { type: step.output, set: rows.set };
      } else if (
        step.kind === 'groupby' &&
        step.recursive === undefined &&
        step.sets === undefined &&
        (step.apply.length === 0 || step.apply.at(-1)?.kind === 'aggregate')
      ) {
        this.groupby(step, rows, stages, partition);
        rows = { type: step.output, set: undefined };
      } else if (step.kind === 'aggregate' && i === transformations.length - 1 && step.aggregates.every((a) => a.from === undefined)) {
        this.groupby({ kind: 'groupby', keys: [], apply: [step], output: step.output, span: step.span }, rows, stages, partition);
        rows = { type: step.output, set: undefined };
      } else {
        this.fail(
          `${step.kind}() inside nest() at the end of groupby() (only filter(), compute(), groupby() ending in aggregate(), a last aggregate(), and orderby(), top(), skip() at the end)`,
          step,
        );
      }
    });
    if (paging.length > 0) {
      const context: Context = { ...newContext(rows.type, rows.set), these: { partitionBy: `$${partition}` } };
      const computed: MongoDocument = {};
      const sort: MongoDocument = {};
      const orderby = paging[0]?.kind === 'orderby' ? paging[0] : undefined;
      if (orderby !== undefined) this.hooks.order(orderby.items, rootFrame(context), this.expressions, computed, sort, []);
      stages.push(...context.stages);
      if (Object.keys(computed).length > 0) stages.push({ $addFields: computed });
      let low = 0;
      let high = Number.POSITIVE_INFINITY;
      for (const step of paging) {
        if (step.kind === 'skip') low = Math.min(high, low + step.count);
        else if (step.kind === 'top') high = Math.min(high, low + step.count);
      }
      const number = this.temporary('r');
      stages.push({
        $setWindowFields: { partitionBy: `$${partition}`, sortBy: { ...sort, [this.sequence ?? '_id']: 1 }, output: { [number]: { $documentNumber: {} } } },
      });
      const range: MongoDocument = { ...(low > 0 ? { $gt: low } : {}), ...(Number.isFinite(high) ? { $lte: high } : {}) };
      if (Object.keys(range).length > 0) stages.push({ $match: { [number]: range } });
      // Each partition's rows in their order: the items' arrays keep it.
      stages.push({ $sort: { [number]: 1 } });
    }
    return rows;
  }

  /**
   * `groupby`: a `$group` on the grouping values, with the aggregates of the nested `aggregate`;
   * with `partition`, grouped by that field too, which each group's document keeps.
   */
  private groupby(t: Extract<BoundTransformation, { kind: 'groupby' }>, rows: Rows, stages: MongoDocument[], partition?: string): void {
    if (t.apply.at(-1)?.kind === 'nest' && partition === undefined) return this.groupbyNest(t, rows, stages);
    const seq = this.sequence;
    const context = newContext(rows.type, rows.set);
    // The lookups of the grouping values, the nested filters and computes and the aggregates stay
    // on the documents until the $group: one map of them, so that each has a field of its own.
    // $these there is the group's rows (that the nested filters kept so far): windows partitioned so.
    let keep: string | undefined;
    const groupOf = (): Aggregation => ({ ...id, ...(keep === undefined ? {} : { keep: `$${keep}` }) });
    const sharing = (over: Rows): Context => ({
      ...newContext(over.type, over.set),
      lookups: context.lookups,
      ...(t.sets === undefined ? { these: { partitionBy: groupOf() } } : {}),
    });
    const frame = rootFrame(context);
    const id: MongoDocument = {};
    // A Duration groups by its length of time (`-P0D`, `P0D` and `PT0S` are one group), its value any of the group's.
    const representatives: MongoDocument = {};
    t.keys.forEach((key, i) => {
      if (isDuration(key.path.type)) {
        id[`k${i}`] = this.expressions.durationValue(key.path, frame);
        representatives[`r${i}`] = { $first: this.expressions.value(key.path, frame) };
      } else id[`k${i}`] = this.expressions.value(key.path, frame);
    });
    if (partition !== undefined) id.p = `$${partition}`;
    stages.push(...context.stages);
    const group: MongoDocument = { _id: id, ...representatives };
    if (seq !== undefined) group[seq] = { $min: `$${seq}` };
    const out: MongoDocument = {};
    // rollup(…): each document once per grouping set (a field holds the set's index), grouped by
    // the set and its keys (the others null), each key present only in the sets that have it.
    const sets = t.sets;
    const setField = sets === undefined ? undefined : this.temporary('set');
    const inSets = (indices: readonly number[]): Aggregation => ({
      $in: ['$_id.s', sets?.flatMap((set, n) => (indices.some((i) => set.includes(i)) ? [n] : [])) ?? []],
    });
    if (sets !== undefined) {
      t.keys.forEach((_key, i) => {
        const holding = sets.flatMap((set, n) => (set.includes(i) ? [n] : []));
        id[`k${i}`] = { $cond: [{ $in: [`$${setField}`, holding] }, id[`k${i}`], null] };
      });
      id.s = `$${setField}`;
    }
    this.keyOutput(t.keys, t.output, out, sets === undefined ? undefined : inSets);
    if (partition !== undefined) out[partition] = '$_id.p';
    // Nested transformations: filter and compute per row, then the aggregate.
    let current = rows;
    const derived: FromAggregate[] = [];
    // A trailing orderby with top/skip (or either alone): each group's rows in that order, those in range (as SQL's top n per group).
    let paged = 0;
    while (paged < t.apply.length && /^(top|skip)$/.test(t.apply[t.apply.length - 1 - paged]?.kind ?? '')) paged++;
    if (t.apply[t.apply.length - 1 - paged]?.kind === 'orderby') paged++;
    if (t.sets !== undefined) paged = 0;
    const paging = t.apply.slice(t.apply.length - paged);
    // A trailing filter or compute: each group's rows those steps give.
    const tail = t.apply.at(-1);
    const rowWise = paged === 0 && t.sets === undefined && (tail?.kind === 'filter' || tail?.kind === 'compute');
    const last = paged > 0 || rowWise ? undefined : tail;
    for (const nested of t.apply.slice(0, paged > 0 ? -paged : rowWise ? t.apply.length : -1)) {
      const nestedContext = sharing(current);
      const nestedFrame = rootFrame(nestedContext);
      if (nested.kind === 'compute') {
        const fields: MongoDocument = {};
        for (const item of nested.items) fields[this.field(nested.output, item.alias)] = this.expressions.value(item.expression, nestedFrame);
        stages.push(...nestedContext.stages, { $addFields: fields });
        current = { type: nested.output, set: current.set };
      } else if (nested.kind === 'filter') {
        const holds = this.expressions.holds(nested.predicate, nestedFrame);
        const field = this.temporary('keep');
        stages.push(...nestedContext.stages, { $addFields: { [field]: keep === undefined ? holds : { $and: [{ $eq: [`$${keep}`, true] }, holds] } } });
        keep = field;
      } else if (nested.kind === 'rank' && nested.measure === 'count' && nested.limitOver === undefined && t.sets === undefined) {
        // topcount/bottomcount (example 102): each group's rows (those its filters kept, a partition
        // of their own) numbered in the ranking's order, null values last, ties in input order;
        // those past the limit left out as a filter leaves them (a group without rows stays one).
        const value = this.temporary('v');
        const isNull = this.temporary('n');
        const number = this.temporary('r');
        stages.push(
          ...nestedContext.stages,
          { $addFields: { [value]: this.expressions.value(nested.value, nestedFrame) } },
          { $addFields: { [isNull]: { $cond: [{ $eq: [`$${value}`, null] }, 1, 0] } } },
          {
            $setWindowFields: {
              partitionBy: groupOf(),
              sortBy: { [isNull]: 1, [value]: nested.direction === 'top' ? -1 : 1, ...(seq === undefined ? { _id: 1 } : { [seq]: 1 }) },
              output: { [number]: { $documentNumber: {} } },
            },
          },
        );
        const inRange = { $lte: [`$${number}`, nested.limit] };
        const field = this.temporary('keep');
        stages.push({ $addFields: { [field]: keep === undefined ? inRange : { $and: [{ $eq: [`$${keep}`, true] }, inRange] } } });
        keep = field;
      } else if (nested.kind !== 'identity') {
        this.fail(`${nested.kind}() inside groupby() (only filter(), compute() and a topcount or bottomcount before the aggregate())`, nested);
      }
    }
    const ranked = last?.kind === 'rank' && last.measure === 'count' && last.limitOver === undefined && t.sets === undefined ? last : undefined;
    if (ranked !== undefined || paging.length > 0 || rowWise) {
      // A topcount/bottomcount at the end (3.2.3.1, example 101), or orderby with top/skip: the rows
      // it keeps of each group, with the group's grouping properties; groups in the order of their
      // first row, each in the ranking's (the orderby's).
      const number = this.temporary('r');
      const first = this.temporary('f');
      const groupKey = this.temporary('g');
      const order = seq ?? '_id';
      const rankContext = sharing(current);
      const prepare: MongoDocument[] = [];
      let sortBy: MongoDocument;
      // The rows kept: number in (low, high].
      let low = 0;
      let high = Number.POSITIVE_INFINITY;
      if (ranked !== undefined) {
        const value = this.temporary('v');
        const isNull = this.temporary('n');
        prepare.push(
          { $addFields: { [value]: this.expressions.value(ranked.value, rootFrame(rankContext)) } },
          { $addFields: { [isNull]: { $cond: [{ $eq: [`$${value}`, null] }, 1, 0] } } },
        );
        sortBy = { [isNull]: 1, [value]: ranked.direction === 'top' ? -1 : 1, [order]: 1 };
        high = ranked.limit;
      } else {
        const computed: MongoDocument = {};
        const sort: MongoDocument = {};
        const orderby = paging[0]?.kind === 'orderby' ? paging[0] : undefined;
        if (orderby !== undefined) this.hooks.order(orderby.items, rootFrame(rankContext), this.expressions, computed, sort, []);
        if (Object.keys(computed).length > 0) prepare.push({ $addFields: computed });
        sortBy = { ...sort, [order]: 1 };
        for (const step of paging) {
          if (step.kind === 'skip') low = Math.min(high, low + step.count);
          else if (step.kind === 'top') high = Math.min(high, low + step.count);
        }
      }
      const range: MongoDocument = { ...(low > 0 ? { $gt: low } : {}), ...(Number.isFinite(high) ? { $lte: high } : {}) };
      stages.push(...rankContext.stages, { $addFields: { [groupKey]: groupOf() } }, ...prepare, {
        $setWindowFields: {
          partitionBy: `$${groupKey}`,
          sortBy,
          output: { [number]: { $documentNumber: {} }, [first]: { $min: `$${order}`, window: { documents: ['unbounded', 'unbounded'] } } },
        },
      });
      const kept: MongoDocument = { ...(Object.keys(range).length > 0 ? { [number]: range } : {}), ...(keep === undefined ? {} : { [keep]: true }) };
      if (Object.keys(kept).length > 0) stages.push({ $match: kept });
      if (seq !== undefined)
        stages.push({ $setWindowFields: { sortBy: { [first]: 1, [number]: 1 }, output: { [seq]: { $documentNumber: {} } } } }, { $sort: { [seq]: 1 } });
      // The grouping values, read by keyOutput as a group's would be.
      const durations: MongoDocument = {};
      t.keys.forEach((key, i) => {
        if (isDuration(key.path.type)) durations[`r${i}`] = this.expressions.value(key.path, frame);
      });
      const row: MongoDocument = {};
      const grouped = new Set(t.keys.map((key) => key.names[0] as string));
      for (const property of t.output.properties.values()) {
        if (grouped.has(property.name)) continue;
        // A navigation that traverse placed a node in (through a collection: seed 3116, model 2002) is a field of the rows too.
        if (current.type.properties.has(property.name)) row[this.field(t.output, property.name)] = `$${this.field(current.type, property.name)}`;
        else if (current.type.navigation.has(property.name)) row[this.field(t.output, property.name)] = `$${property.name}`;
      }
      const placed: MongoDocument = {};
      this.keyOutput(t.keys, t.output, placed);
      const keys = this.temporary('keys');
      stages.push({ $replaceRoot: { newRoot: { ...row, ...(seq === undefined ? {} : { [seq]: `$${seq}` }), [keys]: { _id: `$${groupKey}`, ...durations } } } });
      stages.push({ $replaceRoot: { newRoot: { $mergeObjects: ['$$ROOT', rebase(placed, keys)] } } }, { $project: { [keys]: 0 } });
      return;
    }
    if (last !== undefined) {
      if (last.kind !== 'aggregate') return this.fail(`${last.kind}() at the end of groupby()`, last);
      const aggregateContext = sharing(current);
      const before: MongoDocument = {};
      const after: MongoDocument = {};
      for (const a of last.aggregates) {
        const field = this.field(t.output, a.alias);
        if (a.from !== undefined) derived.push(this.fromBase(a, field, aggregateContext, before, after, group));
        else out[field] = this.accumulate(a, aggregateContext, keep, before, after, group);
      }
      stages.push(...aggregateContext.stages);
      if (Object.keys(before).length > 0) stages.push({ $addFields: before });
      if (Object.keys(after).length > 0) stages.push({ $addFields: after });
    }
    if (seq !== undefined) out[seq] = `$${seq}`;
    if (setField !== undefined) stages.push({ $addFields: { [setField]: { $literal: sets?.map((_set, n) => n) } } }, { $unwind: `$${setField}` });
    if (derived.length > 0) {
      stages.push(...this.fromGroups(id, group, out, derived, keep));
      if (seq !== undefined) stages.push({ $sort: { [seq]: 1 } });
      return;
    }
    stages.push({ $group: group });
    if (seq !== undefined) stages.push({ $sort: { [seq]: 1 } });
    stages.push({ $replaceRoot: { newRoot: out } });
  }

  /**
   * The first level of an aggregate with `from` steps (Data Aggregation 3.2.1.5): the aggregate
   * itself without its steps (its accumulators into `group`, read per group of every step's
   * properties by `fromGroups`), and the fields of the steps' grouping values (into `before`).
   */
  private fromBase(a: BoundAggregate, field: string, context: Context, before: MongoDocument, after: MongoDocument, group: MongoDocument): FromAggregate {
    const steps = a.from as readonly BoundFromStep[];
    const base = { ...a, from: undefined, type: (steps[0] as BoundFromStep).input } as BoundAggregate;
    const frame = rootFrame(context);
    const keys = steps.map((step) =>
      step.keys.map((key) => {
        const name = this.temporary('x');
        // A Duration groups by its length of time, as groupby's keys do.
        before[name] = isDuration(key.path.type) ? this.expressions.durationValue(key.path, frame) : this.expressions.value(key.path, frame);
        return name;
      }),
    );
    // Rows the group's filters leave out never reach a step's groups: the branch drops them (fromGroups).
    const value = this.accumulate(base, context, undefined, before, after, group);
    return { aggregate: a, steps, field, value, keys };
  }

  /**
   * The `$group` of `group` (its `_id` the grouping values `id`, none for `aggregate`) when some
   * aggregates have `from` steps: each row once per branch (the branch 0 for the other aggregates,
   * one per such aggregate), grouped by the branch, the grouping values and the branch's step
   * properties; then one `$group` per step level, each branch applying its step's method to the
   * values of the level before and grouping by its later steps' properties (a branch without a
   * step there, and branch 0, pass through); then one document per group, branch 0's output with
   * each aggregate's value (over no rows, where the group's filters left none: as `aggregate` of nothing).
   * The cost: the rows times (1 + such aggregates), one `$group` per level.
   */
  private fromGroups(
    id: MongoDocument | undefined,
    group: MongoDocument,
    out: MongoDocument,
    derived: readonly FromAggregate[],
    keep: string | undefined,
  ): MongoDocument[] {
    const branch = this.temporary('b');
    const stages: MongoDocument[] = [{ $addFields: { [branch]: { $literal: [0, ...derived.map((_d, i) => i + 1)] } } }, { $unwind: `$${branch}` }];
    if (keep !== undefined) stages.push({ $match: { $or: [{ [branch]: 0 }, { [keep]: true }] } });
    const outer = Object.keys(id ?? {});
    const stepKey = (i: number, s: number, m: number): string => `x${i}_${s}_${m}`;
    const first: MongoDocument = { ...(id ?? {}), b: `$${branch}` };
    derived.forEach((d, i) =>
      d.keys.forEach((fields, s) =>
        fields.forEach((field, m) => {
          first[stepKey(i, s, m)] = { $cond: [{ $eq: [`$${branch}`, i + 1] }, `$${field}`, null] };
        }),
      ),
    );
    const main = this.temporary('main');
    const v = this.temporary('v');
    const inBranch = (i: number): Aggregation => ({ $eq: ['$_id.b', i + 1] });
    const choose = (values: { branch: number; value: Aggregation }[], otherwise: Aggregation): Aggregation =>
      values.length === 0 ? otherwise : { $switch: { branches: values.map((c) => ({ case: inBranch(c.branch), then: c.value })), default: otherwise } };
    stages.push(
      { $group: { ...group, _id: first } },
      {
        $replaceRoot: {
          newRoot: {
            _id: '$_id',
            [main]: { $cond: [{ $eq: ['$_id.b', 0] }, out, null] },
            [v]: choose(
              derived.map((d, i) => ({ branch: i, value: d.value })),
              null,
            ),
          },
        },
      },
    );
    const levels = Math.max(...derived.map((d) => d.steps.length));
    for (let s = 0; s < levels; s++) {
      const levelId: MongoDocument = { b: '$_id.b' };
      for (const name of outer) levelId[name] = `$_id.${name}`;
      derived.forEach((d, i) =>
        d.keys.forEach((fields, later) => {
          if (later > s) fields.forEach((_f, m) => (levelId[stepKey(i, later, m)] = `$_id.${stepKey(i, later, m)}`));
        }),
      );
      const carried = this.temporary('c');
      const levelGroup: MongoDocument = { _id: levelId, [main]: { $first: `$${main}` }, [carried]: { $first: `$${v}` } };
      const flags: MongoDocument = {};
      const before: MongoDocument = {};
      const after: MongoDocument = {};
      const values: { branch: number; value: Aggregation }[] = [];
      derived.forEach((d, i) => {
        const step = d.steps[s];
        if (step === undefined) return;
        // The step's method over the values of the level before, as an aggregate of a property `v`.
        const property = outputProperty(v, referenceOf(step.input) as never);
        const type = outputType('from', [property]);
        const path: BoundPath = {
          kind: 'path',
          root: { kind: 'it' },
          steps: [{ kind: 'property', property, span: step.span }],
          type: step.input,
          span: step.span,
        };
        const flag = this.temporary('in');
        flags[flag] = inBranch(i);
        const aggregate: BoundAggregate = { kind: 'method', alias: v, type: step.type, method: step.method, expression: path, span: step.span };
        values.push({ branch: i, value: this.accumulate(aggregate, newContext(type, undefined), flag, before, after, levelGroup) });
      });
      stages.push({ $addFields: flags });
      if (Object.keys(before).length > 0) stages.push({ $addFields: before });
      if (Object.keys(after).length > 0) stages.push({ $addFields: after });
      stages.push({ $group: levelGroup }, { $replaceRoot: { newRoot: { _id: '$_id', [main]: `$${main}`, [v]: choose(values, `$${carried}`) } } });
    }
    // One document per group: branch 0's output, each aggregate's value beside it.
    const all = this.temporary('all');
    const finalId: MongoDocument | null = id === undefined ? null : Object.fromEntries(outer.map((name) => [name, `$_id.${name}`]));
    const pick = (b: number, field: 'm' | 'v'): Aggregation => ({
      $let: {
        vars: { odata_p: { $arrayElemAt: [{ $filter: { input: `$${all}`, as: 'odata_f', cond: { $eq: ['$$odata_f.b', b] } } }, 0] } },
        in: `$$odata_p.${field}`,
      },
    });
    const values: MongoDocument = {};
    derived.forEach((d, i) => (values[d.field] = { $ifNull: [pick(i + 1, 'v'), ofNothing(d.aggregate)] }));
    stages.push(
      { $group: { _id: finalId, [all]: { $push: { b: '$_id.b', m: `$${main}`, v: `$${v}` } } } },
      { $replaceRoot: { newRoot: { $mergeObjects: [pick(0, 'm'), values] } } },
    );
    return stages;
  }

  /**
   * The grouping values into the output document, nested as the output type says; with `present`
   * (rollup), each value and each object of them only in the rows of the sets that have it.
   */
  private keyOutput(keys: readonly BoundGroupKey[], type: StructuredType, out: MongoDocument, present?: (indices: readonly number[]) => Aggregation): void {
    // Per object on a path: the keys beneath it (to know in which sets it is present).
    const objects: { into: MongoDocument; field: string; indices: number[] }[] = [];
    keys.forEach((key, i) => {
      let into = out;
      let at = type;
      key.names.forEach((name, j) => {
        const property = at.properties.get(name) as Property;
        const field = fieldOf(at, property, this.mapping);
        if (j === key.names.length - 1) {
          const value = isDuration(key.path.type) ? `$r${i}` : `$_id.k${i}`;
          into[field] = present === undefined ? value : { $cond: [present([i]), value, '$$REMOVE'] };
          return;
        }
        if (into[field] === undefined) {
          into[field] = {};
          objects.push({ into, field, indices: [] });
        }
        objects.find((o) => o.into === into && o.field === field)?.indices.push(i);
        into = into[field] as MongoDocument;
        at = (property.type as { type: StructuredType }).type;
      });
    });
    // The deepest objects first, so that an outer one wraps the inner ones' conditions.
    if (present !== undefined) for (const { into, field, indices } of objects.reverse()) into[field] = { $cond: [present(indices), into[field], '$$REMOVE'] };
  }
}

/** `keyOutput`'s document with its references to a group (`$_id.k0`, `$r0`) read from the field `into` instead. */
function rebase(document: MongoDocument, into: string): MongoDocument {
  const out: MongoDocument = {};
  for (const [name, value] of Object.entries(document)) {
    if (typeof value === 'string' && value.startsWith('$') && !value.startsWith('$$')) out[name] = `$${into}.${value.slice(1)}`;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) out[name] = rebase(value as MongoDocument, into);
    else out[name] = value;
  }
  return out;
}
