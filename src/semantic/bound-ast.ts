/**
 * The bound tree: the syntax tree checked against a model. Every expression carries its
 * {@link ExpressionType}; every path is resolved to properties, navigation properties and
 * lambda variables. Backends only ever see this tree.
 */
import type { EntitySet, NavigationProperty, Property, StructuredType } from '../model/model.js';
import type { ArithmeticOperator, CanonicalFunctionName, ComparisonOperator, LogicalOperator, Span } from '../syntax/ast.js';
import type { CustomAggregationMethod } from './apply/custom-aggregate-settings.js';
import type { CustomTransformation } from './apply/custom-transformation-settings.js';
import type { ExpressionType } from './types.js';

interface BoundNode {
  readonly type: ExpressionType;
  readonly span: Span;
}

/** A literal, converted to the type it is used as (an enum member, a duration, a promoted number). */
export interface BoundLiteral extends BoundNode {
  readonly kind: 'literal';
  /**
   * `null`, `boolean`, `number` (Int32 and smaller, Double, Single), `bigint` (Int64), `string`
   * (Decimal as exact text, String, Guid, Date, DateTimeOffset, TimeOfDay, Duration, Binary,
   * spatial text), or enum member names (`string[]`).
   */
  readonly value: null | boolean | number | bigint | string | readonly string[];
}

/** One step of a resolved path. */
export type BoundPathStep =
  | { readonly kind: 'property'; readonly property: Property; readonly span: Span }
  /**
   * A navigation property, with the entity set of its targets (the binding, or the one set of the
   * target type: `navigationTarget` of `model/navigation.ts`); `undefined` when the model does not say which.
   */
  | { readonly kind: 'navigation'; readonly navigation: NavigationProperty; readonly entitySet: EntitySet | undefined; readonly span: Span }
  /** A cast to a type derived from the path's type (null for an instance of another type); a cast to the path's own type is no step. */
  | { readonly kind: 'typeCast'; readonly target: StructuredType; readonly span: Span }
  /**
   * A dynamic property of an open type (src/semantic/dynamic-values.ts): its JSON value (type
   * `Edm.Untyped`: a string, number, Boolean or null; null where the instance lacks it), or, with
   * `read`, that value as a value of one type, null where its JSON type is another (what a
   * comparison with a typed value and the numeric aggregates bind to). `owner` is the open type
   * the property is looked up on (absent inside an untyped value).
   */
  | {
      readonly kind: 'dynamic';
      readonly name: string;
      readonly read?: DynamicRead;
      readonly owner?: StructuredType;
      readonly span: Span;
    };

/** The type a dynamic property is read as (see the `dynamic` step of {@link BoundPathStep}). */
export type DynamicRead = 'Edm.String' | 'Edm.Double' | 'Edm.Boolean';

/** Where a path starts: the current resource (`$it`), or a lambda variable. */
/**
 * The name of the variable `$it` is bound to inside the aggregate expression of the aggregate
 * function over related entities (`Sales/aggregate(Amount mul $it/TaxRate with sum)`, Data
 * Aggregation 3.6.1): the entity the collection path starts from. Backends give it that row as
 * they give a lambda variable its element.
 */
export const OUTER_IT = '$it';

export type BoundPathRoot = { readonly kind: 'it' } | { readonly kind: 'variable'; readonly name: string; readonly elementType: ExpressionType };

/** A property path such as `name`, `locality/name`, `t/priority` (lambda variable) or `$it`. */
export interface BoundPath extends BoundNode {
  readonly kind: 'path';
  readonly root: BoundPathRoot;
  readonly steps: readonly BoundPathStep[];
}

export interface BoundBinary extends BoundNode {
  readonly kind: 'binary';
  readonly operator: LogicalOperator | ComparisonOperator | ArithmeticOperator | 'has';
  readonly left: BoundExpression;
  readonly right: BoundExpression;
  /** For comparisons and arithmetic: the type both operands are compared or computed in. */
  readonly operandType: ExpressionType;
}

export interface BoundUnary extends BoundNode {
  readonly kind: 'unary';
  readonly operator: 'not' | 'negate';
  readonly operand: BoundExpression;
}

/** `left in (…)` with literals converted to the left side's type, or `left in collection`. */
export interface BoundIn extends BoundNode {
  readonly kind: 'in';
  readonly left: BoundExpression;
  readonly right: { readonly kind: 'list'; readonly items: readonly BoundLiteral[] } | { readonly kind: 'collection'; readonly collection: BoundExpression };
}

