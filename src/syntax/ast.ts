/**
 * The syntax tree of OData query options. It needs no model: names are kept as written and
 * resolved later by the binder. Every node is readonly, discriminated on `kind`, and carries a
 * `span` of offsets into the text of the option it was parsed from (percent-decoded).
 */

/** Half-open range `[start, end)` of offsets into the option's text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

interface Node {
  readonly span: Span;
}

// ---------------------------------------------------------------------------------------------
// Literals
// ---------------------------------------------------------------------------------------------

/** EDM type names a literal can have by its syntax alone. */
export type LiteralType =
  | 'null'
  | 'Edm.Boolean'
  | 'Edm.Int32'
  | 'Edm.Int64'
  | 'Edm.Decimal'
  | 'Edm.Double'
  | 'Edm.String'
  | 'Edm.Guid'
  | 'Edm.Date'
  | 'Edm.DateTimeOffset'
  | 'Edm.TimeOfDay'
  | 'Edm.Duration'
  | 'Edm.Binary'
  | 'Edm.Geography'
  | 'Edm.Geometry'
  | 'enum';

interface LiteralBase<T extends LiteralType, V> extends Node {
  readonly kind: 'literal';
  readonly type: T;
  readonly value: V;
}

export type NullLiteral = LiteralBase<'null', null>;
export type BooleanLiteral = LiteralBase<'Edm.Boolean', boolean>;
/** An integer in the Int32 range. */
export type Int32Literal = LiteralBase<'Edm.Int32', number>;
/** An integer outside Int32 but inside Int64: exact, as a `bigint`. */
export type Int64Literal = LiteralBase<'Edm.Int64', bigint>;
/** A decimal number (or an integer beyond Int64), kept exactly as its decimal text, e.g. `"-2.50"`. */
export type DecimalLiteral = LiteralBase<'Edm.Decimal', string>;
/** A number with an exponent, or `INF`, `-INF`, `NaN`. */
export type DoubleLiteral = LiteralBase<'Edm.Double', number>;
/** A single-quoted string; `value` is the decoded text (`''` became `'`). */
export type StringLiteral = LiteralBase<'Edm.String', string>;
/** A GUID as written, e.g. `01234567-89ab-cdef-0123-456789abcdef`. */
export type GuidLiteral = LiteralBase<'Edm.Guid', string>;
/** `YYYY-MM-DD` as written. */
export type DateLiteral = LiteralBase<'Edm.Date', string>;
/** An ISO 8601 timestamp with offset as written, e.g. `2012-09-03T14:53+02:00`. */
export type DateTimeOffsetLiteral = LiteralBase<'Edm.DateTimeOffset', string>;
/** `hh:mm[:ss[.fffffff]]` as written. */
export type TimeOfDayLiteral = LiteralBase<'Edm.TimeOfDay', string>;
/** The ISO 8601 duration inside `duration'…'`, e.g. `P1DT2H`. */
export type DurationLiteral = LiteralBase<'Edm.Duration', string>;
/** The base64url text inside `binary'…'`. */
export type BinaryLiteral = LiteralBase<'Edm.Binary', string>;
/** The text inside `geography'…'`, e.g. `SRID=0;Point(142.1 64.1)`. */
export type GeographyLiteral = LiteralBase<'Edm.Geography', string>;
/** The text inside `geometry'…'`. */
export type GeometryLiteral = LiteralBase<'Edm.Geometry', string>;
/** `Ns.Type'Member'` or `Ns.Type'A,B'`: the qualified type name and the member names or values. */
export interface EnumLiteral extends Node {
  readonly kind: 'literal';
  readonly type: 'enum';
  readonly enumType: string;
  readonly value: readonly string[];
}

export type Literal =
  | NullLiteral
  | BooleanLiteral
  | Int32Literal
  | Int64Literal
  | DecimalLiteral
  | DoubleLiteral
  | StringLiteral
  | GuidLiteral
  | DateLiteral
  | DateTimeOffsetLiteral
  | TimeOfDayLiteral
  | DurationLiteral
  | BinaryLiteral
  | GeographyLiteral
  | GeometryLiteral
  | EnumLiteral;

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

