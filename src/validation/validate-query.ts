/**
 * `validateQuery`: every independent problem of a query string as a list of diagnostics (code,
 * message, severity, option, range in the text), for editors and clients, instead of the first
 * error as an exception.
 *
 * How it finds more than one problem: each option is parsed on its own, so a syntax error in
 * `$filter` does not hide one in `$orderby`; then the query is bound, and a binding error prunes
 * the smallest part that holds it (a predicate of `$filter`, which becomes `true`; an `$orderby`,
 * `$select` or `$expand` item; or the whole option) before binding again, so that two unknown
 * properties in one `$filter` give two diagnostics. With a `target` (`sqlTarget('sqlite')`,
 * `mongoTarget()`), what that backend cannot run is reported the same way, with its position.
 */
import { ODataError } from '../errors/odata-error.js';
import type { BoundQuery } from '../semantic/bound-ast.js';
import type { BindSettings } from '../semantic/settings.js';
import { bindQuery } from '../semantic/bind-query.js';
import type { Expression, ODataQuery, Span } from '../syntax/ast.js';
import type { Diagnostic } from './diagnostic.js';
import { prunePredicate, tokenLength, within } from './prune-predicate.js';

export type { Diagnostic } from './diagnostic.js';
import { parseQuery, splitQueryString } from '../syntax/query-string.js';

/**
 * A backend a query is checked for: `check` compiles the bound query as the backend would and
 * throws its `ODataError` (`unsupported_feature`) for what it cannot run. `sqlTarget(dialect)` and
 * `mongoTarget()` make one; importing them brings that compiler into a bundle.
 */
export interface QueryTarget {
  readonly name: string;
  check(bound: BoundQuery): void;
}

/** Settings of {@link validateQuery}: those of `bindQuery`, plus how many diagnostics at most. */
export interface ValidateSettings extends BindSettings {
  /** Stop after this many diagnostics (default 50). */
  readonly maxDiagnostics?: number;
  /** Also report what this backend cannot run (default: only what the binder refuses). */
  readonly target?: QueryTarget;
}

interface RawOption {
  /** The text `name=value` as written. */
  readonly text: string;
  /** Offset of `text` in the query string. */
  readonly offset: number;
  readonly name: string;
  /** Offset of the (raw) value in the query string, and the raw value. */
  readonly valueOffset: number;
  readonly rawValue: string;
}

/** Canonical option name: `$Filter` and `filter` are `filter`. */
function canonical(name: string): string {
  return (name.startsWith('$') ? name.slice(1) : name).toLowerCase();
}

/** For each UTF-16 index of the percent-decoded value, the index in the raw value (one more at the end). */
function decodedToRaw(raw: string): number[] {
  const map: number[] = [];
  let i = 0;
  while (i < raw.length) {
    if (raw[i] === '%' && /^[0-9a-fA-F]{2}$/.test(raw.slice(i + 1, i + 3))) {
      const lead = parseInt(raw.slice(i + 1, i + 3), 16);
      const bytes = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      const length = Math.min(bytes * 3, raw.length - i);
      let decoded: string;
      try {
        decoded = decodeURIComponent(raw.slice(i, i + length));
      } catch {
        decoded = raw.slice(i, i + length);
      }
      for (let k = 0; k < decoded.length; k++) map.push(i);
      i += length;
      continue;
    }
    map.push(i);
    i += 1;
  }
  map.push(raw.length);
  return map;
}

/** The decoded text of a raw option value (as parseQuery decodes it), or the raw text. */
function decodeValue(raw: string, plusAsSpace: boolean): string {
  try {
    return decodeURIComponent(plusAsSpace ? raw.replaceAll('+', ' ') : raw);
  } catch {
    return raw;
  }
}

