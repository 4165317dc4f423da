/**
 * The MongoDB backend: a bound query as a `find` (filter, projection, sort, skip, limit) when the
 * query language can say it, or as an aggregation pipeline when it cannot: navigation in
 * `$filter`/`$orderby` and `$expand` become `$lookup` stages, functions and arithmetic `$expr`
 * aggregation expressions, and ordering by an expression or an enum a computed sort key.
 *
 * Values are only ever operands (`$eq`, `$in`, `$literal`, …) or escaped into a regex, so a
 * string such as `{"$gt":""}` or `$where` is matched as data and never becomes an operator.
 */
import { joinedKeys, orderedByApply } from '../../semantic/apply/output-order.js';
import { foldLowered, lowerCondition, type LoweredComparison, type LoweredCondition } from '../../passes/lower-conditions.js';
import { applyStages, type ApplyHooks } from './apply.js';
import type { PlanCache } from '../../cache/plan-cache.js';
import type { EntitySet, Property, StructuredType } from '../../model/model.js';
import type { BoundExpandItem, BoundExpression, BoundLiteral, BoundPathStep, BoundQuery, BoundQueryOptions, BoundSearch } from '../../semantic/bound-ast.js';
import { foldSearch } from '../../semantic/bind-search.js';
import { prepareForBackend, type BackendPreparation } from '../preparation.js';
import { crossJoinOf, type CrossJoin } from '../../semantic/resource-path/crossjoin.js';
import { crossJoinStages } from './crossjoin.js';
import type { FractionalPrecision } from '../../passes/fractional-precision.js';
import { REGEX_OF_STRING_MATCH } from './functions.js';
import {
  MongoExpressionCompiler,
  isDuration,
  mixesDates,
  newContext,
  subMillisecond,
  rootFrame,
  theseContext,
  type Context,
  type Frame,
} from './expression.js';
import { integerComparison, integerRange, type IntegerRange } from './integer-range.js';
import { selectOptionsValue } from './select-options.js';
import {
  computedField,
  countField,
  entry,
  escapeRegex,
  fieldOf,
  linkLookup,
  madeLookup,
  mongoValue,
  reservedField,
  scopeFilter,
  targetSet,
  unsupported,
  type MongoDocument,
  type MongoMapping,
} from './mapping.js';

export {
  escapeRegex,
  fromMongoApplyDocument,
  fromMongoDocument,
  mongoValue,
  numericValue,
  storedValue,
  toMongoDocument,
  toMongoCollections,
  type MongoDocument,
  type MongoMapping,
} from './mapping.js';

/** Builds the filter of a `$search`; `field` maps a property name to its field. */
export type MongoSearchHook = (search: BoundSearch, helpers: { field(property: string): string }) => MongoDocument;

export interface ToMongoOptions extends MongoMapping {
  /** A custom `$search` filter (e.g. a `$text` query); the default matches terms in string fields. */
  readonly search?: MongoSearchHook;
  /** A plan cache (`createPlanCache`): for a bound query it gave, the query is kept under these options. */
  readonly cache?: PlanCache;
}

/** What `collection.find(filter, { projection, sort, skip, limit })` needs, plus the count. */
export interface MongoFind {
  readonly kind: 'find';
  readonly filter: MongoDocument;
  /** `undefined` without `$select` (whole documents). */
  readonly projection?: MongoDocument;
  /** Ordered: field → 1 or -1 (insertion order is the sort order). */
  readonly sort?: MongoDocument;
  readonly skip?: number;
  readonly limit?: number;
  /** With `$count=true`: the filter for `countDocuments`, which gives the count. */
  readonly count?: MongoDocument;
}

/** An aggregation pipeline, for what a `find` cannot express. */
export interface MongoPipeline {
  readonly kind: 'pipeline';
  /** `collection.aggregate(pipeline)`. */
  readonly pipeline: readonly MongoDocument[];
  /** With `$count=true`: a pipeline that returns one document `{ count }` (none when zero). */
  readonly count?: readonly MongoDocument[];
}

/** Matches no document (`$nor` of the empty filter, which matches every one). */
const NOTHING: MongoDocument = { $nor: [{}] };
/** Matches every document. */
const EVERYTHING: MongoDocument = {};

const FLIP = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' } as const satisfies Record<string, string>;
const OPERATOR = { eq: '$eq', ne: '$ne', gt: '$gt', ge: '$gte', lt: '$lt', le: '$lte' } as const satisfies Record<keyof typeof FLIP, string>;
type Comparison = keyof typeof FLIP;

/**
 * Conditions as query documents where the query language can say them (a field against a
 * literal, regexes, `$in`, `$nor` for negation), and as `$expr` aggregation expressions
 * everywhere else (functions, arithmetic, navigation, lambdas).
 */
class FilterCompiler {
  private readonly type: StructuredType;
  private readonly set: EntitySet | undefined;

  constructor(
    private readonly frame: Frame,
    private readonly expressions: MongoExpressionCompiler,
    private readonly mapping: MongoMapping,
  ) {
    this.type = frame.context.type;
    this.set = frame.context.set;
  }

  /** The field of a path to a property of the document itself, dotted through complex values. */
  field(node: BoundExpression): { field: string; property: Property } | undefined {
    if (node.kind !== 'path' || node.root.kind !== 'it' || node.steps.length === 0) return undefined;
    let type = this.type;
    let field = '';
    // An index loop and a growing string (not entries() and join): this runs for every path compiled.
    for (let i = 0; i < node.steps.length; i++) {
      const step = node.steps[i] as BoundPathStep;
      if (step.kind !== 'property' || step.property.collection) return undefined;
      field = i === 0 ? fieldOf(type, step.property, this.mapping, this.set) : `${field}.${fieldOf(type, step.property, this.mapping)}`;
      if (i === node.steps.length - 1) return step.property.type.kind === 'complex' ? undefined : { field, property: step.property };
      if (step.property.type.kind !== 'complex') return undefined;
      type = step.property.type.type;
    }
    return undefined;
  }

