/**
 * Bind settings: the model and entity set, and the validation limits of ASP.NET Core OData's
 * `ODataValidationSettings`, with the same names (camelCased) and defaults.
 */
import { ODataError } from '../errors/odata-error.js';
import type { Model } from '../model/model.js';
import type { ArithmeticOperator, CanonicalFunctionName, ComparisonOperator, LogicalOperator } from '../syntax/ast.js';
import type { ParseQueryOptions } from '../syntax/query-string.js';
import type { CustomAggregateDefinitions, CustomAggregationMethods } from './apply/custom-aggregate-settings.js';
import type { CustomTransformations } from './apply/custom-transformation-settings.js';

/** System query options that settings can allow or forbid. */
export type QueryOptionName = 'filter' | 'orderby' | 'select' | 'expand' | 'top' | 'skip' | 'count' | 'search' | 'compute' | 'apply';

/** Operators of `$filter` other than arithmetic. */
export type LogicalOperatorName = LogicalOperator | ComparisonOperator | 'not' | 'has' | 'in';

export interface ValidationSettings {
  /** The host-wide maximum `$top` (default 10 000). An entity set's own `maxTop` lowers it. */
  readonly maxTop?: number;
  /** Maximum `$skip` (default: none). */
  readonly maxSkip?: number;
  /** Maximum `$expand` depth, `$levels` included (default 2). */
  readonly maxExpansionDepth?: number;
  /** Maximum number of nodes in one `$filter` expression (default 100); every segment of a path counts. */
  readonly maxNodeCount?: number;
  /** Maximum number of digits of one Decimal literal (default 64). */
  readonly maxDecimalDigits?: number;
  /** Maximum nesting of `any`/`all` (default 1). */
  readonly maxAnyAllExpressionDepth?: number;
  /** Maximum number of `$orderby` clauses (default 5). */
  readonly maxOrderByNodeCount?: number;
  /** Maximum nesting of function calls (default 15). */
  readonly maxFunctionCallDepth?: number;
  /**
   * Maximum fan-out of `$apply` (default 16): how many times the rows of the entity set its
   * transformations can multiply to, `concat` giving the sum of its branches' rows, chained and
   * nested ones multiplying (see `applyFanOut`).
   */
  readonly maxApplyFanOut?: number;
  /**
   * The most combinations `$crossjoin(…)` may consider (default 1 000 000): the product of the
   * numbers of rows of its entity sets (after the service's scope). Past it the request is
   * refused (`crossjoin_limit_exceeded`) before any row is joined, whatever its `$filter` or `$top`.
   */
  readonly maxCrossJoinRows?: number;
  /**
   * Canonical functions allowed in expressions (default all), and the lambda operators `any` and
   * `all` (as ASP.NET Core OData's `AllowedFunctions` lists them): a list without `any` refuses
   * `tags/any(…)`.
   */
  readonly allowedFunctions?: 'all' | readonly (CanonicalFunctionName | 'any' | 'all')[];
  /** Arithmetic operators allowed (default all). */
  readonly allowedArithmeticOperators?: 'all' | readonly ArithmeticOperator[];
  /** Logical and comparison operators allowed (default all). */
  readonly allowedLogicalOperators?: 'all' | readonly LogicalOperatorName[];
  /** Query options allowed (default all). */
  readonly allowedQueryOptions?: 'all' | readonly QueryOptionName[];
  /** Match property names case-insensitively (default `false`: names are case-sensitive). */
  readonly caseInsensitive?: boolean;
}

export interface BindSettings extends ValidationSettings {
  readonly model: Model;
  /** The entity set the query is for. */
  readonly entitySet: string;
  /** How to parse the query when it is given as a string. */
  readonly parse?: ParseQueryOptions;
  /**
   * How the custom aggregates the model declares (`Aggregation.CustomAggregate`) are computed:
   * each an aggregate expression over standard methods (`{ Forecast: 'Amount mul 1.1 with sum' }`).
   * A declared one without a definition is refused with status 501. See docs/aggregation.md.
   */
  readonly customAggregates?: CustomAggregateDefinitions;
  /** The custom aggregation methods of `$apply` (`Amount with Custom.concat as Names`), by qualified name. See docs/aggregation.md. */
  readonly customAggregationMethods?: CustomAggregationMethods;
  /**
   * Custom transformations of `$apply` (service-defined functions used as transformations,
   * `Self.TopCountAndRemainder(Count=1,Property='Total')`), by the name requests use. Others are
   * refused with `unsupported_feature`. See docs/aggregation.md.
   */
  readonly customTransformations?: CustomTransformations;
  /**
   * For a service that pages its results (`createODataHandler`): the `$expand` depth of the
   * options it added its own `$top` (a page and one more), `$skip` (the page's offset) and key
   * `$orderby` to (0 for the request's, `n` where a resource path's `n` navigation steps nest
   * them). Those three are not checked there against the set's capabilities, the host's limits
   * or `allowedQueryOptions`: the service checks what the client wrote before it adds them.
   */
  readonly pagedByService?: number;
}

