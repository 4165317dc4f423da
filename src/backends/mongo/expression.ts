/**
 * Bound expressions as MongoDB aggregation expressions (for `$expr`, computed sort keys and
 * `$lookup` pipelines), with OData's null rules spelled out: a missing field is null, functions
 * and arithmetic of null are null, comparisons with null are false (but null eq null), and
 * `and`/`or`/`not` are three-valued. Navigation becomes `$lookup` stages, collected per context.
 *
 * Every literal goes through `$literal`, so a string such as `$where` or `{"$gt":""}` can never
 * be read as a field path or an operator.
 */
import { neverNull } from '../../passes/never-null.js';
import { foldLowered, lowerCondition, type LoweredComparison, type LoweredCondition } from '../../passes/lower-conditions.js';
import { partOfNull } from '../../passes/null-parts.js';
import type { EntitySet, EnumType, NavigationProperty, StructuredType } from '../../model/model.js';
import { OUTER_IT, type BoundExpression, type BoundHierarchyTest, type BoundPath, type BoundSearch, type DynamicRead } from '../../semantic/bound-ast.js';
import { dynamicColumn } from '../../storage/dynamic-properties.js';
import { foldSearch } from '../../semantic/bind-search.js';
import { isIntegerType, isNumeric, isPrimitive, type ExpressionType } from '../../semantic/types.js';
import { bitsOf, flagBits, memberOrdinals, membersCarrying } from '../../passes/enums.js';
import { parseDate, parseInstant } from '../../util/temporal.js';
import {
  escapeRegex,
  fieldOf,
  hiddenField,
  linkLookup,
  reservedField,
  storedValue,
  targetSet,
  unsupported,
  type MongoDocument,
  type MongoMapping,
} from './mapping.js';
import { functionValue } from './functions.js';
import { customMongoAggregate } from './custom-methods.js';
import { castOrIsof } from './casts.js';
import { hierarchyTestCondition, readsVariables } from './hierarchy-functions.js';
import { arithmetic, calendarDate, inRange, isDuration, type ArithmeticContext } from './arithmetic.js';

export { isDuration } from './arithmetic.js';

/** 400 Gregorian years: 146 097 days, in milliseconds. */
const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

/** An aggregation expression. */
export type Aggregation = unknown;

/**
 * Documents that expressions look at: the documents of a pipeline, or the related documents
 * inside a `$lookup` pipeline. Navigation adds `$lookup` stages to `stages`.
 */
export interface Context {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
  /** `$lookup` stages (and their `$set`s) to run on these documents before they are matched. */
  readonly stages: MongoDocument[];
  /** Path key → the field a lookup put its result in. */
  readonly lookups: Map<string, { field: string; context: Context | undefined }>;
  /** The elements of a collection of complex values (`$count($filter=…)` over them): no lookups from here. */
  readonly element?: true;
  /**
   * These documents are the current collection of `$these/aggregate(…)` and `$these/$count` (Data
   * Aggregation 3.6) where they are read (the entity set in `$filter`, `$orderby` and `$compute`,
   * or the rows `$apply` gives; the input rows of `filter()`, `compute()`, `orderby()`, `aggregate()`
   * and `topcount()`… of `$apply`, and a group's inside `groupby()`): its aggregates are
   * computed over them by `$setWindowFields` stages in `stages`; with `partitionBy`, over each
   * partition of them (the rows of a group inside `groupby()`). Elsewhere `$these` is refused.
   */
  readonly these?: true | { readonly partitionBy: Aggregation };
}

/**
 * A lambda variable: a related entity (a document inside its lookup's context), a primitive
 * value, or a complex value (an element of an array of subdocuments, `type` its complex type).
 */
type Variable =
  | { readonly kind: 'entity'; readonly ref: string; readonly context: Context }
  | { readonly kind: 'value'; readonly ref: string }
  | { readonly kind: 'complex'; readonly ref: string; readonly type: StructuredType };

/** Where `$it` is (`$` for the current document, `$$v1.` inside a `$filter` over related documents) and the lambda variables. */
export interface Frame {
  readonly context: Context;
  readonly it: string;
  readonly variables: ReadonlyMap<string, Variable>;
}

export function newContext(type: StructuredType, set: EntitySet | undefined, stages: MongoDocument[] = []): Context {
  return { type, set, stages, lookups: new Map() };
}

/** A context whose documents are the current collection of `$these` (see {@link Context.these}). */
export function theseContext(type: StructuredType, set: EntitySet | undefined): Context {
  return { type, set, stages: [], lookups: new Map(), these: true };
}

/** The context of the elements of a collection of complex values: their type, no entity set, no lookups. */
export function elementContext(type: StructuredType): Context {
  return { type, set: undefined, stages: [], lookups: new Map(), element: true };
}

export function rootFrame(context: Context): Frame {
  return { context, it: '$', variables: new Map() };
}

const isNull = (x: Aggregation): Aggregation => ({ $eq: [x, null] });
const notNull = (x: Aggregation): Aggregation => ({ $ne: [x, null] });
/**
 * A dynamic property `name` of the embedded document at `bag` (semantic/dynamic-values.ts): its
 * value (null where absent), or read as `read` (null where its BSON type is another). The name
 * comes from the request: `$getField` of a `$literal` reads it as one field, whatever it holds
 * (`$`, dots), never as a path or an operator.
 */
function dynamicMember(bag: string, name: string, read: DynamicRead | undefined): Aggregation {
  const value = { $ifNull: [{ $getField: { field: { $literal: name }, input: { $ifNull: [bag, {}] } } }, null] };
  if (read === undefined) return value;
  const type = { $type: value };
  const matches = read === 'Edm.Double' ? { $in: [type, ['int', 'long', 'double', 'decimal']] } : { $eq: [type, read === 'Edm.String' ? 'string' : 'bool'] };
  return { $cond: [matches, value, null] };
}

const literal = (value: unknown): Aggregation => (typeof value === 'number' || typeof value === 'boolean' || value === null ? value : { $literal: value });

type Comparison = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
const AGGREGATE = { eq: '$eq', ne: '$ne', gt: '$gt', ge: '$gte', lt: '$lt', le: '$lte' } as const satisfies Record<Comparison, string>;

export class MongoExpressionCompiler {
  private variableCount = 0;
  private letCount = 0;

