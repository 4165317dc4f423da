/**
 * Binds `$apply` (OData Extension for Data Aggregation 4.0): each transformation against the type
 * of the rows the previous one gives, with the output type of each (see `output-type.ts`), so that
 * later transformations and the request's other options are type-checked against what they see.
 * `rollup(…)` in a `groupby` list becomes the grouping sets of the bound `groupby`. What the
 * engine does not evaluate (`rolluprecursive`, custom functions) is refused with its position as an
 * `unsupported_feature` error. Custom aggregates and methods: custom-aggregates.ts; hierarchies: bind-hierarchy.ts.
 */
import { ODataError, type ODataErrorCode } from '../../errors/odata-error.js';
import type { EntitySet, Property, StructuredType, TypeReference } from '../../model/model.js';
import { navigationTarget } from '../../model/navigation.js';
import type { AggregateItem, ApplyTransformation, Expression, MemberPath, NestItem, Span } from '../../syntax/ast.js';
import { bindSearch } from '../bind-search.js';
import type {
  BoundAggregate,
  BoundFromStep,
  BoundApply,
  BoundExpression,
  BoundGroupKey,
  BoundNestItem,
  BoundPath,
  BoundPathStep,
  BoundRollupRecursive,
  BoundTransformation,
  RankDirection,
  RankMeasure,
} from '../bound-ast.js';
import { registerAggregateBinder, registerHierarchyFunctionBinder, type ExpressionBinder, type Purpose } from '../bind-expression.js';
import { bindHierarchyFunction } from './bind-hierarchy-function.js';
import { expressionChildren } from '../walk/expression-children.js';
import type { ApplyContext, Input } from './apply-context.js';
import { INT64, fromReference, isIntegerType, isNumeric, isOrderable, typeName, type ExpressionType } from '../types.js';
import { aggregateType } from './aggregate-types.js';
import { bindCustomAggregate, bindCustomMethod, bindPortableMethod, type CustomBinder } from './custom-aggregates.js';
import { readDynamicAs } from '../dynamic-values.js';
import { applyFanOut } from './fan-out.js';
import { bindHierarchical, bindRollupRecursive, placedProperty } from './bind-hierarchy.js';
import { bindCustomTransformation } from './custom-transformations.js';
import { extendedType, markMadeEntityAt, markUnordered, nestedProperties, outputProperty, outputType, referenceOf } from './output-type.js';

/** The ranking transformations of the syntax tree (`topcount` … `bottomsum`). */
type RankingNode = Extract<ApplyTransformation, { readonly limit: Expression }>;

/** Each ranking transformation's name as the bound `rank` node's measure and direction. */
const RANKINGS: { readonly [K in RankingNode['kind']]: { readonly measure: RankMeasure; readonly direction: RankDirection } } = {
  topcount: { measure: 'count', direction: 'top' },
  bottomcount: { measure: 'count', direction: 'bottom' },
  toppercent: { measure: 'percent', direction: 'top' },
  bottompercent: { measure: 'percent', direction: 'bottom' },
  topsum: { measure: 'sum', direction: 'top' },
  bottomsum: { measure: 'sum', direction: 'bottom' },
};

/** Deepest nesting of `groupby(…, …)` and `concat(…)` pipelines. */
export const MAX_APPLY_DEPTH = 8;

export type { ApplyContext, Input } from './apply-context.js';

/** Binds the transformations of `$apply` read from rows of `type` (entities of `set`). */
export function bindApply(
  transformations: readonly ApplyTransformation[],
  type: StructuredType,
  set: EntitySet | undefined,
  context: ApplyContext,
): BoundApply {
  const binder = new ApplyBinder(context);
  const start: Input = { type, set, capabilities: set?.capabilities, entity: true };
  const [bound, output] = binder.pipeline(transformations, start, 0);
  // concat() multiplies rows (2^k for k in a row): bounded before any backend makes them.
  const max = context.settings.maxApplyFanOut;
  const fanOut = applyFanOut(bound, max);
  if (fanOut.over !== undefined) {
    throw new ODataError({
      code: 'apply_fan_out_exceeded',
      reason: `The fan-out limit of '${max}' for $apply has been exceeded: ${fanOut.over.kind === 'groupby' ? 'rollup()' : 'concat()'} can give up to ${fanOut.peak} times the rows of the entity set. To increase the limit, set the 'maxApplyFanOut' setting.`,
      option: context.option,
      position: fanOut.over.span.start,
      appendLocation: false,
    });
  }
  return { transformations: bound, output: output.type, entity: output.entity };
}

/**
 * One aggregate expression of the aggregate function (`Sales/aggregate(Amount with sum)`,
 * `$these/aggregate($count)`), bound against the elements of its collection under an internal alias.
 */
export function bindAggregateItem(item: AggregateItem, input: Input, context: ApplyContext): BoundAggregate {
  return new ApplyBinder(context).aggregateItem(item, input);
}

registerAggregateBinder(bindAggregateItem);
registerHierarchyFunctionBinder(bindHierarchyFunction);