/** A canonical function call; `cast`/`isof` carry their target type in `targetType`. */
export interface BoundCall extends BoundNode {
  readonly kind: 'call';
  readonly name: CanonicalFunctionName;
  readonly args: readonly BoundExpression[];
  readonly targetType?: ExpressionType;
}

/** `collection/any(v:predicate)`, `collection/all(v:predicate)` or `collection/any()`. */
export interface BoundLambda extends BoundNode {
  readonly kind: 'lambda';
  readonly operator: 'any' | 'all';
  readonly collection: BoundPath;
  readonly variable?: string;
  readonly predicate?: BoundExpression;
}

/** `collection/$count`, optionally with `$filter` (bound against the element type). */
export interface BoundCount extends BoundNode {
  readonly kind: 'count';
  readonly collection: BoundPath;
  readonly filter?: BoundExpression;
  readonly search?: BoundSearch;
}

/** `case(cond:value, …)`. */
export interface BoundCase extends BoundNode {
  readonly kind: 'case';
  readonly branches: readonly { readonly when: BoundExpression; readonly then: BoundExpression }[];
}

/**
 * `isdefined(path)` (Data Aggregation 3.7) over rows whose properties vary (after `rollup`, or a
 * `concat` of differently shaped branches): true where the row has the property, even as null.
 * The binder folds it to a literal where the answer is known (entities: true; a property
 * aggregated away: false).
 */
export interface BoundDefined extends BoundNode {
  readonly kind: 'defined';
  readonly path: BoundPath;
}

/**
 * The aggregate function of an expression (Data Aggregation 3.6): `Sales/aggregate(Amount with
 * sum)` over the related entities of a collection path (each once), or `$these/aggregate(…)` and
 * `$these/$count` over the current collection (`collection` absent): the input rows of the
 * `$apply` transformation, or the rows `$filter`, `$orderby`… are applied to. `aggregate` is bound
 * against the collection's elements (its alias is internal); its value is null for no values, as
 * the `aggregate` transformation's.
 */
export interface BoundAggregateValue extends BoundNode {
  readonly kind: 'aggregateValue';
  readonly collection?: BoundPath;
  readonly aggregate: BoundAggregate;
}

/**
 * A hierarchy function of the Aggregation vocabulary (Data Aggregation 5.5.2.1), e.g.
 * `Aggregation.isdescendant(HierarchyNodes=$root/Orgs,HierarchyQualifier='Q',Node=ID,Ancestor='EMEA')`:
 * whether the node identifier `node` is a node (`isnode`), a root, a leaf, a descendant of `other`
 * within `distance` steps (or `other` itself with `includeSelf`), an ancestor of it, or its
 * sibling (another node with a parent in common, or another root). False where `node` is null.
 */
export interface BoundHierarchyTest extends BoundNode {
  readonly kind: 'hierarchyTest';
  readonly test: 'isnode' | 'isroot' | 'isleaf' | 'isdescendant' | 'isancestor' | 'issibling';
  readonly hierarchy: BoundHierarchy;
  readonly node: BoundExpression;
  /** `Ancestor`, `Descendant` or `Other`. */
  readonly other?: BoundExpression;
  readonly distance?: number;
  readonly includeSelf: boolean;
}

/**
 * A key property of `Aggregation.rollupnode()` (Data Aggregation 6.3): of the node `x` of the
 * `rolluprecursive` portion the expression is evaluated in. The binder compares an entity with the
 * node by key (`SalesOrganization eq Aggregation.rollupnode()` is `SalesOrganization/ID eq` this).
 */
export interface BoundRollupNode extends BoundNode {
  readonly kind: 'rollupNode';
  readonly property: Property;
}

export type BoundExpression =
  | BoundLiteral
  | BoundPath
  | BoundBinary
  | BoundUnary
  | BoundIn
  | BoundCall
  | BoundLambda
  | BoundCount
  | BoundCase
  | BoundDefined
  | BoundAggregateValue
  | BoundHierarchyTest
  | BoundRollupNode;

/** One node of a bound `$search`: a term, or `NOT`, `AND`, `OR` of nodes. */
export type BoundSearchNode =
  /** A word or a `"phrase"` (its text without the quotes). */
  | { readonly kind: 'term'; readonly value: string; readonly phrase: boolean }
  | { readonly kind: 'not'; readonly operand: BoundSearchNode }
  | { readonly kind: 'and' | 'or'; readonly left: BoundSearchNode; readonly right: BoundSearchNode }
  /** An empty `$search` (only blanks): every entity matches. */
  | { readonly kind: 'everything' };