export type LogicalOperator = 'and' | 'or';
export type ComparisonOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
export type ArithmeticOperator = 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod';
export type BinaryOperator = LogicalOperator | ComparisonOperator | ArithmeticOperator | 'has';

/** `left op right` for the logical, comparison, arithmetic and `has` operators. */
export interface BinaryExpression extends Node {
  readonly kind: 'binary';
  readonly operator: BinaryOperator;
  readonly left: Expression;
  readonly right: Expression;
}

/** `left in (1,2,3)`, `left in [..]` or `left in Collection/Path`. */
export interface InExpression extends Node {
  readonly kind: 'in';
  readonly left: Expression;
  readonly right: ListExpression | Expression;
}

/** The parenthesized list of primitive literals on the right of `in`. */
export interface ListExpression extends Node {
  readonly kind: 'list';
  readonly items: readonly Literal[];
}

/** `not x` or `-x`. */
export interface UnaryExpression extends Node {
  readonly kind: 'unary';
  readonly operator: 'not' | 'negate';
  readonly operand: Expression;
}

/**
 * A canonical function call such as `contains(Name,'x')`. `name` is the canonical lower-case spelling;
 * `isdefined(path)` is Data Aggregation's (case-sensitive, one path argument).
 */
export interface CallExpression extends Node {
  readonly kind: 'call';
  readonly name: CanonicalFunctionName | 'isdefined';
  readonly args: readonly (Expression | TypeName)[];
}

/** A type name argument of `cast` and `isof`, e.g. `Edm.Int32` or `Collection(Edm.String)`. */
export interface TypeName extends Node {
  readonly kind: 'typeName';
  readonly name: string;
  readonly collection: boolean;
}

/** `case(cond:value, …)` (`$compute`). */
export interface CaseExpression extends Node {
  readonly kind: 'case';
  readonly branches: readonly { readonly when: Expression; readonly then: Expression; readonly span: Span }[];
}

/** A parameter alias used as a value, e.g. `@word`. */
export interface AliasExpression extends Node {
  readonly kind: 'alias';
  readonly name: string;
}

/** A JSON array in an expression, e.g. `["a","b"]` or `[FirstName,LastName]`. */
export interface ArrayExpression extends Node {
  readonly kind: 'array';
  readonly items: readonly Expression[];
}

/** A JSON object in an expression, e.g. `{"Street":"Main"}`. */
export interface ObjectExpression extends Node {
  readonly kind: 'object';
  readonly members: readonly { readonly name: string; readonly value: Expression; readonly span: Span }[];
}

/** Where a member path starts. */
export type PathHead =
  | { readonly kind: 'implicit' }
  | { readonly kind: '$it' }
  | { readonly kind: '$this' }
  | { readonly kind: '$root' }
  /** `$these` (Data Aggregation): the current collection, e.g. `$these/aggregate(Amount with sum)`. */
  | { readonly kind: '$these' }
  | { readonly kind: 'alias'; readonly name: string };

/** A named or positional argument of a path segment call (function parameters or a key predicate). */
export interface SegmentArgument {
  readonly name?: string;
  readonly value: Expression;
  readonly span: Span;
}

/** One `/`-separated step of a member path. */
export type PathSegment =
  /** A property, navigation property or type-cast segment; qualified names keep their dots. */
  | { readonly kind: 'member'; readonly name: string; readonly span: Span }
  /** A bound function call or key predicate: `Name(…)`. */
  | { readonly kind: 'invoke'; readonly name: string; readonly args: readonly SegmentArgument[]; readonly span: Span }
  /** An instance annotation, e.g. `@Core.Messages` or `@Measures.Currency#Reporting`. */
  | { readonly kind: 'annotation'; readonly term: string; readonly span: Span }
  /** `$count`, optionally with `($filter=…;$search=…)`. */
  | {
      readonly kind: 'count';
      readonly filter?: Expression;
      readonly search?: SearchExpression;
      readonly span: Span;
    }
  /** `$filter(expr)` path segment. */
  | { readonly kind: 'filter'; readonly predicate: Expression; readonly span: Span }
  /**
   * `aggregate(…)` after a collection path (Data Aggregation `collectionPathExpr`), e.g.
   * `Sales/aggregate(Amount with sum)` or `$these/aggregate($count)`: an aggregate item without
   * alias. Like a lambda, it ends a path.
   */
  | { readonly kind: 'aggregate'; readonly item: AggregateItem; readonly span: Span }
  /** `any(x:…)`, `any()` or `all(x:…)`; a lambda ends a path. */
  | {
      readonly kind: 'lambda';
      readonly operator: 'any' | 'all';
      readonly variable?: string;
      readonly predicate?: Expression;
      readonly span: Span;
    };

