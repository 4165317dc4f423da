/**
 * The MongoDB backend, first steps: `$filter` with comparisons (also of two properties, through
 * `$expr`), `and`/`or`/`not`, `in`, `eq null`, Boolean properties, `contains`/`startswith`/
 * `endswith` (escaped regexes) and their `tolower`/`toupper` forms; `$search`, `$orderby`, `$top`,
 * `$skip`, `$select` and `$count`. A `find` answers these, except ordering by an enum, which is a
 * pipeline. Everything else is rejected with `unsupported_feature`.
 *
 * Values are only ever operands of `$eq`, `$ne`, `$gt`, `$in`, … or escaped into a regex, so a
 * string such as `{"$gt":""}` or `$where` is matched as data and never becomes an operator.
 */
import { ODataError } from '../../errors/odata-error.js';
import type { Property, StructuredType } from '../../model/model.js';
import type { BoundExpression, BoundLiteral, BoundQuery } from '../../semantic/bound-ast.js';
import type { SearchExpression } from '../../syntax/ast.js';

/** A MongoDB filter, sort or projection document. */
export type MongoDocument = { [field: string]: unknown };

export interface MongoMapping {
  /**
   * The field that holds the key when the entity type has a single-property key: `'_id'` by
   * default; `null` keeps the property's own name.
   */
  readonly keyField?: string | null;
  /** Field per property name (overrides the default, which is the property name). */
  readonly fields?: Readonly<Record<string, string>>;
}

/** Builds the filter of a `$search`; `field` maps a property name to its field. */
export type MongoSearchHook = (expression: SearchExpression, helpers: { field(property: string): string }) => MongoDocument;

export interface ToMongoOptions extends MongoMapping {
  /** A custom `$search` filter (e.g. a `$text` query); the default matches terms in string fields. */
  readonly search?: MongoSearchHook;
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
  /** With `$count=true`: the filter for `countDocuments`, which gives `@odata.count`. */
  readonly count?: MongoDocument;
}

/** An aggregation pipeline, for what a `find` cannot express (computed sort keys so far). */
export interface MongoPipeline {
  readonly kind: 'pipeline';
  /** `collection.aggregate(pipeline)`. */
  readonly pipeline: readonly MongoDocument[];
  /** With `$count=true`: the filter for `countDocuments`. */
  readonly count?: MongoDocument;
}

/** `unsupported_feature`; with the node and its option, the error points at the text (position). */
function unsupported(what: string, at?: { readonly node: { readonly span: { readonly start: number } }; readonly option: string }): ODataError {
  const reason = `The MongoDB backend does not support ${what}`;
  if (at === undefined) return new ODataError({ code: 'unsupported_feature', reason, appendLocation: false });
  return new ODataError({ code: 'unsupported_feature', reason, option: at.option, position: at.node.span.start });
}

/** Matches no document (`$nor` of the empty filter, which matches every one). */
const NOTHING: MongoDocument = { $nor: [{}] };
/** Matches every document. */
const EVERYTHING: MongoDocument = {};

/** Escapes every regex metacharacter, so that a value is matched literally (JS and PCRE alike). */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

const FLIP = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' } as const satisfies Record<string, string>;
const OPERATOR = { eq: '$eq', ne: '$ne', gt: '$gt', ge: '$gte', lt: '$lt', le: '$lte' } as const satisfies Record<keyof typeof FLIP, string>;
type Comparison = keyof typeof FLIP;

/** The field name of a property in `type`. */
function fieldOf(type: StructuredType, property: Property, mapping: MongoMapping): string {
  const override = mapping.fields?.[property.name];
  if (override !== undefined) return override;
  const keyField = mapping.keyField === undefined ? '_id' : mapping.keyField;
  if (keyField !== null && type.key.length === 1 && type.key[0] === property.name) return keyField;
  return property.name;
}

/**
 * A literal as it is stored: DateTimeOffset as a `Date`, Guid as lowercase text, an enum as its
 * member name; strings, numbers and Booleans as they are.
 */
