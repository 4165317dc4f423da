/**
 * Binds `$apply` (OData Extension for Data Aggregation 4.0): each transformation against the type
 * of the rows the previous one gives, with the output type of each (see `output-type.ts`), so that
 * later transformations and the request's other options are type-checked against what they see.
 * `rollup(…)` in a `groupby` list becomes the grouping sets of the bound `groupby`. What the
 * engine does not evaluate (`join`, `nest`, `rolluprecursive`, custom aggregates and functions, `from`)
 * is refused with its position as an `unsupported_feature` error.
 */
import { ODataError, type ODataErrorCode } from '../../errors/odata-error.js';
import type { Capabilities, EntitySet, Property, StructuredType } from '../../model/model.js';
import { navigationTarget } from '../../model/navigation.js';
import type { AggregateItem, ApplyTransformation, Expression, MemberPath, Span } from '../../syntax/ast.js';
import { bindSearch } from '../bind-search.js';
import type {
  BoundAggregate,
  BoundFromStep,
  BoundApply,
  BoundGroupKey,
  BoundPath,
  BoundPathStep,
  BoundTransformation,
  RankDirection,
  RankMeasure,
} from '../bound-ast.js';
import { registerAggregateBinder, type ExpressionBinder, type Purpose } from '../bind-expression.js';
import type { ResolvedSettings } from '../settings.js';
import { INT64, fromReference, isIntegerType, isNumeric, isOrderable, typeName, type ExpressionType } from '../types.js';
import { aggregateType } from './aggregate-types.js';
import { readDynamicAs } from '../dynamic-values.js';
import { applyFanOut } from './fan-out.js';
import { bindHierarchical } from './bind-hierarchy.js';
import { extendedType, nestedProperties, outputProperty, outputType, referenceOf } from './output-type.js';

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

/** The rows a transformation reads: their type, and their entity set while they are still its entities. */
export interface Input {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
  readonly capabilities: Capabilities | undefined;
  readonly entity: boolean;
}

/** What the apply binder needs of the query binder. */
export interface ApplyContext {
  readonly settings: ResolvedSettings;
  readonly option: string;
  readonly model: import('../../model/model.js').Model;
  /** An expression binder for rows of `input` (a fresh one per expression: it counts nodes). */
  binder(input: Input, purpose: Purpose): ExpressionBinder;
}

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

class ApplyBinder {
  private nodes = 0;