/** A path such as `Name`, `Address/City`, `$it/Tags/$count` or `Items/any(i:i/Qty gt 1)`. */
export interface MemberPath extends Node {
  readonly kind: 'path';
  readonly head: PathHead;
  readonly segments: readonly PathSegment[];
}

export type Expression =
  | Literal
  | BinaryExpression
  | InExpression
  | ListExpression
  | UnaryExpression
  | CallExpression
  | CaseExpression
  | AliasExpression
  | ArrayExpression
  | ObjectExpression
  | MemberPath;

// ---------------------------------------------------------------------------------------------
// Canonical functions
// ---------------------------------------------------------------------------------------------

/**
 * Arity of every canonical function (URL Conventions 5.1.1.4 onwards), as `[min, max]`.
 * `substringof` is the OData 4.0 spelling that some clients still send.
 */
export const CANONICAL_FUNCTIONS = {
  contains: [2, 2],
  startswith: [2, 2],
  endswith: [2, 2],
  length: [1, 1],
  indexof: [2, 2],
  substring: [2, 3],
  tolower: [1, 1],
  toupper: [1, 1],
  trim: [1, 1],
  concat: [2, 2],
  matchesPattern: [2, 2],
  substringof: [2, 2],
  hassubset: [2, 2],
  hassubsequence: [2, 2],
  year: [1, 1],
  month: [1, 1],
  day: [1, 1],
  hour: [1, 1],
  minute: [1, 1],
  second: [1, 1],
  fractionalseconds: [1, 1],
  totalseconds: [1, 1],
  date: [1, 1],
  time: [1, 1],
  totaloffsetminutes: [1, 1],
  now: [0, 0],
  mindatetime: [0, 0],
  maxdatetime: [0, 0],
  round: [1, 1],
  floor: [1, 1],
  ceiling: [1, 1],
  cast: [1, 2],
  isof: [1, 2],
  'geo.distance': [2, 2],
  'geo.intersects': [2, 2],
  'geo.length': [1, 1],
} as const satisfies Record<string, readonly [number, number]>;

export type CanonicalFunctionName = keyof typeof CANONICAL_FUNCTIONS;

// ---------------------------------------------------------------------------------------------
// $search
// ---------------------------------------------------------------------------------------------

/** `$search` as one uninterpreted string (the default). */
export interface SearchText extends Node {
  readonly kind: 'searchText';
  readonly text: string;
}

/** A search word or a `"phrase"`. */
export interface SearchTerm extends Node {
  readonly kind: 'searchTerm';
  readonly value: string;
  readonly phrase: boolean;
}

export interface SearchNot extends Node {
  readonly kind: 'searchNot';
  readonly operand: SearchExpression;
}

/** `a AND b` (also written `a b`) or `a OR b`. */
export interface SearchBinary extends Node {
  readonly kind: 'searchBinary';
  readonly operator: 'AND' | 'OR';
  readonly left: SearchExpression;
  readonly right: SearchExpression;
}

export type SearchExpression = SearchText | SearchTerm | SearchNot | SearchBinary;

// ---------------------------------------------------------------------------------------------
// Query options
// ---------------------------------------------------------------------------------------------

/** One `$orderby` item. */
export interface OrderByItem extends Node {
  readonly kind: 'orderByItem';
  readonly expression: Expression;
  readonly direction: 'asc' | 'desc';
}

/** One `$compute` item: `expression as Alias`. */
export interface ComputeItem extends Node {
  readonly kind: 'computeItem';
  readonly expression: Expression;
  readonly alias: string;
}

