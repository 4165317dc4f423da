/**
 * The one error type of odata-engine. Every problem with a query (syntax, limits, encoding)
 * surfaces as an {@link ODataError}; nothing else is thrown for bad input.
 */

/** Stable machine-readable error codes. New codes may be added; existing ones never change meaning. */
export type ODataErrorCode =
  /** A token that does not fit the grammar at this place. */
  | 'syntax_error'
  /** The option's text ended where more was expected. */
  | 'unexpected_end'
  /** A literal whose shape is right but whose content is not (month 13, bad base64, Int overflow in `$top`). */
  | 'invalid_literal'
  /** A character sequence that is no token of the language. */
  | 'invalid_token'
  /** A canonical function called with the wrong number of arguments. */
  | 'wrong_arity'
  /** A function name that is neither canonical nor namespace-qualified. */
  | 'unknown_function'
  /** The same system query option twice (ignoring case and `$`). */
  | 'duplicate_option'
  /** A `$`-prefixed option that OData does not define. */
  | 'unknown_option'
  /** An OData option this engine recognises but does not implement (`$id`, `$index`). */
  | 'unsupported_option'
  /** An option value that is not allowed for that option (`$count=yes`, `$top=-1`, empty `$filter`). */
  | 'invalid_option_value'
  /** A nested option that is not allowed in its place (e.g. `$levels` after `/$ref`). */
  | 'invalid_nested_option'
  /** A percent-encoding that cannot be decoded. */
  | 'malformed_encoding'
  /** The input is longer than the configured `maxLength`. */
  | 'input_too_long'
  /** Parentheses, brackets or braces nested deeper than the configured `maxDepth`. */
  | 'too_deep'
  // ---- binding: the query against the model ----
  /** A name that is not a property, navigation property or lambda variable of the type. */
  | 'unknown_property'
  /** A type name (in `cast`, `isof`, an enum literal or a type-cast segment) the model does not have. */
  | 'unknown_type'
  /** Operands or arguments whose types do not fit the operator or function. */
  | 'type_mismatch'
  /** A construct the binder does not support (bound functions, `$root`, annotations, …). */
  | 'unsupported_feature'
  /** A `$compute` alias that names a property of the type, or another computed property of the same `$compute`. */
  | 'alias_conflict'
  /** A property the model marks not filterable, used in `$filter`. */
  | 'not_filterable'
  /** A property the model marks not sortable, used in `$orderby`. */
  | 'not_sortable'
  /** A property the model marks not selectable, used in `$select`. */
  | 'not_selectable'
  /** A navigation property the model marks not expandable, used in `$expand`. */
  | 'not_expandable'
  /** `$count` on a set or property the model marks not countable. */
  | 'not_countable'
  /** A query option the entity set does not support (`$search`, `$top`, `$skip`, …). */
  | 'query_option_not_supported'
  /** A query option, function or operator the settings do not allow. */
  | 'not_allowed'
  /** `$top` above the maximum. */
  | 'top_limit_exceeded'
  /** `$skip` above the maximum. */
  | 'skip_limit_exceeded'
  /** `$expand` nested deeper than `maxExpansionDepth`. */
  | 'expansion_depth_exceeded'
  /** More nodes in an expression than `maxNodeCount` (every segment of a path counts). */
  | 'node_count_exceeded'
  /** A Decimal literal with more digits than `maxDecimalDigits`. */
  | 'literal_too_long'
  /** A literal argument the operation rejects: a negative substring length (URL 5.1.1.5.7), a zero divisor of integer or Decimal `div`/`divby` or of `mod` (URL 5.1.1.2.5-6). */
  | 'invalid_argument'
  /** `any`/`all` nested deeper than `maxAnyAllExpressionDepth`. */
  | 'any_all_depth_exceeded'
  /** More `$orderby` clauses than `maxOrderByNodeCount`. */
  | 'orderby_clause_limit_exceeded'
  /** Function calls nested deeper than `maxFunctionCallDepth`. */
  | 'function_call_depth_exceeded'
  /** `$apply` whose `concat` transformations can multiply the rows more than `maxApplyFanOut` times. */
  | 'apply_fan_out_exceeded'
  /** `$crossjoin(…)` of sets whose rows make more combinations than `maxCrossJoinRows`. */
  | 'crossjoin_limit_exceeded'
  /**
   * A query whose compiled form (a SQL statement's length or parameter count) would pass the
   * backend's bound (`maxStatementLength`, the dialect's `maxParameters`).
   */
  | 'query_too_complex'
  /** A resource path segment that names nothing the model has there: an entity set, a property, a key, a type (status 404). */
  | 'resource_not_found'
  /** A request this service parses but does not serve (an action, a function, `$crossjoin`; status 501). */
  | 'not_implemented'
  /** A method the service does not allow on the resource (a write to a read-only service; status 405). */
  | 'method_not_allowed'
  /** The data source failed or did not answer in time (status 503): not the client's mistake. */
  | 'service_unavailable'
  /** The entity set named in the bind settings does not exist (a programming error: status 500). */
  | 'unknown_entity_set'
  /** The model itself is inconsistent (a programming error: status 500). */
  | 'invalid_model'
  /** A database result that cannot be read as the query's types (a storage or programming error: status 500). */
  | 'invalid_result'
  // ---- requests: headers and formats ----
  /**
   * No format the service can send is acceptable to the client (`Accept`, `$format`,
   * `Accept-Charset`, unknown format parameters): status 406 (PROT §7, §8.2.1, §9.2.3).
   */
  | 'not_acceptable'
  /** An `OData-Version` the service cannot read, or an `OData-MaxVersion` below 4.0 or malformed: status 400. */
  | 'unsupported_version';

