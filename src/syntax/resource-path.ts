/**
 * `parseResourcePath`: the resource path of an OData URL (OData 4.01 URL Conventions §4, ABNF
 * `resourcePath`), the part between the service root and `?`, into its segments. The path is split
 * at its unencoded slashes and each segment is percent-decoded once, as URL Conventions §2 asks
 * (`Categories('Smartphone%2FTablet')` is one segment); each segment is then parsed by the
 * Chevrotain rule `resourceSegmentOption`. A segment with no parentheses that is no name and no
 * literal (`O'Neil`) is kept as text: a key-as-segment value, for the binder to read.
 */
import { ODataError } from '../errors/odata-error.js';
import type { ResourcePath, ResourceSegment } from './ast.js';
import { DEFAULT_MAX_LENGTH, RESOURCE_PATH, parseResourceSegment, type ParseOptions } from './parse.js';

/** One segment before parsing: its decoded text and where it starts in the decoded path. */
interface RawSegment {
  readonly text: string;
  readonly start: number;
}

function malformed(reason: string, position: number): ODataError {
  return new ODataError({ code: 'malformed_encoding', reason, option: RESOURCE_PATH, position });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Splits a raw path at its unencoded `/` outside parentheses and decodes each segment. Inside
 * parentheses a `/` belongs to an expression (`$filter(Category/Name eq 'x')`), except inside a
 * string literal, where URL Conventions §2 asks for `%2F` (`Categories('Tablet/Slate')` is refused).
 */
function splitPath(raw: string): { segments: RawSegment[]; text: string } {
  const segments: RawSegment[] = [];
  let decoded = '';
  let current = '';
  let start = 0;
  let depth = 0;
  let quoted = false;
  const add = (char: string): void => {
    current += char;
    if (quoted) {
      if (char === "'") quoted = false; // `''` closes and reopens: the next quote opens again
    } else if (depth > 0 && char === "'") quoted = true;
    else if (char === '(') depth += 1;
    else if (char === ')' && depth > 0) depth -= 1;
  };
  for (let i = 0; i < raw.length;) {
    const char = raw[i] as string;
    if (char === '%') {
      // A run of escapes is decoded together: one character may take several UTF-8 bytes.
      let end = i;
      const bytes: number[] = [];
      while (end < raw.length && raw[end] === '%') {
        const hex = raw.slice(end + 1, end + 3);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw malformed(`Malformed percent-encoding`, decoded.length + current.length);
        bytes.push(Number.parseInt(hex, 16));
        end += 3;
      }
      let text: string;
      try {
        text = utf8.decode(new Uint8Array(bytes));
      } catch {
        throw malformed(`The percent-encoded bytes are not UTF-8`, decoded.length + current.length);
      }
      for (const c of text) add(c);
      i = end;
      continue;
    }
    if (char === '/' && !quoted && depth === 0) {
      segments.push({ text: current, start });
      decoded += `${current}/`;
      current = '';
      start = decoded.length;
    } else if (char === '/' && quoted) {
      throw new ODataError({
        code: 'syntax_error',
        reason: `A '/' inside a string must be percent-encoded as %2F`,
        option: RESOURCE_PATH,
        position: decoded.length + current.length,
      });
    } else add(char);
    i += 1;
  }
  segments.push({ text: current, start });
  decoded += current;
  return { segments, text: decoded };
}

/**
 * Parses a resource path, as sent (percent-encoded), without the service root and without the
 * query string: `People('russellwhyte')/Trips(1)/PlanItems/$count`. The empty path is the
 * service root (no segments). Errors are {@link ODataError}s whose positions are offsets into the
 * decoded path.
 *
 * @example
 * ```ts
 * const path = parseResourcePath("Categories(1)/Products/$count");
 * path.segments.map((s) => s.kind); // ['name', 'name', 'system']
 * ```
 */
export function parseResourcePath(path: string, options?: ParseOptions): ResourcePath {
  const max = options?.maxLength ?? DEFAULT_MAX_LENGTH;
  if (path.length > max) {
    throw new ODataError({
      code: 'input_too_long',
      reason: `The path is ${path.length} characters long; the limit is ${max}`,
      option: RESOURCE_PATH,
      position: max,
    });
  }
  const hash = path.indexOf('#');
  if (hash >= 0) throw malformed(`Unencoded '#' (a fragment is not sent to the service)`, hash);
  const split = splitPath(path.startsWith('/') ? path.slice(1) : path);
  if (split.text === '') return { kind: 'resourcePath', segments: [], text: '', span: { start: 0, end: 0 } };
  const segments = split.segments.map(({ text, start }) => parseSegment(text, start));
  return { kind: 'resourcePath', segments, text: split.text, span: { start: 0, end: split.text.length } };
}

function parseSegment(text: string, start: number): ResourceSegment {
  if (text === '') throw new ODataError({ code: 'syntax_error', reason: 'Empty path segment', option: RESOURCE_PATH, position: start });
  try {
    // Parsed alone, its positions then moved to the segment's place in the path (parsing it after
    // `start` blanks, as nested options are, would make a path of many segments quadratic).
    return shiftSpans(parseResourceSegment(text), start);
  } catch (error) {
    // Any text is a key-as-segment value (ABNF `keyPathLiteral = *pchar`) unless it has the form of
    // a name with parentheses or of a `$` segment, which must then parse.
    if (error instanceof ODataError && !text.includes('(') && !text.startsWith('$') && error.code !== 'input_too_long' && error.code !== 'too_deep')
      return { kind: 'text', text, span: { start, end: start + text.length } };
    throw error instanceof ODataError ? error.relocate(error.option, start) : error;
  }
}

/** `node` with `by` added to every span in it (plain objects and arrays only: literal values stay as they are). */
function shiftSpans<T>(node: T, by: number): T {
  if (by === 0) return node;
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === 'span' && child !== null && typeof child === 'object') {
        const span = child as { start: number; end: number };
        out[key] = { start: span.start + by, end: span.end + by };
      } else out[key] = visit(child);
    }
    return out;
  };
  return visit(node) as T;
}