export function mongoValue(value: BoundLiteral['value'], property: Property): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw unsupported('combined flag enum values');
    return value[0];
  }
  const type = property.type;
  if (type.kind === 'primitive') {
    switch (type.name) {
      case 'Edm.DateTimeOffset':
        return new Date(value as string);
      case 'Edm.Guid':
        return (value as string).toLowerCase();
      case 'Edm.Int64':
      case 'Edm.Decimal':
        throw unsupported(`${type.name} values (yet)`);
      case 'Edm.Double':
      case 'Edm.Single':
      case 'Edm.Int32':
      case 'Edm.Int16':
      case 'Edm.Byte':
      case 'Edm.SByte':
        // Numeric literals may be exact text (a decimal literal compared with a Double): stored as numbers.
        return typeof value === 'string' ? Number(value) : value;
      default:
        return value;
    }
  }
  return value;
}

class MongoCompiler {
  constructor(
    private readonly type: StructuredType,
    private readonly mapping: MongoMapping,
  ) {}

  /** The field of a path to a property of the row (navigation and lambdas need a pipeline). */
  field(node: BoundExpression): { field: string; property: Property } | undefined {
    if (node.kind !== 'path' || node.root.kind !== 'it' || node.steps.length !== 1) return undefined;
    const step = node.steps[0];
    if (step?.kind !== 'property' || step.property.collection) return undefined;
    return { field: fieldOf(this.type, step.property, this.mapping), property: step.property };
  }

  private requireField(node: BoundExpression): { field: string; property: Property } {
    const found = this.field(node);
    if (found === undefined) throw unsupported(`this operand (${node.kind}) in a find filter (yet)`, { node, option: '$filter' });
    return found;
  }

  /**
   * The default `$search`, as the in-memory backend's: every term, ignoring case, contained in one
   * of the string fields; `AND`, `OR` and `NOT` of the search grammar.
   */
  search(expression: SearchExpression): MongoDocument {
    const fields = [...this.type.properties.values()]
      .filter((p) => !p.collection && p.type.kind === 'primitive' && p.type.name === 'Edm.String')
      .map((p) => fieldOf(this.type, p, this.mapping));
    const term = (text: string): MongoDocument => {
      if (fields.length === 0) return NOTHING;
      const regex = { $regex: escapeRegex(text.toLowerCase()), $options: 'i' };
      return fields.length === 1 ? { [fields[0] as string]: regex } : { $or: fields.map((field) => ({ [field]: regex })) };
    };
    switch (expression.kind) {
      case 'searchText': {
        const terms = expression.text.split(/\s+/).filter((t) => t !== '');
        if (terms.length === 0) return EVERYTHING;
        return terms.length === 1 ? term(terms[0] as string) : { $and: terms.map(term) };
      }
      case 'searchTerm':
        return term(expression.value);
      case 'searchNot':
        return { $nor: [this.search(expression.operand)] };
      case 'searchBinary': {
        const parts = [this.search(expression.left), this.search(expression.right)];
        return expression.operator === 'AND' ? { $and: parts } : { $or: parts };
      }
    }
  }