  constructor(
    private readonly mapping: MongoMapping,
    private readonly option: string,
  ) {}

  private fail(what: string, node: { span: { start: number } }): never {
    throw unsupported(what, { node, option: this.option });
  }

  /**
   * `$lookup` of a navigation property from `base` (a path prefix inside the context's documents),
   * whose documents are of `source` (type and entity set), as the storage mapping links them.
   */
  lookup(
    context: Context,
    base: string,
    source: StructuredType,
    sourceSet: EntitySet | undefined,
    navigation: NavigationProperty,
    entitySet: EntitySet | undefined,
    node?: { span: { start: number } },
  ): { field: string; context: Context } {
    const key = `${base}${navigation.name}`;
    const known = context.lookups.get(key);
    if (known?.context !== undefined) return { field: known.field, context: known.context };
    if (context.element === true)
      throw unsupported(`the navigation property '${navigation.name}' from an element of a collection of complex values`, { node, option: this.option });
    const set = targetSet(navigation, entitySet, { node, option: this.option });
    const field = reservedField(context.type, this.mapping, `nav${context.lookups.size}`);
    const link = linkLookup({ type: source, set: sourceSet }, navigation, set, this.mapping, base);
    const pipeline = link.pipeline;
    if (!navigation.collection) pipeline.push({ $limit: 1 });
    const inner = newContext(navigation.target, set, pipeline);
    context.stages.push({ $lookup: { from: link.from, let: link.let, pipeline, as: field } });
    // A single related document: the first (only) element, or missing.
    if (!navigation.collection) context.stages.push({ $set: { [field]: { $arrayElemAt: [`$${field}`, 0] } } });
    context.lookups.set(key, { field, context: inner });
    return { field, context: inner };
  }

  /**
   * A path: a value (`{ kind: 'value' }`, null when missing), an entity (`'entity'`: a
   * document or null) or a collection (`'collection'`: an array, with the context of its
   * related documents when they are entities).
   */
  path(
    node: BoundPath,
    frame: Frame,
  ):
    | { kind: 'value' | 'entity'; ref: Aggregation; context?: Context }
    | { kind: 'collection'; ref: Aggregation; context: Context | undefined; element: ExpressionType } {
    let prefix: string;
    let context: Context;
    let type: StructuredType;
    // The entity set of the documents at `base` (undefined in complex values).
    let set: EntitySet | undefined;
    if (node.root.kind === 'variable') {
      const variable = frame.variables.get(node.root.name);
      if (variable === undefined) this.fail(`the lambda variable '${node.root.name}' here`, node);
      if (variable.kind === 'value') {
        if (node.steps.length > 0) this.fail('paths into collection elements', node);
        return { kind: 'value', ref: variable.ref };
      }
      prefix = `${variable.ref}.`;
      if (variable.kind === 'complex') {
        // An element of an array of subdocuments: its properties are paths from the variable.
        if (node.steps.length === 0) return { kind: 'value', ref: variable.ref };
        context = elementContext(variable.type);
        type = variable.type;
        set = undefined;
      } else {
        context = variable.context;
        type = variable.context.type;
        set = variable.context.set;
        if (node.steps.length === 0) return { kind: 'entity', ref: variable.ref };
      }
    } else {
      prefix = frame.it;
      context = frame.context;
      type = frame.context.type;
      set = frame.context.set;
      if (node.steps.length === 0) {
        // An element of a collection of complex values ($it under options of a $select item, in `$count($filter=…)`): its subdocument, null for a null element.
        if (type.kind === 'complex' && frame.it.startsWith('$$') && frame.it.endsWith('.')) return { kind: 'value', ref: frame.it.slice(0, -1) };
        this.fail('$it as a value', node);
      }
    }
    let base = '';
    for (let i = 0; i < node.steps.length; i++) {
      const step = node.steps[i];
      const last = i === node.steps.length - 1;
      if (step === undefined) break;
      switch (step.kind) {
        case 'property': {
          if ((step.property.type.kind === 'complex' || step.property.type.kind === 'entity') && !step.property.collection) {
            // A complex value (or an entity held as a value: a row of join) is a subdocument: its properties are dotted paths.
            const field = fieldOf(type, step.property, this.mapping, set);
            if (last) return { kind: 'value', ref: { $ifNull: [`${prefix}${base}${field}`, null] } };
            base = `${base}${field}.`;
            type = step.property.type.type;
            set = undefined;
            break;
          }
          // A collection ends a path (the binder allows no path through one; any/all/$count take it).
          if (!last) this.fail('a path through a collection', node);
          const ref = `${prefix}${base}${fieldOf(type, step.property, this.mapping, set)}`;
          if (step.property.collection) {
            const element: ExpressionType =
              step.property.type.kind === 'primitive' ? { kind: 'primitive', name: step.property.type.name } : (step.property.type as ExpressionType);
            return { kind: 'collection', ref: { $ifNull: [ref, []] }, context: undefined, element };
          }
          return { kind: 'value', ref: { $ifNull: [ref, null] } };
        }
        case 'navigation': {
          const related = this.lookup(context, base, type, set, step.navigation, step.entitySet, step);
          if (step.navigation.collection) {
            if (!last) this.fail('a path through a collection', node);
            return {
              kind: 'collection',
              ref: { $ifNull: [`${prefix}${related.field}`, []] },
              context: related.context,
              element: { kind: 'entity', type: step.navigation.target },
            };
          }
          base = `${related.field}.`;
          type = step.navigation.target;
          set = related.context.set;
          if (last) return { kind: 'entity', ref: { $ifNull: [`${prefix}${related.field}`, null] }, context: related.context };
          break;
        }
        case 'typeCast':
          return this.fail(`the type cast to '${step.target.qualifiedName}', a derived type (a document does not say its type)`, step);
        case 'dynamic': {
          // A member of the embedded document of dynamic properties (storage/dynamic-properties.ts).
          if (!last) return this.fail(`a path into the dynamic property '${step.name}'`, step);
          // BSON field names hold no NUL (a name from the URL has none; one made through the API may).
          if (step.name.includes('\u0000')) return this.fail('a dynamic property whose name holds NUL', step);
          // An entity's (of the set, or reached through navigation: `base` is its looked-up field); a complex value's are not stored.
          const bag = set !== undefined ? dynamicColumn(set.type, this.mapping) : undefined;
          if (bag === undefined) return this.fail(`the dynamic property '${step.name}' here (only an open entity type's are stored)`, step);
          return { kind: 'value', ref: dynamicMember(`${prefix}${base}${hiddenField(bag, this.mapping)}`, step.name, step.read) };
        }
      }
    }
    return this.fail('this path', node);
  }

