/**
 * Binds expressions (`$filter`, `$orderby`, nested filters) against a structured type: resolves
 * paths, types every node, converts literals where OData allows it (enum members and durations
 * written as strings), and enforces the expression limits.
 */
import { ODataError, type ODataErrorCode } from '../errors/odata-error.js';
import { dynamicReadFor, readDynamicAs, untypedDynamic } from './dynamic-values.js';
import {
  derivesFrom,
  findType,
  isPrimitiveTypeName,
  type Capabilities,
  type EntitySet,
  type Model,
  type NavigationProperty,
  type Property,
  type StructuredType,
} from '../model/model.js';
import { navigationTarget } from '../model/navigation.js';
import type { AggregateItem, CallExpression, ComputeItem, Expression, Literal, MemberPath, PathSegment, Span, TypeName } from '../syntax/ast.js';
import { checkDuration } from '../syntax/literals.js';
import {
  OUTER_IT,
  type BoundAggregate,
  type BoundCall,
  type BoundExpression,
  type BoundHierarchyTest,
  type BoundLiteral,
  type BoundPath,
  type BoundPathRoot,
  type BoundPathStep,
} from './bound-ast.js';
import { describeOverloads, matchOverload } from './functions.js';
import { PROBE_NAME, probing, reportProbe } from './probe.js';
import { checkMatchesPattern } from './pattern-subset.js';
import { bindSearch } from './bind-search.js';
import { transformExpression } from './walk/index.js';
import { inDurationRange, inStoredYears } from '../util/temporal.js';
import type { ResolvedSettings } from './settings.js';
import {
  BOOLEAN,
  DECIMAL,
  DOUBLE,
  INT64,
  isIntegerType,
  NULL_TYPE,
  UNTYPED,
  equalityComparable,
  fromReference,
  isNumeric,
  isPrimitive,
  isUntyped,
  orderComparable,
  primitive,
  promoteNumeric,
  typeName,
  type ExpressionType,
} from './types.js';

/**
 * What an expression is bound for: decides which capability applies to its properties (a
 * `$compute` expression's value may be returned, so its properties must be selectable).
 */
export type Purpose = 'filter' | 'orderby' | 'compute';

/** The context of one expression. */
export interface ExpressionContext {
  readonly model: Model;
  readonly settings: ResolvedSettings;
  /** The option the expression came from, for error messages (`$filter`, `$expand`, …). */
  readonly option: string;
  /** Offset of the expression's text within that option (nested options). */
  readonly offset: number;
  readonly purpose: Purpose;
  /** The type `$it` stands for. */
  readonly it: StructuredType;
  /** The entity set `$it` belongs to, if known (navigation targets are resolved from it). */
  readonly entitySet: EntitySet | undefined;
  /** Capabilities of the entity set the expression is evaluated on, if known. */
  readonly capabilities: Capabilities | undefined;
  /** Parameter aliases of the request. */
  readonly aliases: Readonly<Record<string, Expression>> | undefined;
  /**
   * The computed properties (`$compute`) of `$it`'s level, by alias (lower-cased too when names
   * are case-insensitive): a reference to one binds its expression in its place (see
   * `BoundComputeItem`). Absent without `$compute`.
   */
  readonly computed?: ReadonlyMap<string, ComputeItem>;
  /**
   * Set where the rows are no longer the entities of `it`'s set but what an aggregation made of
   * them (after `groupby`, `aggregate`, `concat`…): the entity type they came from. Rows may then
   * lack properties (`isdefined` asks), and a name of that type the rows no longer have was
   * aggregated away (`isdefined` of it is false).
   */
  readonly aggregatedFrom?: StructuredType;
  /**
   * The `$orderby` of a level a service pages (`pagedByService`): the client's order, checked as
   * the client wrote it before, then the key the service added. No capability is checked.
   */
  readonly serviceOrder?: boolean;
  /**
   * Inside the aggregate expression of the aggregate function over related entities
   * (`Sales/aggregate(Amount mul $it/TaxRate with sum)`, Data Aggregation 3.6.1): what `$it`
   * stands for there, the entity the path started from (the expression's own properties are the
   * related entities'). Bound as the variable {@link OUTER_IT}.
   */
  readonly outerIt?: { readonly type: StructuredType; readonly set: EntitySet | undefined };
  /**
   * Inside the transformations of a `groupby` with `rolluprecursive` (Data Aggregation 6.3): the
   * hierarchy's nodes, of which `Aggregation.rollupnode()` is the current portion's one.
   */
  readonly rollupNode?: EntitySet;
}

const OPERATOR_KIND: Readonly<Record<string, string>> = {
  eq: 'Equal',
  ne: 'NotEqual',
  gt: 'GreaterThan',
  ge: 'GreaterThanOrEqual',
  lt: 'LessThan',
  le: 'LessThanOrEqual',
  and: 'And',
  or: 'Or',
  add: 'Add',
  sub: 'Subtract',
  mul: 'Multiply',
  div: 'Divide',
  divby: 'DivideBy',
  mod: 'Modulo',
  has: 'Has',
  in: 'In',
  not: 'Not',
  negate: 'Negate',
};

const ARITHMETIC = new Set(['add', 'sub', 'mul', 'div', 'divby', 'mod']);

interface Scope {
  /** Lambda variables in scope, innermost last: the element type, and the entity set of entities. */
  readonly variables: ReadonlyMap<string, { readonly type: ExpressionType; readonly set: EntitySet | undefined }>;
  readonly anyAllDepth: number;
  readonly functionDepth: number;
  /** Aliases being expanded, to reject `@a=@a`. */
  readonly expanding: ReadonlySet<string>;
}

const ROOT_SCOPE: Scope = { variables: new Map(), anyAllDepth: 0, functionDepth: 0, expanding: new Set() };

/** The rows an aggregate expression of the aggregate function reads (the apply binder's input). */
export interface AggregateRows {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
  readonly capabilities: Capabilities | undefined;
  readonly entity: boolean;
}

/**
 * Binds an aggregate expression of the aggregate function: the `$apply` binder's, which registers
 * itself here when it loads (it reads this module's types, so this module does not import it).
 */
export type AggregateBinder = (
  item: AggregateItem,
  rows: AggregateRows,
  context: {
    readonly settings: ResolvedSettings;
    readonly option: string;
    readonly model: Model;
    binder(rows: AggregateRows, purpose: Purpose, rollupNode?: EntitySet): ExpressionBinder;
  },
) => BoundAggregate;

let aggregateBinder: AggregateBinder | undefined;

/** The hierarchy functions of the Aggregation vocabulary (Data Aggregation 5.5.2.1), by alias or namespace. */
const HIERARCHY_FUNCTION = /^(?:Aggregation|Org\.OData\.Aggregation\.V1)\.(?:isnode|isroot|isleaf|isdescendant|isancestor|issibling)$/;
/** `Aggregation.rollupnode(…)`, the node of a `rolluprecursive` portion. */
const ROLLUP_NODE = /^(?:Aggregation|Org\.OData\.Aggregation\.V1)\.rollupnode$/;
/** Called by the `$apply` binder (semantic/apply/bind-apply.ts) when it loads. */
export function registerAggregateBinder(binder: AggregateBinder): void {
  aggregateBinder = binder;
}

/** What a binder of a hierarchy function gets from the expression binder. */
export interface HierarchyFunctionHost {
  readonly model: Model;
  error(code: ODataErrorCode, reason: string, span: Span): ODataError;
  /** Binds an argument in the function's scope. */
  bind(expression: Expression): BoundExpression;
  /** Binds a path on the entities of another set (the hierarchy's nodes). */
  bindOn(set: EntitySet, path: Expression): BoundExpression;
}