  /** `coll/any(v: v op literal)` on a primitive collection field: `$elemMatch`. */
  private elemMatch(node: Extract<BoundExpression, { kind: 'lambda' }>): MongoDocument | undefined {
    const { collection, predicate, variable } = node;
    if (node.operator !== 'any' || predicate === undefined || variable === undefined) return undefined;
    if (collection.root.kind !== 'it' || collection.steps.length !== 1) return undefined;
    const step = collection.steps[0];
    if (step?.kind !== 'property' || !step.property.collection) return undefined;
    if (step.property.type.kind === 'complex')
      return this.complexElemMatch(fieldOf(this.type, step.property, this.mapping, this.set), step.property.type.type, predicate, variable);
    if (step.property.type.kind !== 'primitive') return undefined;
    if (predicate.kind !== 'binary' || !(predicate.operator in OPERATOR)) return undefined;
    const { left, right } = predicate;
    const isVariable = (n: BoundExpression): boolean => n.kind === 'path' && n.root.kind === 'variable' && n.root.name === variable && n.steps.length === 0;
    let op = predicate.operator as Comparison;
    let value: BoundExpression = right;
    if (!isVariable(left)) {
      if (!isVariable(right)) return undefined;
      op = FLIP[op];
      value = left;
    }
    if (value.kind !== 'literal' || value.value === null) return undefined;
    return entry(fieldOf(this.type, step.property, this.mapping, this.set), {
      $elemMatch: entry(OPERATOR[op], mongoValue(value.value, step.property, this.mapping)),
    });
  }

  /**
   * `coll/any(a: a/City/Name eq 'Boise')` on an array of subdocuments: `$elemMatch` of the dotted
   * field, for a String (any comparison but `ne`), a Guid or a Boolean (`eq`) against a literal that
   * is not null. (`ne` would match a null element, which the reference's `ne` does too, but
   * `$elemMatch` of a field never does.)
   */
  private complexElemMatch(field: string, element: StructuredType, predicate: BoundExpression, variable: string): MongoDocument | undefined {
    if (predicate.kind !== 'binary' || !(predicate.operator in OPERATOR) || predicate.operator === 'ne') return undefined;
    const { left, right } = predicate;
    let op = predicate.operator as Comparison;
    let path: BoundExpression = left;
    let value: BoundExpression = right;
    if (left.kind === 'literal') {
      op = FLIP[op];
      path = right;
      value = left;
    }
    if (value.kind !== 'literal' || value.value === null || path.kind !== 'path' || path.root.kind !== 'variable' || path.root.name !== variable)
      return undefined;
    let type = element;
    let inner = '';
    let leaf: Property | undefined;
    for (let i = 0; i < path.steps.length; i++) {
      const step = path.steps[i] as BoundPathStep;
      if (step.kind !== 'property' || step.property.collection) return undefined;
      inner = i === 0 ? fieldOf(type, step.property, this.mapping) : `${inner}.${fieldOf(type, step.property, this.mapping)}`;
      if (step.property.type.kind === 'complex') type = step.property.type.type;
      else if (i === path.steps.length - 1) leaf = step.property;
      else return undefined;
    }
    if (leaf === undefined || leaf.type.kind !== 'primitive') return undefined;
    const name = leaf.type.name;
    const plain = name === 'Edm.String' ? typeof value.value === 'string' : (name === 'Edm.Guid' || name === 'Edm.Boolean') && op === 'eq';
    if (!plain) return undefined;
    return entry(field, { $elemMatch: entry(inner, entry(OPERATOR[op], mongoValue(value.value, leaf, this.mapping))) });
  }

  /** `{ $expr }`: true exactly where the lowered condition holds. */
  private expr(condition: LoweredCondition): MongoDocument {
    return { $expr: this.expressions.holdsLowered(condition, this.frame) };
  }

  /**
   * The default `$search`, as the in-memory backend's: every term, ignoring case, contained in one
   * of the string fields; `AND`, `OR` and `NOT` of the search grammar.
   */
  search(search: BoundSearch): MongoDocument {
    const fields = search.properties.map((p) => fieldOf(this.type, p, this.mapping, this.set));
    const term = (text: string): MongoDocument => {
      if (fields.length === 0) return NOTHING;
      const regex = { $regex: escapeRegex(text.toLowerCase()), $options: 'i' };
      return fields.length === 1 ? entry(fields[0] as string, regex) : { $or: fields.map((field) => entry(field, regex)) };
    };
    return foldSearch<MongoDocument>(search.root, {
      everything: () => EVERYTHING,
      term,
      not: (operand) => ({ $nor: [operand] }),
      and: (left, right) => ({ $and: [left, right] }),
      or: (left, right) => ({ $or: [left, right] }),
    });
  }

  /** The documents where `node` (a condition) holds. */
  condition(node: BoundExpression): MongoDocument {
    return this.filter(lowerCondition(node));
  }

  /** The documents where a lowered condition holds (the lowering has pushed `not` to its leaves). */
  private filter(condition: LoweredCondition): MongoDocument {
    return foldLowered<MongoDocument>(condition, {
      constant: (value) => (value === true ? EVERYTHING : NOTHING),
      and: (left, right) => ({ $and: [left, right] }),
      or: (left, right) => ({ $or: [left, right] }),
      null: (operand, isNull, node) => this.nullFilter(operand, isNull) ?? this.expr({ kind: 'null', operand, isNull, node }),
      comparison: (comparison) => {
        const result = this.findComparison(comparison);
        if (result === undefined) return this.expr(comparison);
        return comparison.holdsWhen ? result : { $nor: [result] };
      },
      leaf: (node, holdsWhen) => this.leaf(node, holdsWhen) ?? this.expr({ kind: 'leaf', node, holdsWhen }),
    });
  }