// ---------------------------------------------------------------------------------------------
// $apply (OData Extension for Data Aggregation 4.0)
// ---------------------------------------------------------------------------------------------

/** A method of an aggregate expression: a standard one, or a custom one (`Namespace.name`). */
export type AggregateMethod = 'sum' | 'min' | 'max' | 'average' | 'countdistinct' | { readonly custom: string };

/**
 * One item of `aggregate(…)`: `expr with method as Alias`, `$count as Alias`, `path/$count as Alias`,
 * or a custom aggregate (`Forecast` or `Sales/Forecast as F`), each with optional `from` steps.
 */
export interface AggregateItem extends Node {
  readonly kind: 'aggregateItem';
  /** The aggregated expression (a path or any common expression); absent for `$count as …` and a bare custom aggregate. */
  readonly expression?: Expression;
  /** `with <method>`; absent for a count or a custom aggregate. */
  readonly method?: AggregateMethod;
  /** `$count` (then `expression` is absent) or `path/$count` (then `expression` is the path). */
  readonly count?: boolean;
  /** A custom aggregate's name (`aggregateCustom`), when the item is one. */
  readonly custom?: string;
  /** `from` steps, outermost last: each groups by `properties` and aggregates with `method`. */
  readonly from?: readonly { readonly properties: readonly MemberPath[]; readonly method?: AggregateMethod; readonly span: Span }[];
  /** `as Alias`; absent only for a bare custom aggregate. */
  readonly alias?: string;
}

/** `rollup(…)` or `rolluprecursive(…)` in a `groupby` list. */
export interface RollupElement extends Node {
  readonly kind: 'rollup';
  readonly recursive: boolean;
  /**
   * The grouping properties of `rollup(A, B, …)`, outermost first, or the one name of a leveled
   * hierarchy (`rollup(Hierarchy)`); empty for `rolluprecursive(…)`.
   */
  readonly properties: readonly MemberPath[];
  /** `rolluprecursive(H, Q, p[, S])`: the hierarchy and the path from an input row to its node. */
  readonly hierarchy?: HierarchyReference;
  /** `rolluprecursive(…, S)`: the transformations that restrict the hierarchy's nodes (H′). */
  readonly apply?: readonly ApplyTransformation[];
  /** The argument text as written (between the parentheses). */
  readonly text: string;
}

/**
 * `$root/Set, Qualifier, path`: the recursive hierarchy of a hierarchical transformation (Data
 * Aggregation 6.1): the collection of its nodes, the qualifier of the `RecursiveHierarchy`
 * annotation on their entity type, and the path from an input row to its node identifier.
 */
export interface HierarchyReference extends Node {
  readonly kind: 'hierarchyReference';
  /** The nodes: a `$root/…` path to an entity set. */
  readonly nodes: Expression;
  /** The qualifier of the `RecursiveHierarchy` annotation. */
  readonly qualifier: { readonly name: string; readonly span: Span };
  /** The node identifier of an input row (a data aggregation path ending in a primitive property). */
  readonly path: MemberPath;
}