/**
 * Binds a hierarchy function of the Aggregation vocabulary (Data Aggregation 5.5.2.1): the
 * `$apply` binder's (semantic/apply/bind-hierarchy-function.ts), registered with it, like the
 * aggregate function's; `odata-engine/filter`, which leaves `$apply` out, refuses them.
 */
export type HierarchyFunctionBinder = (segment: Extract<PathSegment, { kind: 'invoke' }>, span: Span, host: HierarchyFunctionHost) => BoundHierarchyTest;

let hierarchyFunctionBinder: HierarchyFunctionBinder | undefined;

/** Called by the `$apply` binder (semantic/apply/bind-apply.ts) when it loads. */
export function registerHierarchyFunctionBinder(binder: HierarchyFunctionBinder): void {
  hierarchyFunctionBinder = binder;
}

/** Binds one expression. Create one binder per expression: it counts nodes. */
/**
 * Deepest nesting of operators the binder follows (not counting `and`/`or` chains, which are
 * bound in a loop): deeper input is a `too_deep` error, never a stack overflow.
 */
export const MAX_BIND_DEPTH = 1000;

/** `and`/`or` chains longer than this become balanced trees (the same value: both are associative). */
const BALANCE_CHAIN = 64;

export class ExpressionBinder {
  private nodes = 0;
  private depth = 0;
  /**
   * While probing (completion, semantic/probe.ts): the other operand's type and the operator, set
   * just before a right operand is bound and read by that operand alone.
   */
  private operandOf: { readonly type: ExpressionType; readonly operator: string } | undefined;

  constructor(private readonly context: ExpressionContext) {}

  /** Binds `expression`; when `expectBoolean` the result must be Boolean (or null). */
  bind(expression: Expression, expectBoolean: boolean): BoundExpression {
    const bound = this.expression(expression, ROOT_SCOPE);
    if (expectBoolean && !isBooleanLike(bound.type)) {
      throw this.error(
        'type_mismatch',
        `The $filter expression must evaluate to a value of type 'Edm.Boolean', but is of type '${typeName(bound.type)}'.`,
        expression.span,
      );
    }
    return bound;
  }

  // ---------------------------------------------------------------------------------------------

  private error(code: ODataErrorCode, reason: string, span: Span): ODataError {
    return new ODataError({ code, reason, option: this.context.option, position: this.context.offset + span.start, appendLocation: false });
  }

  private count(span: Span): void {
    this.nodes++;
    if (this.nodes > this.context.settings.maxNodeCount) {
      throw this.error(
        'node_count_exceeded',
        `The node count limit of '${this.context.settings.maxNodeCount}' has been exceeded. To increase the limit, set the 'maxNodeCount' setting.`,
        span,
      );
    }
  }

  private expression(node: Expression, scope: Scope): BoundExpression {
    this.count(node.span);
    if (++this.depth > MAX_BIND_DEPTH) {
      throw this.error('too_deep', `The expression is nested more than ${MAX_BIND_DEPTH} levels deep`, node.span);
    }
    try {
      return this.expressionOf(node, scope);
    } finally {
      this.depth--;
    }
  }

  private expressionOf(node: Expression, scope: Scope): BoundExpression {
    if (this.operandOf !== undefined && node.kind !== 'path') this.operandOf = undefined;
    if (node.kind === 'binary' && (node.operator === 'and' || node.operator === 'or') && node.left.kind === 'binary' && node.left.operator === node.operator) {
      return this.chain(node, scope);
    }
    switch (node.kind) {
      case 'literal':
        return this.literal(node);
      case 'path':
        return this.path(node, scope);
      case 'binary':
        return node.operator === 'has'
          ? this.has(node.left, node.right, node.span, scope)
          : this.binary(node.operator, node.left, node.right, node.span, scope);
      case 'unary':
        return this.unary(node.operator, node.operand, node.span, scope);
      case 'in':
        return this.in(node.left, node.right, node.span, scope);
      case 'call':
        return this.call(node, scope);
      case 'case':
        return this.case(node.branches, node.span, scope);
      case 'alias':
        return this.alias(node.name, node.span, scope);
      case 'list':
        throw this.error('syntax_error', `A parenthesized list can only follow 'in'`, node.span);
      case 'array':
      case 'object':
        throw this.error('unsupported_feature', `JSON ${node.kind === 'array' ? 'arrays' : 'objects'} are only supported on the right of 'in'`, node.span);
    }
  }

  // ---- literals ----------------------------------------------------------------------------------

  private literal(node: Literal): BoundLiteral {
    switch (node.type) {
      case 'null':
        return { kind: 'literal', type: NULL_TYPE, value: null, span: node.span };
      case 'enum': {
        const enumType = findType(this.context.model, node.enumType);
        if (enumType === undefined || enumType.kind !== 'enum') {
          throw this.error('unknown_type', `The type '${node.enumType}' is not an enumeration type of the model.`, node.span);
        }
        const members = node.value.map((member) => {
          if (enumType.members.has(member)) return member;
          if (/^[-+]?\d+$/.test(member)) {
            const value = BigInt(member);
            for (const [name, v] of enumType.members) if (v === value) return name;
            if (enumType.isFlags) return member;
          }
          throw this.error('type_mismatch', `The string '${node.enumType}'${member}'' is not a valid enumeration type constant.`, node.span);
        });
        if (members.length > 1 && !enumType.isFlags) {
          throw this.error(
            'type_mismatch',
            `The enumeration type '${enumType.qualifiedName}' is not a flags enumeration; '${node.value.join(',')}' names several members.`,
            node.span,
          );
        }
        return { kind: 'literal', type: { kind: 'enum', type: enumType }, value: members, span: node.span };
      }
      case 'Edm.Geography':
      case 'Edm.Geometry':
        return { kind: 'literal', type: primitive(spatialLiteralType(node.type, node.value)), value: node.value, span: node.span };
      case 'Edm.Decimal':
        this.checkDecimalDigits(node.value, node.span);
        return { kind: 'literal', type: primitive(node.type), value: node.value, span: node.span };
      case 'Edm.Date':
      case 'Edm.DateTimeOffset':
        if (!inStoredYears(node.type, node.value)) {
          throw this.error(
            'invalid_literal',
            `The ${node.type} literal '${node.value}' is outside the years 0001 to 9999, the range of ${node.type} values that every backend stores and computes.`,
            node.span,
          );
        }
        return { kind: 'literal', type: primitive(node.type), value: node.value, span: node.span };
      case 'Edm.Duration':
        if (!inDurationRange(node.value)) {
          throw this.error(
            'invalid_literal',
            `The Edm.Duration literal '${node.value}' is longer than P10675199DT2H48M5.4775807S (.NET's TimeSpan), the longest duration that every backend stores and computes.`,
            node.span,
          );
        }
        return { kind: 'literal', type: primitive(node.type), value: node.value, span: node.span };
      default:
        return { kind: 'literal', type: primitive(node.type), value: node.value, span: node.span };
    }
  }