/** Where in the request an error was found. */
export interface ODataErrorInit {
  readonly code: ODataErrorCode;
  /** What is wrong, without the location: the location is appended from `position` and `option`. */
  readonly reason: string;
  /** HTTP status; 400 unless stated. */
  readonly status?: number;
  /** The query option in which the error was found, e.g. `$filter`. */
  readonly option?: string;
  /** Zero-based offset into the (percent-decoded) option value. */
  readonly position?: number;
  /** Further independent problems, as in the OData error body's `details`. */
  readonly details?: readonly ODataErrorDetail[];
  /**
   * Append " at position N in $option" to the message (default `true`, for syntax errors).
   * Binding errors keep OData.net's exact wording and carry the location in `position` only.
   */
  readonly appendLocation?: boolean;
}

/** One entry of the OData error body's `details` array. */
export interface ODataErrorDetail {
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

/** The OData JSON error body (OData JSON Format 4.01 section 21.1). */
export interface ODataErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly target?: string;
    readonly details: readonly ODataErrorDetail[];
    readonly innererror?: { readonly position: number };
  };
}

/**
 * An error in an OData request, carrying a stable {@link ODataErrorCode}, an HTTP status,
 * the option and the position where it was found, and {@link ODataError.toJSON} for the OData
 * JSON error body.
 *
 * @example
 * ```ts
 * try { parseFilter('Name eq'); } catch (e) {
 *   if (e instanceof ODataError) res.status(e.status).json(e.toJSON());
 * }
 * ```
 */
export class ODataError extends Error {
  override readonly name = 'ODataError';
  readonly code: ODataErrorCode;
  readonly status: number;
  readonly option: string | undefined;
  readonly position: number | undefined;
  readonly details: readonly ODataErrorDetail[];
  /** The message without its location suffix. */
  readonly reason: string;

  /** Whether the message ends with the location (see {@link ODataErrorInit.appendLocation}). */
  readonly appendLocation: boolean;

  constructor(init: ODataErrorInit) {
    const appendLocation = init.appendLocation ?? true;
    super(appendLocation ? init.reason + describeWhere(init.position, init.option) : init.reason);
    this.reason = init.reason;
    this.appendLocation = appendLocation;
    this.code = init.code;
    this.status = init.status ?? 400;
    this.option = init.option;
    this.position = init.position;
    this.details = init.details ?? [];
  }

  /** The OData JSON error body: `{"error":{"code","message","target","details"}}`. */
  toJSON(): ODataErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.option === undefined ? {} : { target: this.option }),
        details: this.details,
        ...(this.position === undefined ? {} : { innererror: { position: this.position } }),
      },
    };
  }

  /** A copy of this error placed in `option`, with `offset` added to its position. */
  relocate(option: string | undefined, offset = 0): ODataError {
    const position = this.position === undefined ? undefined : this.position + offset;
    return new ODataError({
      code: this.code,
      status: this.status,
      reason: this.reason,
      appendLocation: this.appendLocation,
      ...(option === undefined ? {} : { option }),
      ...(position === undefined ? {} : { position }),
      details: this.details,
    });
  }
}

/** `" at position 7 in $filter"`, or the parts of it that are known. */
export function describeWhere(position: number | undefined, option: string | undefined): string {
  return (position === undefined ? '' : ` at position ${position}`) + (option === undefined ? '' : ` in ${option}`);
}
