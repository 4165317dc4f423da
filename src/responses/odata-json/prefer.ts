/**
 * The `Prefer` request header (RFC 7240; PROT §8.2.8) and the `Preference-Applied` response
 * header (PROT §8.3.6). A preference the service does not know, or one written against the
 * syntax, is ignored, never an error: RFC 7240 §2 has a server ignore what it does not
 * understand, and PROT §8.2.8 says the service MUST ignore preference values it does not
 * support or know. The first instance of a repeated preference counts (RFC 7240 §2); the 4.01
 * name wins over the 4.0 `odata.` one (`maxpagesize` over `odata.maxpagesize`).
 */
import type { ODataVersion } from './versions.js';

/** One preference as sent: its name in lower case, its value and parameters (quotes removed). */
export interface Preference {
  readonly name: string;
  readonly value: string | undefined;
  readonly parameters: ReadonlyMap<string, string | undefined>;
}

/** The preferences OData defines, read from a `Prefer` header (absent: not asked for, or not valid). */
export interface Preferences {
  /** `maxpagesize` / `odata.maxpagesize`: a positive integer. */
  readonly maxPageSize?: number;
  readonly return?: 'minimal' | 'representation';
  /** `include-annotations` / `odata.include-annotations`: the list, each `[-]namespace.term|*[#qualifier]`. */
  readonly includeAnnotations?: readonly string[];
  readonly omitValues?: 'nulls' | 'defaults';
  /** `allow-entityreferences` / `odata.allow-entityreferences`. */
  readonly allowEntityReferences?: true;
  readonly respondAsync?: true;
  /** `wait`: seconds. */
  readonly wait?: number;
  /** `callback` / `odata.callback`: the `url` parameter. */
  readonly callback?: { readonly url: string };
  /** `continue-on-error` / `odata.continue-on-error`: `true` without a value. */
  readonly continueOnError?: boolean;
  /** `track-changes` / `odata.track-changes`. */
  readonly trackChanges?: true;
  /** Every preference that has the RFC 7240 syntax, known or not, in order (first instances only). */
  readonly all: readonly Preference[];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ANNOTATION = /^-?(?:\*|[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*\.(?:[A-Za-z_]\w*|\*))(?:#[A-Za-z_]\w*)?$/;

/** Splits at `separator` outside quoted strings; `undefined` for an unterminated quote. */
function split(text: string, separator: string): string[] | undefined {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) return undefined;
  parts.push(text.slice(start));
  return parts;
}

/** `token [BWS "=" BWS (token / quoted-string)]`, or `undefined` when it is not that. */
function pair(text: string): [string, string | undefined] | undefined {
  const eq = text.indexOf('=');
  const name = (eq < 0 ? text : text.slice(0, eq)).trim();
  if (!TOKEN.test(name)) return undefined;
  if (eq < 0) return [name.toLowerCase(), undefined];
  const raw = text.slice(eq + 1).trim();
  if (/^"(?:[^"\\]|\\.)*"$/.test(raw)) return [name.toLowerCase(), raw.slice(1, -1).replace(/\\(.)/g, '$1')];
  return TOKEN.test(raw) ? [name.toLowerCase(), raw] : undefined;
}

/** One preference (`name[=value] *(; parameter)`), or `undefined` when its syntax is not RFC 7240's. */
function preference(text: string): Preference | undefined {
  const parts = split(text, ';');
  if (parts === undefined) return undefined;
  const [head = '', ...rest] = parts;
  const first = pair(head);
  if (first === undefined) return undefined;
  const parameters = new Map<string, string | undefined>();
  for (const part of rest) {
    if (part.trim() === '') continue;
    const parameter = pair(part);
    if (parameter === undefined) return undefined;
    if (!parameters.has(parameter[0])) parameters.set(parameter[0], parameter[1]);
  }
  return { name: first[0], value: first[1], parameters };
}

/**
 * Reads a `Prefer` header (several headers joined by `,` as `Headers.get` gives them): each
 * preference with the RFC 7240 syntax in `all`, and the ones OData defines read into fields when
 * their values are valid (the OASIS ABNF `preference` rule). Names are case-insensitive;
 * white space around `=` and `;` is allowed.
 *
 * @example
 * ```ts
 * parsePrefer('odata.maxpagesize=50, return=minimal, odata.include-annotations="*"');
 * // { maxPageSize: 50, return: 'minimal', includeAnnotations: ['*'], all: [ … ] }
 * parsePrefer('respond-async, wait=10').wait; // 10
 * ```
 */
export function parsePrefer(header: string | null | undefined): Preferences {
  const all: Preference[] = [];
  const seen = new Set<string>();
  for (const text of split(header ?? '', ',') ?? []) {
    if (text.trim() === '') continue;
    const parsed = preference(text);
    if (parsed === undefined || seen.has(parsed.name)) continue;
    seen.add(parsed.name);
    all.push(parsed);
  }
  // The 4.01 name first, then the 4.0 one.
  const find = (name: string): Preference | undefined => all.find((p) => p.name === name) ?? all.find((p) => p.name === `odata.${name}`);
  const result: { -readonly [K in keyof Preferences]: Preferences[K] } = { all };
  const maxPageSize = find('maxpagesize')?.value;
  if (maxPageSize !== undefined && /^[1-9]\d*$/.test(maxPageSize) && Number.isSafeInteger(Number(maxPageSize))) result.maxPageSize = Number(maxPageSize);
  const returned = all.find((p) => p.name === 'return')?.value;
  if (returned === 'minimal' || returned === 'representation') result.return = returned;
  const annotations = find('include-annotations')?.value;
  if (annotations !== undefined) {
    const list = annotations.split(',');
    if (list.every((item) => ANNOTATION.test(item))) result.includeAnnotations = list;
  }
  const omit = all.find((p) => p.name === 'omit-values')?.value?.toLowerCase();
  if (omit === 'nulls' || omit === 'defaults') result.omitValues = omit;
  const allow = find('allow-entityreferences');
  if (allow !== undefined && allow.value === undefined) result.allowEntityReferences = true;
  const async = all.find((p) => p.name === 'respond-async');
  if (async !== undefined && async.value === undefined) result.respondAsync = true;
  const wait = all.find((p) => p.name === 'wait')?.value;
  if (wait !== undefined && /^\d+$/.test(wait) && Number.isSafeInteger(Number(wait))) result.wait = Number(wait);
  const url = find('callback')?.parameters.get('url');
  if (url !== undefined && url !== '') result.callback = { url };
  const continueOnError = find('continue-on-error');
  if (continueOnError !== undefined) {
    const value = continueOnError.value?.toLowerCase();
    if (value === undefined || value === 'true') result.continueOnError = true;
    else if (value === 'false') result.continueOnError = false;
  }
  const track = find('track-changes');
  if (track !== undefined && track.value === undefined) result.trackChanges = true;
  return result;
}

/** The preferences a service applied, for {@link preferenceApplied}. */
export type AppliedPreferences = Partial<Omit<Preferences, 'all'>>;

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * The `Preference-Applied` header for the preferences a service applied (PROT §8.3.6): a
 * comma-separated list in the names of the response's version (`odata.maxpagesize` in 4.0,
 * `maxpagesize` in 4.01; `return`, `omit-values`, `respond-async` and `wait` have one name);
 * `undefined` when none was applied (send no header).
 *
 * @example
 * ```ts
 * preferenceApplied({ maxPageSize: 50, omitValues: 'nulls' }); // 'maxpagesize=50, omit-values=nulls'
 * preferenceApplied({ maxPageSize: 50 }, { version: '4.0' }); // 'odata.maxpagesize=50'
 * ```
 */
export function preferenceApplied(applied: AppliedPreferences, options: { readonly version?: ODataVersion } = {}): string | undefined {
  const odata = options.version === '4.0' ? 'odata.' : '';
  const items: string[] = [];
  if (applied.allowEntityReferences === true) items.push(`${odata}allow-entityreferences`);
  if (applied.callback !== undefined) items.push(`${odata}callback`);
  if (applied.continueOnError !== undefined) items.push(`${odata}continue-on-error${applied.continueOnError ? '' : '=false'}`);
  if (applied.includeAnnotations !== undefined) items.push(`${odata}include-annotations=${quoted(applied.includeAnnotations.join(','))}`);
  if (applied.maxPageSize !== undefined) items.push(`${odata}maxpagesize=${applied.maxPageSize}`);
  if (applied.omitValues !== undefined) items.push(`omit-values=${applied.omitValues}`);
  if (applied.respondAsync === true) items.push('respond-async');
  if (applied.return !== undefined) items.push(`return=${applied.return}`);
  if (applied.trackChanges === true) items.push(`${odata}track-changes`);
  if (applied.wait !== undefined) items.push(`wait=${applied.wait}`);
  return items.length === 0 ? undefined : items.join(', ');
}