  /** Bounds the size of a Decimal literal: its digits cost time in every backend and in every row. */
  private checkDecimalDigits(text: string, span: Span): void {
    const { maxDecimalDigits } = this.context.settings;
    let digits = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 48 && c <= 57) digits++;
    }
    if (digits > maxDecimalDigits) {
      throw this.error(
        'literal_too_long',
        `The Decimal literal has ${digits} digits; at most ${maxDecimalDigits} are allowed. To increase the limit, set the 'maxDecimalDigits' setting.`,
        span,
      );
    }
  }

  /**
   * Converts a string literal to the enum or duration type it is compared with (OData 4.01
   * allows both without their type prefix); other expressions are returned as they are.
   */
  private convert(bound: BoundExpression, target: ExpressionType): BoundExpression {
    if (bound.kind !== 'literal' || !isPrimitive(bound.type, 'Edm.String') || typeof bound.value !== 'string') return bound;
    if (target.kind === 'enum') {
      const enumType = target.type;
      const members = bound.value.split(',');
      for (const member of members) {
        if (!enumType.members.has(member)) {
          throw this.error('type_mismatch', `The string '${bound.value}' is not a valid enumeration type constant of '${enumType.qualifiedName}'.`, bound.span);
        }
      }
      if (members.length > 1 && !enumType.isFlags) {
        throw this.error('type_mismatch', `The enumeration type '${enumType.qualifiedName}' is not a flags enumeration.`, bound.span);
      }
      return { kind: 'literal', type: target, value: members, span: bound.span };
    }
    if (isPrimitive(target, 'Edm.Duration')) {
      try {
        checkDuration(bound.value);
      } catch {
        return bound;
      }
      return { kind: 'literal', type: target, value: bound.value, span: bound.span };
    }
    return bound;
  }

  // ---- paths -------------------------------------------------------------------------------------

  /** Reports the probe met as a member segment of a path whose value so far is `current` (semantic/probe.ts). */
  private reachProbe(
    current: ExpressionType,
    first: boolean,
    scope: Scope,
    operand: { readonly type: ExpressionType; readonly operator: string } | undefined,
  ): never {
    const context = this.context;
    const collection = current.kind === 'collection';
    const element = collection ? current.element : current;
    return reportProbe({
      context: context.purpose,
      type: !collection && (element.kind === 'entity' || element.kind === 'complex') ? element.type : undefined,
      first,
      collection,
      variables: scope.variables,
      ...(context.computed === undefined ? {} : { computed: context.computed }),
      ...(operand === undefined ? {} : { expected: operand.type, operator: operand.operator }),
      ...(context.capabilities === undefined ? {} : { capabilities: context.capabilities }),
      ...(context.entitySet === undefined ? {} : { entitySet: context.entitySet }),
      ...(context.aggregatedFrom === undefined ? {} : { aggregated: true }),
    });
  }

  private findMember(type: StructuredType, name: string): Property | NavigationProperty | undefined {
    const exact = type.properties.get(name) ?? type.navigation.get(name);
    if (exact !== undefined || !this.context.settings.caseInsensitive) return exact;
    const lower = name.toLowerCase();
    for (const member of [...type.properties.values(), ...type.navigation.values()]) {
      if (member.name.toLowerCase() === lower) return member;
    }
    return undefined;
  }

  private checkCapability(member: Property | NavigationProperty, isFirst: boolean, span: Span): void {
    // The service's own order (its key after the client's order, `pagedByService`): the client's was checked.
    if (this.context.serviceOrder === true) return;
    const capabilities = isFirst ? this.context.capabilities : undefined;
    if (this.context.purpose === 'compute') {
      const selectable =
        member.kind === 'navigation' || (member.selectable && (capabilities === undefined || !capabilities.nonSelectableProperties.has(member.name)));
      if (!selectable) throw this.error('not_selectable', `The property '${member.name}' cannot be used in the $compute query option.`, span);
    } else if (this.context.purpose === 'filter') {
      const filterable =
        member.filterable && (capabilities === undefined || (capabilities.filterable && !capabilities.nonFilterableProperties.has(member.name)));
      if (!filterable) throw this.error('not_filterable', `The property '${member.name}' cannot be used in the $filter query option.`, span);
    } else {
      const sortable =
        member.kind === 'navigation' ||
        (member.sortable && (capabilities === undefined || (capabilities.sortable && !capabilities.nonSortableProperties.has(member.name))));
      if (!sortable) throw this.error('not_sortable', `The property '${member.name}' cannot be used in the $orderby query option.`, span);
    }
  }

  private path(node: MemberPath, scope: Scope): BoundExpression {
    // (The other operand's type, for a probe among this path's segments: consumed here, whatever the path.)
    const operand = this.operandOf;
    this.operandOf = undefined;
    const segments = node.segments;
    let root: BoundPathRoot = { kind: 'it' };
    let current: ExpressionType = { kind: 'entity', type: this.context.it };
    // The entity set of the last entity on the path, and the path from it (a binding path such as `address/city`).
    let set = this.context.entitySet;
    let bindingPath = '';
    let index = 0;
    switch (node.head.kind) {
      case '$it':
        if (this.context.outerIt !== undefined) {
          const outer = this.context.outerIt;
          current = { kind: 'entity', type: outer.type };
          root = { kind: 'variable', name: OUTER_IT, elementType: current };
          set = outer.set;
        }
        break;
      case '$this':
        break;
      case '$root':
        throw this.error('unsupported_feature', `'$root' paths are not supported`, node.span);
      case '$these':
        return this.these(node);
      case 'alias': {
        const value = this.alias(node.head.name, node.span, scope);
        throw this.error('unsupported_feature', `A path cannot start at the parameter alias '@${node.head.name}' (${typeName(value.type)})`, node.span);
      }
      case 'implicit': {
        const first = segments[0];
        if (first?.kind === 'member') {
          const variable = scope.variables.get(first.name);
          if (variable !== undefined) {
            // Lambda variables take precedence over properties (URL 5.1.1.13).
            root = { kind: 'variable', name: first.name, elementType: variable.type };
            current = variable.type;
            set = variable.set;
            index = 1;
          }
        }
        break;
      }
    }
    if (root.kind === 'it' && this.context.computed !== undefined) {
      const first = segments[index];
      const item = first?.kind === 'member' ? this.computedItem(first.name) : undefined;
      if (item !== undefined) {
        // URL 5.1.5 lets a service support this (a MAY); this engine does not: see DEVIATIONS.
        if (this.context.purpose === 'compute') {
          throw this.error('unsupported_feature', `A $compute expression cannot use the computed property '${item.alias}' of the same $compute.`, node.span);
        }
        if (index + 1 < segments.length)
          throw this.error('type_mismatch', `A path cannot continue after the computed property '${item.alias}'.`, (segments[index + 1] as PathSegment).span);
        return this.inline(item, node.span);
      }
    }
    const steps: BoundPathStep[] = [];
    const pathSoFar = (end: number): BoundPath => ({ kind: 'path', root, steps: [...steps], type: current, span: { start: node.span.start, end } });
    for (; index < segments.length; index++) {
      const segment = segments[index] as PathSegment;
      // Every segment is a node (as ASP.NET Core OData counts them): a long navigation path costs a join per hop.
      if (index > 0) this.count(segment.span);
      switch (segment.kind) {
        case 'member': {
          if (segment.name === PROBE_NAME && probing())
            this.reachProbe(current, index === 0 && root.kind === 'it' && node.head.kind === 'implicit', scope, operand);
          if (current.kind === 'entity' || current.kind === 'complex') {
            const structured: StructuredType = current.type;
            const member = this.findMember(structured, segment.name);
            if (member !== undefined) {
              this.checkCapability(member, steps.length === 0 && root.kind === 'it', segment.span);
              if (member.kind === 'property') {
                steps.push({ kind: 'property', property: member, span: segment.span });
                current = fromReference(member.type, member.collection);
                bindingPath += `${member.name}/`;
              } else {
                const entitySet = navigationTarget(this.context.model, set, member, bindingPath + member.name);
                steps.push({ kind: 'navigation', navigation: member, entitySet, span: segment.span });
                current = fromReference({ kind: 'entity', type: member.target }, member.collection);
                set = entitySet;
                bindingPath = '';
              }
              break;
            }
            if (segment.name.includes('.')) {
              const cast = findType(this.context.model, segment.name);
              if (cast === undefined) throw this.error('unknown_type', `The type '${segment.name}' is not defined in the model.`, segment.span);
              if (cast.kind === 'enum' || cast.kind !== structured.kind || !derivesFrom(cast, structured)) {
                throw this.error(
                  'type_mismatch',
                  `Encountered invalid type cast. '${cast.qualifiedName}' is not assignable from '${structured.qualifiedName}'.`,
                  segment.span,
                );
              }
              // A cast to the type the path already has changes nothing: no step (every backend runs
              // it), and no segment of a navigation binding path.
              if (cast === structured) break;
              steps.push({ kind: 'typeCast', target: cast, span: segment.span });
              current = { kind: cast.kind, type: cast } as ExpressionType;
              bindingPath += `${cast.qualifiedName}/`;
              break;
            }
            if (structured.open) {
              // A dynamic property (URL 5.1): used like a declared one, null where an instance lacks it.
              steps.push({ kind: 'dynamic', name: segment.name, owner: structured, span: segment.span });
              current = UNTYPED;
              break;
            }
            throw this.error('unknown_property', `Could not find a property named '${segment.name}' on type '${structured.name}'.`, segment.span);
          }
          if (isUntyped(current)) {
            steps.push({ kind: 'dynamic', name: segment.name, span: segment.span });
            break;
          }
          if (current.kind === 'collection') {
            throw this.error(
              'type_mismatch',
              `A path cannot continue through the collection '${typeName(current)}' with '${segment.name}'; use any(), all() or $count.`,
              segment.span,
            );
          }
          throw this.error('unknown_property', `Could not find a property named '${segment.name}' on type '${typeName(current)}'.`, segment.span);
        }
        case 'lambda': {
          if (isUntyped(current)) current = { kind: 'collection', element: UNTYPED };
          if (current.kind !== 'collection') {
            throw this.error(
              'type_mismatch',
              `The lambda operator '${segment.operator}' needs a collection, but '${typeName(current)}' is not one.`,
              segment.span,
            );
          }
          const allowed = this.context.settings.allowedFunctions;
          if (allowed !== undefined && !allowed.has(segment.operator)) {
            throw this.error('not_allowed', `Function '${segment.operator}' is not allowed. To allow it, set the 'allowedFunctions' setting.`, segment.span);
          }
          const collection = pathSoFar(segment.span.start - 1);
          const depth = scope.anyAllDepth + 1;
          if (depth > this.context.settings.maxAnyAllExpressionDepth) {
            throw this.error(
              'any_all_depth_exceeded',
              `The Any/All nesting limit of '${this.context.settings.maxAnyAllExpressionDepth}' has been exceeded. 'maxAnyAllExpressionDepth' can be configured in the bind settings.`,
              segment.span,
            );
          }
          if (segment.variable === undefined || segment.predicate === undefined) {
            return { kind: 'lambda', operator: segment.operator, collection, type: BOOLEAN, span: node.span };
          }
          const variables = new Map(scope.variables);
          variables.set(segment.variable, { type: current.element, set: current.element.kind === 'entity' ? set : undefined });
          const predicate = this.expression(segment.predicate, { ...scope, variables, anyAllDepth: depth });
          if (!isBooleanLike(predicate.type)) {
            throw this.error(
              'type_mismatch',
              `The expression of '${segment.operator}' must be of type 'Edm.Boolean', but is '${typeName(predicate.type)}'.`,
              segment.predicate.span,
            );
          }
          return { kind: 'lambda', operator: segment.operator, collection, variable: segment.variable, predicate, type: BOOLEAN, span: node.span };
        }
        case 'count': {
          if (isUntyped(current)) current = { kind: 'collection', element: UNTYPED };
          if (current.kind !== 'collection') {
            throw this.error('type_mismatch', `$count needs a collection, but '${typeName(current)}' is not one.`, segment.span);
          }
          const last = steps[steps.length - 1];
          const counted = last?.kind === 'navigation' ? last.navigation.name : last?.kind === 'property' ? last.property.name : undefined;
          if (counted !== undefined && steps.length === 1 && this.context.capabilities?.nonCountableProperties.has(counted)) {
            throw this.error('not_countable', `The property '${counted}' cannot be used for $count.`, segment.span);
          }
          const collection = pathSoFar(segment.span.start - 1);
          let filter: BoundExpression | undefined;
          if (segment.filter !== undefined) {
            // Entities, or complex values (`AddressInfo/$count($filter=City/Name eq 'Boise')`: `$it` is the element).
            if (current.element.kind !== 'entity' && current.element.kind !== 'complex')
              throw this.error('unsupported_feature', `$count($filter=…) is only supported on collections of entities and of complex values`, segment.span);
            filter = new ExpressionBinder({ ...this.context, it: current.element.type, entitySet: set, capabilities: undefined, computed: undefined }).bind(
              segment.filter,
              true,
            );
          }
          if (segment.search !== undefined && current.element.kind !== 'entity') {
            throw this.error('unsupported_feature', `$count($search=…) is only supported on collections of entities`, segment.span);
          }
          const search = segment.search === undefined || current.element.kind !== 'entity' ? undefined : bindSearch(segment.search, current.element.type);
          return {
            kind: 'count',
            collection,
            ...(filter === undefined ? {} : { filter }),
            ...(search === undefined ? {} : { search }),
            type: INT64,
            span: node.span,
          };
        }
        case 'filter':
          throw this.error('unsupported_feature', `$filter(…) path segments are not supported`, segment.span);
        case 'invoke':
          if (index === 0 && root.kind === 'it' && segments.length === 1 && HIERARCHY_FUNCTION.test(segment.name)) {
            if (hierarchyFunctionBinder === undefined)
              throw this.error(
                'unsupported_feature',
                `The hierarchy function '${segment.name}' needs the $apply binder, which odata-engine/filter leaves out: bind it with odata-engine/core`,
                segment.span,
              );
            return hierarchyFunctionBinder(segment, node.span, {
              model: this.context.model,
              error: (code, reason, at) => this.error(code, reason, at),
              bind: (expression) => this.bind(expression, false),
              bindOn: (set, path) =>
                new ExpressionBinder({ ...this.context, it: set.type, entitySet: set, capabilities: undefined, computed: undefined }).bind(path, false),
            });
          }
          // The node of a rolluprecursive portion (Data Aggregation 6.3): an entity, compared with eq or ne (see `rollupNodeEquality`).
          if (index === 0 && root.kind === 'it' && segments.length === 1 && ROLLUP_NODE.test(segment.name)) {
            this.rollupNodeSet(segment);
            throw this.error(
              'unsupported_feature',
              `The function '${segment.name}' (the node of a rolluprecursive() portion) is supported only as an operand of eq or ne with an entity of its type`,
              segment.span,
            );
          }
          throw this.error(
            'unknown_function',
            `An unknown function with name '${segment.name}' was found. This may also be a function import or a key lookup on a navigation property, which is not allowed.`,
            segment.span,
          );
        case 'annotation':
          throw this.error('unsupported_feature', `Instance annotations ('@${segment.term}') are not supported in expressions`, segment.span);
        case 'aggregate': {
          // `Sales/aggregate(…)`: over the related entities of the path (Data Aggregation 3.6.1).
          if (current.kind !== 'collection' || current.element.kind !== 'entity' || index !== segments.length - 1)
            throw this.error('type_mismatch', `The aggregate function needs a collection of entities, and ends a path`, segment.span);
          const collection = pathSoFar(segment.span.start - 1);
          // `$it` in its expression: the entity this path starts from (the outermost one's, in an aggregate function inside another).
          const outerIt = this.context.outerIt ?? { type: this.context.it, set: this.context.entitySet };
          const aggregate = this.aggregateOf(segment.item, { type: current.element.type, set, capabilities: set?.capabilities, entity: true }, outerIt);
          return { kind: 'aggregateValue', collection, aggregate, type: aggregate.type, span: node.span };
        }
      }
    }
    return { kind: 'path', root, steps, type: current, span: node.span };
  }

  /**
   * `$these/aggregate(…)` or `$these/$count` (Data Aggregation 3.6): an aggregate of the current
   * collection, the rows of `it` this expression is evaluated among.
   */
  private these(node: MemberPath): BoundExpression {
    const [segment, more] = node.segments;
    if (segment === undefined || more !== undefined || (segment.kind !== 'aggregate' && segment.kind !== 'count'))
      throw this.error('syntax_error', `'$these' must be followed by '/aggregate(…)' or '/$count'`, node.span);
    if (segment.kind === 'count' && (segment.filter !== undefined || segment.search !== undefined))
      throw this.error('unsupported_feature', `'$these/$count' with options is not supported`, segment.span);
    const input = {
      type: this.context.it,
      set: this.context.entitySet,
      capabilities: this.context.capabilities,
      entity: this.context.aggregatedFrom === undefined,
    };
    const aggregate: BoundAggregate =
      segment.kind === 'count' ? { kind: 'count', alias: '~value', type: INT64, span: segment.span } : this.aggregateOf(segment.item, input);
    return { kind: 'aggregateValue', aggregate, type: aggregate.type, span: node.span };
  }

  /** An aggregate expression of the aggregate function, bound against the rows of `input`. */
  private aggregateOf(item: AggregateItem, input: AggregateRows, outerIt?: ExpressionContext['outerIt']): BoundAggregate {
    const { aggregatedFrom, computed: _computed, outerIt: _outer, ...context } = this.context;
    if (aggregateBinder === undefined) throw this.error('unsupported_feature', `The aggregate function needs the $apply binder`, item.span);
    return aggregateBinder(item, input, {
      settings: context.settings,
      option: context.option,
      model: context.model,
      binder: (rows, purpose, rollupNode) =>
        new ExpressionBinder({
          ...context,
          ...(rollupNode === undefined ? {} : { rollupNode }),
          purpose,
          it: rows.type,
          entitySet: rows.set,
          capabilities: rows.capabilities,
          ...(rows.entity || aggregatedFrom === undefined ? {} : { aggregatedFrom }),
          ...(outerIt === undefined ? {} : { outerIt }),
        }),
    });
  }

  /** The computed property named `name` (ignoring case when names are case-insensitive). */
  private computedItem(name: string): ComputeItem | undefined {
    const computed = this.context.computed as ReadonlyMap<string, ComputeItem>;
    return computed.get(name) ?? (this.context.settings.caseInsensitive ? computed.get(name.toLowerCase()) : undefined);
  }

  /**
   * A reference to a computed property: its expression, bound here (so that this option's
   * capabilities and limits apply to it) at the level's root scope (a lambda variable of this
   * expression is not the computed expression's), every span set to the reference's. An error
   * inside it is placed at the reference.
   */
  private inline(item: ComputeItem, span: Span): BoundExpression {
    let bound: BoundExpression;
    try {
      bound = this.expression(item.expression, ROOT_SCOPE);
    } catch (error) {
      if (!(error instanceof ODataError)) throw error;
      const limit = error.code === 'node_count_exceeded' || error.code === 'too_deep';
      throw this.error(error.code, limit ? error.reason : `In the computed property '${item.alias}': ${error.reason}`, span);
    }
    return respan(bound, span);
  }

  private alias(name: string, span: Span, scope: Scope): BoundExpression {
    const value = this.context.aliases?.[name];
    // PROT 11.2.5.8 (4.01): a parameter alias without a value is null.
    if (value === undefined) return { kind: 'literal', type: NULL_TYPE, value: null, span };
    if (scope.expanding.has(name)) throw this.error('syntax_error', `The parameter alias '@${name}' refers to itself`, span);
    const bound = this.expression(value, { ...scope, expanding: new Set([...scope.expanding, name]) });
    return { ...bound, span } as BoundExpression;
  }

  // ---- operators ---------------------------------------------------------------------------------

  private checkOperatorAllowed(operator: string, span: Span): void {
    const { allowedArithmeticOperators, allowedLogicalOperators } = this.context.settings;
    const arithmetic = ARITHMETIC.has(operator) || operator === 'negate';
    const allowed = arithmetic ? allowedArithmeticOperators : allowedLogicalOperators;
    const name = operator === 'negate' ? 'sub' : operator;
    if (allowed !== undefined && !allowed.has(name)) {
      throw this.error(
        'not_allowed',
        `${arithmetic ? 'Arithmetic' : 'Logical'} operator '${OPERATOR_KIND[operator]}' is not allowed. To allow it, set the '${arithmetic ? 'allowedArithmeticOperators' : 'allowedLogicalOperators'}' setting.`,
        span,
      );
    }
  }

  private incompatible(left: ExpressionType, right: ExpressionType, operator: string, span: Span): ODataError {
    return this.error(
      'type_mismatch',
      `A binary operator with incompatible types was detected. Found operand types '${typeName(left)}' and '${typeName(right)}' for operator kind '${OPERATOR_KIND[operator]}'.`,
      span,
    );
  }

  /**
   * A chain `a and b and c …` (left-deep, as parsed): bound in a loop along its left spine, with
   * the same checks and messages as one `and` at a time, so a chain of any length needs no
   * recursion. A long chain comes out as a balanced tree, so that backends recurse only
   * logarithmically; `and` and `or` are associative (also in three-valued logic).
   */
  private chain(node: Extract<Expression, { kind: 'binary' }>, scope: Scope): BoundExpression {
    const operator = node.operator as 'and' | 'or';
    const spine: Extract<Expression, { kind: 'binary' }>[] = [];
    let current: Expression = node;
    while (current.kind === 'binary' && current.operator === operator) {
      spine.push(current);
      current = current.left;
    }
    let bound = this.expression(current, scope);
    const operands: BoundExpression[] = [bound];
    for (let i = spine.length - 1; i >= 0; i--) {
      const link = spine[i] as Extract<Expression, { kind: 'binary' }>;
      // The outermost link was counted by expression(); the others are counted here.
      if (i > 0) this.count(link.span);
      this.checkOperatorAllowed(operator, link.span);
      const right = this.convert(this.expression(link.right, scope), bound.type);
      const left = this.convert(bound, right.type);
      if (!isBooleanLike(left.type) || !isBooleanLike(right.type)) throw this.incompatible(left.type, right.type, operator, link.span);
      // The first operand may have been converted against the second.
      if (operands.length === 1) operands[0] = left;
      operands.push(right);
      bound = { kind: 'binary', operator, left, right, type: BOOLEAN, operandType: BOOLEAN, span: link.span };
    }
    if (operands.length <= BALANCE_CHAIN) return bound;
    const balanced = (from: number, to: number): BoundExpression => {
      if (to - from === 1) return operands[from] as BoundExpression;
      const middle = (from + to) >>> 1;
      const left = balanced(from, middle);
      const right = balanced(middle, to);
      return { kind: 'binary', operator, left, right, type: BOOLEAN, operandType: BOOLEAN, span: { start: left.span.start, end: right.span.end } };
    };
    return balanced(0, operands.length);
  }

  private binary(operator: string, leftNode: Expression, rightNode: Expression, span: Span, scope: Scope): BoundExpression {
    this.checkOperatorAllowed(operator, span);
    if (operator === 'eq' || operator === 'ne') {
      const node = rollupNodeCall(rightNode) ?? rollupNodeCall(leftNode);
      if (node !== undefined) return this.rollupNodeEquality(operator, node, node === rightNode ? leftNode : rightNode, span, scope);
    }
    let left = this.expression(leftNode, scope);
    if (operator !== 'and' && operator !== 'or' && probing()) this.operandOf = { type: left.type, operator };
    let right = this.expression(rightNode, scope);
    if (COMPARISONS.has(operator)) {
      // A dynamic property compared with a typed value reads as that value's JSON type (dynamic-values.ts).
      left = readDynamicAs(left, dynamicReadFor(right.type));
      right = readDynamicAs(right, dynamicReadFor(left.type));
    }
    left = this.convert(left, right.type);
    right = this.convert(right, left.type);
    const l = left.type;
    const r = right.type;
    const op = operator as 'and';
    const result = (type: ExpressionType, operandType: ExpressionType): BoundExpression => ({
      kind: 'binary',
      operator: op,
      left,
      right,
      type,
      operandType,
      span,
    });
    switch (operator) {
      case 'and':
      case 'or':
        if (!isBooleanLike(l) || !isBooleanLike(r)) throw this.incompatible(l, r, operator, span);
        return result(BOOLEAN, BOOLEAN);
      case 'eq':
      case 'ne':
        if (!equalityComparable(l, r)) throw this.incompatible(l, r, operator, span);
        return result(BOOLEAN, comparisonType(l, r));
      case 'gt':
      case 'ge':
      case 'lt':
      case 'le':
        if (!orderComparable(l, r)) throw this.incompatible(l, r, operator, span);
        return result(BOOLEAN, comparisonType(l, r));
      default: {
        const type = arithmeticType(operator, l, r);
        if (type === undefined) throw this.incompatible(l, r, operator, span);
        const operandType = isNumeric(l) && isNumeric(r) ? (operator === 'divby' ? type : promoteNumeric(l, r)) : type;
        this.checkLiteralDivisor(operator, operandType, right);
        return result(type, operandType);
      }
    }
  }

  /**
   * The nodes of the `rolluprecursive` that `Aggregation.rollupnode(…)` names: only inside its
   * nested transformations, and `Position` (1, the default) the only one a `groupby` may have.
   */
  private rollupNodeSet(segment: Extract<PathSegment, { kind: 'invoke' }>): EntitySet {
    const set = this.context.rollupNode;
    if (set === undefined)
      throw this.error(
        'invalid_option_value',
        `'${segment.name}' is only defined inside the transformations of a groupby() with rolluprecursive()`,
        segment.span,
      );
    for (const argument of segment.args) {
      if (argument.name !== 'Position') throw this.error('invalid_option_value', `${segment.name} takes the parameter Position by name`, argument.value.span);
      // A literal, or a parameter alias of one.
      const value = this.bind(argument.value, false);
      if (value.kind !== 'literal' || (value.value !== 1 && value.value !== 1n))
        throw this.error('invalid_option_value', `Position must be 1: a groupby() has one rolluprecursive()`, argument.value.span);
    }
    if (segment.args.length > 1) throw this.error('invalid_option_value', `The parameter 'Position' is given twice`, segment.span);
    return set;
  }

  /**
   * `entity eq Aggregation.rollupnode()` (or `ne`): whether an entity is the current portion's node,
   * compared by key (each key property of the entity against the node's, `and`ed; `ne` is its
   * negation: a null entity is not the node).
   */
  private rollupNodeEquality(operator: 'eq' | 'ne', call: MemberPath, otherNode: Expression, span: Span, scope: Scope): BoundExpression {
    const set = this.rollupNodeSet(call.segments[0] as Extract<PathSegment, { kind: 'invoke' }>);
    const other = this.expression(otherNode, scope);
    const key = set.type.key;
    const entity = other.type.kind === 'entity' ? other.type.type : undefined;
    if (other.kind !== 'path' || entity === undefined || key.length === 0 || !sameHierarchy(entity, set.type))
      throw this.error(
        'type_mismatch',
        `'${(call.segments[0] as { name: string }).name}()' is an entity of type '${set.type.qualifiedName}', compared here with a value of type '${typeName(other.type)}'`,
        otherNode.span,
      );
    let test: BoundExpression | undefined;
    for (const name of key) {
      const property = set.type.properties.get(name) as Property;
      const type = fromReference(property.type);
      const left: BoundExpression = {
        ...other,
        steps: [...other.steps, { kind: 'property', property, span: other.span }],
        type,
      };
      const right: BoundExpression = { kind: 'rollupNode', property, type, span: call.span };
      const equal: BoundExpression = { kind: 'binary', operator: 'eq', left, right, type: BOOLEAN, operandType: type, span };
      test = test === undefined ? equal : { kind: 'binary', operator: 'and', left: test, right: equal, type: BOOLEAN, operandType: BOOLEAN, span };
    }
    const found = test as BoundExpression;
    return operator === 'eq' ? found : { kind: 'unary', operator: 'not', operand: found, type: BOOLEAN, span };
  }

  /**
   * URL 5.1.1.2.5 and 5.1.1.2.6: integer and Decimal division by zero, and `mod` by zero of any
   * type, make the request fail; a literal zero divisor is refused here, for every backend alike.
   * A divisor that is zero only on some rows gives null there (grammar/DEVIATIONS.md, "Failed
   * operations yield null"); Double and Single `div` and `divby` by zero are INF, -INF or NaN.
   */
  private checkLiteralDivisor(operator: string, operandType: ExpressionType, divisor: BoundExpression): void {
    if (operator !== 'div' && operator !== 'divby' && operator !== 'mod') return;
    if (literalSign(divisor) !== 0 || !isNumeric(operandType)) return;
    const floating = isPrimitive(operandType, 'Edm.Double') || isPrimitive(operandType, 'Edm.Single');
    if (floating && operator !== 'mod') return;
    throw this.error('invalid_argument', `The right operand of '${operator}' must not be zero.`, divisor.span);
  }

  private has(leftNode: Expression, rightNode: Expression, span: Span, scope: Scope): BoundExpression {
    this.checkOperatorAllowed('has', span);
    const left = this.expression(leftNode, scope);
    if (probing()) this.operandOf = { type: left.type, operator: 'has' };
    const right = this.convert(this.expression(rightNode, scope), left.type);
    if (left.type.kind === 'null' || right.type.kind === 'null') {
      return { kind: 'binary', operator: 'has', left, right, type: BOOLEAN, operandType: left.type.kind === 'null' ? right.type : left.type, span };
    }
    if (left.type.kind !== 'enum' || right.type.kind !== 'enum' || left.type.type !== right.type.type)
      throw this.incompatible(left.type, right.type, 'has', span);
    return { kind: 'binary', operator: 'has', left, right, type: BOOLEAN, operandType: left.type, span };
  }

  private unary(operator: 'not' | 'negate', operandNode: Expression, span: Span, scope: Scope): BoundExpression {
    this.checkOperatorAllowed(operator, span);
    const operand = this.expression(operandNode, scope);
    const ok =
      operator === 'not'
        ? isBooleanLike(operand.type)
        : isNumeric(operand.type) || isPrimitive(operand.type, 'Edm.Duration') || operand.type.kind === 'null' || isUntyped(operand.type);
    if (!ok) {
      throw this.error(
        'type_mismatch',
        `A unary operator with an incompatible type was detected. Found operand type '${typeName(operand.type)}' for operator kind '${OPERATOR_KIND[operator]}'.`,
        span,
      );
    }
    return { kind: 'unary', operator, operand, type: operator === 'not' ? BOOLEAN : operand.type, span };
  }

  private in(leftNode: Expression, rightNode: Expression, span: Span, scope: Scope): BoundExpression {
    this.checkOperatorAllowed('in', span);
    let left = this.expression(leftNode, scope);
    if (rightNode.kind === 'list' || rightNode.kind === 'array') {
      // A dynamic property in a list of values of one JSON type (no null) reads as that type (dynamic-values.ts).
      if (untypedDynamic(left) !== undefined) {
        const reads = new Set(rightNode.items.map((item) => (item.kind === 'literal' ? dynamicReadFor(this.literal(item).type) : undefined)));
        const [read] = reads;
        if (reads.size === 1 && read !== undefined) left = readDynamicAs(left, read);
      }
      const items = rightNode.items.map((item) => {
        this.count(item.span);
        if (item.kind !== 'literal') throw this.error('unsupported_feature', `Only literals are supported in the list of 'in'`, item.span);
        const bound = this.convert(this.literal(item), left.type) as BoundLiteral;
        if (!equalityComparable(left.type, bound.type)) throw this.incompatible(left.type, bound.type, 'in', item.span);
        return bound;
      });
      return { kind: 'in', left, right: { kind: 'list', items }, type: BOOLEAN, span };
    }
    const collection = this.expression(rightNode, scope);
    if (collection.type.kind !== 'collection' || !equalityComparable(left.type, collection.type.element)) {
      throw this.incompatible(left.type, collection.type, 'in', span);
    }
    return { kind: 'in', left, right: { kind: 'collection', collection }, type: BOOLEAN, span };
  }

  private case(branches: readonly { readonly when: Expression; readonly then: Expression }[], span: Span, scope: Scope): BoundExpression {
    const bound = branches.map((branch) => ({ when: this.expression(branch.when, scope), then: this.expression(branch.then, scope) }));
    let type: ExpressionType = NULL_TYPE;
    for (const { when, then } of bound) {
      if (!isBooleanLike(when.type)) throw this.error('type_mismatch', `A 'case' condition must be of type 'Edm.Boolean'`, when.span);
      if (then.type.kind === 'null') continue;
      if (type.kind === 'null') type = then.type;
      else if (isNumeric(type) && isNumeric(then.type)) type = promoteNumeric(type, then.type);
      else if (!equalityComparable(type, then.type)) throw this.incompatible(type, then.type, 'eq', then.span);
      // A Date and a DateTimeOffset: the case is a DateTimeOffset (URL 5.1.1.1.1 promotes the Date).
      else if (isPrimitive(type, 'Edm.Date') && isPrimitive(then.type, 'Edm.DateTimeOffset')) type = then.type;
    }
    return { kind: 'case', branches: bound, type, span };
  }

  // ---- functions ---------------------------------------------------------------------------------

  /**
   * `isdefined(path)` (Data Aggregation 3.7): whether the row has the property. Entities have
   * every declared property (true); a property of the entities that an aggregation did not keep
   * was aggregated away (false); rows an aggregation made may lack one (a `defined` node).
   */
  private isDefined(syntax: CallExpression, scope: Scope): BoundExpression {
    const arg = syntax.args[0] as Expression;
    const literal = (value: boolean): BoundExpression => ({ kind: 'literal', value, type: BOOLEAN, span: syntax.span });
    const source = this.context.aggregatedFrom;
    let path: BoundExpression;
    try {
      path = this.expression(arg, scope);
    } catch (error) {
      const first = arg.kind === 'path' && arg.head.kind === 'implicit' ? arg.segments[0] : undefined;
      const name = first?.kind === 'member' ? first.name : undefined;
      if (error instanceof ODataError && error.code === 'unknown_property' && source !== undefined && name !== undefined) {
        if (source.properties.has(name) || source.navigation.has(name)) return literal(false);
      }
      throw error;
    }
    if (
      path.kind !== 'path' ||
      path.root.kind !== 'it' ||
      path.type.kind === 'collection' ||
      path.steps.some((step) => step.kind !== 'property' && step.kind !== 'dynamic')
    ) {
      throw this.error('type_mismatch', `The argument of 'isdefined' must be a single-valued property path of the current rows`, arg.span);
    }
    if (path.steps.some((step) => step.kind === 'dynamic')) {
      throw this.error('unsupported_feature', `'isdefined' of a dynamic property is not supported`, arg.span);
    }
    return source === undefined ? literal(true) : { kind: 'defined', path, type: BOOLEAN, span: syntax.span };
  }

  private call(syntax: CallExpression, scope: Scope): BoundExpression {
    if (syntax.name === 'isdefined') return this.isDefined(syntax, scope);
    const node = syntax as CallExpression & { readonly name: Exclude<CallExpression['name'], 'isdefined'> };
    const { allowedFunctions, maxFunctionCallDepth } = this.context.settings;
    if (allowedFunctions !== undefined && !allowedFunctions.has(node.name)) {
      throw this.error('not_allowed', `Function '${node.name}' is not allowed. To allow it, set the 'allowedFunctions' setting.`, node.span);
    }
    const depth = scope.functionDepth + 1;
    if (depth > maxFunctionCallDepth) {
      throw this.error(
        'function_call_depth_exceeded',
        `The function call depth limit of '${maxFunctionCallDepth}' has been exceeded. 'maxFunctionCallDepth' can be configured in the bind settings.`,
        node.span,
      );
    }
    const inner: Scope = { variables: scope.variables, anyAllDepth: scope.anyAllDepth, functionDepth: depth, expanding: scope.expanding };
    if (node.name === 'cast' || node.name === 'isof') return this.typeFunction(node, inner);
    const args = node.args.map((arg) => this.expression(arg as Expression, inner));
    const type = matchOverload(
      node.name,
      args.map((arg) => arg.type),
    );
    if (type === undefined) {
      throw this.error(
        'type_mismatch',
        `No function signature for the function with name '${node.name}' matches the specified arguments. The function signatures considered are: ${describeOverloads(node.name)}.`,
        node.span,
      );
    }
    // Items of the two collections are compared with `eq`: of types that `eq` compares (no Date with Double).
    const [whole, part] = args.map((arg) => arg.type);
    if ((node.name === 'hassubset' || node.name === 'hassubsequence') && whole?.kind === 'collection' && part?.kind === 'collection') {
      if (!equalityComparable(whole.element, part.element))
        throw this.error('type_mismatch', `The items of the two collections of '${node.name}' cannot be compared with each other.`, node.span);
    }
    const length = node.name === 'substring' ? args[2] : undefined;
    if (length !== undefined && (literalSign(length) ?? 0) < 0) {
      // URL 5.1.1.5.7: "A negative length M is a bad request."
      throw this.error('invalid_argument', `The length argument of 'substring' must not be negative.`, length.span);
    }
    const pattern = node.name === 'matchesPattern' ? args[1] : undefined;
    if (pattern?.kind === 'literal' && typeof pattern.value === 'string') {
      // Only the linear-time subset every backend reads alike (src/semantic/pattern-subset.ts): refused here, not first in a backend.
      try {
        checkMatchesPattern(pattern.value);
      } catch (error) {
        if (error instanceof ODataError) throw this.error(error.code, error.reason, pattern.span);
        throw error;
      }
    }
    return { kind: 'call', name: node.name, args, type, span: node.span };
  }

  private resolveTypeName(node: TypeName): ExpressionType {
    const single = (name: string): ExpressionType => {
      if (name.startsWith('Edm.')) {
        if (!isPrimitiveTypeName(name)) throw this.error('unknown_type', `Unknown type '${name}'`, node.span);
        return primitive(name);
      }
      const found = findType(this.context.model, name);
      if (found === undefined) throw this.error('unknown_type', `The type '${name}' is not defined in the model.`, node.span);
      return found.kind === 'enum' ? { kind: 'enum', type: found } : ({ kind: found.kind, type: found } as ExpressionType);
    };
    const element = single(node.name);
    return node.collection ? { kind: 'collection', element } : element;
  }

  private typeFunction(node: CallExpression, scope: Scope): BoundCall | BoundLiteral {
    const targetNode = node.args[node.args.length - 1] as TypeName;
    const targetType = this.resolveTypeName(targetNode);
    // The one-argument forms test or cast the current instance: `$it` is their first argument.
    const it: BoundPath = { kind: 'path', root: { kind: 'it' }, steps: [], type: { kind: 'entity', type: this.context.it }, span: node.span };
    const args = node.args.length === 2 ? [this.expression(node.args[0] as Expression, scope)] : [it];
    const source = args[0]?.type ?? it.type;
    // Between structured types a failing cast is null and isof is false (URL 5.1.1.10), not an error.
    if (node.name === 'isof') {
      // The instance is an entity of `$it`'s type (or a type derived from it): of a primitive, enum or
      // complex type never, of `$it`'s type or a base type always. Only a derived type needs the instance.
      if (node.args.length === 1 && (targetType.kind !== 'entity' || derivesFrom(this.context.it, targetType.type))) {
        return { kind: 'literal', value: targetType.kind === 'entity', type: BOOLEAN, span: node.span };
      }
      return { kind: 'call', name: 'isof', args, targetType, type: BOOLEAN, span: node.span };
    }
    // URL 5.1.1.10.1: primitives to each other (and to text); enumerations to their own type and
    // to text, integers and text to enumerations (rules 3, 10); a structured value to a primitive
    // type, or a primitive to a structured type, is a failed cast (null), not an error. An
    // enumeration to an integer type (rule 9) stays an error, as in OData.net and ASP.NET Core
    // OData (CastBinder_EnumOnlyCastToOrFromString): see DEVIATIONS.
    const structured = (type: ExpressionType): boolean => type.kind === 'entity' || type.kind === 'complex';
    const castable =
      source.kind === 'null' ||
      (isCastablePrimitive(source) && isCastablePrimitive(targetType)) ||
      (source.kind === 'enum' && (isPrimitive(targetType, 'Edm.String') || (targetType.kind === 'enum' && targetType.type === source.type))) ||
      (targetType.kind === 'enum' && (isIntegerType(source) || isPrimitive(source, 'Edm.String'))) ||
      (structured(source) && (structured(targetType) || isCastablePrimitive(targetType))) ||
      (isCastablePrimitive(source) && structured(targetType));
    if (!castable) throw this.error('type_mismatch', `Cannot cast a value of type '${typeName(source)}' to '${typeName(targetType)}'.`, node.span);
    return { kind: 'call', name: 'cast', args, targetType, type: targetType, span: node.span };
  }
}