  /**
   * A field that is null (`$eq: null` matches a missing field too) or is not; `undefined` where
   * `$expr` must say it (a flag value, a duration, a path that is no field of the document).
   */
  private nullFilter(operand: BoundExpression, isNull: boolean): MongoDocument | undefined {
    if (isDuration(operand.type)) return undefined;
    const found = this.field(operand);
    if (found === undefined || isFlags(found.property)) return undefined;
    return entry(found.field, isNull ? { $eq: null } : { $ne: null });
  }

  /** A condition `not` does not go into, as a query document where its value is `holdsWhen`; `undefined` where `$expr` must say it. */
  private leaf(node: BoundExpression, holdsWhen: boolean): MongoDocument | undefined {
    switch (node.kind) {
      case 'lambda': {
        // any over a primitive collection field with a simple predicate on the element: $elemMatch.
        const elemMatch = this.elemMatch(node);
        if (elemMatch === undefined) return undefined;
        return holdsWhen ? elemMatch : { $nor: [elemMatch] };
      }
      case 'path': {
        // A Boolean property: null is neither true nor, under not, false.
        const found = this.field(node);
        return found === undefined ? undefined : entry(found.field, { $eq: holdsWhen });
      }
      case 'in': {
        const found = this.field(node.left);
        if (node.right.kind !== 'list' || found === undefined || isFlags(found.property) || isDuration(node.left.type)) return undefined;
        const result = this.inList(found.field, found.property, node.right.items, node.left.type);
        return holdsWhen ? result : { $nor: [result] };
      }
      case 'call': {
        const result = this.stringPredicate(node);
        if (result === undefined) return undefined;
        // contains(null, 'a') is null: under not, still no match.
        return holdsWhen ? result.filter : { $and: [entry(result.field, { $type: 'string' }), { $nor: [result.filter] }] };
      }
      default:
        return undefined;
    }
  }

  /** contains/startswith/endswith of a field (or its tolower) and a literal: an escaped regex. */
  private stringPredicate(node: Extract<BoundExpression, { kind: 'call' }>): { filter: MongoDocument; field: string } | undefined {
    if (node.name !== 'contains' && node.name !== 'startswith' && node.name !== 'endswith') return undefined;
    const [subject, pattern] = node.args;
    if (subject === undefined || pattern === undefined) return undefined;
    if (pattern.kind !== 'literal' || typeof pattern.value !== 'string') return undefined;
    const found = this.stringSubject(subject);
    if (found === undefined) return undefined;
    const { field, lower } = found;
    const filter = this.regexFilter(node.name, field, lower, pattern.value);
    return { filter, field };
  }

  private regexFilter(name: 'contains' | 'startswith' | 'endswith', field: string, lower: boolean, value: string): MongoDocument {
    // tolower(x) never contains an upper-case letter: no non-null value matches.
    if (lower && value !== value.toLowerCase()) return NOTHING;
    const text = escapeRegex(value);
    const regex = (source: string): MongoDocument => entry(field, lower ? { $regex: source, $options: 'i' } : { $regex: source });
    return regex(REGEX_OF_STRING_MATCH[name](text));
  }

  /** The field of a string predicate's subject: a property, or `tolower(property)` (then `i`). */
  private stringSubject(node: BoundExpression): { field: string; lower: boolean } | undefined {
    if (node.kind === 'call' && node.name === 'tolower' && node.args.length === 1) {
      const found = this.field(node.args[0] as BoundExpression);
      return found === undefined ? undefined : { field: found.field, lower: true };
    }
    const found = this.field(node);
    return found === undefined ? undefined : { field: found.field, lower: false };
  }

  /**
   * Two properties: `$expr`, whose comparisons order null below every value, so the lowering's null
   * rules are spelled out: an order comparison needs both present, or both null where `bothNull`
   * (`$eq`/`$ne` find null equal to null already).
   */
  private fieldComparison(op: Comparison, bothNullHolds: boolean, left: { field: string }, right: { field: string }): MongoDocument {
    // `$ifNull` makes a missing field null, so that missing and null compare alike.
    const a = { $ifNull: [`$${left.field}`, null] };
    const b = { $ifNull: [`$${right.field}`, null] };
    const bothPresent = { [left.field]: { $ne: null }, [right.field]: { $ne: null } };
    const bothNull = { [left.field]: { $eq: null }, [right.field]: { $eq: null } };
    switch (op) {
      case 'eq':
        return { $expr: { $eq: [a, b] } };
      case 'ne':
        return { $expr: { $ne: [a, b] } };
      default: {
        const strict = { $and: [bothPresent, { $expr: { [OPERATOR[op]]: [a, b] } }] };
        return bothNullHolds ? { $or: [bothNull, strict] } : strict;
      }
    }
  }

