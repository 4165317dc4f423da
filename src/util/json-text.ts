/**
 * JSON text as SQL engines write it for `$expand` (and for primitive collections stored as JSON),
 * read without losing digits: `JSON.parse` reads every number as a double, which rounds an Int64
 * such as 9007199254740993 and a Decimal with more than 15 digits before the reader knows their
 * types. Where such a number may occur, every number is a {@link JsonNumber} holding its text;
 * the reader converts it by the type of its property.
 */

/** A JSON number as written: the reader reads it as its property's type. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/**
 * Sixteen digits (a point between them allowed): a number that may not survive a double. Any
 * decimal of at most 15 significant digits does (DBL_DIG), so text without such a run (in a
 * number or, conservatively, in a string) is read by the much faster `JSON.parse`.
 */
const LONG_NUMBER = /(?:\d\.?){16}/;

/**
 * Parses JSON text (RFC 8259) so that every number keeps its value: as a {@link JsonNumber}
 * where the text holds a number of more than 15 digits, else as the JavaScript number.
 *
 * @throws {SyntaxError} when the text is not JSON
 */
export function parseJsonText(text: string): unknown {
  return LONG_NUMBER.test(text) ? parseExactly(text) : JSON.parse(text);
}

/** Parses JSON text with every number as a {@link JsonNumber}. */
export function parseExactly(text: string): unknown {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxError(`Unexpected JSON at position ${at}`);
  };
  const space = (): void => {
    for (let c = text.charCodeAt(at); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(at)) at++;
  };
  const string = (): string => {
    if (text.charCodeAt(at) !== 34) return fail();
    const start = at + 1;
    let end = start;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(end);
      if (c === 34) break;
      if (Number.isNaN(c) || c < 32) return fail();
      if (c === 92) {
        escaped = true;
        end++;
      }
      end++;
    }
    at = end + 1;
    if (!escaped) return text.slice(start, end);
    // JSON.parse decodes the escapes exactly (and refuses bad ones).
    return JSON.parse(text.slice(start - 1, at)) as string;
  };
  const value = (depth: number): unknown => {
    if (depth > 1000) return fail();
    space();
    const c = text[at];
    if (c === '"') return string();
    if (c === '{') {
      at++;
      const object: Record<string, unknown> = {};
      space();
      if (text[at] === '}') {
        at++;
        return object;
      }
      for (;;) {
        space();
        const key = string();
        space();
        if (text[at] !== ':') return fail();
        at++;
        const item = value(depth + 1);
        // An own property even for `__proto__`.
        if (key === '__proto__') Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
        else object[key] = item;
        space();
        if (text[at] === ',') at++;
        else if (text[at] === '}') {
          at++;
          return object;
        } else return fail();
      }
    }
    if (c === '[') {
      at++;
      const array: unknown[] = [];
      space();
      if (text[at] === ']') {
        at++;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        space();
        if (text[at] === ',') at++;
        else if (text[at] === ']') {
          at++;
          return array;
        } else return fail();
      }
    }
    if (c === 't' && text.startsWith('true', at)) {
      at += 4;
      return true;
    }
    if (c === 'f' && text.startsWith('false', at)) {
      at += 5;
      return false;
    }
    if (c === 'n' && text.startsWith('null', at)) {
      at += 4;
      return null;
    }
    NUMBER.lastIndex = at;
    if (!NUMBER.test(text)) return fail();
    const start = at;
    at = NUMBER.lastIndex;
    return new JsonNumber(text.slice(start, at));
  };
  const result = value(0);
  space();
  if (at !== text.length) fail();
  return result;
}