  constructor(readonly context: ApplyContext) {}

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
        const predicate = this.context.binder(input, 'filter').bind(node.expression, true);
        return same({ kind: 'filter', predicate, output: input.type, span });
      }
      case 'search':
        if (!input.entity) this.fail('type_mismatch', `search() needs the entities of the set; after an aggregation there are none`, span);
        if (input.capabilities !== undefined && !input.capabilities.searchable)
          this.fail('query_option_not_supported', `search() is not supported by the entity set '${input.set?.name ?? input.type.name}'.`, span);
        return same({ kind: 'search', search: bindSearch(node.search, input.type), output: input.type, span });
      case 'orderby': {
        const items = node.items.map((item) => {
          const expression = this.context.binder(input, 'orderby').bind(item.expression, false);
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
            if (known !== undefined && JSON.stringify(typeKey(known)) !== JSON.stringify(typeKey(property))) {
              this.fail('type_mismatch', `concat() gives the property '${property.name}' two types: '${typeKey(known)}' and '${typeKey(property)}'`, span);
            }
            properties.set(property.name, property);
          }
        }
        const entity = results.every(([, output]) => output.entity && output.type === input.type);
        const type = entity ? input.type : outputType(`${input.type.name}.concat`, [...properties.values()]);
        return [
          { kind: 'concat', branches: results.map(([b]) => b), output: type, span },
          entity ? input : { type, set: undefined, capabilities: undefined, entity: false },
        ];
      }
      case 'ancestors':
      case 'descendants':
      case 'traverse':
        if (depth >= MAX_APPLY_DEPTH) this.fail('too_deep', `$apply is nested more than ${MAX_APPLY_DEPTH} levels deep`, span);
        return same(bindHierarchical(node, input, depth, this));
      case 'other':
        return this.unsupported(`The transformation '${node.name}'`, span);
      default:
        return same(this.rank(node, input));
    }
  }

  /** `topcount` … `bottomsum`: one `rank` node (see {@link RANKINGS}). */
  private rank(node: RankingNode, input: Input): BoundTransformation {
    const { measure, direction } = RANKINGS[node.kind];
    const limitExpression = this.context.binder(input, 'filter').bind(node.limit, false);
    const literal = limitExpression.kind === 'literal' ? limitExpression.value : null;
    const limit = typeof literal === 'number' || typeof literal === 'bigint' || typeof literal === 'string' ? Number(literal) : Number.NaN;
    const counted = measure === 'count';
    if (!Number.isFinite(limit) || (counted && (!isIntegerType(limitExpression.type) || limit < 0)) || (measure === 'percent' && (limit < 0 || limit > 100))) {
      const wanted = counted ? 'a non-negative integer' : measure === 'percent' ? 'a number from 0 to 100' : 'a number';
      this.fail('invalid_option_value', `The first argument of ${node.kind}() must be ${wanted} literal`, node.limit.span);
    }
    const value = this.context.binder(input, 'orderby').bind(node.value, false);
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
      const expression = this.context.binder(input, 'filter').bind(item.expression, false);
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
    const base = this.plainAggregate(item, input);
    if (item.from === undefined || item.from.length === 0) return base;
    // `A from P with g`: per group of P the aggregate, then g over those values (3.2.1.5).
    let type = base.type;
    const from = item.from.map((step) => {
      this.count(step.span);
      const method = step.method ?? this.fail('syntax_error', `'from' needs 'with' and an aggregation method`, step.span);
      if (typeof method === 'object') this.unsupported(`The custom aggregation method '${method.custom}'`, step.span);
      const keys = step.properties.flatMap((path) => this.groupKeys(path, input));
      const result = aggregateType(method, type);
      if (typeof result === 'string')
        this.fail('type_mismatch', `${result}, but '${item.alias ?? ''}' aggregates a value of type '${typeName(type)}' with it.`, step.span);
      const bound: BoundFromStep = { keys, method, input: type, type: result, span: step.span };
      type = result;
      return bound;
    });
    return { ...base, type, from };
  }

  /** An aggregate expression without its `from` steps. */
  private plainAggregate(item: AggregateItem, input: Input): BoundAggregate {
    this.count(item.span);
    const span = item.span;
    if (item.custom !== undefined) this.unsupported(`The custom aggregate '${item.custom}'`, span);
    if (typeof item.method === 'object') this.unsupported(`The custom aggregation method '${item.method.custom}'`, span);
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
      if (prefix.rest.length === 0) this.fail('type_mismatch', `An aggregated path must end with a property of the related entities`, expression.span);
      const target = prefix.target;
      const rest: MemberPath = {
        kind: 'path',
        head: { kind: 'implicit' },
        segments: prefix.rest,
        span: { start: prefix.rest[0]?.span.start ?? expression.span.start, end: expression.span.end },
      };
      value = this.context.binder({ type: target.type, set: target.set, capabilities: target.set?.capabilities, entity: true }, 'filter').bind(rest, false);
    } else {
      value = this.context.binder(input, 'filter').bind(expression, false);
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
    for (const property of node.properties) {
      this.count(property.span);
      // The indices into `keys` of one grouping path (several for an entity or complex value).
      const add = (path: MemberPath): number[] => this.groupKeys(path, input).map((key) => keys.push(key) - 1);
      if (property.kind !== 'rollup') {
        levels.push([add(property)]);
        continue;
      }
      if (property.recursive) this.unsupported(`rolluprecursive()`, property.span);
      if (property.properties.length < 2) this.unsupported(`rollup() of a leveled hierarchy`, property.span);
      const indices = property.properties.map((path) => {
        this.count(path.span);
        return add(path);
      });
      // rollup(A,B,C): (A,B,C), (A,B), (A) (Data Aggregation CS04 3.2.3.2: no level without A).
      levels.push(indices.map((_, n) => indices.slice(0, indices.length - n).flat()));
    }
    const rollup = node.properties.find((p) => p.kind === 'rollup');
    const sets = rollup === undefined ? undefined : this.groupingSets(levels, rollup.span);
    const seen = new Set<string>();
    for (const key of keys) {
      const name = key.names.join('/');
      if (seen.has(name)) this.fail('invalid_option_value', `The grouping property '${name}' is listed more than once`, key.span);
      seen.add(name);
    }
    const [apply, after] = node.apply.length === 0 ? [[], undefined] : this.pipeline(node.apply, input, depth + 1);
    const grouped = nestedProperties(
      keys.map((key) => ({ names: key.names, leaf: referenceOf(key.path.type) as never })),
      `${input.type.name}.groupby`,
    );
    const added = after === undefined ? [] : [...after.type.properties.values()];
    for (const property of added) {
      if (grouped.some((g) => g.name === property.name))
        this.fail('invalid_option_value', `The alias '${property.name}' is also a grouping property`, node.span);
    }
    // Nested transformations must end in one row per group (an aggregate): other outputs are no values of a group.
    if (after !== undefined && (after.entity || apply.at(-1)?.kind !== 'aggregate')) {
      this.unsupported(`A groupby() whose nested transformations do not end with aggregate()`, node.apply[0]?.span ?? node.span);
    }
    const type = outputType(`${input.type.name}.groupby`, [...grouped, ...added]);
    return [
      { kind: 'groupby', keys, ...(sets === undefined ? {} : { sets }), apply, output: type, span: node.span },
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
    const bound = this.context.binder(input, 'filter').bind(path, false);
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

function typeKey(property: Property): string {
  const type = property.type;
  return type.kind === 'primitive' ? type.name : type.type.qualifiedName;
}