  /** `build` of the arguments' values, or null when one of them is null (each argument computed once). */
  private nullSafe(args: readonly Aggregation[], build: (refs: readonly string[]) => Aggregation): Aggregation {
    const id = this.letCount++;
    const names = args.map((_, i) => `a${id}_${i}`);
    const vars = Object.fromEntries(names.map((name, i) => [name, args[i]]));
    const refs = names.map((name) => `$$${name}`);
    return { $let: { vars, in: { $cond: [{ $or: refs.map(isNull) }, null, build(refs)] } } };
  }

  /** The value of an expression (null for null); Booleans may be null (unknown). */
  value(node: BoundExpression, frame: Frame): Aggregation {
    switch (node.kind) {
      case 'literal':
        return literal(storedValue(node.value, node.type.kind === 'null' ? { kind: 'primitive', name: 'Edm.String' } : node.type, this.mapping));
      case 'path': {
        const result = this.path(node, frame);
        if (result.kind === 'collection') return result.ref;
        return result.ref;
      }
      case 'binary':
        switch (node.operator) {
          case 'add':
          case 'sub':
          case 'mul':
          case 'div':
          case 'divby':
          case 'mod':
            return arithmetic(node.operator, node, this.arithmeticContext(frame));
          case 'has': {
            // Stored as member names: every bit of the literal is carried by a member among them.
            const flags = node.operandType.kind === 'enum' && node.operandType.type.isFlags ? node.operandType.type : undefined;
            if (flags === undefined || node.right.kind !== 'literal') return this.fail("'has' with a value that is not a flag enum literal", node);
            const wanted = flagBits(node.right.value, flags);
            return this.nullSafe([this.value(node.left, frame)], ([names]) => ({
              $and: [...bitsOf(wanted)].map((bit) => this.carries(names as string, flags, bit)),
            }));
          }
          default:
            return this.booleanValue(node, frame);
        }
      case 'unary':
        if (node.operator === 'negate') {
          if (node.operand.kind === 'literal' && node.operand.value === null) return null;
          if (!isNumeric(node.type)) this.fail('negating this type', node);
          return this.nullSafe([this.value(node.operand, frame)], ([x]) => inRange({ $subtract: [0, x] }, node.type, this.arithmeticContext(frame)));
        }
        return this.booleanValue(node, frame);
      case 'in':
      case 'lambda':
      case 'defined':
        return this.booleanValue(node, frame);
      case 'count': {
        const collection = this.path(node.collection, frame);
        if (collection.kind !== 'collection') return this.fail('$count of this path', node);
        if (node.filter === undefined && node.search === undefined) return { $size: collection.ref };
        const elements =
          collection.context ??
          (collection.element.kind === 'complex' || collection.element.kind === 'entity' ? elementContext(collection.element.type) : undefined);
        if (elements === undefined) return this.fail('$count($filter=…) on a primitive collection', node);
        const name = `v${this.variableCount++}`;
        const inner: Frame = { context: elements, it: `$$${name}.`, variables: new Map() };
        const conditions: unknown[] = [];
        if (node.search !== undefined) conditions.push(this.searchHolds(node.search, inner, node));
        if (node.filter !== undefined) conditions.push(this.holds(node.filter, inner));
        return { $size: { $filter: { input: collection.ref, as: name, cond: conditions.length === 1 ? conditions[0] : { $and: conditions } } } };
      }
      case 'case': {
        // A Date branch of a DateTimeOffset case is its midnight UTC (as the reference promotes it).
        const instants = isPrimitive(node.type, 'Edm.DateTimeOffset');
        const then = (b: BoundExpression): Aggregation => (instants && isPrimitive(b.type, 'Edm.Date') ? this.dateInstant(b, frame) : this.value(b, frame));
        return { $switch: { branches: node.branches.map((b) => ({ case: this.holds(b.when, frame), then: then(b.then) })), default: null } };
      }
      case 'call':
        return this.call(node, frame);
      case 'aggregateValue':
        return this.aggregateValue(node, frame);
      case 'hierarchyTest':
        return this.hierarchyTest(node, frame);
      case 'rollupNode':
        // Only inside rolluprecursive(), which this backend does not compile.
        throw unsupported(`'Aggregation.rollupnode()' (the node of a rolluprecursive() portion)`, { node, option: this.option });
    }
  }

  /**
   * A hierarchy function (./hierarchy-functions.ts): a condition on the fields of `$graphLookup`
   * stages that run on the frame's documents before it (each distinct walk once). Its values must
   * be those documents': inside a lambda, or on an element of a collection, it is refused.
   */
  private hierarchyTest(node: BoundHierarchyTest, frame: Frame): Aggregation {
    const context = frame.context;
    if (frame.it !== '$' || context.element === true || readsVariables(node))
      return this.fail(`the hierarchy functions (Aggregation.${node.test}) inside a lambda expression (their walks are stages on the current documents)`, node);
    return hierarchyTestCondition(node, {
      mapping: this.mapping,
      value: (expression) => this.value(expression, frame),
      walk: (graphLookup) => {
        // (An Int64 value of the walk is a bigint: written as its digits, marked apart from a string.)
        const key = `~hierarchy ${JSON.stringify(graphLookup, (_name, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))}`;
        const known = context.lookups.get(key);
        if (known !== undefined) return known.field;
        const field = reservedField(context.type, this.mapping, `walk${context.lookups.size}`);
        context.stages.push({ $graphLookup: { ...graphLookup, as: field } });
        context.lookups.set(key, { field, context: undefined });
        return field;
      },
      fail: (what, at) => this.fail(what, at),
    });
  }

