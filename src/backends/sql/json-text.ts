/**
 * JSON text as SQL engines write it for `$expand` (and for primitive collections stored as JSON),
 * read without losing digits: `JSON.parse` reads every number as a double, which rounds an Int64
 * such as 9007199254740993 and a Decimal with more than 15 digits before the reader knows their
 * types. Here every number is a {@link JsonNumber} holding its text; the reader converts it by
 * the type of its property.
 */

/** A JSON number as written: the reader reads it as its property's type. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const STRING = /"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"/y;
const SPACE = /[ \t\n\r]*/y;

/**
 * Parses JSON text (RFC 8259) with numbers as {@link JsonNumber}s.
 *
 * @throws {SyntaxError} when the text is not JSON
 */
export function parseJsonText(text: string): unknown {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxError(`Unexpected JSON at position ${at}`);
  };
  const space = (): void => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const string = (): string => {
    STRING.lastIndex = at;
    const match = STRING.exec(text);
    if (match === null) return fail();
    at = STRING.lastIndex;
    // The escapes were checked by the pattern: JSON.parse decodes them exactly.
    return (match[1] as string).includes('\\') ? (JSON.parse(match[0]) as string) : (match[1] as string);
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
        Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
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
    for (const [word, result] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return result;
      }
    }
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (match === null) return fail();
    at = NUMBER.lastIndex;
    return new JsonNumber(match[0]);
  };
  const result = value(0);
  space();
  if (at !== text.length) fail();
  return result;
}