/** One transformation of an `$apply` pipeline. */
export type ApplyTransformation =
  | (Node & { readonly kind: 'aggregate'; readonly items: readonly AggregateItem[] })
  | (Node & {
      readonly kind: 'groupby';
      /** Grouping properties (paths) and rollups, in request order. */
      readonly properties: readonly (MemberPath | RollupElement)[];
      /** The transformations applied to each group (`groupby((a),aggregate(…))`); empty when none. */
      readonly apply: readonly ApplyTransformation[];
    })
  | (Node & { readonly kind: 'filter'; readonly expression: Expression })
  | (Node & { readonly kind: 'compute'; readonly items: readonly ComputeItem[] })
  | (Node & { readonly kind: 'orderby'; readonly items: readonly OrderByItem[] })
  | (Node & { readonly kind: 'top' | 'skip'; readonly count: number | bigint })
  | (Node & { readonly kind: 'search'; readonly search: SearchExpression })
  | (Node & { readonly kind: 'identity' })
  | (Node & { readonly kind: 'concat'; readonly branches: readonly (readonly ApplyTransformation[])[] })
  | (Node & {
      readonly kind: 'topcount' | 'bottomcount' | 'toppercent' | 'bottompercent' | 'topsum' | 'bottomsum';
      /** The count, percentage or sum limit. */
      readonly limit: Expression;
      /** The value ranked (or summed). */
      readonly value: Expression;
    })
  /**
   * `join(Path as Alias[, applyExpr])` and `outerjoin(…)` (Data Aggregation 3.4.3, 3.4.4): each
   * input row once per related instance of the collection `path` (after `apply`), with the
   * instance as `alias`; `outerjoin` keeps a row without any, its `alias` null.
   */
  | (Node & {
      readonly kind: 'join' | 'outerjoin';
      readonly path: MemberPath;
      readonly alias: string;
      /** The transformations applied to each row's related instances; empty when none. */
      readonly apply: readonly ApplyTransformation[];
    })
  /** `nest(applyExpr as Alias, …)` (3.4.2): one row whose properties are the collections the pipelines give. */
  | (Node & { readonly kind: 'nest'; readonly items: readonly NestItem[] })
  /** `addnested(Path, applyExpr as Alias, …)` (3.4.1): each row with the collections the pipelines give over its collection `path`. */
  | (Node & { readonly kind: 'addnested'; readonly path: MemberPath; readonly items: readonly NestItem[] })
  /**
   * `ancestors(H,Q,p,T[,d][,keep start])` and `descendants(…)` (Data Aggregation 6.2.1): the
   * input rows related to ancestors (descendants) of the start nodes, the nodes of the rows `apply`
   * keeps, within `distance` steps, with the start nodes themselves under `keep start`.
   */
  | (Node & {
      readonly kind: 'ancestors' | 'descendants';
      readonly hierarchy: HierarchyReference;
      readonly apply: readonly ApplyTransformation[];
      /** The maximum distance (a `bigint` beyond 2^53 − 1); absent: any. */
      readonly distance?: number | bigint;
      readonly keepStart: boolean;
    })
  /**
   * `traverse(H,Q,p,preorder|postorder[,S][,orderby items])` (Data Aggregation 6.2.2): the input
   * rows in the tree order of their nodes, from the start nodes (`apply` over the hierarchy's nodes,
   * or its roots), siblings ordered by `orderBy`.
   */
  | (Node & {
      readonly kind: 'traverse';
      readonly hierarchy: HierarchyReference;
      readonly order: 'preorder' | 'postorder';
      /** Transformations over the hierarchy's nodes that give the start nodes; empty: the roots. */
      readonly apply: readonly ApplyTransformation[];
      readonly orderBy: readonly OrderByItem[];
    })
  /**
   * A transformation the grammar has that this engine parses without giving it a tree of its own
   * (a custom function): the binder refuses it with its position.
   */
  | (Node & {
      readonly kind: 'other';
      /** The transformation's name as written, e.g. `Self.TopCountAndBalance`. */
      readonly name: string;
      /** The argument text as written (between the parentheses); the syntax has been checked. */
      readonly text: string;
    });

/** One `applyExpr as Alias` of `nest` and `addnested`. */
export interface NestItem extends Node {
  readonly kind: 'nestItem';
  readonly apply: readonly ApplyTransformation[];
  readonly alias: string;
}

/** One step of a `$select` or `$expand` path. */
export type ItemPathSegment =
  { readonly kind: 'member'; readonly name: string; readonly span: Span } | { readonly kind: 'annotation'; readonly term: string; readonly span: Span };

/** One `$select` item: `*`, `Ns.*`, a path, or a path with nested options. */
export interface SelectItem extends Node {
  readonly kind: 'selectItem';
  readonly path: readonly ItemPathSegment[];
  /** `'*'` for `…/*`, or the namespace for `Ns.*`. */
  readonly star?: '*' | { readonly namespace: string };
  /** Parameter type names of a function or action overload, e.g. `Fn(Location,Kind)`. */
  readonly parameters?: readonly string[];
  readonly options?: NestedOptions;
}