class ApplyBinder {
  private nodes = 0;
  /** Inside the transformations of a `groupby` with `rolluprecursive`: its hierarchy's nodes (`Aggregation.rollupnode()`). */
  private rollupNode: EntitySet | undefined;

  constructor(readonly context: ApplyContext) {}

  /** An expression binder for rows of `input`. */
  private expressions(input: Input, purpose: Purpose): ExpressionBinder {
    return this.context.binder(input, purpose, this.rollupNode);
  }

  fail(code: ODataErrorCode, reason: string, span: Span | undefined): never {
    throw new ODataError({ code, reason, option: this.context.option, ...(span === undefined ? {} : { position: span.start }), appendLocation: false });
  }

  unsupported(what: string, span: Span): never {
    this.fail('unsupported_feature', `${what} is not supported in $apply`, span);
  }

  /** Transformations, items and grouping properties count toward the node-count limit. */
  private count(span: Span): void {
    const max = this.context.settings.maxNodeCount;
    if (++this.nodes > max) {
      this.fail('node_count_exceeded', `The node count limit of '${max}' has been exceeded. To increase the limit, set the 'maxNodeCount' setting.`, span);
    }
  }

  pipeline(transformations: readonly ApplyTransformation[], input: Input, depth: number): [BoundTransformation[], Input] {
    const bound: BoundTransformation[] = [];
    let current = input;
    for (const transformation of transformations) {
      const [next, output] = this.transformation(transformation, current, depth);
      bound.push(next);
      current = output;
    }
    return [bound, current];
  }

