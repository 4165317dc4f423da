/**
 * Custom aggregates and custom aggregation methods in `$apply` (OData Data Aggregation 4.0,
 * sections 3.1.3 and 6.2): the host's definitions (`BindSettings.customAggregates` and
 * `customAggregationMethods`) and their binding.
 *
 * The model declares a custom aggregate (`Aggregation.CustomAggregate#Forecast` of type
 * `Edm.Decimal`, model/custom-aggregates.ts); how it is computed is the service's. The host
 * defines it as an aggregate expression in OData syntax over standard methods
 * (`'Amount mul 1.1 with sum'`, `'$count'`, `'Items/Amount with sum'`,
 * `'Amount with sum from Time with average'`), bound against the rows it aggregates in place of
 * the request's item: the result is an ordinary bound aggregate, which every backend runs.
 *
 * A custom aggregation method (`Amount with Custom.concat as Names`) is either portable, an
 * aggregate expression over `$this`, the aggregated value (`'$this mul $this with sum'`),
 * substituted and bound the same way; or defined per backend (a reducer in memory, an aggregate
 * function template per SQL dialect, an expression over the values' array on MongoDB), bound to a
 * `custom` method that a backend without a definition refuses.
 */
import { ODataError, type ODataErrorCode } from '../../errors/odata-error.js';
import { declaredCustomAggregates, declaredCustomAggregationMethods } from '../../model/custom-aggregates.js';
import { isPrimitiveTypeName, type Capabilities, type EntitySet, type Model, type StructuredType } from '../../model/model.js';
import type { AggregateItem, Expression, Span } from '../../syntax/ast.js';
import { parseApply } from '../../syntax/parse.js';
import type { BoundAggregate, BoundCustomMethod, BoundPath } from '../bound-ast.js';
import { primitive, typeName, type ExpressionType } from '../types.js';
import type { ResolvedSettings } from '../settings.js';
import type { CustomAggregationMethod } from './custom-aggregate-settings.js';

/** The rows an aggregate reads (bind-apply.ts's `Input`). */
interface Input {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
  readonly capabilities: Capabilities | undefined;
  readonly entity: boolean;
}

/** What the binding needs of the apply binder's context (bind-apply.ts's `ApplyContext`). */
interface ApplyContext {
  readonly settings: ResolvedSettings;
  readonly option: string;
  readonly model: Model;
}

/** What the custom aggregates need of the apply binder. */
export interface CustomBinder {
  readonly context: ApplyContext;
  /** Binds an aggregate item with its `from` steps. */
  aggregate(item: AggregateItem, input: Input): BoundAggregate;
  /** The navigation path `expression` is, and the rows it reaches; `undefined` when it is not one. */
  navigation(expression: Expression, input: Input): { readonly path: BoundPath; readonly target: Input } | undefined;
}

/** The alias a definition is bound under (no property can have it). */
const DEFINITION_ALIAS = '~custom';

function fail(context: ApplyContext, code: ODataErrorCode, reason: string, span: Span | undefined, status?: number): never {
  throw new ODataError({
    code,
    reason,
    option: context.option,
    ...(span === undefined ? {} : { position: span.start }),
    ...(status === undefined ? {} : { status }),
    appendLocation: false,
  });
}

/** The one aggregate item of `aggregate(<text> as ~)`, or why the text is none. */
function parseDefinition(text: string): AggregateItem | string {
  let transformations;
  try {
    transformations = parseApply(`aggregate(${text} as odata_custom)`);
  } catch (error) {
    return error instanceof ODataError ? error.reason : 'it does not parse';
  }
  const only = transformations.length === 1 ? transformations[0] : undefined;
  if (only?.kind !== 'aggregate' || only.items.length !== 1) return 'it is not one aggregate expression';
  return only.items[0] as AggregateItem;
}

/** Whether an item of a definition names a custom aggregate or method (definitions do not nest). */
function usesCustom(item: AggregateItem): boolean {
  return item.custom !== undefined || typeof item.method === 'object' || (item.from ?? []).some((step) => typeof step.method === 'object');
}