  /** A comparison as a query document, or `undefined` when it needs `$expr`. */
  private findComparison(comparison: LoweredComparison): MongoDocument | undefined {
    const { operator, left, right, operandType } = comparison;
    // Durations are stored as text and compared by length: `$expr` computes it.
    if (isDuration(operandType)) return undefined;
    // A Date against a DateTimeOffset: the Date (text) is its midnight in UTC, computed in `$expr`.
    if (mixesDates(left.type, right.type)) return undefined;
    // A Date literal with a year beyond 9999 (folded): text order is not date order, `$expr` pads the years.
    const wideYear = (n: BoundExpression): boolean =>
      n.kind === 'literal' && typeof n.value === 'string' && isPrimitiveType(n.type, 'Edm.Date') && !/^\d{4}-/.test(n.value);
    if (isPrimitiveType(operandType, 'Edm.Date') && (wideYear(left) || wideYear(right))) return undefined;
    let op = operator;
    let path = left;
    let other = right;
    if (left.kind === 'literal') {
      op = FLIP[operator];
      path = right;
      other = left;
    }
    if (other.kind !== 'literal') {
      const a = this.field(path);
      const b = this.field(other);
      // Enums are ordered by member value, not by name: $expr maps them.
      if (a === undefined || b === undefined || operandType.kind === 'enum') return undefined;
      // An Int64 against a Double is compared in Double (rounded first): `$expr` converts it.
      const int64 = (p: Property): boolean => p.type.kind === 'primitive' && p.type.name === 'Edm.Int64';
      if ((isPrimitiveType(operandType, 'Edm.Double') || isPrimitiveType(operandType, 'Edm.Single')) && (int64(a.property) || int64(b.property)))
        return undefined;
      return this.fieldComparison(op, comparison.bothNull, a, b);
    }
    if (path.kind === 'literal') return undefined;
    if (path.kind === 'call' && (path.name === 'tolower' || path.name === 'toupper') && (op === 'eq' || op === 'ne') && typeof other.value === 'string') {
      // tolower(x) eq 'abc': x equals 'abc' ignoring case. A literal that tolower (toupper) would
      // change cannot be equal to its result.
      const found = this.field(path.args[0] as BoundExpression);
      if (found === undefined) return undefined;
      const { field } = found;
      const text = other.value;
      const possible = text === (path.name === 'tolower' ? text.toLowerCase() : text.toUpperCase());
      const equal = possible ? { [field]: { $regex: `^${escapeRegex(text)}(?![\\s\\S])`, $options: 'i' } } : NOTHING;
      return op === 'eq' ? equal : { $nor: [equal] };
    }
    const found = this.field(path);
    if (found === undefined || isFlags(found.property)) return undefined;
    const { field, property } = found;
    if (property.type.kind === 'enum' && op !== 'eq' && op !== 'ne' && other.value !== null) {
      // Stored as names, ordered by value: the names on the right side of the comparison.
      const members = property.type.type.members;
      if (property.type.type.isFlags) throw unsupported('ordering flag enum values', { node: path, option: '$filter' });
      const pivot = members.get(mongoValue(other.value, property, this.mapping) as string);
      if (pivot === undefined) throw unsupported('an unknown enum member', { node: other, option: '$filter' });
      const holds = { gt: (v: bigint) => v > pivot, ge: (v: bigint) => v >= pivot, lt: (v: bigint) => v < pivot, le: (v: bigint) => v <= pivot }[op];
      return { [field]: { $in: [...members].filter(([, value]) => holds(value)).map(([name]) => name) } };
    }
    if (property.type.kind === 'primitive' && property.type.name === 'Edm.DateTimeOffset' && subMillisecond(other.value)) {
      // A literal finer than a millisecond: no stored date (whole milliseconds) equals it, and
      // x > L (x >= L) is x > floor(L), x < L (x <= L) is x <= floor(L).
      if (op === 'eq' || op === 'ne') return op === 'eq' ? NOTHING : EVERYTHING;
      const floor = mongoValue(other.value, property, this.mapping);
      return entry(field, op === 'gt' || op === 'ge' ? { $gt: floor } : { $lte: floor });
    }
    const numeric = this.numericComparison(op, field, property, other.value, operandType);
    if (numeric !== undefined) return numeric;
    // `$ne` matches null and missing fields, as OData's ne does; `$gt`… never match null.
    const compared = entry(OPERATOR[op], mongoValue(other.value, property, this.mapping));
    // A stored NaN orders with nothing: MongoDB's own matcher says so, an emulator may not (mingo
    // finds NaN above every number), so a Double's order comparison says it too.
    const double =
      isPrimitiveType(property.type as BoundExpression['type'], 'Edm.Double') || isPrimitiveType(property.type as BoundExpression['type'], 'Edm.Single');
    if (double && op !== 'eq' && op !== 'ne') compared.$ne = NaN;
    return entry(field, compared);
  }

  /**
   * A number field against a number literal that its type cannot hold or that MongoDB compares
   * unlike the reference: an integer field as a range of integers (`n64 lt 2.5`, `n64 gt INF`,
   * `id eq 1e300`), and NaN, which equals nothing and orders with nothing (MongoDB's `$eq`
   * matches a stored NaN). `undefined` when the plain comparison is right.
   */
  private numericComparison(
    op: Comparison,
    field: string,
    property: Property,
    value: BoundLiteral['value'],
    operandType: BoundExpression['type'],
  ): MongoDocument | undefined {
    if (typeof value !== 'number' && typeof value !== 'bigint' && typeof value !== 'string') return undefined;
    const limits = integerRange(property.type as BoundExpression['type']);
    if (limits !== undefined) {
      if (typeof value === 'string' && !/^[-+]?\d*(\.\d*)?$/.test(value)) return undefined;
      // An integer that the field's type holds, compared exactly: the plain comparison.
      const whole =
        typeof value === 'bigint'
          ? value
          : typeof value === 'number' && Number.isInteger(value)
            ? BigInt(value)
            : typeof value === 'string' && /^[-+]?\d+$/.test(value)
              ? BigInt(value)
              : undefined;
      const exact = !isPrimitiveType(operandType, 'Edm.Double') && !isPrimitiveType(operandType, 'Edm.Single');
      if (whole !== undefined && whole >= limits[0] && whole <= limits[1] && (exact || (whole <= 2n ** 53n && whole >= -(2n ** 53n)))) return undefined;
      const range = integerComparison(op === 'ne' ? 'eq' : op, value, operandType, property.type as BoundExpression['type']);
      if (range === undefined) return undefined;
      const matched = this.rangeFilter(field, property, range);
      if (op !== 'ne') return matched;
      return matched === NOTHING ? EVERYTHING : { $nor: [matched] };
    }
    if (typeof value === 'number' && Number.isNaN(value)) return op === 'ne' ? EVERYTHING : NOTHING;
    return undefined;
  }