/** `node` with the span of every node (path steps and `in` list items too) set to `span`. */
function respan(node: BoundExpression, span: Span): BoundExpression {
  return transformExpression(node, (n) => {
    switch (n.kind) {
      case 'path':
        return { ...n, steps: n.steps.map((step) => ({ ...step, span })), span };
      case 'count':
        return { ...n, ...(n.search === undefined ? {} : { search: { ...n.search, span } }), span };
      default:
        return { ...n, span };
    }
  });
}

const COMPARISONS: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);

function isBooleanLike(type: ExpressionType): boolean {
  return type.kind === 'null' || isPrimitive(type, 'Edm.Boolean') || isUntyped(type);
}

function isCastablePrimitive(type: ExpressionType): boolean {
  return type.kind === 'primitive' && type.name !== 'Edm.Stream';
}

/** The type a comparison is made in: the promoted numeric type, DateTimeOffset for Date/DateTimeOffset, else the non-null side. */
function comparisonType(left: ExpressionType, right: ExpressionType): ExpressionType {
  if (isNumeric(left) && isNumeric(right)) return promoteNumeric(left, right);
  if (left.kind === 'null') return right;
  if (right.kind === 'null') return left;
  if (isUntyped(left) || isUntyped(right)) return UNTYPED;
  // Date against DateTimeOffset compares in DateTimeOffset.
  if (left.kind === 'primitive' && right.kind === 'primitive' && left.name !== right.name) return primitive('Edm.DateTimeOffset');
  return left;
}