export const DEFAULT_MAX_TOP = 10_000;

/** Digits a Decimal literal may have by default: more than any engine's decimal keeps (PostgreSQL aside). */
export const DEFAULT_MAX_DECIMAL_DIGITS = 64;

/** How many times the entity set's rows `$apply` may multiply to by default (`concat`). */
export const DEFAULT_MAX_APPLY_FAN_OUT = 16;

/** How many combinations of rows `$crossjoin(…)` may consider by default. */
export const DEFAULT_MAX_CROSS_JOIN_ROWS = 1_000_000;

export interface ResolvedSettings {
  readonly maxTop: number;
  readonly maxSkip: number | undefined;
  readonly maxExpansionDepth: number;
  readonly maxNodeCount: number;
  readonly maxDecimalDigits: number;
  readonly maxAnyAllExpressionDepth: number;
  readonly maxOrderByNodeCount: number;
  readonly maxFunctionCallDepth: number;
  readonly maxApplyFanOut: number;
  readonly maxCrossJoinRows: number;
  readonly allowedFunctions: ReadonlySet<string> | undefined;
  readonly allowedArithmeticOperators: ReadonlySet<string> | undefined;
  readonly allowedLogicalOperators: ReadonlySet<string> | undefined;
  readonly allowedQueryOptions: ReadonlySet<string> | undefined;
  readonly caseInsensitive: boolean;
  readonly customAggregates: CustomAggregateDefinitions | undefined;
  readonly customAggregationMethods: CustomAggregationMethods | undefined;
  readonly customTransformations: CustomTransformations | undefined;
  readonly pagedByService: number | undefined;
}

const allowSet = (value: 'all' | readonly string[] | undefined): ReadonlySet<string> | undefined =>
  value === undefined || value === 'all' ? undefined : new Set(value);

export function resolveSettings(
  settings: ValidationSettings & Pick<BindSettings, 'customAggregates' | 'customAggregationMethods' | 'customTransformations' | 'pagedByService'>,
): ResolvedSettings {
  return {
    maxTop: settings.maxTop ?? DEFAULT_MAX_TOP,
    maxSkip: settings.maxSkip,
    maxExpansionDepth: settings.maxExpansionDepth ?? 2,
    maxNodeCount: settings.maxNodeCount ?? 100,
    maxDecimalDigits: settings.maxDecimalDigits ?? DEFAULT_MAX_DECIMAL_DIGITS,
    maxAnyAllExpressionDepth: settings.maxAnyAllExpressionDepth ?? 1,
    maxOrderByNodeCount: settings.maxOrderByNodeCount ?? 5,
    maxFunctionCallDepth: settings.maxFunctionCallDepth ?? 15,
    maxApplyFanOut: settings.maxApplyFanOut ?? DEFAULT_MAX_APPLY_FAN_OUT,
    maxCrossJoinRows: settings.maxCrossJoinRows ?? DEFAULT_MAX_CROSS_JOIN_ROWS,
    allowedFunctions: allowSet(settings.allowedFunctions),
    allowedArithmeticOperators: allowSet(settings.allowedArithmeticOperators),
    allowedLogicalOperators: allowSet(settings.allowedLogicalOperators),
    allowedQueryOptions: allowSet(settings.allowedQueryOptions),
    caseInsensitive: settings.caseInsensitive ?? false,
    customAggregates: settings.customAggregates,
    customAggregationMethods: settings.customAggregationMethods,
    customTransformations: settings.customTransformations,
    pagedByService: settings.pagedByService,
  };
}

/** Option names as ASP.NET's `AllowedQueryOptions` enum renders them in messages. */
const OPTION_ENUM_NAMES: Readonly<Record<QueryOptionName, string>> = {
  filter: 'Filter',
  orderby: 'OrderBy',
  select: 'Select',
  expand: 'Expand',
  top: 'Top',
  skip: 'Skip',
  count: 'Count',
  search: 'Search',
  compute: 'Compute',
  apply: 'Apply',
};

/** The error for a query option that `allowedQueryOptions` leaves out. */
export function notAllowed(name: QueryOptionName): ODataError {
  return new ODataError({
    code: 'not_allowed',
    reason: `Query option '${OPTION_ENUM_NAMES[name]}' is not allowed. To allow it, set the 'allowedQueryOptions' setting.`,
    status: 400,
    appendLocation: false,
    option: `$${name}`,
  });
}

/** The error for settings whose `entitySet` the model does not have (the server's mistake: 500). */
export function unknownEntitySet(name: string): ODataError {
  return new ODataError({ code: 'unknown_entity_set', reason: `The model has no entity set named '${name}'`, status: 500, appendLocation: false });
}