  /** Documents whose integer field is in the range (`'all'`: any number). */
  private rangeFilter(field: string, property: Property, range: IntegerRange | 'none' | 'all'): MongoDocument {
    if (range === 'none') return NOTHING;
    if (range === 'all') return entry(field, { $type: 'number' });
    const bound = (n: bigint): unknown =>
      mongoValue(property.type.kind === 'primitive' && property.type.name === 'Edm.Int64' ? n : Number(n), property, this.mapping);
    if (range.from !== undefined && range.to === range.from + 1n) return entry(field, { $eq: bound(range.from) });
    // Inclusive ends: both inside the field's range (`to` may be one past its maximum).
    return entry(field, {
      ...(range.from === undefined ? {} : { $gte: bound(range.from) }),
      ...(range.to === undefined ? {} : { $lte: bound(range.to - 1n) }),
    });
  }

  /**
   * `field in (…)`: `$in` of the stored values, compared in the field's type (as the reference
   * does); numbers that the field's type cannot hold become ranges or are left out.
   */
  private inList(field: string, property: Property, items: readonly BoundLiteral[], operandType: BoundExpression['type']): MongoDocument {
    const numberField =
      integerRange(property.type as BoundExpression['type']) !== undefined ||
      (property.type.kind === 'primitive' && ['Edm.Double', 'Edm.Single', 'Edm.Decimal'].includes(property.type.name));
    if (!numberField || items.every((item) => item.value === null))
      return { [field]: { $in: items.map((item) => mongoValue(item.value, property, this.mapping)) } };
    const values: unknown[] = [];
    const ranges: MongoDocument[] = [];
    for (const item of items) {
      if (item.value === null) {
        values.push(null);
        continue;
      }
      const matched = this.numericComparison('eq', field, property, item.value, operandType);
      if (matched === undefined) values.push(mongoValue(item.value, property, this.mapping));
      else if (matched !== NOTHING) {
        const single = (matched[field] as MongoDocument | undefined)?.['$eq'];
        if (single !== undefined && Object.keys(matched[field] as MongoDocument).length === 1) values.push(single);
        else ranges.push(matched);
      }
    }
    const listed = { [field]: { $in: values } };
    return ranges.length === 0 ? listed : { $or: [listed, ...ranges] };
  }
}

/** The pieces of one level of options (the request's, or an expanded item's). */
interface Level {
  readonly match: MongoDocument;
  readonly computed: MongoDocument;
  readonly sort: MongoDocument | undefined;
  readonly skip: number | undefined;
  readonly limit: number | undefined;
  /** `$lookup`/`$set` stages of `$expand`, after paging. */
  readonly expand: MongoDocument[];
  /** The final `$project`, or `undefined` to keep whole documents. */
  readonly project: MongoDocument | undefined;
  /** Fields added on the way (lookups, sort keys) that the result must not keep. */
  readonly temporary: string[];
}

function toNumber(value: number | bigint | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint' && value > BigInt(Number.MAX_SAFE_INTEGER)) throw unsupported('$top or $skip beyond 2^53');
  return Number(value);
}

class QueryCompiler {
  readonly expressions: MongoExpressionCompiler;

  constructor(private readonly options: ToMongoOptions) {
    this.expressions = new MongoExpressionCompiler(options, '$filter');
  }

  /** `$search` and `$filter` of documents in `context`, as one query document. */
  conditions(query: BoundQueryOptions, context: Context, scoped = true): MongoDocument {
    const type = context.type;
    const filters = new FilterCompiler(rootFrame(context), this.expressions, this.options);
    const parts: MongoDocument[] = [];
    // The scope restricts the documents of this level (the request's collection or an expansion's).
    // (Not the rows `$apply` gives: its pipeline starts with the scope.)
    const scope = scoped ? scopeFilter(this.options) : undefined;
    if (scope !== undefined) parts.push(scope);
    if (query.search !== undefined) {
      const hook = this.options.search;
      parts.push(
        hook === undefined
          ? filters.search(query.search)
          : hook(query.search, {
              field: (name) => {
                const property = type.properties.get(name);
                if (property === undefined) throw unsupported(`searching the unknown property '${name}'`);
                return fieldOf(type, property, this.options, context.set);
              },
            }),
      );
    }
    if (query.filter !== undefined) parts.push(filters.condition(query.filter));
    return parts.length === 0 ? {} : parts.length === 1 ? (parts[0] as MongoDocument) : { $and: parts };
  }