  /**
   * The default `$search` as an aggregation condition on the entity at `frame.it` (inside
   * `$count($search=…)`): every term, ignoring case, in one of the search's string fields. A
   * search hook builds query documents, which cannot go there: with one, this is refused.
   */
  private searchHolds(search: BoundSearch, frame: Frame, node: BoundExpression): unknown {
    if ((this.mapping as { search?: unknown }).search !== undefined) return this.fail('$count($search=…) with a search hook', node);
    const type = frame.context.type;
    const fields = search.properties.map((p) => `${frame.it}${fieldOf(type, p, this.mapping, frame.context.set)}`);
    const term = (text: string): unknown =>
      fields.length === 0
        ? false
        : { $or: fields.map((field) => ({ $regexMatch: { input: { $ifNull: [field, ''] }, regex: escapeRegex(text.toLowerCase()), options: 'i' } })) };
    return foldSearch<unknown>(search.root, {
      everything: () => true,
      term,
      not: (operand) => ({ $not: [operand] }),
      and: (left, right) => ({ $and: [left, right] }),
      or: (left, right) => ({ $or: [left, right] }),
    });
  }

  /** A Boolean-valued node as true, false or null: where it holds, where its negation holds, else null. */
  private booleanValue(node: BoundExpression, frame: Frame): Aggregation {
    // A value that is never null (a comparison) is its condition, written once (written twice, a
    // nested comparison of Boolean values doubled the pipeline per level).
    if (neverNull(node)) return this.holds(node, frame);
    return { $cond: [this.holds(node, frame), true, { $cond: [this.holdsLowered(lowerCondition(node, false), frame), false, null] }] };
  }

  /** True exactly where the condition is true (false where it is false or null). */
  holds(node: BoundExpression, frame: Frame): Aggregation {
    return this.holdsLowered(lowerCondition(node), frame);
  }

  /** True exactly where a lowered condition holds (the lowering has pushed `not` to its leaves). */
  holdsLowered(condition: LoweredCondition, frame: Frame): Aggregation {
    return foldLowered<Aggregation>(condition, {
      constant: (value) => value === true,
      and: (left, right) => ({ $and: [left, right] }),
      or: (left, right) => ({ $or: [left, right] }),
      null: (operand, holdsForNull) => ({ [holdsForNull ? '$eq' : '$ne']: [this.nullTested(operand, frame), null] }),
      comparison: (comparison) => {
        // Comparisons are never null: false with a null operand (except as the lowering's rules say).
        const result = this.comparison(comparison, frame);
        return comparison.holdsWhen ? result : { $not: [result] };
      },
      leaf: (node, holdsWhen) => this.leaf(node, holdsWhen, frame),
    });
  }

  /** The value whose nullness a null test reads: a flag value's number, a duration's seconds, else the value. */
  private nullTested(operand: BoundExpression, frame: Frame): Aggregation {
    if (operand.type.kind === 'enum' && operand.type.type.isFlags) return this.flagsNumber(operand, operand.type.type, frame);
    return isDuration(operand.type) ? this.durationValue(operand, frame) : this.value(operand, frame);
  }

  /** A condition `not` does not go into: true exactly where its value is `holdsWhen`. */
  private leaf(node: BoundExpression, holdsWhen: boolean, frame: Frame): Aggregation {
    const where = (result: Aggregation): Aggregation => (holdsWhen ? result : { $not: [result] });
    switch (node.kind) {
      case 'in': {
        // null in (…): whether the list holds a null (whatever the other items' types).
        if (node.left.kind === 'literal' && node.left.value === null && node.right.kind === 'list')
          return node.right.items.some((item) => item.value === null) === holdsWhen;
        const flagType = node.left.type.kind === 'enum' && node.left.type.type.isFlags ? node.left.type.type : undefined;
        if (flagType !== undefined && node.right.kind === 'list') {
          return where({
            $in: [
              this.flagsNumber(node.left, flagType, frame),
              node.right.items.map((item) => (item.value === null ? null : Number(flagBits(item.value, flagType)))),
            ],
          });
        }
        if (isDuration(node.left.type) && node.right.kind === 'list') {
          // Durations are equal by length (P1D is PT24H), not by their text.
          const items = node.right.items.map((item) => this.durationSeconds(literal(item.value)));
          return where({ $in: [this.durationValue(node.left, frame), items] });
        }
        const left = this.value(node.left, frame);
        const list =
          node.right.kind === 'list'
            ? { $literal: node.right.items.map((item) => storedValue(item.value, item.type.kind === 'null' ? node.left.type : item.type, this.mapping)) }
            : this.collectionRef(node.right.collection, frame);
        return where({ $in: [left, list] });
      }
      case 'lambda':
        return where(this.lambda(node, frame));
      case 'defined':
        return where(this.defined(node, frame));
      default:
        // A Boolean value: a property, a function, a case.
        return { $eq: [this.value(node, frame), holdsWhen] };
    }
  }

  /**
   * The values a path through one collection gives for a document (a hierarchy node path
   * `p₁/…/pₖ/r` of Data Aggregation 6.2.1): an array of the rest of the path's values in each
   * related document or element of the first collection, each once, without nulls. A path through
   * a second collection is refused as any path through a collection is.
   */
  collectionValues(node: BoundPath, frame: Frame): Aggregation {
    const at = node.steps.findIndex(
      (step) => (step.kind === 'navigation' && step.navigation.collection) || (step.kind === 'property' && step.property.collection),
    );
    if (at < 0) return this.fail('this collection path', node);
    const collection = this.path({ ...node, steps: node.steps.slice(0, at + 1) }, frame);
    if (collection.kind !== 'collection') return this.fail('this collection path', node);
    const rest = node.steps.slice(at + 1);
    const name = `v${this.variableCount++}`;
    let mapped: Aggregation;
    if (rest.length === 0) mapped = collection.ref;
    else {
      const element = collection.element;
      const context = collection.context ?? (element.kind === 'complex' ? elementContext(element.type) : undefined);
      if (context === undefined) return this.fail('this collection path', node);
      const inner: Frame = { context, it: `$$${name}.`, variables: new Map() };
      const read: BoundPath = { ...node, root: { kind: 'it' }, steps: rest, type: node.type.kind === 'collection' ? node.type.element : node.type };
      mapped = { $map: { input: collection.ref, as: name, in: this.value(read, inner) } };
    }
    return { $setUnion: [{ $filter: { input: mapped, as: `${name}x`, cond: { $ne: [`$$${name}x`, null] } } }, []] };
  }