/**
 * `$search` bound to an entity type (PROT 11.2.6.6). Free text is split into terms that must all
 * match; the search grammar's `AND`, `OR`, `NOT` and phrases are kept. What a match means is up
 * to the service: the default search looks for every term, ignoring case, in one of `properties`
 * (the type's single-valued string properties); a hook may use `text` with a full-text engine.
 */
export interface BoundSearch {
  readonly kind: 'search';
  /** The `$search` value as written (a phrase keeps its quotes). */
  readonly text: string;
  readonly root: BoundSearchNode;
  /** The properties the default search looks in. */
  readonly properties: readonly Property[];
  readonly span: Span;
}

export interface BoundOrderByItem {
  readonly expression: BoundExpression;
  readonly direction: 'asc' | 'desc';
}

/** `$select`: `all` (no `$select`, or `*`), or the listed properties. */
export interface BoundSelect {
  readonly all: boolean;
  /**
   * Selected structural properties (paths into complex properties allowed), in request order; a
   * collection of complex values with the options of its item (`Places($filter=…;$top=2)`), bound
   * against the complex type and applied to its elements (semantic/select-options.ts).
   */
  readonly properties: readonly { readonly path: readonly Property[]; readonly span: Span; readonly options?: BoundQueryOptions }[];
  /** Navigation properties listed in `$select` (allowed when they are also expanded). */
  readonly navigation: readonly NavigationProperty[];
  /**
   * Names of the computed properties (`$compute` of the same level) to return, in `$compute`
   * order: every one without `$select` or with `*` (PROT 11.2.5.3: they SHOULD be returned
   * without `$select`, and MUST be when `$select` names them or has `*`), else those `$select`
   * names. Absent (or empty) when nothing is computed.
   */
  readonly computed?: readonly string[];
}

/**
 * One `$compute` item (URL 5.1.5, PROT 11.2.5.3): `expression as name`, the expression bound
 * against the level's entity type like a `$filter` expression. Its type is a primitive or
 * enumeration type, or the null type (`null as x`).
 *
 * A reference to a computed property in `$filter` or `$orderby` of the same level is bound to the
 * computed expression itself (inlined, every node's span set to the reference's), so that a
 * backend compiles it like any expression and needs nothing of `$compute` there; backends read
 * `compute` only to return the values that `select.computed` names.
 */
export interface BoundComputeItem {
  /** The alias: an OData simple identifier, unlike every property and every other alias of the type. */
  readonly name: string;
  readonly expression: BoundExpression;
  readonly type: ExpressionType;
  /** The item as written (`expression as name`), in the option's text. */
  readonly span: Span;
}

/** One expanded navigation property with its nested options. */
export interface BoundExpandItem {
  readonly navigation: NavigationProperty;
  /** The entity set of the related entities, when the model binds one. */
  readonly entitySet: EntitySet | undefined;
  /** `'entities'` (default), `'$ref'` or `'$count'`. */
  readonly form: 'entities' | '$ref' | '$count';
  readonly options: BoundQueryOptions;
  /**
   * An entity `$apply` wrote into the row (a grouped navigation property, the node of
   * `rolluprecursive`; semantic/apply/output-type.ts, `MadeEntity`), expanded with options: the row's
   * property that holds it. The expanded entity is the entity of `entitySet` its key identifies
   * (null when the property is null), its navigation read from the source; `navigation` is a
   * single-valued navigation property of the same name standing for it.
   */
  readonly made?: Property;
}

// ---------------------------------------------------------------------------------------------
// $apply (OData Extension for Data Aggregation 4.0)
// ---------------------------------------------------------------------------------------------

/** An aggregation method: a standard one, or a custom one defined per backend. */
export type AggregationMethod = 'sum' | 'min' | 'max' | 'average' | 'countdistinct' | BoundCustomMethod;

/**
 * A custom aggregation method the host defines per backend (`Custom.concat`; see
 * semantic/apply/custom-aggregates.ts): each backend runs its own definition or refuses.
 */
export interface BoundCustomMethod {
  readonly kind: 'custom';
  /** The qualified name, as the request writes it. */
  readonly name: string;
  readonly definition: CustomAggregationMethod;
}