  /**
   * Sort keys of `$orderby` items (or `orderby()` of `$apply`): a field where the item is one,
   * else a computed key in `computed` (an enum's member value, a navigation path, a function),
   * named in `temporary`; `sort` gets the keys in order.
   */
  orderKeys(
    items: readonly { readonly expression: BoundExpression; readonly direction: 'asc' | 'desc' }[],
    frame: Frame,
    orderExpressions: MongoExpressionCompiler,
    computed: MongoDocument,
    sort: MongoDocument,
    temporary: string[],
  ): void {
    const options = this.options;
    const type = frame.context.type;
    for (const item of items) {
      const found = new FilterCompiler(frame, orderExpressions, options).field(item.expression);
      let key: string;
      if (found !== undefined && found.property.type.kind !== 'enum' && !isDuration(item.expression.type)) key = found.field;
      else {
        // A computed sort key: an enum's member value, a navigation path, a function.
        key = reservedField(type, options, `order${Object.keys(computed).length}`);
        const expressionType = item.expression.type;
        const value = isDuration(expressionType) || expressionType.kind === 'enum' ? undefined : orderExpressions.value(item.expression, frame);
        computed[key] =
          expressionType.kind === 'enum'
            ? orderExpressions.orderable(item.expression, expressionType, frame)
            : isDuration(expressionType)
              ? orderExpressions.durationValue(item.expression, frame)
              : isPrimitiveType(expressionType, 'Edm.Date')
                ? orderExpressions.dateKeyOf(value)
                : value;
        temporary.push(key);
        // A computed Double can be NaN: the reference orders null, then NaN, then the numbers, as
        // MongoDB does, but mingo sorts NaN after every number; a first key says which it is. It
        // tells -INF and INF from the finite numbers too: mingo can order INF before -INF when
        // more keys follow (seed 20261136, `$orderby=(INF mul parent/n16),at,id desc`).
        // (A stored Double keeps its index, as on PostgreSQL: see DEVIATIONS.)
        if (isPrimitiveType(expressionType, 'Edm.Double') || isPrimitiveType(expressionType, 'Edm.Single')) {
          const nanKey = reservedField(type, options, `order${Object.keys(computed).length}`);
          const branches = [
            { case: { $eq: [{ $ifNull: [value, null] }, null] }, then: 0 },
            { case: { $eq: [value, NaN] }, then: 1 },
            { case: { $eq: [value, -Infinity] }, then: 2 },
            { case: { $eq: [value, Infinity] }, then: 4 },
          ];
          computed[nanKey] = { $switch: { branches, default: 3 } };
          temporary.push(nanKey);
          sort[nanKey] = item.direction === 'desc' ? -1 : 1;
        }
      }
      // MongoDB sorts null and missing first ascending, as OData does.
      if (!(key in sort)) sort[key] = item.direction === 'desc' ? -1 : 1;
    }
  }

  /** Compiles one level: conditions, ordering (computed keys), paging, projection and expansions. */
  level(query: BoundQueryOptions, context: Context, scoped = true): Level {
    const type = context.type;
    const options = this.options;
    const match = this.conditions(query, context, scoped);
    const frame = rootFrame(context);
    const orderExpressions = new MongoExpressionCompiler(options, '$orderby');
    const temporary: string[] = [];
    const computed: MongoDocument = {};
    let sort: MongoDocument | undefined;
    if (query.orderBy !== undefined || query.top !== undefined || query.skip !== undefined) {
      sort = {};
      this.orderKeys(query.orderBy ?? [], frame, orderExpressions, computed, sort, temporary);
      if (query.top !== undefined || query.skip !== undefined) {
        for (const key of type.key) {
          const field = fieldOf(type, type.properties.get(key) as Property, options, context.set);
          if (!(field in sort)) sort[field] = 1;
        }
        // Joined rows: the key of each joined entity too (the rows' own key repeats).
        const joined = joinedKeys(type).map(({ path }) => ({ expression: path, direction: 'asc' as const }));
        if (joined.length > 0) this.orderKeys(joined, frame, orderExpressions, computed, sort, temporary);
      }
      if (Object.keys(sort).length === 0) sort = undefined;
    }
    // The computed properties $select returns (`$compute`), each in a reserved field of its own.
    const computedFields: string[] = [];
    const names = query.select.computed;
    if (names !== undefined && names.length > 0) {
      const values = new MongoExpressionCompiler(options, '$compute');
      for (const item of query.compute ?? []) {
        if (!names.includes(item.name)) continue;
        const field = computedField(type, item.name, options);
        computed[field] = values.value(item.expression, frame);
        computedFields.push(field);
      }
    }
    for (const lookup of context.lookups.values()) temporary.push(lookup.field);

    const expand: MongoDocument[] = [];
    const expanded: string[] = [];
    for (const item of query.expand) expanded.push(...this.expansion(item, context, expand));

    // Options on $select items (semantic/select-options.ts): the collection replaced by what they give (select-options.ts).
    for (const item of query.select.properties) {
      if (item.options === undefined) continue;
      const field = dottedField(type, item.path, options, context.set);
      computed[field] = selectOptionsValue(item, field, options, `odata_s${Object.keys(computed).length}`);
    }
    let project: MongoDocument | undefined;
    if (!query.select.all) {
      project = {};
      for (const item of query.select.properties) project[dottedField(type, item.path, options, context.set)] = 1;
      for (const field of computedFields) project[field] = 1;
      for (const field of expanded) project[field] = 1;
      // MongoDB returns `_id` unless told not to; OData returns only what was selected.
      if (!('_id' in project)) project['_id'] = 0;
    } else if (temporary.length > 0) {
      project = Object.fromEntries(temporary.map((field) => [field, 0]));
    }
    return { match, computed, sort, skip: toNumber(query.skip), limit: toNumber(query.top), expand, project, temporary };
  }

  /** Stages of a level after its lookups: `$match`, sort keys, `$sort`, paging, expansions, `$project`. */
  stages(level: Level): MongoDocument[] {
    const stages: MongoDocument[] = [{ $match: level.limit === 0 ? NOTHING : level.match }];
    if (Object.keys(level.computed).length > 0) stages.push({ $addFields: level.computed });
    if (level.sort !== undefined) stages.push({ $sort: level.sort });
    if (level.skip !== undefined && level.skip > 0) stages.push({ $skip: level.skip });
    if (level.limit !== undefined && level.limit > 0) stages.push({ $limit: level.limit });
    stages.push(...level.expand);
    if (level.project !== undefined) stages.push({ $project: level.project });
    return stages;
  }