  /**
   * `path/aggregate(…)` (Data Aggregation 3.6) over the related documents of the path (an array
   * after its lookups): their values without nulls, then `$sum` (null of none), `$avg`, `$min`,
   * `$max` or the size of their set; `$count` the array's size (`$these`: {@link these}). Refused:
   * `min`/`max` of values other than numbers and
   * dates (strings: mingo's `$min` does not order them by code point; enumerations are stored as names).
   */
  private aggregateValue(node: Extract<BoundExpression, { kind: 'aggregateValue' }>, frame: Frame): Aggregation {
    const a = node.aggregate;
    if (node.collection === undefined) return this.these(node, frame);
    if (a.through !== undefined || a.from !== undefined) return this.fail('the aggregate function along a navigation path or with from', node);
    const collection = this.path(node.collection, frame);
    if (collection.kind !== 'collection' || collection.context === undefined) return this.fail('the aggregate function of this collection', node);
    if (a.kind === 'count') return { $size: collection.ref };
    const type = a.expression.type;
    if ((a.method === 'min' || a.method === 'max') && !(isNumeric(type) || isPrimitive(type, 'Edm.Date') || isPrimitive(type, 'Edm.DateTimeOffset')))
      return this.fail(`${a.method} of this type in the aggregate function`, node);
    const name = `v${this.variableCount++}`;
    // `$it` in the aggregate expression: the document the path starts from (OUTER_IT), as a lambda variable.
    const outer: Variable = frame.variables.get(OUTER_IT) ?? {
      kind: 'entity',
      ref: frame.it === '$' ? '$$CURRENT' : frame.it.slice(0, -1),
      context: frame.context,
    };
    const inner: Frame = { context: collection.context, it: `$$${name}.`, variables: new Map([[OUTER_IT, outer]]) };
    const mapped = { $map: { input: collection.ref, as: name, in: this.value(a.expression, inner) } };
    const values = { $filter: { input: mapped, as: `${name}x`, cond: { $ne: [`$$${name}x`, null] } } };
    if (typeof a.method === 'object') return customMongoAggregate(a.method, values, node, this.option);
    switch (a.method) {
      case 'sum':
        return { $cond: [{ $eq: [{ $size: values }, 0] }, null, { $sum: values }] };
      case 'average':
        // Null over no values (mingo's $avg of an empty array is 0).
        return { $cond: [{ $eq: [{ $size: values }, 0] }, null, { $avg: values }] };
      case 'min':
        return { $min: values };
      case 'max':
        return { $max: values };
      case 'countdistinct':
        return { $size: { $setUnion: [values, []] } };
    }
  }

  /**
   * `$these/aggregate(…)` and `$these/$count`: the aggregate over every document of the context
   * (the current collection), computed once by `$setWindowFields` over the whole partition into a
   * reserved field of each document (dropped with the context's lookups), then read there. `sum`,
   * `average` and `$count` are window sums; `min`/`max` the first value of the documents sorted with
   * nulls last (as the `aggregate` transformation orders them); `countdistinct` numbers each
   * document within the partition of its value and sums the firsts. Each a stage or two whose
   * windows hold nothing but numbers: no array of the collection's values on every document, so
   * aggregating along a navigation path, `from` and custom methods (which need those arrays) are
   * refused here, as where the context is not the current collection (the options of `$expand`
   * without `$apply`, the aggregate expression of another aggregate function, `groupby()` with
   * `rollup`). Inside `groupby()` the windows are partitioned by the group (and the rows its
   * filters kept so far).
   */
  private these(node: Extract<BoundExpression, { kind: 'aggregateValue' }>, frame: Frame): Aggregation {
    const context = frame.context;
    const a = node.aggregate;
    if (context.these === undefined || frame.it !== '$')
      return this.fail(
        `$these/aggregate(…) and $these/$count here (only in $filter, $orderby and $compute, and in the transformations of $apply other than groupby() with rollup)`,
        node,
      );
    if (a.through !== undefined || a.from !== undefined) return this.fail(`$these/aggregate(…) along a navigation path or with 'from'`, node);
    if (a.kind === 'method' && typeof a.method === 'object') return this.fail(`a custom aggregation method in $these/aggregate(…)`, node);
    let n = 0;
    while (context.lookups.has(`$these/${n}`)) n++;
    const field = reservedField(context.type, this.mapping, `these${n}`);
    context.lookups.set(`$these/${n}`, { field, context: undefined });
    const whole = { documents: ['unbounded', 'unbounded'] };
    const partition = context.these === true ? undefined : context.these.partitionBy;
    const window = (output: MongoDocument, sortBy?: MongoDocument, partitionBy: Aggregation = partition): MongoDocument => ({
      $setWindowFields: { ...(partitionBy === undefined ? {} : { partitionBy }), ...(sortBy === undefined ? {} : { sortBy }), output },
    });
    if (a.kind === 'count') {
      context.stages.push(window({ [field]: { $sum: 1, window: whole } }));
      return `$${field}`;
    }
    const type = a.expression.type;
    const v = `${field}_v`;
    const value = isDuration(type) && a.method === 'countdistinct' ? this.durationValue(a.expression, frame) : this.value(a.expression, frame);
    context.stages.push({ $addFields: { [v]: { $ifNull: [value, null] } } });
    const temporary = [v];
    switch (a.method) {
      case 'sum':
      case 'average': {
        const s = `${field}_s`;
        const c = `${field}_c`;
        temporary.push(s, c);
        context.stages.push(window({ [s]: { $sum: `$${v}`, window: whole }, [c]: { $sum: { $cond: [{ $eq: [`$${v}`, null] }, 0, 1] }, window: whole } }));
        const sum = `$${s}`;
        const result =
          a.method === 'average'
            ? { $divide: [sum, `$${c}`] }
            : isIntegerType(type)
              ? { $cond: [{ $and: [{ $gte: [sum, -(2 ** 63)] }, { $lt: [sum, 2 ** 63] }] }, sum, null] }
              : sum;
        context.stages.push({ $addFields: { [field]: { $cond: [{ $eq: [`$${c}`, 0] }, null, result] } } });
        break;
      }
      case 'min':
      case 'max': {
        if (type.kind === 'enum' && type.type.isFlags) return this.fail(`${a.method} of a flag enumeration value`, node);
        const flag = `${field}_f`;
        const key = `${field}_k`;
        temporary.push(flag, key);
        // Enums by member value, Durations by length; null values last.
        const ordered = type.kind === 'enum' ? this.orderable(a.expression, type, frame) : isDuration(type) ? this.durationSeconds(`$${v}`) : `$${v}`;
        context.stages.push({ $addFields: { [flag]: { $cond: [{ $eq: [`$${v}`, null] }, 1, 0] }, [key]: ordered } });
        context.stages.push(window({ [field]: { $first: `$${v}`, window: whole } }, { [flag]: 1, [key]: a.method === 'min' ? 1 : -1 }));
        break;
      }
      case 'countdistinct': {
        const r = `${field}_r`;
        temporary.push(r);
        context.stages.push(window({ [r]: { $documentNumber: {} } }, { [v]: 1 }, partition === undefined ? `$${v}` : { p: partition, v: `$${v}` }));
        context.stages.push(window({ [field]: { $sum: { $cond: [{ $and: [{ $eq: [`$${r}`, 1] }, { $ne: [`$${v}`, null] }] }, 1, 0] }, window: whole } }));
        break;
      }
    }
    context.stages.push({ $unset: temporary });
    return `$${field}`;
  }