/** The definition of custom aggregate `name` for rows of `input`, from the settings. */
function definitionOf(context: ApplyContext, name: string, input: Input): string | undefined {
  const definitions = context.settings.customAggregates;
  if (definitions === undefined) return undefined;
  if (typeof definitions === 'function') {
    try {
      return definitions(name, { entitySet: input.set?.name, type: input.type.qualifiedName });
    } catch (error) {
      // The host's code failed: a service error, never another exception.
      if (error instanceof ODataError) throw error;
      const reason = `The service's definition of the custom aggregate '${name}' failed: ${error instanceof Error ? error.message : String(error)}`;
      throw new ODataError({ code: 'invalid_model', status: 500, reason, option: context.option, appendLocation: false });
    }
  }
  return Object.hasOwn(definitions, name) ? definitions[name] : undefined;
}

/**
 * A custom aggregate of the request (`Forecast`, `Sales/Forecast as F`, with `from` steps left to
 * the caller): its definition bound against the rows it aggregates, under the request's alias or
 * its own name (which may be a property's: `aggregate(Amount)`, Data Aggregation example 94).
 */
export function bindCustomAggregate(item: AggregateItem, input: Input, binder: CustomBinder): BoundAggregate {
  const context = binder.context;
  const name = item.custom as string;
  const span = item.span;
  let rows = input;
  let through: BoundPath | undefined;
  if (item.expression !== undefined) {
    const navigation = binder.navigation(item.expression, input);
    if (navigation === undefined)
      fail(context, 'type_mismatch', `The custom aggregate '${name}' must follow a navigation path, not '${pathText(item.expression)}'`, item.expression.span);
    through = navigation.path;
    rows = navigation.target;
  }
  if (!rows.entity)
    fail(
      context,
      'unknown_property',
      `'${name}' is no custom aggregate of rows that are no longer entities; an aggregated property needs 'with' and a method`,
      span,
    );
  const declared = declaredCustomAggregates(context.model, rows.set, rows.type).get(name);
  if (declared === undefined) {
    const property = rows.type.properties.has(name) || rows.type.navigation.has(name);
    fail(
      context,
      'unknown_property',
      property
        ? `'${name}' is a property of '${rows.type.name}', not a custom aggregate: aggregate it with 'with' and a method`
        : `'${name}' is no custom aggregate of '${rows.set?.name ?? rows.type.name}'`,
      span,
    );
  }
  const text = definitionOf(context, name, rows);
  if (text === undefined)
    fail(context, 'not_implemented', `The custom aggregate '${name}' is declared by the model, but this service does not define how to compute it`, span, 501);
  const invalid = (reason: string): never =>
    fail(context, 'invalid_model', `The definition '${text}' of the custom aggregate '${name}' is invalid: ${reason}`, span, 500);
  const parsed = parseDefinition(text);
  if (typeof parsed === 'string') return invalid(parsed);
  if (usesCustom(parsed)) return invalid('a definition may not use a custom aggregate or method');
  if (through !== undefined && parsed.from !== undefined)
    return invalid(`'from' along the navigation path '${pathText(item.expression as Expression)}' is not supported`);
  let bound: BoundAggregate;
  try {
    bound = binder.aggregate({ ...parsed, alias: DEFINITION_ALIAS, span }, rows);
  } catch (error) {
    if (error instanceof ODataError && error.code !== 'node_count_exceeded') return invalid(error.reason);
    throw error;
  }
  const declaredType = isPrimitiveTypeName(declared.type) ? primitive(declared.type) : undefined;
  if (declaredType === undefined) return invalid(`its declared type '${declared.type}' is no primitive type`);
  if (typeName(bound.type) !== declared.type) return invalid(`it gives values of type '${typeName(bound.type)}', the model declares '${declared.type}'`);
  if (through !== undefined) bound = { ...bound, through: bound.through === undefined ? through : joinPaths(through, bound.through) };
  return { ...bound, alias: item.alias ?? name, type: declaredType };
}

/** `a/b` then `c/d`: `a/b/c/d` (a collection if either is). */
function joinPaths(first: BoundPath, second: BoundPath): BoundPath {
  const collection = first.type.kind === 'collection' || second.type.kind === 'collection';
  const element = second.type.kind === 'collection' ? second.type.element : second.type;
  return {
    ...first,
    steps: [...first.steps, ...second.steps],
    type: collection ? { kind: 'collection', element } : element,
    span: { start: first.span.start, end: second.span.end },
  };
}

function pathText(expression: Expression): string {
  return expression.kind === 'path' ? expression.segments.map((s) => ('name' in s ? s.name : s.kind)).join('/') : expression.kind;
}