  /**
   * `$lookup` stages of one expanded navigation property, with its nested options in the
   * lookup's pipeline; returns the fields it adds to the documents.
   */
  private expansion(item: BoundExpandItem, context: Context, into: MongoDocument[]): string[] {
    const navigation = item.navigation;
    const set = targetSet(navigation, item.entitySet, { option: '$expand' });
    const name = navigation.name;
    // The scope restricts the related documents first (the nested level's $match says it again, after their lookups).
    const link =
      item.made === undefined ? linkLookup(context, navigation, set, this.options) : madeLookup(context, item.made, navigation.target, set, this.options);
    const join = link.pipeline;
    const inner = newContext(navigation.target, set);
    const lookup = (pipeline: MongoDocument[], as: string): MongoDocument => ({ $lookup: { from: link.from, let: link.let, pipeline, as } });
    const counted = countField(context.type, name, this.options);
    if (item.options.apply !== undefined) {
      // $apply inside $expand (Data Aggregation 3.8): the pipeline over the related documents.
      const applied = applyLevel(item.options, set, this, this.options);
      into.push(lookup([...join, ...applied.pipeline], name));
      if (!navigation.collection) {
        into.push({ $set: { [name]: { $ifNull: [{ $arrayElemAt: [`$${name}`, 0] }, null] } } });
        return [name];
      }
      if (item.options.count !== true) return [name];
      into.push(lookup([...join, ...applied.count], counted), { $set: { [counted]: { $ifNull: [{ $arrayElemAt: [`$${counted}.count`, 0] }, 0] } } });
      return [name, counted];
    }
    // (With $apply, its options are compiled over the rows it gives, above.)
    const nested = this.level(item.form === '$ref' ? { ...item.options, select: keySelect(navigation.target), expand: [] } : item.options, inner);
    if (item.form === '$count') {
      // Only the number of related documents that pass the nested $filter/$search.
      into.push(lookup([...join, ...inner.stages, { $match: nested.match }, { $project: { _id: 1 } }], counted), {
        $set: { [counted]: { $size: `$${counted}` } },
      });
      return [counted];
    }
    into.push(lookup([...join, ...inner.stages, ...this.stages(nested)], name));
    const fields = [name];
    if (!navigation.collection) {
      into.push({ $set: { [name]: { $ifNull: [{ $arrayElemAt: [`$${name}`, 0] }, null] } } });
    } else if (item.options.count === true) {
      into.push(lookup([...join, ...inner.stages, { $match: nested.match }, { $count: 'n' }], counted), {
        $set: { [counted]: { $ifNull: [{ $arrayElemAt: [`$${counted}.n`, 0] }, 0] } },
      });
      fields.push(counted);
    }
    return fields;
  }
}

/** The dotted field of a `$select` path (through complex values). */
function dottedField(type: StructuredType, path: readonly Property[], mapping: MongoMapping, set: EntitySet | undefined): string {
  let current = type;
  return path
    .map((property, i) => {
      const field = fieldOf(current, property, mapping, i === 0 ? set : undefined);
      if (property.type.kind === 'complex') current = property.type.type;
      return field;
    })
    .join('.');
}

function isPrimitiveType(type: BoundExpression['type'], name: string): boolean {
  return type.kind === 'primitive' && type.name === name;
}

/** Whether a property is a flag enum (stored as member names, compared by bits through `$expr`). */
function isFlags(property: Property): boolean {
  return property.type.kind === 'enum' && property.type.type.isFlags;
}

/** `$select` of the key properties only (`$expand=nav/$ref`). */
function keySelect(type: StructuredType): BoundQueryOptions['select'] {
  const span = { start: 0, end: 0 };
  return { all: false, properties: type.key.map((name) => ({ path: [type.properties.get(name) as Property], span })), navigation: [] };
}

/** A BSON date's precision: milliseconds. */
const MONGO_PRECISION: FractionalPrecision = { digits: { 'Edm.DateTimeOffset': 3 }, backend: 'MongoDB' };
/** MongoDB's preparation (../preparation.ts): it orders a grouped dynamic property by BSON order, as the reference does. */
const MONGO_PREPARATION: BackendPreparation = { backend: 'MongoDB', precision: MONGO_PRECISION, ordersGrouped: true };

/**
 * Compiles a bound query to a MongoDB `find` (filter, projection, sort, skip and limit), or to an
 * aggregation pipeline when a find cannot express it: plain documents that the `mongodb` driver
 * accepts as they are. With `$count=true`, `count` is the filter for `countDocuments` (find) or a
 * pipeline that counts (pipeline). Navigation and `$expand` need `{ model }`.
 *
 * @example
 * ```ts
 * const query = toMongo(bindQuery("$filter=name eq 'a'&$top=10", { model, entitySet: 'assets' }), { model });
 * const docs =
 *   query.kind === 'find'
 *     ? await db.collection('assets').find(query.filter, query).toArray()
 *     : await db.collection('assets').aggregate([...query.pipeline]).toArray();
 * ```
 */
export function toMongo(query: BoundQuery, options: ToMongoOptions = {}): MongoFind | MongoPipeline {
  return compileMongo(query, options, false);
}

/**
 * `$crossjoin(…)`: the query compiled as a pipeline over documents of the virtual set, after the
 * stages that make them. Every joined collection is restricted by the mapping's scope in those
 * stages; each combination then carries the scope's values (it belongs to the scope), so that the
 * scope's `$match` of the request's level keeps it.
 */