/** One `$expand` item. */
export interface ExpandItem extends Node {
  readonly kind: 'expandItem';
  readonly path: readonly ItemPathSegment[];
  /** `*` (optionally after a path), or `$value`. */
  readonly target?: '*' | '$value';
  /** `/$ref` or `/$count` after the path. */
  readonly suffix?: '$ref' | '$count';
  readonly options?: NestedOptions;
}

/** The options of a request or of an expanded or selected item. Absent options are `undefined`. */
export interface QueryOptions {
  readonly filter?: Expression;
  readonly search?: SearchExpression;
  readonly orderBy?: readonly OrderByItem[];
  readonly select?: readonly SelectItem[];
  readonly expand?: readonly ExpandItem[];
  readonly compute?: readonly ComputeItem[];
  /** `$apply`: the transformations, in order. */
  readonly apply?: readonly ApplyTransformation[];
  /** A `bigint` only when the value is beyond 2^53 − 1 (the binder then reports it exactly). */
  readonly top?: number | bigint;
  /** A `bigint` only when the value is beyond 2^53 − 1. */
  readonly skip?: number | bigint;
  readonly count?: boolean;
  /** `$levels` inside `$expand`: a positive integer or `'max'`. */
  readonly levels?: number | 'max';
  /** Parameter aliases `@name=value`. */
  readonly aliases?: Readonly<Record<string, Expression>>;
}

/** Options nested in `$expand=Nav(…)` or `$select=Prop(…)`. */
export interface NestedOptions extends QueryOptions {
  readonly kind: 'nestedOptions';
  readonly span: Span;
}

/** A whole parsed query string. */
export interface ODataQuery extends QueryOptions {
  readonly kind: 'query';
  /** Recognised options this engine passes on without interpreting (`$format`, `$skiptoken`, `$deltatoken`, `$schemaversion`). */
  readonly passthrough?: Readonly<Record<string, string>>;
  /** Custom query options (names without `$` or `@`), decoded. */
  readonly custom?: Readonly<Record<string, string>>;
}

// ---- resource paths (OData 4.01 URL Conventions §4, ABNF `resourcePath`) -------------------------

/**
 * One `/`-separated segment of a resource path, as written: what it means (an entity set, a key, a
 * navigation property, a type cast, a function) is decided by the binder against the model.
 */
export type ResourceSegment =
  /**
   * A name, qualified or not, with up to two parenthesised lists: `People`, `People('x')`,
   * `Categories(ID=1,Size=5)`, `NS.Fn(p=1)`, `NS.Fn(p=1)(2)` (a function's result, then a key).
   * `text` is the segment as decoded (a key-as-segment value when the binder finds no such name).
   */
  | { readonly kind: 'name'; readonly name: string; readonly lists: readonly (readonly SegmentArgument[])[]; readonly text: string; readonly span: Span }
  /** A segment that is no name: a key-as-segment value (`People/O'Neil`, `Orders/1`) or an ordinal index (`Addresses/-1`). */
  | { readonly kind: 'text'; readonly text: string; readonly span: Span }
  /** `$count`, `$ref`, `$value`, `$each`, `$query`, `$all`, `$entity`, `$metadata`, `$batch`. */
  | { readonly kind: 'system'; readonly name: ResourceSystemSegment; readonly span: Span }
  /** `$filter(expr)`: the members of the collection for which the expression is true. */
  | { readonly kind: 'filter'; readonly predicate: Expression; readonly span: Span }
  /** `$crossjoin(Set1,Set2,…)`. */
  | { readonly kind: 'crossjoin'; readonly sets: readonly string[]; readonly span: Span };

/** The `$`-segments of a resource path that take no arguments. */
export type ResourceSystemSegment = '$count' | '$ref' | '$value' | '$each' | '$query' | '$all' | '$entity' | '$metadata' | '$batch';

/** A parsed resource path: the part of a URL between the service root and `?`; no segments for the service root itself. */
export interface ResourcePath {
  readonly kind: 'resourcePath';
  readonly segments: readonly ResourceSegment[];
  /** The path as percent-decoded (each segment decoded once, `%2F` kept inside its segment); spans are offsets into it. */
  readonly text: string;
  readonly span: Span;
}