  /** `positive` is false under an odd number of `not`s: the result must then be the complement. */
  condition(node: BoundExpression, positive: boolean): MongoDocument {
    switch (node.kind) {
      case 'binary':
        switch (node.operator) {
          case 'and':
          case 'or': {
            // not (a and b) = not a or not b: the negation moves to the leaves.
            const conjunction = (node.operator === 'and') === positive;
            const parts = [this.condition(node.left, positive), this.condition(node.right, positive)];
            return conjunction ? { $and: parts } : { $or: parts };
          }
          case 'eq':
          case 'ne':
          case 'gt':
          case 'ge':
          case 'lt':
          case 'le': {
            const result = this.comparison(node.operator, node.left, node.right);
            return positive ? result : { $nor: [result] };
          }
          default:
            break;
        }
        break;
      case 'unary':
        if (node.operator === 'not') return this.condition(node.operand, !positive);
        break;
      case 'literal':
        if (typeof node.value === 'boolean') return node.value === positive ? EVERYTHING : NOTHING;
        if (node.value === null) return NOTHING;
        break;
      case 'path': {
        // A Boolean property: null is neither true nor, under not, false.
        const { field } = this.requireField(node);
        return { [field]: { $eq: positive } };
      }
      case 'in': {
        if (node.right.kind !== 'list') throw unsupported(`'in' with a collection (yet)`, { node, option: '$filter' });
        const { field } = this.requireField(node.left);
        const { property } = this.requireField(node.left);
        const values = node.right.items.map((item) => mongoValue(item.value, property));
        const result = { [field]: { $in: values } };
        return positive ? result : { $nor: [result] };
      }
      case 'call': {
        const result = this.stringPredicate(node);
        // contains(null, 'a') is null: under not, still no match.
        return positive ? result : { $and: [{ [this.stringSubject(node.args[0] as BoundExpression).field]: { $type: 'string' } }, { $nor: [result] }] };
      }
      default:
        break;
    }
    throw unsupported(`this condition (${node.kind}) in a find filter (yet)`, { node, option: '$filter' });
  }

  private stringPredicate(node: Extract<BoundExpression, { kind: 'call' }>): MongoDocument {
    const [subject, pattern] = node.args;
    if (subject === undefined || pattern === undefined) throw unsupported(`the function '${node.name}'`, { node, option: '$filter' });
    if (pattern.kind !== 'literal' || typeof pattern.value !== 'string') throw unsupported(`'${node.name}' with a non-literal pattern (yet)`, { node, option: '$filter' });
    const { field, lower } = this.stringSubject(subject);
    // tolower(x) never contains an upper-case letter: no non-null value matches.
    if (lower && pattern.value !== pattern.value.toLowerCase()) return NOTHING;
    const text = escapeRegex(pattern.value);
    const regex = (source: string): MongoDocument => ({ [field]: lower ? { $regex: source, $options: 'i' } : { $regex: source } });
    switch (node.name) {
      case 'contains':
        return regex(text);
      case 'startswith':
        return regex(`^${text}`);
      case 'endswith':
        // `$` also matches before a final newline in PCRE (MongoDB); "no character follows" does not.
        return regex(`${text}(?![\\s\\S])`);
      default:
        throw unsupported(`the function '${node.name}' in a find filter (yet)`, { node, option: '$filter' });
    }
  }

  /** The field of a string predicate's subject: a property, or `tolower(property)` (then `i`). */
  stringSubject(node: BoundExpression): { field: string; lower: boolean } {
    if (node.kind === 'call' && node.name === 'tolower' && node.args.length === 1) {
      return { field: this.requireField(node.args[0] as BoundExpression).field, lower: true };
    }
    return { field: this.requireField(node).field, lower: false };
  }