/** The host's definition of custom method `name`, or the refusal: declared by the model but not defined (501), or unknown (400). */
function methodDefinition(context: ApplyContext, name: string, input: Input, span: Span): CustomAggregationMethod {
  const methods = context.settings.customAggregationMethods;
  const definition = methods !== undefined && Object.hasOwn(methods, name) ? methods[name] : undefined;
  if (definition !== undefined) return definition;
  if (declaredCustomAggregationMethods(context.model, input.set, input.type).has(name))
    fail(context, 'not_implemented', `The custom aggregation method '${name}' is declared by the model, but this service does not define it`, span, 501);
  return fail(context, 'unknown_function', `'${name}' is no aggregation method of this service`, span);
}

/**
 * An item with a portable custom method (`Amount with Custom.sumOfSquares as S`): its definition
 * with the request's value in place of `$this`, the request's alias and `from` steps after the
 * definition's, bound; `undefined` when the item has no custom method or a per-backend one.
 */
export function bindPortableMethod(item: AggregateItem, input: Input, binder: CustomBinder): BoundAggregate | undefined {
  const method = item.method;
  if (typeof method !== 'object' || item.expression === undefined) return undefined;
  const context = binder.context;
  const definition = methodDefinition(context, method.custom, input, item.span);
  if (definition.expression === undefined) return undefined;
  const text = definition.expression;
  const parsed = parseDefinition(text);
  const invalid = (reason: string): never =>
    fail(context, 'invalid_model', `The definition '${text}' of the custom aggregation method '${method.custom}' is invalid: ${reason}`, item.span, 500);
  if (typeof parsed === 'string') return invalid(parsed);
  if (usesCustom(parsed) || parsed.expression === undefined || parsed.count === true)
    return invalid(`it must aggregate an expression over $this with a standard method`);
  const value = item.expression;
  const substituted = substitute(parsed.expression, value) as Expression;
  const rewritten: AggregateItem = {
    ...parsed,
    expression: substituted,
    ...(item.alias === undefined ? {} : { alias: item.alias }),
    ...(parsed.from === undefined && item.from === undefined ? {} : { from: [...(parsed.from ?? []), ...(item.from ?? [])] }),
    span: item.span,
  };
  try {
    return binder.aggregate(rewritten, input);
  } catch (error) {
    if (!(error instanceof ODataError) || error.code === 'node_count_exceeded') throw error;
    return fail(
      context,
      error.code,
      `The custom aggregation method '${method.custom}' (${text}) cannot aggregate this value: ${error.reason}`,
      item.span,
      error.status,
    );
  }
}

/** A copy of `node` with `value` in place of each `$this` path without segments (every node of a definition is copied). */
function substitute(node: unknown, value: Expression): unknown {
  if (Array.isArray(node)) return node.map((child) => substitute(child, value));
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  if (record.kind === 'path' && (record.head as { kind?: string } | undefined)?.kind === '$this' && (record.segments as unknown[]).length === 0) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(record)) copy[key] = key === 'span' ? child : substitute(child, value);
  return copy;
}

/**
 * A per-backend custom method (`Product/Name with Custom.concat`) over values of type `input`:
 * the bound method and its result type, or why it does not apply (a type it does not take, a
 * portable method in a `from` step).
 */
export function bindCustomMethod(
  name: string,
  valueType: ExpressionType,
  input: Input,
  span: Span,
  context: ApplyContext,
): { readonly method: BoundCustomMethod; readonly type: ExpressionType } {
  const definition = methodDefinition(context, name, input, span);
  if (definition.expression !== undefined)
    fail(context, 'unsupported_feature', `The portable custom aggregation method '${name}' is not supported in a 'from' step`, span);
  if (definition.type === undefined) fail(context, 'invalid_model', `The custom aggregation method '${name}' has neither an expression nor a type`, span, 500);
  if (valueType.kind !== 'primitive' || (definition.inputTypes !== undefined && !definition.inputTypes.includes(valueType.name))) {
    const wanted = definition.inputTypes === undefined ? 'primitive values' : `values of type ${definition.inputTypes.join(', ')}`;
    fail(context, 'type_mismatch', `The custom aggregation method '${name}' aggregates ${wanted}, not '${typeName(valueType)}'`, span);
  }
  const type = definition.type === 'input' ? valueType : primitive(definition.type);
  return { method: { kind: 'custom', name, definition }, type };
}