function crossJoinPipeline(join: CrossJoin, bound: BoundQuery, options: ToMongoOptions): MongoPipeline {
  const compiled = compileMongo(bound, options, true) as MongoPipeline;
  const scope =
    options.scope === undefined
      ? []
      : [{ $addFields: Object.fromEntries(Object.entries(options.scope).map(([field, value]) => [field, { $literal: value }])) }];
  const stages = [...crossJoinStages(join, options), ...scope];
  return { ...compiled, pipeline: [...stages, ...compiled.pipeline], ...(compiled.count === undefined ? {} : { count: [...stages, ...compiled.count] }) };
}

/** `toMongo` without the plan cache (what the cache keeps), frozen. */
function toMongoUncached(bound: BoundQuery, options: ToMongoOptions): MongoFind | MongoPipeline {
  return Object.freeze(toMongo(bound, { ...options, cache: undefined }));
}

function compileMongo(query: BoundQuery, options: ToMongoOptions, forcePipeline: boolean): MongoFind | MongoPipeline {
  if (options.cache !== undefined) {
    // (The options as given: the cache leaves out its own entry; a copy without it only to compile.)
    return options.cache.derive(query, 'mongo', options, toMongoUncached);
  }
  // Refusals, constants folded, instant literals finer than a BSON date (milliseconds) made exact or refused (../preparation.ts).
  const bound = prepareForBackend(query, MONGO_PREPARATION);
  // `$crossjoin(…)`: a pipeline over its combinations (crossjoin.ts), on the first set's collection.
  const join = forcePipeline ? undefined : crossJoinOf(bound.entitySet);
  if (join !== undefined) return crossJoinPipeline(join, query, options);
  const compiler = new QueryCompiler(options);
  if (bound.apply !== undefined) return applyPipeline(bound, compiler, options);
  // Its documents are the current collection of $these in $filter, $orderby and $compute.
  const context = theseContext(bound.entityType, bound.entitySet);
  const level = compiler.level(bound, context);
  const needsPipeline = forcePipeline || context.stages.length > 0 || Object.keys(level.computed).length > 0 || level.expand.length > 0;
  if (needsPipeline) {
    // The scope first: the lookups (of a link collection too) run for the scoped documents only.
    const scope = scopeFilter(options);
    const lookups = scope === undefined || context.stages.length === 0 ? context.stages : [{ $match: scope }, ...context.stages];
    const pipeline = [...lookups, ...compiler.stages(level)];
    return { kind: 'pipeline', pipeline, ...(bound.count === true ? { count: [...lookups, { $match: level.match }, { $count: 'count' }] } : {}) };
  }
  const { match: filter, sort, skip, limit, project: projection } = level;
  return {
    kind: 'find',
    // MongoDB reads `limit: 0` as "no limit": `$top=0` must match nothing instead.
    filter: limit === 0 ? NOTHING : filter,
    ...(projection === undefined ? {} : { projection }),
    ...(sort === undefined ? {} : { sort }),
    ...(skip === undefined ? {} : { skip }),
    ...(limit === undefined || limit === 0 ? {} : { limit }),
    ...(bound.count === true ? { count: filter } : {}),
  };
}

/**
 * A query with `$apply`: the transformations' stages (./apply.ts), then the request's `$filter`,
 * `$orderby`, `$top`, `$skip`, `$select` and `$expand` over the rows they give (in the order the
 * reference gives them where it matters: ties and pages by the rows' sequence), and `$count`.
 */
function applyPipeline(bound: BoundQuery, compiler: QueryCompiler, options: ToMongoOptions): MongoPipeline {
  const { pipeline, count } = applyLevel(bound, bound.entitySet, compiler, options);
  return { kind: 'pipeline', pipeline, ...(bound.count === true ? { count } : {}) };
}

/**
 * The stages of options with `$apply` over the documents of `set` (the request's, or an
 * expansion's inside its `$lookup`), and the stages that count what they give.
 */
function applyLevel(
  bound: BoundQueryOptions,
  set: EntitySet | undefined,
  compiler: QueryCompiler,
  options: ToMongoOptions,
): { pipeline: MongoDocument[]; count: MongoDocument[] } {
  const apply = bound.apply as NonNullable<BoundQuery['apply']>;
  const hooks: ApplyHooks = {
    condition: (predicate, context, expressions) => new FilterCompiler(rootFrame(context), expressions, options).condition(predicate),
    search: (search, context) => compiler.conditions({ ...bound, apply: undefined, filter: undefined, search } as BoundQueryOptions, context, false),
    order: (items, frame, expressions, computed, sort, temporary) => compiler.orderKeys(items, frame, expressions, computed, sort, temporary),
  };
  const ordered = bound.orderBy !== undefined || bound.top !== undefined || bound.skip !== undefined;
  const { stages, sequence } = applyStages(apply, bound.entityType, set, options, hooks, ordered);
  // The rows $apply gives are the current collection of $these in the options after it.
  const context = theseContext(apply.output, apply.entity ? set : undefined);
  const rest: BoundQueryOptions = { ...bound, apply: undefined } as BoundQueryOptions;
  const level = compiler.level(rest, context, false);
  let sort = level.sort;
  let project = level.project;
  if (sequence !== undefined) {
    // Ties (and rows without an order) in the order the transformations gave; without $orderby, rows
    // that $apply ordered in that order only (semantic/apply/output-order.ts).
    sort = bound.orderBy === undefined && orderedByApply(apply.transformations) ? { [sequence]: 1 } : { ...(sort ?? {}), [sequence]: 1 };
    if (project === undefined) project = { [sequence]: 0 };
    else if (Object.values(project).every((v) => v === 0)) project = { ...project, [sequence]: 0 };
  }
  const pipeline = [...stages, ...context.stages, ...compiler.stages({ ...level, sort, project })];
  return { pipeline, count: [...stages, ...context.stages, { $match: level.match }, { $count: 'count' }] };
}