  /** `isdefined(path)`: the document has the field (a rolled-up grouping property or another concat branch's it has not). */
  private defined(node: Extract<BoundExpression, { kind: 'defined' }>, frame: Frame): Aggregation {
    let type = frame.context.type;
    const fields: string[] = [];
    for (const step of node.path.steps) {
      if (step.kind !== 'property') return this.fail('isdefined of this path', node);
      fields.push(fieldOf(type, step.property, this.mapping));
      if (step.property.type.kind === 'complex') type = step.property.type.type;
    }
    return { $ne: [{ $type: `${frame.it}${fields.join('.')}` }, 'missing'] };
  }

  private collectionRef(node: BoundExpression, frame: Frame): Aggregation {
    if (node.kind !== 'path') return this.fail(`'in' with this collection`, node);
    const result = this.path(node, frame);
    if (result.kind !== 'collection') return this.fail(`'in' with this collection`, node);
    return result.ref;
  }

  private lambda(node: Extract<BoundExpression, { kind: 'lambda' }>, frame: Frame): Aggregation {
    const collection = this.path(node.collection, frame);
    if (collection.kind !== 'collection') return this.fail('any/all over this path', node);
    if (node.variable === undefined || node.predicate === undefined) return { $gt: [{ $size: collection.ref }, 0] };
    const name = `v${this.variableCount++}`;
    const variable: Variable =
      collection.context !== undefined
        ? { kind: 'entity', ref: `$$${name}`, context: collection.context }
        : // (A collection of entities `$apply` made, σ(x) of a node placed through a collection: subdocuments as well.)
          collection.element.kind === 'complex' || collection.element.kind === 'entity'
          ? { kind: 'complex', ref: `$$${name}`, type: collection.element.type }
          : { kind: 'value', ref: `$$${name}` };
    const variables = new Map(frame.variables);
    variables.set(node.variable, variable);
    const inner: Frame = { ...frame, variables };
    // any: some element is true; all: no element is false (null is not false).
    if (node.operator === 'any') return { $anyElementTrue: [{ $map: { input: collection.ref, as: name, in: this.holds(node.predicate, inner) } }] };
    return {
      $not: [{ $anyElementTrue: [{ $map: { input: collection.ref, as: name, in: this.holdsLowered(lowerCondition(node.predicate, false), inner) } }] }],
    };
  }

  /** Enum values are stored by name and ordered by member value: a `$switch` from names to values. */
  orderable(node: BoundExpression, operandType: ExpressionType, frame: Frame): Aggregation {
    const value = this.value(node, frame);
    if (operandType.kind !== 'enum') return value;
    if (operandType.type.isFlags) return this.flagsNumber(node, operandType.type, frame);
    return { $switch: { branches: memberOrdinals(operandType.type).map(([name, member]) => ({ case: { $eq: [value, name] }, then: member })), default: null } };
  }

  /** Whether stored member names (text) include a member that carries `bit`. */
  private carries(names: string, type: EnumType, bit: bigint): Aggregation {
    const carriers = membersCarrying(type, bit).map(escapeRegex);
    if (carriers.length === 0) return false;
    return { $regexMatch: { input: names, regex: `(^|,)\\s*(${carriers.join('|')})\\s*(,|$)` } };
  }

  /** A flag value as its number (the bitwise or of its members' values); null for null. */
  flagsNumber(node: BoundExpression, type: EnumType, frame: Frame): Aggregation {
    if (node.kind === 'literal') return node.value === null ? null : Number(flagBits(node.value, type));
    let all = 0n;
    for (const value of type.members.values()) all |= value;
    return this.nullSafe([this.value(node, frame)], ([names]) => ({
      $add: [0, ...[...bitsOf(all)].map((bit) => ({ $cond: [this.carries(names as string, type, bit), Number(bit), 0] }))],
    }));
  }

  /**
   * An Edm.Duration (stored as its ISO 8601 text, `P1DT2H3M4.5S`) as its number of seconds, so that
   * durations compare and sort by length and not as text: a Decimal128 in MongoDB (exact, from the
   * text's digits). Null for null (and for text that is not a duration).
   */
  durationSeconds(text: Aggregation): Aggregation {
    if (text === null) return null;
    return this.nullSafe([text], ([x]) => {
      const name = `d${this.letCount++}`;
      const capture = (i: number): Aggregation => ({ $arrayElemAt: [`$$${name}.captures`, i] });
      const number = (i: number): Aggregation => ({ $toDecimal: { $ifNull: [capture(i), '0'] } });
      const seconds = { $add: [{ $multiply: [number(1), 86400] }, { $multiply: [number(2), 3600] }, { $multiply: [number(3), 60] }, number(4)] };
      return {
        $let: {
          vars: { [name]: { $regexFind: { input: x, regex: DURATION_PATTERN } } },
          in: { $cond: [{ $eq: [`$$${name}`, null] }, null, { $cond: [{ $eq: [capture(0), '-'] }, { $subtract: [0, seconds] }, seconds] }] },
        },
      };
    });
  }

