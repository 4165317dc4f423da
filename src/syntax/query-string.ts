/**
 * The query-string entry point (URL Conventions 2.1): split the raw string on `&`, each part on
 * its first `=`, percent-decode name and value exactly once, then parse each system option.
 *
 * `+` is a literal plus sign by default, as OData's ABNF says (`SIGN = "+" / "%2B" / "-"`), so
 * `2012-09-03T14:53+02:00` keeps its offset. Clients that form-encode spaces as `+` can pass
 * `plusAsSpace: true`; they must then send a literal plus as `%2B`. A `URLSearchParams` has
 * already been decoded by the platform (with `+` as space) and is taken as it is.
 */
import { ODataError } from '../errors/odata-error.js';
import { createRecord } from '../util/record.js';
import type { Expression, ODataQuery } from './ast.js';
import { decodeCount } from './builders.js';
import {
  emptyValue,
  parseAliasValue,
  parseApply,
  parseCompute,
  parseExpand,
  parseFilter,
  parseOrderBy,
  parseSearch,
  parseSelect,
  type ParseOptions,
} from './parse.js';

/** Options of {@link parseQuery}. */
export interface ParseQueryOptions extends ParseOptions {
  /** Decode `+` as a space (form encoding). Default `false`: `+` is a literal plus. */
  readonly plusAsSpace?: boolean;
  /**
   * Keep `$id` (`id` in OData 4.01) in `passthrough` instead of refusing it: a service that serves
   * `$entity?$id=…` and `…/$ref?$id=…` checks it against the resource path (`checkResourceQuery`).
   */
  readonly allowId?: boolean;
}

/** System query options this engine parses, by their canonical lower-case name without `$`. */
const PARSED_OPTIONS = ['filter', 'orderby', 'select', 'expand', 'top', 'skip', 'count', 'search', 'compute', 'apply'] as const;
/** Recognised options that are passed on without interpretation. */
const PASSTHROUGH_OPTIONS = ['format', 'skiptoken', 'deltatoken', 'schemaversion'] as const;
/** Recognised OData options this engine does not implement. */
const UNSUPPORTED_OPTIONS = ['id', 'index', 'levels'] as const;

type ParsedOption = (typeof PARSED_OPTIONS)[number];

const PARSED = new Set<string>(PARSED_OPTIONS);
const PASSTHROUGH = new Set<string>(PASSTHROUGH_OPTIONS);
const UNSUPPORTED = new Set<string>(UNSUPPORTED_OPTIONS);

interface RawOption {
  /** The name as written (decoded), for messages. */
  readonly name: string;
  /** The decoded value, or `undefined` when the part had no `=`. */
  readonly value: string | undefined;
  /** Whether a `+` of the value was decoded as a space (`plusAsSpace`). */
  readonly plusDecoded?: boolean;
}

/** The hint an error in a value gets where a `+` was read as a space. */
const PLUS_AS_SPACE_HINT = "('+' in the query string is a space here: send a plus sign as '%2B')";

/** `error` with a hint after its reason (same code, status, option and position). */
function hinted(error: ODataError, hint: string): ODataError {
  return new ODataError({
    code: error.code,
    status: error.status,
    reason: `${error.reason} ${hint}`,
    ...(error.option === undefined ? {} : { option: error.option }),
    ...(error.position === undefined ? {} : { position: error.position }),
    details: error.details,
    appendLocation: error.appendLocation,
  });
}

function decode(text: string, plusAsSpace: boolean, what: string): string {
  const source = plusAsSpace ? text.replaceAll('+', ' ') : text;
  try {
    return decodeURIComponent(source);
  } catch {
    const bad = /%(?![0-9A-Fa-f]{2})/.exec(source);
    throw new ODataError({
      code: 'malformed_encoding',
      reason: `Malformed percent-encoding in ${what}`,
      ...(bad ? { position: bad.index } : {}),
    });
  }
}