/**
 * One aggregate of `aggregate(…)`, its value a property `alias` of the output.
 * `through`, when present, is the navigation prefix of an aggregated path (`Sales/Amount`,
 * `Product/Price`): the related entities reached from all input rows, each counted once (Data
 * Aggregation 3.2.1.1), are what is aggregated, and `expression` is bound against them.
 */
export type BoundAggregate =
  /** `$count as alias` (the input rows), or `path/$count as alias` (the related entities of `through`). */
  | {
      readonly kind: 'count';
      readonly alias: string;
      readonly type: ExpressionType;
      readonly through?: BoundPath;
      readonly from?: readonly BoundFromStep[];
      readonly span: Span;
    }
  /** `expression with method as alias`. */
  | {
      readonly kind: 'method';
      readonly alias: string;
      readonly type: ExpressionType;
      readonly method: AggregationMethod;
      readonly expression: BoundExpression;
      readonly through?: BoundPath;
      readonly from?: readonly BoundFromStep[];
      readonly span: Span;
    };

/**
 * One `from` step of an aggregate (Data Aggregation 3.2.1.5): `A from P with g` is the value of
 * `groupby((P),aggregate(A as v))/aggregate(v with g)`; steps apply in order, the first to the
 * aggregate itself. `input` is the type of the values the step aggregates, `type` of its result
 * (the aggregate's `type` is the last step's).
 */
export interface BoundFromStep {
  readonly keys: readonly BoundGroupKey[];
  readonly method: AggregationMethod;
  readonly input: ExpressionType;
  readonly type: ExpressionType;
  readonly span: Span;
}

/**
 * A grouping property of `groupby`: the value of `path` (properties, complex properties and
 * single-valued navigation properties from the input row), written into the output row at
 * `names` (nested objects for the steps before the last: `Product/Category/Name` is
 * `{ Product: { Category: { Name } } }`).
 */
export interface BoundGroupKey {
  readonly path: BoundPath;
  readonly names: readonly string[];
  readonly span: Span;
}

/**
 * `rolluprecursive(H, Q, p[, S])` in a `groupby` (Data Aggregation 6.3): for each node `x` of the
 * hierarchy `(H′, Q)` reached from its roots, the input rows whose node (`p`) is `x` or one of its
 * descendants in `H′` (H′ is `H` after `S`) are a portion; the nested transformations (grouped by
 * the other grouping properties, if any) run on each portion, and `x` is written into every row
 * they give, as `into` says (σ(x) of the `traverse` section).
 */
export interface BoundRollupRecursive {
  readonly hierarchy: BoundHierarchy;
  /** `p`: the node identifier of an input row. */
  readonly path: BoundPath;
  /** `S`: the transformations over the nodes that give `H′`. */
  readonly start?: readonly BoundTransformation[];
  /**
   * Where `x` goes: `node`, the whole node (the input rows are the nodes, `p` is the node
   * property); `entity`, the node as the value at `names` (`p` is a navigation path to a node,
   * then the node property); `value`, its node identifier at `names` (`p`'s names).
   */
  readonly into: { readonly kind: 'node' } | NodePlacement;
  readonly span: Span;
}

/**
 * Where σ(x) puts a node `x` into a row (Data Aggregation 6.2.2, the function a(ε, t, x)): the
 * node (`entity`: `p` is a navigation path to a node, then the node property) or its identifier
 * (`value`) at `names`; through a collection-valued segment (`collections[i]`, present when `p`
 * goes through one) a collection of one item.
 */
export interface NodePlacement {
  readonly kind: 'entity' | 'value';
  readonly names: readonly string[];
  readonly collections?: readonly boolean[];
}