  private transformation(node: ApplyTransformation, input: Input, depth: number): [BoundTransformation, Input] {
    this.count(node.span);
    const span = node.span;
    const same = (bound: BoundTransformation): [BoundTransformation, Input] => [bound, input];
    switch (node.kind) {
      case 'filter': {
        const predicate = this.expressions(input, 'filter').bind(node.expression, true);
        return same({ kind: 'filter', predicate, output: input.type, span });
      }
      case 'search':
        if (!input.entity) this.fail('type_mismatch', `search() needs the entities of the set; after an aggregation there are none`, span);
        if (input.capabilities !== undefined && !input.capabilities.searchable)
          this.fail('query_option_not_supported', `search() is not supported by the entity set '${input.set?.name ?? input.type.name}'.`, span);
        return same({ kind: 'search', search: bindSearch(node.search, input.type), output: input.type, span });
      case 'orderby': {
        const items = node.items.map((item) => {
          const expression = this.expressions(input, 'orderby').bind(item.expression, false);
          if (!isOrderable(expression.type) && expression.type.kind !== 'null') {
            this.fail('type_mismatch', `The orderby() expression is of type '${typeName(expression.type)}', whose values cannot be sorted.`, item.span);
          }
          return { expression, direction: item.direction };
        });
        return same({ kind: 'orderby', items, output: input.type, span });
      }
      case 'top':
      case 'skip': {
        const count =
          typeof node.count === 'bigint' || node.count > Number.MAX_SAFE_INTEGER
            ? this.fail('invalid_option_value', `The ${node.kind}() count is too large`, span)
            : node.count;
        if (node.kind === 'top' && count > this.context.settings.maxTop) {
          this.fail(
            'top_limit_exceeded',
            `The limit of '${this.context.settings.maxTop}' for Top query has been exceeded. The value from the incoming request is '${count}'.`,
            span,
          );
        }
        return same({ kind: node.kind, count, output: input.type, span });
      }
      case 'identity':
        return same({ kind: 'identity', output: input.type, span });
      case 'compute':
        return this.compute(node.items, input, span);
      case 'aggregate': {
        const aggregates = this.aggregates(node.items, input);
        const type = outputType(
          `${input.type.name}.aggregate`,
          aggregates.map((a) => outputProperty(a.alias, referenceOf(a.type) as never)),
        );
        return [
          { kind: 'aggregate', aggregates, output: type, span },
          { type, set: undefined, capabilities: undefined, entity: false },
        ];
      }
      case 'groupby':
        return this.groupby(node, input, depth);
      case 'concat': {
        if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, span);
        const results = node.branches.map((branch) => this.pipeline(branch, input, depth + 1));
        const properties = new Map<string, Property>();
        for (const [, output] of results) {
          for (const property of output.type.properties.values()) {
            const known = properties.get(property.name);
            if (known !== undefined && !sameShape(known, property)) {
              this.fail('type_mismatch', `concat() gives the property '${property.name}' two types: '${typeKey(known)}' and '${typeKey(property)}'`, span);
            }
            properties.set(property.name, property);
          }
        }
        // Branches that keep the input's rows (entities, or the rows of a join) keep their type: navigation properties and all.
        const same = results.every(([, output]) => output.type === input.type && output.entity === input.entity);
        const type = same ? input.type : outputType(`${input.type.name}.concat`, [...properties.values()]);
        return [
          { kind: 'concat', branches: results.map(([b]) => b), output: type, span },
          same ? input : { type, set: undefined, capabilities: undefined, entity: false },
        ];
      }
      case 'join':
      case 'outerjoin':
        return this.join(node, input, depth);
      case 'nest':
        return this.nest(node, input, depth);
      case 'addnested':
        return this.addnested(node, input, depth);
      case 'ancestors':
      case 'descendants':
      case 'traverse':
        if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, span);
        {
          const bound = bindHierarchical(node, input, depth, this);
          // traverse through a collection puts σ(x) into its rows: their type has it.
          return bound.output === input.type ? same(bound) : [bound, { ...input, type: bound.output }];
        }
      case 'other':
        // A custom transformation the service defines (custom-transformations.ts).
        return bindCustomTransformation(node, input, {
          option: this.context.option,
          definitions: this.context.settings.customTransformations,
          expressions: (rows) => this.expressions(rows, 'filter'),
          fail: (code, reason, at) => this.fail(code, reason, at),
          unsupported: (what, at) => this.unsupported(what, at),
        });
      default:
        return same(this.rank(node, input));
    }
  }

  /** `topcount` … `bottomsum`: one `rank` node (see {@link RANKINGS}). */
  private rank(node: RankingNode, input: Input): BoundTransformation {
    const { measure, direction } = RANKINGS[node.kind];
    const limitExpression = this.expressions(input, 'filter').bind(node.limit, false);
    // A limit computed from the input collection (`topcount($these/$count div 3,Amount)`, 3.6.2):
    // the same for every row, evaluated once over the transformation's input.
    if (limitExpression.kind !== 'literal' && sameForEveryRow(limitExpression)) {
      const counted = measure === 'count';
      if (counted ? !isIntegerType(limitExpression.type) : !isNumeric(limitExpression.type)) {
        const wanted = counted ? 'an integer' : 'a number';
        this.fail(
          'type_mismatch',
          `The first argument of ${node.kind}() must be ${wanted}, but is of type '${typeName(limitExpression.type)}'.`,
          node.limit.span,
        );
      }
      const value = this.expressions(input, 'orderby').bind(node.value, false);
      if (!isNumeric(value.type))
        this.fail('type_mismatch', `The second argument of ${node.kind}() must be numeric, but is of type '${typeName(value.type)}'.`, node.value.span);
      return { kind: 'rank', measure, direction, limit: 0, limitOver: limitExpression, value, output: input.type, span: node.span };
    }
    const literal = limitExpression.kind === 'literal' ? limitExpression.value : null;
    const limit = typeof literal === 'number' || typeof literal === 'bigint' || typeof literal === 'string' ? Number(literal) : Number.NaN;
    const counted = measure === 'count';
    if (!Number.isFinite(limit) || (counted && (!isIntegerType(limitExpression.type) || limit < 0)) || (measure === 'percent' && (limit < 0 || limit > 100))) {
      const wanted = counted ? 'a non-negative integer' : measure === 'percent' ? 'a number from 0 to 100' : 'a number';
      this.fail('invalid_option_value', `The first argument of ${node.kind}() must be ${wanted} literal`, node.limit.span);
    }
    const value = this.expressions(input, 'orderby').bind(node.value, false);
    if (!isNumeric(value.type)) {
      this.fail('type_mismatch', `The second argument of ${node.kind}() must be numeric, but is of type '${typeName(value.type)}'.`, node.value.span);
    }
    if (counted && limit > this.context.settings.maxTop) {
      const max = this.context.settings.maxTop;
      const reason = `The limit of '${max}' for Top query has been exceeded. The value from the incoming request is '${limit}'.`;
      this.fail('top_limit_exceeded', reason, node.limit.span);
    }
    return { kind: 'rank', measure, direction, limit, value, output: input.type, span: node.span };
  }

  private compute(
    items: readonly { readonly expression: Expression; readonly alias: string; readonly span: Span }[],
    input: Input,
    span: Span,
  ): [BoundTransformation, Input] {
    const bound = items.map((item) => {
      this.count(item.span);
      this.checkAlias(item.alias, input.type, item.span);
      const expression = this.expressions(input, 'filter').bind(item.expression, false);
      if (referenceOf(expression.type) === undefined)
        this.fail('type_mismatch', `compute() cannot name a value of type '${typeName(expression.type)}'`, item.span);
      return { alias: item.alias, expression };
    });
    this.distinctAliases(
      bound.map((b) => b.alias),
      items.map((i) => i.span),
    );
    const type = extendedType(
      input.type,
      bound.map((b) => outputProperty(b.alias, referenceOf(b.expression.type) as never)),
    );
    return [
      { kind: 'compute', items: bound, output: type, span },
      { ...input, type },
    ];
  }

  /**
   * The collection of `join`, `outerjoin` and `addnested`: a path from the row (through
   * single-valued complex properties) to a collection of entities or complex values, with the
   * input its elements are (Data Aggregation 3.4: a navigation property's related entities, a
   * complex collection's values).
   */
  private nestedCollection(path: MemberPath, input: Input, what: string): { path: BoundPath; input: Input } {
    const bound = this.expressions(input, 'filter').bind(path, false);
    if (bound.kind !== 'path' || bound.root.kind !== 'it' || bound.type.kind !== 'collection')
      this.fail('type_mismatch', `The path of ${what}() must be a collection of entities or complex values`, path.span);
    const element = bound.type.element;
    if (element.kind !== 'entity' && element.kind !== 'complex')
      this.fail('type_mismatch', `The path of ${what}() must be a collection of entities or complex values, not of '${typeName(element)}'`, path.span);
    if (bound.steps.some((step) => step.kind === 'dynamic')) this.unsupported(`A dynamic property in the path of ${what}()`, path.span);
    const last = [...bound.steps].reverse().find((step) => step.kind !== 'typeCast');
    const set = last?.kind === 'navigation' ? last.entitySet : undefined;
    return {
      path: bound,
      input: { type: element.type, set, capabilities: set?.capabilities, entity: element.kind === 'entity' },
    };
  }

  /** The type reference of rows a nested pipeline gives: an entity type while they are entities, else their structured type. */
  private static rowReference(output: Input): TypeReference {
    return output.entity ? { kind: 'entity', type: output.type } : { kind: 'complex', type: output.type };
  }

  /** `join`/`outerjoin(path as Alias[, pipeline])`: the row with the single-valued `Alias` added; rows repeat, so no longer entities. */
  private join(node: Extract<ApplyTransformation, { kind: 'join' | 'outerjoin' }>, input: Input, depth: number): [BoundTransformation, Input] {
    if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, node.span);
    // Rows of a join repeat their entity: a second join would pair every instance with every
    // other (n^k rows for k joins). Reading entities (or aggregated rows), a join gives at most a
    // row per related instance, plus one per row for outerjoin.
    if (input.joined === true) this.unsupported(`${node.kind}() after a join (the rows would multiply with each join)`, node.span);
    this.checkAlias(node.alias, input.type, node.span);
    const collection = this.nestedCollection(node.path, input, node.kind);
    const [apply, after] = node.apply.length === 0 ? [[], collection.input] : this.pipeline(node.apply, collection.input, depth + 1);
    const alias = outputProperty(node.alias, ApplyBinder.rowReference(after));
    const type = extendedType(input.type, [alias]);
    return [
      { kind: 'join', outer: node.kind === 'outerjoin', path: collection.path, alias: node.alias, apply, output: type, span: node.span },
      // The set stays: the input's navigation properties are still followed from these rows.
      { type, set: input.set, capabilities: undefined, entity: false, joined: true },
    ];
  }

  /** The items of `nest` and `addnested`, each pipeline run over `input`: their collection-valued properties. */
  private nestItems(items: readonly NestItem[], input: Input, owner: StructuredType, depth: number): [BoundNestItem[], Property[]] {
    const bound: BoundNestItem[] = [];
    const properties: Property[] = [];
    for (const item of items) {
      this.count(item.span);
      this.checkAlias(item.alias, owner, item.span);
      const [apply, after] = this.pipeline(item.apply, input, depth + 1);
      bound.push({ alias: item.alias, apply, type: after.type, span: item.span });
      const property: Property = {
        ...outputProperty(item.alias, ApplyBinder.rowReference(after)),
        collection: true,
        nullable: false,
        filterable: false,
        sortable: false,
      };
      // Rows of a pipeline that does not end by ordering them come in no defined order.
      const last = apply.at(-1)?.kind;
      properties.push(last === 'orderby' || last === 'top' || last === 'skip' || last === 'rank' ? property : markUnordered(property));
    }
    this.distinctAliases(
      bound.map((b) => b.alias),
      items.map((i) => i.span),
    );
    return [bound, properties];
  }

  /** `nest(pipeline as Alias, …)`: one row of the collections the pipelines give. */
  private nest(node: Extract<ApplyTransformation, { kind: 'nest' }>, input: Input, depth: number): [BoundTransformation, Input] {
    if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, node.span);
    const [items, properties] = this.nestItems(node.items, input, input.type, depth);
    const type = outputType(`${input.type.name}.nest`, properties);
    return [
      { kind: 'nest', items, output: type, span: node.span },
      { type, set: undefined, capabilities: undefined, entity: false },
    ];
  }

  /** `addnested(path, pipeline as Alias, …)`: each row with the collections the pipelines give from its collection `path`. */
  private addnested(node: Extract<ApplyTransformation, { kind: 'addnested' }>, input: Input, depth: number): [BoundTransformation, Input] {
    if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, node.span);
    const collection = this.nestedCollection(node.path, input, 'addnested');
    if (collection.path.steps.filter((step) => step.kind !== 'typeCast').length > 1)
      this.unsupported(`addnested() of a collection inside a complex value`, node.path.span);
    const [items, properties] = this.nestItems(node.items, collection.input, input.type, depth);
    const type = extendedType(input.type, properties);
    return [
      { kind: 'addnested', path: collection.path, items, output: type, span: node.span },
      { ...input, type },
    ];
  }

  private checkAlias(alias: string, type: StructuredType, span: Span): void {
    if (type.properties.has(alias) || type.navigation.has(alias)) {
      this.fail('invalid_option_value', `The alias '${alias}' is the name of a property of '${type.name}'`, span);
    }
  }

  private distinctAliases(aliases: readonly string[], spans: readonly Span[]): void {
    const seen = new Set<string>();
    aliases.forEach((alias, i) => {
      if (seen.has(alias)) this.fail('invalid_option_value', `The alias '${alias}' is used more than once`, spans[i]);
      seen.add(alias);
    });
  }

  private aggregates(items: readonly AggregateItem[], input: Input): BoundAggregate[] {
    const bound = items.map((item) => this.aggregate(item, input));
    this.distinctAliases(
      bound.map((b) => b.alias),
      items.map((i) => i.span),
    );
    return bound;
  }

  /** An aggregate expression without alias (the aggregate function's): bound under an internal one. */
  aggregateItem(item: AggregateItem, input: Input): BoundAggregate {
    if (item.alias !== undefined) this.fail('syntax_error', `The aggregate function takes no alias`, item.span);
    return this.aggregate({ ...item, alias: '~value' }, input);
  }

  private aggregate(item: AggregateItem, input: Input): BoundAggregate {
    // A portable custom method: its definition with the request's value, bound as an item.
    const portable = bindPortableMethod(item, input, this.customs);
    if (portable !== undefined) return portable;
    const base = item.custom === undefined ? this.plainAggregate(item, input) : this.customAggregate(item, input);
    if (item.from === undefined || item.from.length === 0) return base;
    // `A from P with g`: per group of P the aggregate, then g over those values (3.2.1.5).
    let type = base.type;
    const from = item.from.map((step) => {
      this.count(step.span);
      const method = step.method ?? this.fail('syntax_error', `'from' needs 'with' and an aggregation method`, step.span);
      const keys = step.properties.flatMap((path) => this.groupKeys(path, input));
      if (typeof method === 'object') {
        const custom = bindCustomMethod(method.custom, type, input, step.span, this.context);
        const bound: BoundFromStep = { keys, method: custom.method, input: type, type: custom.type, span: step.span };
        type = custom.type;
        return bound;
      }
      const result = aggregateType(method, type);
      if (typeof result === 'string')
        this.fail('type_mismatch', `${result}, but '${item.alias ?? ''}' aggregates a value of type '${typeName(type)}' with it.`, step.span);
      const bound: BoundFromStep = { keys, method, input: type, type: result, span: step.span };
      type = result;
      return bound;
    });
    // A custom aggregate's own steps (its definition's) come first.
    return { ...base, type, from: [...(base.from ?? []), ...from] };
  }

  /** A custom aggregate (`Forecast`, `Sales/Forecast as F`) without its `from` steps (custom-aggregates.ts). */
  private customAggregate(item: AggregateItem, input: Input): BoundAggregate {
    this.count(item.span);
    // Without an alias the value is named after the custom aggregate, which may be a property's name (example 94).
    if (item.alias !== undefined) this.checkAlias(item.alias, input.type, item.span);
    return bindCustomAggregate(item, input, this.customs);
  }

  /** What the custom aggregates and methods need of this binder (custom-aggregates.ts). */
  private get customs(): CustomBinder {
    return {
      context: this.context,
      aggregate: (item, input) => this.aggregate(item, input),
      navigation: (expression, input) => {
        const prefix = this.navigationPrefix(expression, input, true);
        if (prefix === undefined) return undefined;
        const { type, set } = prefix.target;
        return { path: prefix.path, target: { type, set, capabilities: set?.capabilities, entity: true } };
      },
    };
  }

  /** An aggregate expression without its `from` steps. */
  private plainAggregate(item: AggregateItem, input: Input): BoundAggregate {
    this.count(item.span);
    const span = item.span;
    const alias = item.alias ?? this.fail('syntax_error', `An aggregate needs 'as' and an alias`, span);
    this.checkAlias(alias, input.type, span);
    if (item.count === true) {
      if (item.expression === undefined) return { kind: 'count', alias, type: INT64, span };
      const through = this.navigationPrefix(item.expression, input, true);
      if (through === undefined || through.rest.length > 0)
        this.fail('type_mismatch', `'/$count' in an aggregate must follow a navigation path`, item.expression.span);
      return { kind: 'count', alias, type: INT64, through: through.path, span };
    }
    const method = item.method ?? this.fail('syntax_error', `An aggregate needs 'with' and a method`, span);
    const expression = item.expression ?? this.fail('syntax_error', `An aggregate needs an expression to aggregate`, span);
    const prefix = this.navigationPrefix(expression, input, false);
    let value;
    let through: BoundPath | undefined;
    if (prefix !== undefined) {
      through = prefix.path;
      const target = prefix.target;
      let segments = prefix.rest;
      if (segments.length === 0) {
        // `Product with countdistinct` (3.2.1.3.5, example 13): the distinct related entities, counted by their key.
        const [key, more] = target.type.key;
        if (method !== 'countdistinct' || key === undefined || more !== undefined)
          this.fail(
            'type_mismatch',
            `An aggregated path must end with a property of the related entities (or, with countdistinct, a navigation property to entities of one key property)`,
            expression.span,
          );
        segments = [{ kind: 'member', name: key, span: { start: expression.span.end, end: expression.span.end } }];
      }
      const rest: MemberPath = {
        kind: 'path',
        head: { kind: 'implicit' },
        segments,
        span: { start: segments[0]?.span.start ?? expression.span.start, end: expression.span.end },
      };
      value = this.expressions({ type: target.type, set: target.set, capabilities: target.set?.capabilities, entity: true }, 'filter').bind(rest, false);
    } else {
      value = this.expressions(input, 'filter').bind(expression, false);
    }
    if (typeof method === 'object') {
      // A custom method defined per backend (custom-aggregates.ts).
      const custom = bindCustomMethod(method.custom, value.type, input, span, this.context);
      return { kind: 'method', alias, type: custom.type, method: custom.method, expression: value, ...(through === undefined ? {} : { through }), span };
    }
    // sum, average, min and max of a dynamic property aggregate its numbers (dynamic-values.ts).
    if (method !== 'countdistinct') value = readDynamicAs(value, 'Edm.Double');
    const type = aggregateType(method, value.type);
    if (typeof type === 'string') this.fail('type_mismatch', `${type}, but '${alias}' aggregates a value of type '${typeName(value.type)}'.`, expression.span);
    return { kind: 'method', alias, type, method, expression: value, ...(through === undefined ? {} : { through }), span };
  }

  /**
   * The navigation prefix of a path (`Sales/Amount`: `Sales`), with the segments after it and the
   * entity type and set it reaches; `undefined` for an expression that is no path or has no
   * navigation step. With `whole`, the prefix is the whole path (`Sales/$count`).
   */
  private navigationPrefix(
    expression: Expression,
    input: Input,
    whole: boolean,
  ): { path: BoundPath; rest: MemberPath['segments']; target: { type: StructuredType; set: EntitySet | undefined } } | undefined {
    if (expression.kind !== 'path' || (expression.head.kind !== 'implicit' && expression.head.kind !== '$it')) return undefined;
    const segments = expression.segments;
    let last = -1;
    let type = input.type;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as MemberPath['segments'][number];
      if (segment.kind !== 'member') break;
      const navigation = type.navigation.get(segment.name);
      if (navigation !== undefined) {
        last = i;
        type = navigation.target;
        continue;
      }
      const property = type.properties.get(segment.name);
      if (property === undefined || property.type.kind !== 'complex' || property.collection) break;
      type = property.type.type;
    }
    if (last < 0) return undefined;
    if (whole && last !== segments.length - 1) return undefined;
    // The prefix: complex and navigation steps, bound by hand (collections are allowed here).
    const steps: BoundPathStep[] = [];
    let at = input.type;
    let set = input.set;
    let collection = false;
    for (let i = 0; i <= last; i++) {
      const segment = segments[i] as { name: string; span: Span };
      const navigation = at.navigation.get(segment.name);
      if (navigation !== undefined) {
        const target = navigationTarget(this.context.model, set, navigation);
        if (!navigation.filterable) this.fail('not_filterable', `The property '${navigation.name}' cannot be used in $apply.`, segment.span);
        steps.push({ kind: 'navigation', navigation, entitySet: target, span: segment.span });
        collection ||= navigation.collection;
        at = navigation.target;
        set = target;
      } else {
        const property = at.properties.get(segment.name) as Property;
        steps.push({ kind: 'property', property, span: segment.span });
        at = (property.type as { type: StructuredType }).type;
        set = undefined;
      }
    }
    const entity: ExpressionType = { kind: 'entity', type: at };
    const path: BoundPath = {
      kind: 'path',
      root: { kind: 'it' },
      steps,
      type: collection ? { kind: 'collection', element: entity } : entity,
      span: { start: expression.span.start, end: (segments[last] as { span: Span }).span.end },
    };
    return { path, rest: segments.slice(last + 1), target: { type: at, set } };
  }

  private groupby(node: Extract<ApplyTransformation, { kind: 'groupby' }>, input: Input, depth: number): [BoundTransformation, Input] {
    if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, node.span);
    const keys: BoundGroupKey[] = [];
    // Per element of the list: its levels, the finest first, each the indices into `keys` it groups by.
    const levels: number[][][] = [];
    let recursive: BoundRollupRecursive | undefined;
    for (const property of node.properties) {
      this.count(property.span);
      // The indices into `keys` of one grouping path (several for an entity or complex value).
      const add = (path: MemberPath): number[] => this.groupKeys(path, input).map((key) => keys.push(key) - 1);
      if (property.kind !== 'rollup') {
        levels.push([add(property)]);
        continue;
      }
      if (property.recursive) {
        // Several (6.3's algorithm recurs over them) or beside rollup(…): not evaluated.
        if (recursive !== undefined) this.unsupported(`more than one rolluprecursive() in a groupby()`, property.span);
        if (node.properties.some((p) => p.kind === 'rollup' && !p.recursive)) this.unsupported(`rollup() beside rolluprecursive()`, property.span);
        recursive = bindRollupRecursive(property, input, depth, this);
        continue;
      }
      if (property.properties.length < 2) this.unsupported(`rollup() of a leveled hierarchy`, property.span);
      const indices = property.properties.map((path) => {
        this.count(path.span);
        return add(path);
      });
      // rollup(A,B,C): (A,B,C), (A,B), (A) (Data Aggregation CS04 3.2.3.2: no level without A).
      levels.push(indices.map((_, n) => indices.slice(0, indices.length - n).flat()));
    }
    const rollup = node.properties.find((p) => p.kind === 'rollup' && !p.recursive);
    const sets = rollup === undefined ? undefined : this.groupingSets(levels, rollup.span);
    const seen = new Set<string>();
    for (const key of keys) {
      const name = key.names.join('/');
      if (seen.has(name)) this.fail('invalid_option_value', `The grouping property '${name}' is listed more than once`, key.span);
      seen.add(name);
    }
    const outerNode = this.rollupNode;
    if (recursive !== undefined) this.rollupNode = recursive.hierarchy.nodes;
    let bound: [BoundTransformation[], Input | undefined];
    try {
      bound = node.apply.length === 0 ? [[], undefined] : this.pipeline(node.apply, input, depth + 1);
    } finally {
      this.rollupNode = outerNode;
    }
    const [apply, after] = bound;
    const grouped = nestedProperties(
      keys.map((key) => ({ names: key.names, leaf: referenceOf(key.path.type) as never })),
      `${input.type.name}.groupby`,
    );
    for (const key of keys) markGroupedEntities(grouped, key);
    // Each row of the nested transformations with the group's grouping properties (3.2.3.1, Π_G):
    // its other properties stay; a grouping property replaces the row's own of that name.
    const added = after === undefined ? [] : [...after.type.properties.values()].filter((property) => !grouped.some((g) => g.name === property.name));
    if (recursive !== undefined) return this.rolluprecursive(node, keys, apply, recursive, grouped, added, input);
    const type = outputType(`${input.type.name}.groupby`, [...grouped, ...added]);
    return [
      { kind: 'groupby', keys, ...(sets === undefined ? {} : { sets }), apply, output: type, span: node.span },
      { type, set: undefined, capabilities: undefined, entity: false },
    ];
  }

  /**
   * The rows of a `groupby` with `rolluprecursive` (6.3): each row gets its portion's node (σ(x)):
   * rows that are the nodes keep the nodes' type (key and navigation properties too), with the
   * nested transformations' properties added; else the node (an entity value) or its identifier
   * at its path, beside the grouping properties and the nested transformations' properties.
   */
  private rolluprecursive(
    node: Extract<ApplyTransformation, { kind: 'groupby' }>,
    keys: readonly BoundGroupKey[],
    apply: readonly BoundTransformation[],
    recursive: BoundRollupRecursive,
    grouped: readonly Property[],
    added: readonly Property[],
    input: Input,
  ): [BoundTransformation, Input] {
    const into = recursive.into;
    const nodes = recursive.hierarchy.nodes;
    if (into.kind === 'node') {
      const type = extendedType(input.type, [...grouped, ...added]);
      return [
        { kind: 'groupby', keys, recursive, apply, output: type, span: node.span },
        { type, set: nodes, capabilities: nodes.capabilities, entity: true },
      ];
    }
    const leaf = into.kind === 'entity' ? ({ kind: 'entity', type: nodes.type } as never) : (referenceOf(recursive.hierarchy.node.type) as never);
    // Through a collection-valued segment, a collection of one item there (a(ε, t, x) of 6.2.2).
    const placed =
      into.collections === undefined
        ? nestedProperties([{ names: into.names, leaf }], `${input.type.name}.groupby`)
        : [placedProperty(into, recursive.hierarchy, `${input.type.name}.groupby`)];
    if (into.kind === 'entity') markMadeEntityAt(placed, into.names, { type: nodes.type, set: nodes });
    const names = new Set(placed.map((property) => property.name));
    const type = outputType(`${input.type.name}.groupby`, [...placed, ...[...grouped, ...added].filter((property) => !names.has(property.name))]);
    return [
      { kind: 'groupby', keys, recursive, apply, output: type, span: node.span },
      { type, set: undefined, capabilities: undefined, entity: false },
    ];
  }

  /**
   * The grouping sets of a list with rollups: every choice of one level per element, the finest
   * first. Each set is a pass over the rows, so their number is bounded as concat's branches are.
   */
  private groupingSets(levels: readonly (readonly number[][])[], span: Span): number[][] {
    const max = this.context.settings.maxApplyFanOut;
    const count = levels.reduce((product, choices) => product * choices.length, 1);
    if (count > max) {
      this.fail(
        'apply_fan_out_exceeded',
        `The fan-out limit of '${max}' for $apply has been exceeded: rollup() gives ${count} grouping sets. To increase the limit, set the 'maxApplyFanOut' setting.`,
        span,
      );
    }
    let sets: number[][] = [[]];
    for (const choices of levels) sets = sets.flatMap((set) => choices.map((choice) => [...set, ...choice]));
    return sets;
  }

  /**
   * The grouping keys of a grouping path: the path itself, or for an entity (a single-valued
   * navigation property, `groupby((Customer))`) or a complex value its selectable single-valued
   * properties, nested ones too (Data Aggregation 3.2.3.1: such a grouping property is expanded).
   * Grouping by all of them groups as by the value: an entity's key is among them.
   */
  private groupKeys(path: MemberPath, input: Input): BoundGroupKey[] {
    const key = this.groupKey(path, input, true);
    const type = key.path.type;
    if (type.kind !== 'entity' && type.kind !== 'complex') return [key];
    const keys: BoundGroupKey[] = [];
    const leaves = (owner: StructuredType, steps: readonly BoundPathStep[], names: readonly string[], depth: number): void => {
      for (const property of owner.properties.values()) {
        if (property.collection || !property.selectable || !property.filterable) continue;
        const step: BoundPathStep = { kind: 'property', property, span: path.span };
        if (property.type.kind === 'complex') {
          if (depth < MAX_APPLY_DEPTH) leaves(property.type.type, [...steps, step], [...names, property.name], depth + 1);
          continue;
        }
        this.count(path.span);
        const leaf: BoundPath = { ...key.path, steps: [...steps, step], type: fromReference(property.type) };
        keys.push({ path: leaf, names: [...names, property.name], span: path.span });
      }
    };
    leaves(type.type, key.path.steps, key.names, 0);
    if (keys.length === 0) this.fail('type_mismatch', `'${key.names.join('/')}' has no property to group by`, path.span);
    return keys;
  }

  private groupKey(path: MemberPath, input: Input, structured = false): BoundGroupKey {
    const bound = this.expressions(input, 'filter').bind(path, false);
    if (bound.kind !== 'path' || bound.root.kind !== 'it') this.fail('type_mismatch', `A grouping property must be a property path`, path.span);
    const names: string[] = [];
    for (const step of bound.steps) {
      if (step.kind === 'typeCast') continue;
      if (step.kind === 'dynamic') {
        // Grouped by its JSON value (dynamic-values.ts); a path into an untyped value is no property.
        if (step !== bound.steps[bound.steps.length - 1] || step.owner === undefined)
          this.unsupported(`Grouping by a path into the dynamic property '${step.name}'`, step.span);
        names.push(step.name);
        continue;
      }
      if (step.kind === 'navigation' && step.navigation.collection)
        this.fail('type_mismatch', `A grouping property cannot go through the collection '${step.navigation.name}'`, step.span);
      names.push(step.kind === 'property' ? step.property.name : step.navigation.name);
    }
    if (bound.type.kind === 'collection')
      this.fail('type_mismatch', `A grouping property must be single-valued, but '${names.join('/')}' is a collection`, path.span);
    if (bound.type.kind !== 'primitive' && bound.type.kind !== 'enum' && !(structured && (bound.type.kind === 'entity' || bound.type.kind === 'complex'))) {
      this.unsupported(`Grouping by a ${bound.type.kind} value ('${names.join('/')}'): group by its properties`, path.span);
    }
    return { path: bound, names, span: path.span };
  }
}