function splitOptions(query: string): RawOption[] {
  return splitQueryString(query).map(({ text, offset, rawName, rawValue, valueOffset }) => {
    let name = rawName;
    try {
      name = decodeURIComponent(rawName);
    } catch {
      // reported by parseQuery
    }
    return { text, offset, name, valueOffset, rawValue: rawValue ?? '' };
  });
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Removes the part of `query` that holds the error; returns false when nothing could be removed
 * (the caller then stops).
 */
function prune(query: Mutable<ODataQuery>, error: ODataError): boolean {
  const option = error.option === undefined ? undefined : canonical(error.option);
  // A limit on the whole expression (depth, node count): the whole option goes, one diagnostic.
  const whole = error.code === 'too_deep' || error.code === 'node_count_exceeded';
  const position = whole ? undefined : error.position;
  switch (option) {
    case 'filter': {
      if (query.filter === undefined) return false;
      const pruned = position === undefined ? undefined : prunePredicate(query.filter, position);
      if (pruned === undefined) delete query.filter;
      else query.filter = pruned;
      return true;
    }
    case 'orderby':
    case 'select':
    case 'expand': {
      const key = option === 'orderby' ? 'orderBy' : option;
      const items = query[key] as readonly { span: Span }[] | undefined;
      if (items === undefined) return false;
      const kept = position === undefined ? [] : items.filter((item) => !within(item.span, position));
      if (kept.length === items.length || kept.length === 0) delete query[key];
      else (query as Record<string, unknown>)[key] = kept;
      return true;
    }
    case 'compute': {
      const items = query.compute;
      if (items === undefined) return false;
      const at = position === undefined ? -1 : items.findIndex((item) => within(item.span, position));
      const item = items[at];
      if (item === undefined) {
        delete query.compute;
        return true;
      }
      // An error in the expression: the item stays, computing null, so that the references to
      // it in $filter, $orderby and $select are still checked (and not reported as unknown).
      const inExpression = within(item.expression.span, position as number) && !(item.expression.kind === 'literal' && item.expression.type === 'null');
      const kept = inExpression
        ? items.map((other, i) =>
            i === at ? { ...other, expression: { kind: 'literal', type: 'null', value: null, span: other.expression.span } as Expression } : other,
          )
        : items.filter((_, i) => i !== at);
      if (kept.length === 0) delete query.compute;
      else query.compute = kept;
      return true;
    }
    case 'top':
    case 'skip':
    case 'count':
    case 'search':
    case 'apply': {
      if (query[option] === undefined) return false;
      delete query[option];
      return true;
    }
    default:
      return false;
  }
}

/**
 * Checks a query string against a model and returns every independent problem it finds (an
 * empty list when the query is valid). Never throws for bad input.
 *
 * @example
 * ```ts
 * const diagnostics = validateQuery("$filter=nam eq 'a' and sise gt 1&$top=x", { model, entitySet: 'products' });
 * // [{ code: 'unknown_property', option: '$filter', range: { start: 8, end: 11 }, … },
 * //  { code: 'unknown_property', option: '$filter', range: { start: 23, end: 27 }, … },
 * //  { code: 'invalid_option_value', option: '$top', … }]
 * ```
 */
export function validateQuery(query: string, settings: ValidateSettings): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const max = settings.maxDiagnostics ?? 50;
  const plusAsSpace = settings.parse?.plusAsSpace ?? false;
  const raw = splitOptions(query);
  const byName = new Map<string, RawOption>();

  const report = (error: unknown, where: RawOption | undefined): void => {
    if (diagnostics.length >= max) return;
    if (!(error instanceof ODataError)) {
      diagnostics.push({
        code: 'internal_error',
        message: 'The query could not be checked',
        severity: 'error',
        option: where?.name,
        range: { start: 0, end: query.length },
        status: 500,
      });
      return;
    }
    let range = { start: where?.offset ?? 0, end: where === undefined ? query.length : where.offset + where.text.length };
    if (where !== undefined && error.position !== undefined) {
      const map = decodedToRaw(where.rawValue);
      const at = Math.min(error.position, map.length - 1);
      const length = tokenLength(decodeValue(where.rawValue, plusAsSpace), at);
      const start = where.valueOffset + (map[at] as number);
      const end = where.valueOffset + (map[Math.min(at + length, map.length - 1)] as number);
      // An empty range (the text ended too early) underlines the character before it.
      range = end > start ? { start, end } : start > where.valueOffset ? { start: start - 1, end: start } : { start, end: start };
    }
    diagnostics.push({ code: error.code, message: error.message, severity: 'error', option: where?.name ?? error.option, range, status: error.status });
  };

  // 1. Each option on its own: syntax errors, unknown and duplicate options. The options that
  // parse are merged into one query (each parsed once).
  const parsed: Mutable<ODataQuery> = { kind: 'query' };
  const records = ['aliases', 'custom', 'passthrough'] as const;
  for (const option of raw) {
    const name = canonical(option.name);
    const first = option.name.startsWith('@') ? undefined : byName.get(name);
    if (first !== undefined) {
      report(
        new ODataError({
          code: 'duplicate_option',
          reason: `The query option '${option.name}' is specified more than once (first as '${first.name}')`,
          option: option.name,
        }),
        option,
      );
      continue;
    }
    let one: ODataQuery;
    try {
      one = parseQuery(option.text, settings.parse);
    } catch (error) {
      report(error, option);
      continue;
    }
    if (!option.name.startsWith('@')) byName.set(name, option);
    for (const [key, value] of Object.entries(one) as [keyof ODataQuery, unknown][]) {
      if ((records as readonly string[]).includes(key)) {
        // Aliases, custom and passthrough options: records that several options add to.
        (parsed as Record<string, unknown>)[key] = { ...((parsed as Record<string, unknown>)[key] as object | undefined), ...(value as object) };
      } else if (key !== 'kind') (parsed as Record<string, unknown>)[key] = value;
    }
  }

  // 2. The options that parse, bound together; each binding error prunes its part.
  const whereOf = (error: ODataError): RawOption | undefined => (error.option === undefined ? undefined : byName.get(canonical(error.option)));
  for (let attempt = 0; attempt < max && diagnostics.length < max; attempt++) {
    try {
      const bound = bindQuery(parsed, settings);
      settings.target?.check(bound);
      break;
    } catch (error) {
      if (!(error instanceof ODataError)) {
        report(error, undefined);
        break;
      }
      report(error, whereOf(error));
      if (!prune(parsed, error)) break;
    }
  }
  // In the order of the text (stable: a query-wide diagnostic stays first).
  return diagnostics.sort((a, b) => a.range.start - b.range.start);
}