/** One transformation of a bound `$apply`, with the type of the rows it gives. */
export type BoundTransformation =
  | { readonly kind: 'aggregate'; readonly aggregates: readonly BoundAggregate[]; readonly output: StructuredType; readonly span: Span }
  | {
      readonly kind: 'groupby';
      readonly keys: readonly BoundGroupKey[];
      /**
       * The grouping sets of `rollup(…)`: each the indices into `keys` it groups by, the finest
       * first (`rollup(A,B)`, C: `[[0,1,2],[0,2]]`); a row of a set has only its keys (the
       * others are absent, not null). Absent: one set of all keys.
       */
      readonly sets?: readonly (readonly number[])[];
      /** `rolluprecursive(…)` among the grouping properties (Data Aggregation 6.3): one portion per node. */
      readonly recursive?: BoundRollupRecursive;
      /** The transformations applied to each group; empty: each group gives its keys only. */
      readonly apply: readonly BoundTransformation[];
      readonly output: StructuredType;
      readonly span: Span;
    }
  | { readonly kind: 'filter'; readonly predicate: BoundExpression; readonly output: StructuredType; readonly span: Span }
  | { readonly kind: 'search'; readonly search: BoundSearch; readonly output: StructuredType; readonly span: Span }
  | {
      readonly kind: 'compute';
      readonly items: readonly { readonly alias: string; readonly expression: BoundExpression }[];
      readonly output: StructuredType;
      readonly span: Span;
    }
  | { readonly kind: 'orderby'; readonly items: readonly BoundOrderByItem[]; readonly output: StructuredType; readonly span: Span }
  | { readonly kind: 'top' | 'skip'; readonly count: number; readonly output: StructuredType; readonly span: Span }
  | { readonly kind: 'identity'; readonly output: StructuredType; readonly span: Span }
  | { readonly kind: 'concat'; readonly branches: readonly (readonly BoundTransformation[])[]; readonly output: StructuredType; readonly span: Span }
  /**
   * `join` and `outerjoin` (Data Aggregation 3.4.3, 3.4.4): each input row once per instance of
   * its collection `path` (after `apply`, run on each row's instances), the instance as the
   * single-valued property `alias`; `outer` keeps a row without any instance once, `alias` null.
   */
  | {
      readonly kind: 'join';
      readonly outer: boolean;
      /** A collection of entities (a navigation property) or of complex values, from the input row. */
      readonly path: BoundPath;
      readonly alias: string;
      /** The transformations of each row's instances (empty: the instances themselves). */
      readonly apply: readonly BoundTransformation[];
      readonly output: StructuredType;
      readonly span: Span;
    }
  /**
   * A custom transformation (7.7, `BindSettings.customTransformations`): the rows the service's
   * definition gives from the input rows and the arguments (literal values, in storage form).
   */
  | {
      readonly kind: 'custom';
      readonly name: string;
      readonly args: Readonly<Record<string, BoundLiteral['value']>>;
      readonly definition: CustomTransformation;
      readonly output: StructuredType;
      readonly span: Span;
    }
  /** `nest` (3.4.2): one row; each item's property the collection of rows its pipeline gives from the input rows. */
  | { readonly kind: 'nest'; readonly items: readonly BoundNestItem[]; readonly output: StructuredType; readonly span: Span }
  /** `addnested` (3.4.1): each input row with each item's property, the rows its pipeline gives from the row's collection `path`. */
  | { readonly kind: 'addnested'; readonly path: BoundPath; readonly items: readonly BoundNestItem[]; readonly output: StructuredType; readonly span: Span }
  /**
   * `topcount`, `bottomcount`, `toppercent`, `bottompercent`, `topsum` and `bottomsum` (Data
   * Aggregation 3.2.2), one node: the rows in `value` order (highest first for `top`, lowest first
   * for `bottom`, null values last), cut by `measure`: the first `limit` rows (`count`), or the
   * fewest rows whose values reach `limit` percent of the total (`percent`) or `limit` (`sum`).
   */
  | {
      readonly kind: 'rank';
      readonly measure: RankMeasure;
      readonly direction: RankDirection;
      /** The count (an integer), the percentage (0–100) or the sum limit. */
      readonly limit: number;
      /**
       * Instead of `limit`: a limit computed from the input collection, the same for every row
       * (`topcount($these/$count div 3,Amount)`, 3.6.2); a count below 0 or null keeps no row.
       */
      readonly limitOver?: BoundExpression;
      readonly value: BoundExpression;
      readonly output: StructuredType;
      readonly span: Span;
    }
  | BoundHierarchyFilter
  | BoundTraverse;

/**
 * A recursive hierarchy (Data Aggregation 5.5.2) as the hierarchical transformations read it: the
 * nodes (an entity set, `$root/Set`) and, from the `RecursiveHierarchy` annotation with
 * `qualifier` on their type, each node's identifier and its parent's. Only single-valued parent
 * navigation properties are bound (one parent per node).
 */
export interface BoundHierarchy {
  readonly qualifier: string;
  readonly nodes: EntitySet;
  /** `NodeProperty`: a node's identifier, a path from the node. */
  readonly node: BoundPath;
  /** The parent's identifier: `ParentNavigationProperty/NodeProperty`, a path from the node (null for a root or an orphan). */
  readonly parent: BoundPath;
}