  /**
   * The number of seconds of a Duration-valued expression: stored or literal durations through
   * {@link durationSeconds}, and duration arithmetic (`span add span`, `-span`, `at sub at`,
   * `born sub born`) on those numbers. Null for null.
   */
  durationValue(node: BoundExpression, frame: Frame): Aggregation {
    const isNullLiteral = (n: BoundExpression): boolean => (n.kind === 'literal' && n.value === null) || n.type.kind === 'null';
    if (isNullLiteral(node)) return null;
    if ((node.kind === 'binary' && (isNullLiteral(node.left) || isNullLiteral(node.right))) || (node.kind === 'unary' && isNullLiteral(node.operand)))
      return null;
    if (node.kind === 'unary' && node.operator === 'negate') return this.nullSafe([this.durationValue(node.operand, frame)], ([x]) => ({ $subtract: [0, x] }));
    if (node.kind === 'case')
      return { $switch: { branches: node.branches.map((b) => ({ case: this.holds(b.when, frame), then: this.durationValue(b.then, frame) })), default: null } };
    if (node.kind === 'binary' && (node.operator === 'add' || node.operator === 'sub')) {
      if (isDuration(node.left.type) && isDuration(node.right.type)) {
        return this.nullSafe([this.durationValue(node.left, frame), this.durationValue(node.right, frame)], ([x, y]) => ({
          [node.operator === 'add' ? '$add' : '$subtract']: [x, y],
        }));
      }
      const instant = (n: BoundExpression): Aggregation | undefined =>
        isPrimitive(n.type, 'Edm.Date') ? this.dateInstant(n, frame) : isPrimitive(n.type, 'Edm.DateTimeOffset') ? this.value(n, frame) : undefined;
      const [a, b] = [instant(node.left), instant(node.right)];
      if (node.operator === 'sub' && a !== undefined && b !== undefined) {
        // The difference of two instants, in milliseconds: as seconds (Decimal128 in MongoDB, exact).
        return this.nullSafe([a, b], ([x, y]) => ({ $divide: [{ $toDecimal: { $subtract: [x, y] } }, 1000] }));
      }
      return this.fail('this duration arithmetic', node);
    }
    return this.durationSeconds(this.value(node, frame));
  }

  /**
   * An Edm.Date (stored as `YYYY-MM-DD` text) as the instant of its midnight in UTC, as the
   * reference compares a Date with a DateTimeOffset.
   */
  dateInstant(node: BoundExpression, frame: Frame): Aggregation {
    if (node.kind === 'literal') {
      // Parsed exactly (also a folded year beyond 9999 or before 0000).
      const days = parseDate(node.value);
      const date = days === undefined ? undefined : new Date(days * 86_400_000);
      if (date === undefined || Number.isNaN(date.getTime()))
        return node.value === null ? null : this.fail(`the Date value '${String(node.value)}' here`, node);
      return literal(date);
    }
    return this.nullSafe([this.value(node, frame)], ([x]) => {
      const part = (from: number, length: number): Aggregation => ({ $toInt: { $substrCP: [x, from, length] } });
      // Only a four-digit year (what `$dateFromParts` takes): a computed date beyond 9999 is null here.
      // A year before 100 is built 400 years later (the Gregorian calendar repeats every 146 097
      // days) and moved back: mingo's `$dateFromParts` reads years 0-99 as 1900-1999.
      const year = { $toInt: { $substrCP: [x, 0, 4] } };
      const early = { $lt: [year, 100] };
      const built = { $dateFromParts: { year: { $cond: [early, { $add: [year, 400] }, year] }, month: part(5, 2), day: part(8, 2) } };
      const instant = { $cond: [early, { $subtract: [built, GREGORIAN_CYCLE_MS] }, built] };
      return { $cond: [{ $regexMatch: { input: x, regex: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } }, instant, null] };
    });
  }

  /**
   * An Edm.Date's text (`YYYY-MM-DD`) with a five-digit year, so that text order is date order
   * also against a year beyond 9999 (folded from `date(maxdatetime() add duration'P1D')`).
   */
  dateKey(node: BoundExpression, frame: Frame): Aggregation {
    if (node.kind === 'literal') return typeof node.value === 'string' ? literal(fiveDigitYear(node.value)) : null;
    return this.dateKeyOf(this.value(node, frame));
  }

  /** {@link dateKey} of a computed value. */
  dateKeyOf(text: Aggregation): Aggregation {
    return this.nullSafe([text], ([x]) => ({ $cond: [{ $eq: [{ $substrCP: [x, 4, 1] }, '-'] }, { $concat: ['0', x] }, x] }));
  }