/** Result type of an arithmetic operator (URL 5.1.1.2), or `undefined` if the operands do not fit. */
export function arithmeticType(operator: string, left: ExpressionType, right: ExpressionType): ExpressionType | undefined {
  if (isUntyped(left) || isUntyped(right)) return UNTYPED;
  if (left.kind === 'null' || right.kind === 'null') {
    const other = left.kind === 'null' ? right : left;
    return other.kind === 'null' ||
      isNumeric(other) ||
      isPrimitive(other, 'Edm.Duration') ||
      isPrimitive(other, 'Edm.Date') ||
      isPrimitive(other, 'Edm.DateTimeOffset')
      ? other
      : undefined;
  }
  if (isNumeric(left) && isNumeric(right)) {
    if (operator === 'divby') {
      const promoted = promoteNumeric(left, right);
      return isPrimitive(promoted, 'Edm.Double') || isPrimitive(promoted, 'Edm.Single') ? DOUBLE : DECIMAL;
    }
    return promoteNumeric(left, right);
  }
  if (operator !== 'add' && operator !== 'sub') return undefined;
  const l = left.kind === 'primitive' ? left.name : '';
  const r = right.kind === 'primitive' ? right.name : '';
  if (l === 'Edm.Duration' && r === 'Edm.Duration') return left;
  if ((l === 'Edm.DateTimeOffset' || l === 'Edm.Date') && r === 'Edm.Duration') return left;
  if (operator === 'add' && l === 'Edm.Duration' && (r === 'Edm.DateTimeOffset' || r === 'Edm.Date')) return right;
  if (operator === 'sub' && l === r && (l === 'Edm.DateTimeOffset' || l === 'Edm.Date')) return primitive('Edm.Duration');
  return undefined;
}