  /**
   * Two properties: `$expr`, whose comparisons order null below every value, so the spec's null
   * rules are spelled out (null eq null; gt/lt false with a null; ge/le true for two nulls).
   */
  private fieldComparison(op: Comparison, leftNode: BoundExpression, rightNode: BoundExpression): MongoDocument {
    const left = this.requireField(leftNode);
    const right = this.requireField(rightNode);
    if ((left.property.type.kind === 'enum' || right.property.type.kind === 'enum') && op !== 'eq' && op !== 'ne') throw unsupported('ordering enum values (yet)', { node: leftNode, option: '$filter' });
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
      case 'gt':
      case 'lt':
        return { $and: [bothPresent, { $expr: { [OPERATOR[op]]: [a, b] } }] };
      case 'ge':
      case 'le':
        return { $or: [bothNull, { $and: [bothPresent, { $expr: { [OPERATOR[op]]: [a, b] } }] }] };
    }
  }

  private comparison(operator: Comparison, left: BoundExpression, right: BoundExpression): MongoDocument {
    let op = operator;
    let path = left;
    let other = right;
    if (left.kind === 'literal') {
      op = FLIP[operator];
      path = right;
      other = left;
    }
    if (other.kind !== 'literal') return this.fieldComparison(op, path, other);
    if (path.kind === 'literal') {
      throw unsupported('comparing two literals', { node: path, option: '$filter' });
    }
    if (path.kind === 'call' && (path.name === 'tolower' || path.name === 'toupper') && (op === 'eq' || op === 'ne') && typeof other.value === 'string') {
      // tolower(x) eq 'abc': x equals 'abc' ignoring case. A literal that tolower (toupper) would
      // change cannot be equal to its result.
      const { field } = this.requireField(path.args[0] as BoundExpression);
      const text = other.value;
      const possible = text === (path.name === 'tolower' ? text.toLowerCase() : text.toUpperCase());
      const equal = possible ? { [field]: { $regex: `^${escapeRegex(text)}(?![\\s\\S])`, $options: 'i' } } : NOTHING;
      return op === 'eq' ? equal : { $nor: [equal] };
    }
    const { field, property } = this.requireField(path);
    if (property.type.kind === 'enum' && op !== 'eq' && op !== 'ne' && other.value !== null) {
      // Stored as names, ordered by value: the names on the right side of the comparison.
      const members = property.type.type.members;
      if (property.type.type.isFlags) throw unsupported('ordering flag enum values', { node: path, option: '$filter' });
      const pivot = members.get(mongoValue(other.value, property) as string);
      if (pivot === undefined) throw unsupported('an unknown enum member', { node: other, option: '$filter' });
      const holds = { gt: (v: bigint) => v > pivot, ge: (v: bigint) => v >= pivot, lt: (v: bigint) => v < pivot, le: (v: bigint) => v <= pivot }[op];
      return { [field]: { $in: [...members].filter(([, value]) => holds(value)).map(([name]) => name) } };
    }
    if (other.value === null) {
      // OData: null eq null is true, null gt/lt anything is false, null ge/le null is true.
      if (op === 'eq' || op === 'ge' || op === 'le') return { [field]: { $eq: null } };
      if (op === 'ne') return { [field]: { $ne: null } };
      return NOTHING;
    }
    // `$ne` matches null and missing fields, as OData's ne does; `$gt`… never match null.
    return { [field]: { [OPERATOR[op]]: mongoValue(other.value, property) } };
  }
}

/**
 * Compiles a bound query to a MongoDB `find` (filter, projection, sort, skip and limit), or to an
 * aggregation pipeline when a find cannot express it: plain documents that the `mongodb` driver
 * accepts as they are. With `$count=true`, `count` is the filter for `countDocuments`.
 *
 * @example
 * ```ts
 * const query = toMongo(bindQuery("$filter=name eq 'a'&$top=10", { model, entitySet: 'assets' }));
 * const docs =
 *   query.kind === 'find'
 *     ? await db.collection('assets').find(query.filter, query).toArray()
 *     : await db.collection('assets').aggregate([...query.pipeline]).toArray();
 * ```
 */