  /** A comparison (never null) of two operands, neither a null literal: the lowering made those null tests. */
  comparison(lowered: LoweredComparison, frame: Frame): Aggregation {
    const { operator: op, left: leftNode, right: rightNode, operandType } = lowered;
    // NaN equals nothing and orders with nothing (MongoDB's NaN equals NaN and sorts first).
    if (isNaNLiteral(leftNode) || isNaNLiteral(rightNode)) return op === 'ne';
    // An instant literal finer than a millisecond against a BSON date (whole milliseconds): exact.
    const fine = (n: BoundExpression): boolean =>
      n.kind === 'literal' && isPrimitive(operandType, 'Edm.DateTimeOffset') && isPrimitive(n.type, 'Edm.DateTimeOffset') && subMillisecond(n.value);
    if (fine(leftNode) !== fine(rightNode)) {
      const [other, instant, o] = fine(rightNode) ? [leftNode, rightNode, op] : [rightNode, leftNode, FLIPPED[op]];
      if (other.kind !== 'literal' && instant.kind === 'literal') {
        if (o === 'eq' || o === 'ne') return o === 'ne';
        const x = isPrimitive(other.type, 'Edm.Date') ? this.dateInstant(other, frame) : this.value(other, frame);
        // x > L and x >= L are x > floor(L); x < L and x <= L are x <= floor(L).
        const floor = literal(storedValue(instant.value, instant.type, this.mapping));
        return { $and: [notNull(x), { [o === 'gt' || o === 'ge' ? '$gt' : '$lte']: [x, floor] }] };
      }
    }
    const ordering = op !== 'eq' && op !== 'ne';
    const flags = operandType.kind === 'enum' && operandType.type.isFlags;
    const duration = isDuration(operandType);
    const instants = mixesDates(leftNode.type, rightNode.type);
    // In Double, an Int64 is first rounded to a double, as the reference does (MongoDB would compare exactly).
    const inDouble = isPrimitive(operandType, 'Edm.Double') || isPrimitive(operandType, 'Edm.Single');
    const side = (n: BoundExpression): Aggregation =>
      flags
        ? this.flagsNumber(n, operandType.type, frame)
        : duration
          ? this.durationValue(n, frame)
          : instants && isPrimitive(n.type, 'Edm.Date')
            ? this.dateInstant(n, frame)
            : isPrimitive(operandType, 'Edm.Date')
              ? this.dateKey(n, frame)
              : inDouble && isPrimitive(n.type, 'Edm.Int64') && n.kind !== 'literal'
                ? { $toDouble: this.value(n, frame) }
                : ordering
                  ? this.orderable(n, operandType, frame)
                  : this.value(n, frame);
    // A computed or stored Double can be NaN, which MongoDB finds equal to NaN and less than every
    // number: the reference's NaN equals nothing and orders with nothing.
    const maybeNaN = (n: BoundExpression): boolean => inDouble && n.kind !== 'literal';
    // A side that is read more than once (a NaN guard, a null check) is bound once with $let when it is computed.
    const vars: Record<string, Aggregation> = {};
    const once = (n: BoundExpression): Aggregation => {
      const sideValue = side(n);
      const repeated = maybeNaN(n) || (ordering && n.kind !== 'literal');
      if (!repeated || n.kind === 'path' || n.kind === 'literal' || typeof sideValue === 'string' || sideValue === null || typeof sideValue !== 'object')
        return sideValue;
      const name = `n${this.letCount++}`;
      vars[name] = sideValue;
      return `$$${name}`;
    };
    const a = once(leftNode);
    const b = once(rightNode);
    const bound = (body: Aggregation): Aggregation => (Object.keys(vars).length === 0 ? body : { $let: { vars, in: body } });
    if (op === 'eq' || op === 'ne') {
      const compared = { [AGGREGATE[op]]: [a, b] };
      const nan = maybeNaN(leftNode) ? a : maybeNaN(rightNode) ? b : undefined;
      if (nan === undefined) return bound(compared);
      return bound(op === 'eq' ? { $and: [{ $ne: [nan, NaN] }, compared] } : { $or: [{ $eq: [nan, NaN] }, compared] });
    }
    if (maybeNaN(leftNode) || maybeNaN(rightNode)) {
      const guards = [maybeNaN(leftNode) ? a : undefined, maybeNaN(rightNode) ? b : undefined].filter((x) => x !== undefined).map((x) => ({ $ne: [x, NaN] }));
      return bound({ $and: [...guards, this.comparisonOf(lowered, a, b)] });
    }
    return bound(this.comparisonOf(lowered, a, b));
  }

  /**
   * An ordering comparison of the two sides' values (never null), by the lowering's null rules:
   * false with one null operand, and for two nulls `bothNull` (ge/le true, gt/lt false).
   */
  private comparisonOf(lowered: LoweredComparison, a: Aggregation, b: Aggregation): Aggregation {
    const op = lowered.operator;
    // A document may lack a field of a non-nullable property: only `never` is known not to be null.
    const checks: Aggregation[] = [];
    if (lowered.nulls[0] !== 'never') checks.push(notNull(a));
    if (lowered.nulls[1] !== 'never') checks.push(notNull(b));
    const strict = checks.length === 0 ? { [AGGREGATE[op]]: [a, b] } : { $and: [...checks, { [AGGREGATE[op]]: [a, b] }] };
    if (!lowered.bothNull) return strict;
    if (checks.length === 0) return strict;
    return { $or: [{ $and: [isNull(a), isNull(b)] }, strict] };
  }

  /** What arithmetic and dates (arithmetic.ts) need of this compiler, in `frame`. */
  private arithmeticContext(frame: Frame): ArithmeticContext {
    return {
      value: (node) => this.value(node, frame),
      nullSafe: (args, build) => this.nullSafe(args, build),
      letName: (letter) => `${letter}${this.letCount++}`,
      durationValue: (node) => this.durationValue(node, frame),
      dateInstant: (node) => this.dateInstant(node, frame),
      fail: (what, at) => this.fail(what, at),
    };
  }

  /** A canonical function (functions.ts). */
  private call(node: Extract<BoundExpression, { kind: 'call' }>, frame: Frame): Aggregation {
    // A part of an untyped null (`year(case(flag:null,true:null))`) is null.
    if (partOfNull(node)) return null;
    return functionValue(node, {
      option: this.option,
      value: (arg) => this.value(arg, frame),
      nullSafe: (args, build) => this.nullSafe(args, build),
      path: (path) => this.path(path, frame),
      durationValue: (arg) => this.durationValue(arg, frame),
      calendarDate: (instant) => calendarDate(instant, this.arithmeticContext(frame)),
      castOrIsof: () =>
        castOrIsof(node, {
          value: (arg) => this.value(arg, frame),
          nullSafe: (args, build) => this.nullSafe(args, build),
          letName: (letter) => `${letter}${this.letCount++}`,
          customGuid: typeof this.mapping.guid === 'function',
          fail: (what, at) => this.fail(what, at),
        }),
      fail: (what, at) => this.fail(what, at),
    });
  }
}

/** An ISO 8601 day-time duration: sign, days, hours, minutes, seconds with a fraction. */
const DURATION_PATTERN = '^(-)?P(?:(\\d+)D)?(?:T(?:(\\d+)H)?(?:(\\d+)M)?(?:(\\d+(?:\\.\\d+)?)S)?)?$';

const FLIPPED = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' } as const satisfies Record<Comparison, Comparison>;

/** Whether an instant literal has a fraction of a second finer than a millisecond. */
export function subMillisecond(value: unknown): boolean {
  const instant = typeof value === 'string' ? parseInstant(value) : undefined;
  return instant !== undefined && instant.picos % 1_000_000_000n !== 0n;
}

/** `2024-01-01` as `02024-01-01` (a year of four digits gets a fifth). */
export function fiveDigitYear(text: string): string {
  return /^\d{4}-/.test(text) ? `0${text}` : text;
}

/** A Date compared with a DateTimeOffset: the Date is its midnight in UTC. */
export function mixesDates(left: ExpressionType, right: ExpressionType): boolean {
  return (
    (isPrimitive(left, 'Edm.Date') && isPrimitive(right, 'Edm.DateTimeOffset')) || (isPrimitive(left, 'Edm.DateTimeOffset') && isPrimitive(right, 'Edm.Date'))
  );
}

function isNaNLiteral(node: BoundExpression): boolean {
  return node.kind === 'literal' && typeof node.value === 'number' && Number.isNaN(node.value);
}