/**
 * Whether two properties hold values of one type: the same primitive or model type, or structured
 * values made by `$apply` (nested grouping paths) with the same properties, each of one type.
 */
function sameShape(a: Property, b: Property, depth = 0): boolean {
  if (a.collection !== b.collection || a.type.kind !== b.type.kind) return false;
  if (a.type.kind === 'primitive') return a.type.name === (b.type as typeof a.type).name;
  const x = a.type.type;
  const y = (b.type as typeof a.type).type;
  if (x === y || (x.kind !== 'enum' && x.qualifiedName === y.qualifiedName && x.key.length > 0)) return true;
  if (x.kind === 'enum' || y.kind === 'enum' || depth > MAX_APPLY_DEPTH) return false;
  const xs = [...x.properties.values()];
  return (
    xs.length === y.properties.size &&
    xs.every((p) => {
      const q = y.properties.get(p.name);
      return q !== undefined && sameShape(p, q, depth + 1);
    })
  );
}

function typeKey(property: Property): string {
  const type = property.type;
  return type.kind === 'primitive' ? type.name : type.type.qualifiedName;
}

/**
 * Whether `node` has the same value for every row of the collection it is evaluated among: it
 * reads no row, only literals, `$these/aggregate(…)` and `$these/$count`, and functions of them.
 */
function sameForEveryRow(node: BoundExpression): boolean {
  switch (node.kind) {
    case 'aggregateValue':
      return node.collection === undefined;
    case 'path':
    case 'lambda':
    case 'count':
    case 'defined':
    case 'hierarchyTest':
    case 'rollupNode':
      return false;
    default:
      return expressionChildren(node).every(sameForEveryRow);
  }
}

/**
 * Marks the values of `grouped` that hold an entity reached by a single-valued navigation step of
 * the grouping property `key` (`Customer` of `groupby((Customer))` or of
 * `groupby((Customer/ID,Customer/Name))`): those that have its key (see `markMadeEntityAt`).
 */
function markGroupedEntities(grouped: readonly Property[], key: BoundGroupKey): void {
  const names: string[] = [];
  for (const step of key.path.steps) {
    if (step.kind === 'typeCast') continue;
    if (step.kind === 'dynamic') return;
    names.push(step.kind === 'property' ? step.property.name : step.navigation.name);
    if (step.kind === 'navigation' && !step.navigation.collection && step.navigation.target.kind === 'entity') {
      markMadeEntityAt(grouped, names, { type: step.navigation.target, set: step.entitySet });
    }
  }
}