/**
 * A top-level `$search` must not contain an unencoded `;` outside a quoted phrase (ABNF
 * `searchChar`); after decoding, `%3B` is an ordinary character of a search word.
 */
function checkRawSearch(name: string, rawValue: string | undefined): void {
  if (rawValue === undefined || (name.startsWith('$') ? name.slice(1) : name).toLowerCase() !== 'search') return;
  let quote: string | undefined;
  for (let i = 0; i < rawValue.length; i++) {
    const char = rawValue[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === ';') {
      throw new ODataError({ code: 'invalid_token', reason: `Unencoded ';' in $search (send it as %3B)`, option: name, position: i });
    }
  }
}

/** One `name=value` part of a query string, as written (not decoded), with its offsets. */
export interface QueryStringPart {
  /** The part as written (`name=value`). */
  readonly text: string;
  /** Offset of the part in the query string (a leading `?` counts). */
  readonly offset: number;
  readonly rawName: string;
  /** The value as written, or `undefined` when the part has no `=`. */
  readonly rawValue: string | undefined;
  /** Offset of the value in the query string (the end of the part when it has no `=`). */
  readonly valueOffset: number;
}

/**
 * Splits a query string (with or without a leading `?`) at `&` into its non-empty parts, each
 * at the first `=`: the one splitting rule of `parseQuery`, `validateQuery` and the CLI.
 */
export function splitQueryString(query: string): QueryStringPart[] {
  const start = query.startsWith('?') ? 1 : 0;
  const parts: QueryStringPart[] = [];
  let offset = start;
  for (const text of query.slice(start).split('&')) {
    if (text !== '') {
      const equals = text.indexOf('=');
      parts.push({
        text,
        offset,
        rawName: equals < 0 ? text : text.slice(0, equals),
        rawValue: equals < 0 ? undefined : text.slice(equals + 1),
        valueOffset: offset + (equals < 0 ? text.length : equals + 1),
      });
    }
    offset += text.length + 1;
  }
  return parts;
}

function splitQuery(query: string, plusAsSpace: boolean): RawOption[] {
  const text = query.startsWith('?') ? query.slice(1) : query;
  const hash = text.indexOf('#');
  if (hash >= 0) {
    throw new ODataError({ code: 'malformed_encoding', reason: `Unencoded '#' in the query string (send it as %23)`, position: hash });
  }
  const options: RawOption[] = [];
  for (const { rawName, rawValue } of splitQueryString(text)) {
    const name = decode(rawName, plusAsSpace, `the option name '${rawName}'`);
    checkRawSearch(name, rawValue);
    const value = rawValue === undefined ? undefined : decode(rawValue, plusAsSpace, `the value of ${name}`);
    options.push({ name, value, plusDecoded: plusAsSpace && rawValue !== undefined && rawValue.includes('+') });
  }
  return options;
}

/**
 * Parses a whole query string (`$filter=…&$top=10`, with or without a leading `?`) or a
 * `URLSearchParams`. System option names are case-insensitive and the `$` is optional (4.01).
 *
 * @throws {ODataError} on a syntax error, a duplicate or unknown `$`-option, an invalid value.
 * @example
 * ```ts
 * const q = parseQuery("$filter=Price gt 5&$orderby=Name desc&$top=10");
 * q.top; // 10
 * ```
 */