/**
 * `ancestors` and `descendants` (Data Aggregation 6.2.1): the start nodes are the node identifiers
 * (`path`) of the rows `start` keeps of the input; the output is the input rows whose node
 * identifier is an ancestor (a descendant) of a start node within `distance` steps (absent: any),
 * or, with `keepStart`, a start node itself. Each input row once, in no defined order.
 */
export interface BoundHierarchyFilter {
  readonly kind: 'ancestors' | 'descendants';
  readonly hierarchy: BoundHierarchy;
  /** The node identifier of an input row, or its node identifiers (a collection: through collection-valued segments, `p₁/…/pₖ/r`). */
  readonly path: BoundPath;
  readonly start: readonly BoundTransformation[];
  readonly distance?: number;
  readonly keepStart: boolean;
  readonly output: StructuredType;
  readonly span: Span;
}

/**
 * `traverse` (Data Aggregation 6.2.2): the input rows in the tree order (`preorder`: a node before
 * its children; `postorder`: after them) of the nodes their `path` names, walked down from the
 * start nodes (the nodes `start` keeps of the hierarchy's, or its roots when absent), start nodes
 * and siblings in `orderBy` order, then by key. A row whose node is reached from several start
 * nodes comes once per start node; a row whose node is not reached is left out. The walk stops
 * after as many levels as there are nodes, so a cycle (which the spec forbids) ends it.
 */
export interface BoundTraverse {
  readonly kind: 'traverse';
  readonly hierarchy: BoundHierarchy;
  readonly path: BoundPath;
  readonly order: 'preorder' | 'postorder';
  readonly start?: readonly BoundTransformation[];
  /** Sibling order, bound against the nodes' type. */
  readonly orderBy: readonly BoundOrderByItem[];
  /**
   * Where σ(x) goes when `path` goes through a collection (a row then comes once per node it is
   * related to, each with its node): the output type has a property there instead of the path's
   * first segment.
   */
  readonly into?: NodePlacement;
  readonly output: StructuredType;
  readonly span: Span;
}

/** One `pipeline as alias` of `nest` and `addnested`: the property `alias` holds the rows (of type `type`) the pipeline gives. */
export interface BoundNestItem {
  readonly alias: string;
  readonly apply: readonly BoundTransformation[];
  readonly type: StructuredType;
  readonly span: Span;
}

/** What a `rank` transformation limits: the number of rows, a percentage of the values' total, or their sum. */
export type RankMeasure = 'count' | 'percent' | 'sum';

/** Which end of the value order a `rank` transformation keeps: `top` the highest values, `bottom` the lowest. */
export type RankDirection = 'top' | 'bottom';

/**
 * A bound `$apply`: its transformations in order, and the type of the rows the last one gives,
 * against which the request's other options are bound (Data Aggregation 3.3: `$filter`,
 * `$orderby`, `$top`, `$skip`, `$count` and `$select` apply to the transformed result). `entity`
 * tells whether the output rows are still entities of the set (only preserving transformations),
 * so `$expand` and key-ordered paging still apply.
 */
export interface BoundApply {
  readonly transformations: readonly BoundTransformation[];
  readonly output: StructuredType;
  readonly entity: boolean;
}

/** Options bound against one entity type: the request's, or an expanded item's. */
export interface BoundQueryOptions {
  readonly entityType: StructuredType;
  /**
   * `$apply`, when present: it runs first, and every other option of these options is bound
   * against its output type (`apply.output`), not `entityType`.
   */
  readonly apply?: BoundApply;
  /** `$compute`: the computed properties of this level, in request order (absent without `$compute`). */
  readonly compute?: readonly BoundComputeItem[];
  readonly filter?: BoundExpression;
  readonly search?: BoundSearch;
  readonly orderBy?: readonly BoundOrderByItem[];
  readonly select: BoundSelect;
  readonly expand: readonly BoundExpandItem[];
  readonly top?: number;
  readonly skip?: number;
  readonly count?: boolean;
}

/** A query checked against one entity set of one model. */
export interface BoundQuery extends BoundQueryOptions {
  readonly kind: 'boundQuery';
  readonly entitySet: EntitySet;
  /** The effective maximum `$top` that was enforced. */
  readonly maxTop: number;
}