export function toMongo(bound: BoundQuery, options: ToMongoOptions = {}): MongoFind | MongoPipeline {
  if (bound.expand.length > 0) throw unsupported('$expand (yet)');
  const type = bound.entityType;
  const compiler = new MongoCompiler(type, options);
  const parts: MongoDocument[] = [];
  if (bound.search !== undefined) {
    const hook = options.search;
    parts.push(
      hook === undefined
        ? compiler.search(bound.search)
        : hook(bound.search, {
            field: (name) => {
              const property = type.properties.get(name);
              if (property === undefined) throw unsupported(`searching the unknown property '${name}'`);
              return fieldOf(type, property, options);
            },
          }),
    );
  }
  if (bound.filter !== undefined) parts.push(compiler.condition(bound.filter, true));
  const filter: MongoDocument = parts.length === 0 ? {} : parts.length === 1 ? (parts[0] as MongoDocument) : { $and: parts };

  let sort: MongoDocument | undefined;
  // Computed sort keys (enum member values): they need an aggregation pipeline.
  const computed: MongoDocument = {};
  const fields = new Set([...type.properties.values()].map((p) => fieldOf(type, p, options)));
  if (bound.orderBy !== undefined || bound.top !== undefined || bound.skip !== undefined) {
    sort = {};
    for (const item of bound.orderBy ?? []) {
      const found = compiler.field(item.expression);
      if (found === undefined) throw unsupported('ordering by an expression (yet)', { node: item.expression, option: '$orderby' });
      let key = found.field;
      if (found.property.type.kind === 'enum') {
        if (found.property.type.type.isFlags) throw unsupported('ordering by a flag enum', { node: item.expression, option: '$orderby' });
        // Stored by name, ordered by value: a `$switch` from names to values (null for null).
        key = `__odata_order_${Object.keys(computed).length}`;
        while (fields.has(key)) key = `_${key}`;
        computed[key] = {
          $switch: {
            branches: [...found.property.type.type.members].map(([name, value]) => ({ case: { $eq: [`$${found.field}`, name] }, then: Number(value) })),
            default: null,
          },
        };
      }
      // MongoDB sorts null and missing first ascending, as OData does.
      if (!(key in sort)) sort[key] = item.direction === 'desc' ? -1 : 1;
    }
    if (bound.top !== undefined || bound.skip !== undefined) {
      for (const key of type.key) {
        const field = fieldOf(type, type.properties.get(key) as Property, options);
        if (!(field in sort)) sort[field] = 1;
      }
    }
    if (Object.keys(sort).length === 0) sort = undefined;
  }

  let projection: MongoDocument | undefined;
  if (!bound.select.all) {
    projection = {};
    for (const item of bound.select.properties) {
      const property = item.path[0] as Property;
      projection[fieldOf(type, property, options)] = 1;
    }
    // MongoDB returns `_id` unless told not to; OData returns only what was selected.
    if (!('_id' in projection)) projection['_id'] = 0;
  }

  const toNumber = (value: number | bigint | undefined): number | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === 'bigint' && value > BigInt(Number.MAX_SAFE_INTEGER)) throw unsupported('$top or $skip beyond 2^53');
    return Number(value);
  };
  const skip = toNumber(bound.skip);
  const limit = toNumber(bound.top);
  if (Object.keys(computed).length > 0) {
    const pipeline: MongoDocument[] = [{ $match: limit === 0 ? NOTHING : filter }, { $addFields: computed }, { $sort: sort }];
    if (skip !== undefined) pipeline.push({ $skip: skip });
    if (limit !== undefined && limit > 0) pipeline.push({ $limit: limit });
    pipeline.push({ $project: projection ?? Object.fromEntries(Object.keys(computed).map((key) => [key, 0])) });
    return { kind: 'pipeline', pipeline, ...(bound.count === true ? { count: filter } : {}) };
  }
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
 * A row as a document: the key in `_id` (or the configured field), fields renamed, DateTimeOffset
 * as `Date`, Guid in lowercase. Missing properties stay missing.
 */
export function toMongoDocument(row: Readonly<Record<string, unknown>>, type: StructuredType, options: MongoMapping = {}): MongoDocument {
  const document: MongoDocument = {};
  for (const property of type.properties.values()) {
    if (!Object.hasOwn(row, property.name)) continue;
    const value = row[property.name];
    if (property.collection) {
      document[fieldOf(type, property, options)] = value;
      continue;
    }
    document[fieldOf(type, property, options)] = value === null || value === undefined ? null : mongoValue(value as BoundLiteral['value'], property);
  }
  return document;
}

/** A document back as a row with property names (the inverse of {@link toMongoDocument}'s renaming). */
export function fromMongoDocument(document: Readonly<MongoDocument>, type: StructuredType, options: MongoMapping = {}): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const property of type.properties.values()) {
    const field = fieldOf(type, property, options);
    if (Object.hasOwn(document, field)) row[property.name] = document[field];
  }
  return row;
}