export function parseQuery(query: string | URLSearchParams, options: ParseQueryOptions = {}): ODataQuery {
  const raw: RawOption[] =
    typeof query === 'string' ? splitQuery(query, options.plusAsSpace ?? false) : [...query.entries()].map(([name, value]) => ({ name, value }));

  const result: Record<string, unknown> = { kind: 'query' };
  const seen = createRecord<string>();
  let aliases: Record<string, Expression> | undefined;
  let passthrough: Record<string, string> | undefined;
  let custom: Record<string, string> | undefined;

  for (const option of raw) {
    try {
      parseOption(option);
    } catch (error) {
      // An error in a value (it has a position) where a '+' became a space says so.
      throw option.plusDecoded === true && error instanceof ODataError && error.position !== undefined ? hinted(error, PLUS_AS_SPACE_HINT) : error;
    }
  }
  if (aliases !== undefined) result.aliases = aliases;
  if (passthrough !== undefined) result.passthrough = passthrough;
  if (custom !== undefined) result.custom = custom;
  return result as unknown as ODataQuery;

  function parseOption({ name, value }: RawOption): void {
    if (name.startsWith('@')) {
      aliases ??= createRecord<Expression>();
      const alias = name.slice(1);
      if (Object.hasOwn(aliases, alias)) throw duplicate(name);
      aliases[alias] = parseAliasValue(required(name, value), name, options);
      return;
    }
    const canonical = (name.startsWith('$') ? name.slice(1) : name).toLowerCase();
    const system = PARSED.has(canonical) || PASSTHROUGH.has(canonical) || UNSUPPORTED.has(canonical);
    if (!system) {
      if (name.startsWith('$')) {
        throw new ODataError({ code: 'unknown_option', reason: `The query option '${name}' is not defined by OData`, option: name });
      }
      custom ??= createRecord<string>();
      custom[name] = value ?? '';
      return;
    }
    if (seen[canonical] !== undefined) throw duplicate(name, seen[canonical]);
    seen[canonical] = name;
    if (canonical === 'id' && options.allowId === true) {
      passthrough ??= createRecord<string>();
      passthrough.$id = required(name, value);
      return;
    }
    if (UNSUPPORTED.has(canonical)) {
      throw new ODataError({
        code: 'unsupported_option',
        status: canonical === 'levels' ? 400 : 501,
        reason: canonical === 'levels' ? `'${name}' is only allowed inside $expand(...)` : `The query option '${name}' is not supported`,
        option: name,
      });
    }
    if (PASSTHROUGH.has(canonical)) {
      passthrough ??= createRecord<string>();
      passthrough[`$${canonical}`] = required(name, value);
      return;
    }
    parseSystemOption(result, canonical as ParsedOption, name, required(name, value), options);
  }
}

function duplicate(name: string, first?: string): ODataError {
  return new ODataError({
    code: 'duplicate_option',
    reason:
      first === undefined
        ? `The query option '${name}' is specified more than once`
        : `The query option '${name}' is specified more than once (first as '${first}')`,
    option: name,
  });
}

function required(name: string, value: string | undefined): string {
  if (value === undefined || value === '') throw emptyValue(name);
  return value;
}

function parseSystemOption(result: Record<string, unknown>, canonical: ParsedOption, name: string, value: string, options: ParseQueryOptions): void {
  const relocated = <T>(parse: () => T): T => {
    try {
      return parse();
    } catch (error) {
      if (error instanceof ODataError && error.option !== name) throw error.relocate(name);
      throw error;
    }
  };
  switch (canonical) {
    case 'filter':
      result.filter = relocated(() => parseFilter(value, options));
      return;
    case 'orderby':
      result.orderBy = relocated(() => parseOrderBy(value, options));
      return;
    case 'select':
      result.select = relocated(() => parseSelect(value, options));
      return;
    case 'expand':
      result.expand = relocated(() => parseExpand(value, options));
      return;
    case 'compute':
      result.compute = relocated(() => parseCompute(value, options));
      return;
    case 'search':
      result.search = relocated(() => parseSearch(value, options));
      return;
    case 'apply':
      result.apply = relocated(() => parseApply(value, options));
      return;
    case 'top':
    case 'skip':
      result[canonical] = relocated(() => decodeCount(value, name, 0));
      return;
    case 'count': {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') {
        throw new ODataError({
          code: 'invalid_option_value',
          reason: `${name} must be 'true' or 'false', but was '${value}'`,
          option: name,
          position: 0,
        });
      }
      result.count = lower === 'true';
      return;
    }
  }
}