/** `geography'SRID=0;Point(…)'` is an `Edm.GeographyPoint`, and so on. */
function spatialLiteralType(family: 'Edm.Geography' | 'Edm.Geometry', text: string): never {
  // With or without the `SRID=n;` prefix (OData.net accepts the bare geometry).
  const kind = /^(?:\s*SRID\s*=\s*\d+\s*;)?\s*([A-Za-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? '';
  const suffix: Record<string, string> = {
    point: 'Point',
    linestring: 'LineString',
    polygon: 'Polygon',
    multipoint: 'MultiPoint',
    multilinestring: 'MultiLineString',
    multipolygon: 'MultiPolygon',
    geometrycollection: 'Collection',
    collection: 'Collection',
  };
  return `${family}${suffix[kind] ?? ''}` as never;
}

/** The sign (-1, 0, 1) of a numeric literal, also under `-`; `undefined` for anything else (NaN included). */
function literalSign(node: BoundExpression): number | undefined {
  if (node.kind === 'unary' && node.operator === 'negate') {
    const inner = literalSign(node.operand);
    return inner === undefined ? undefined : -inner || 0;
  }
  if (node.kind !== 'literal') return undefined;
  const { value } = node;
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : Math.sign(value) || 0;
  if (typeof value === 'bigint') return value === 0n ? 0 : value < 0n ? -1 : 1;
  if (typeof value === 'string' && isNumeric(node.type)) {
    // Decimal text: the sign of its digits before any exponent (`0e5` is zero).
    const mantissa = value.split(/e/i)[0] ?? '';
    return /[1-9]/.test(mantissa) ? (mantissa.startsWith('-') ? -1 : 1) : 0;
  }
  return undefined;
}

/** `Aggregation.rollupnode(…)` as a whole expression, else undefined. */
function rollupNodeCall(node: Expression): MemberPath | undefined {
  if (node.kind !== 'path' || (node.head.kind !== 'implicit' && node.head.kind !== '$it') || node.segments.length !== 1) return undefined;
  const [segment] = node.segments;
  return segment?.kind === 'invoke' && ROLLUP_NODE.test(segment.name) ? node : undefined;
}

/** Whether one type is the other or derives from it (their keys are the same properties). */
function sameHierarchy(a: StructuredType, b: StructuredType): boolean {
  const derives = (x: StructuredType, y: StructuredType): boolean => {
    for (let t: StructuredType | undefined = x; t !== undefined; t = t.baseType) if (t === y) return true;
    return false;
  };
  return derives(a, b) || derives(b, a);
}
