/**
 * Where a cursor stands in a query string: in an option's name, or in its value after some
 * tokens, with the word being typed (replaced by a completion) and what the tokens leave open.
 * The language service's functions all start here. The text is taken as typed (not
 * percent-encoded), as an editor or a filter box holds it.
 */
import { tokenMatcher, type IToken } from 'chevrotain';
import * as T from '../syntax/lexer.js';
import { splitQueryString, type QueryStringPart } from '../syntax/query-string.js';
import { TRANSFORMATION_NAMES } from '../syntax/apply-builders.js';
import { CANONICAL_FUNCTIONS } from '../syntax/ast.js';

/** A range of the query text, `start` inclusive, `end` exclusive. */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** The cursor in an option's name (or where a new option begins). */
export interface NameCursor {
  readonly at: 'name';
  /** The name typed so far (before the cursor), and the range the whole name takes. */
  readonly prefix: string;
  readonly range: TextRange;
  /** The canonical names of the other options of the query (`filter`, `top`, …). */
  readonly present: ReadonlySet<string>;
}

/** The cursor in an option's value. */
export interface ValueCursor {
  readonly at: 'value';
  readonly part: QueryStringPart;
  /** The option's canonical name (`filter`, `orderby`, …; `@p` for an alias). */
  readonly option: string;
  /** The tokens of the value before the word being typed. */
  readonly tokens: readonly IToken[];
  /** The word being typed (`''` when none), and the range it and the rest of it take. */
  readonly prefix: string;
  readonly range: TextRange;
  /** The value's text before the word being typed. */
  readonly before: string;
  /** The closing brackets the tokens leave open, innermost first, with what completes the calls they open. */
  readonly closers: string;
  /** The call whose arguments the cursor is in (`contains(Name,|` is argument 1 of `contains`), if any. */
  readonly call?: { readonly name: string; readonly argument: number };
  /** The canonical names of the other options of the query. */
  readonly present: ReadonlySet<string>;
}

/** Canonical option name: `$Filter` and `filter` are `filter`. */
export function canonicalOption(name: string): string {
  return (name.startsWith('$') ? name.slice(1) : name).toLowerCase();
}

/** Whether a character can continue a word (an identifier, a `$` name, an `@` name). */
function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 46 ||
    code === 36 ||
    code === 64 ||
    code >= 0xaa
  );
}

/** Where `offset` stands in `text`; `undefined` inside a string literal or after a character no token starts with. */
export function locateCursor(text: string, offset: number): NameCursor | ValueCursor | undefined {
  const at = Math.max(0, Math.min(offset, text.length));
  const parts = splitQueryString(text);
  const present = new Set(parts.map((p) => canonicalOption(p.rawName)));
  const part = parts.find((p) => p.offset <= at && at <= p.offset + p.text.length);
  if (part === undefined || at <= part.offset + part.rawName.length) {
    // In a name: the whole name is replaced (or nothing, at a new option's place).
    const start = part?.offset ?? at;
    const end = part === undefined ? at : part.offset + part.rawName.length;
    if (part !== undefined) present.delete(canonicalOption(part.rawName));
    return { at: 'name', prefix: text.slice(start, at), range: { start, end }, present };
  }
  const value = part.rawValue ?? '';
  const inValue = at - part.valueOffset;
  present.delete(canonicalOption(part.rawName));
  // The word the cursor is in: back to its start, on to its end.
  let start = inValue;
  while (start > 0 && isWordChar(value.charCodeAt(start - 1))) start--;
  let end = inValue;
  while (end < value.length && isWordChar(value.charCodeAt(end))) end++;
  // A word starts with a letter, `_`, `$` or `@`: a number's digits or a literal's are not one.
  // (At a word's first character the cursor is in that word: a completion replaces it.)
  const first = value.charCodeAt(start);
  const isWord = end > start && !(first >= 48 && first <= 57) && first !== 46;
  if (!isWord) {
    start = inValue;
    end = inValue;
  }
  const before = value.slice(0, start);
  const lexed = T.lex(before, 'expression');
  if (lexed.errors.length > 0) return undefined;
  // A word right after a quote is a literal's prefix (`duration'…`): no completion inside literals.
  if (start > 0 && value.charAt(start - 1) === "'") return undefined;
  return {
    at: 'value',
    part,
    option: canonicalOption(part.rawName),
    tokens: lexed.tokens,
    prefix: value.slice(start, inValue),
    range: { start: part.valueOffset + start, end: part.valueOffset + end },
    before,
    ...openings(lexed.tokens),
    present,
  };
}

const CLOSERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/** The alias a probe's filler gives an aggregate, a `$compute` item, a `nest` or a `join` (an OData identifier no model is likely to have). */
export const PROBE_ALIAS = 'completion_probe_alias_';

/**
 * What a probe at the cursor needs after it, in the argument `argument` (0-based) of `call`, to
 * be a whole query: the arguments the call still lacks (`contains(` takes two: the probe and a
 * null), the rest of an aggregate item (`with` a method `as` an alias), the second operand of
 * `concat` (a transformation sequence: `identity`).
 */
function filler(call: string, argument: number, transformation: boolean, pathFunction: boolean, colon: boolean): string {
  // case(condition:value, …): the value of the condition at the cursor.
  if (call === 'case') return colon ? '' : ':null';
  if (transformation) {
    if (call === 'aggregate') return pathFunction ? ' with sum' : ` with sum as ${PROBE_ALIAS}`;
    if (call === 'concat' && argument === 0) return ',identity';
    if ((call === 'join' || call === 'outerjoin') && argument === 0) return ` as ${PROBE_ALIAS}`;
    if (call === 'nest' || call === 'compute') return ` as ${PROBE_ALIAS}`;
    // The hierarchy's nodes, qualifier and node property, then what the transformation needs after them.
    const rest = argument >= 3 ? [] : call === 'traverse' ? ['preorder'] : call === 'ancestors' || call === 'descendants' ? ['identity'] : [];
    const hierarchy = ['$root/x', 'x', 'x'].slice(argument + 1);
    return call === 'traverse' || call === 'ancestors' || call === 'descendants' ? [...hierarchy, ...rest].map((part) => `,${part}`).join('') : '';
  }
  if (call === 'rollup' && argument === 0) return `,${PROBE_ALIAS}`;
  // The value of cast and isof, then a type name (one argument alone is the type).
  if ((call === 'cast' || call === 'isof') && argument === 0) return ',Edm.String';
  const arity = (CANONICAL_FUNCTIONS as Readonly<Record<string, readonly [number, number]>>)[call];
  const missing = (arity?.[0] ?? 0) - argument - 1;
  return missing > 0 ? ',null'.repeat(missing) : '';
}

/** The brackets `tokens` leave open (closed innermost first, calls completed), and the innermost call. */
function openings(tokens: readonly IToken[]): { closers: string; call?: { name: string; argument: number } } {
  const open: { closer: string; call: string | undefined; argument: number; transformation: boolean; pathFunction: boolean; colon: boolean }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const image = (tokens[i] as IToken).image;
    const closer = CLOSERS[image];
    if (closer !== undefined) {
      const before = tokens[i - 1];
      const call = image === '(' && before !== undefined && tokenMatcher(before, T.Identifier) ? before.image : undefined;
      // A transformation of $apply: a name at the start, after `/`, or inside concat(…) (`aggregate` alike).
      const outer = open[open.length - 1];
      const preceding = tokens[i - 2]?.image;
      // The aggregate function at the end of a path (`$these/aggregate(…)`, `Sales/aggregate(…)`): no alias.
      const beforeSlash = tokens[i - 3];
      const pathFunction = preceding === '/' && beforeSlash !== undefined && beforeSlash.image !== ')' && beforeSlash.image !== 'identity';
      const transformation =
        call !== undefined &&
        TRANSFORMATION_NAMES.includes(call) &&
        (preceding === undefined || preceding === '/' || outer?.transformation === true || call === 'aggregate');
      open.push({ closer, call, argument: 0, transformation, pathFunction, colon: false });
    } else if (image === ')' || image === ']' || image === '}') open.pop();
    else if (image === ',' && open.length > 0) {
      const innermost = open[open.length - 1] as { argument: number; colon: boolean };
      innermost.argument++;
      innermost.colon = false;
    } else if (image === ':' && open.length > 0) (open[open.length - 1] as { colon: boolean }).colon = true;
  }
  const closers = open
    .map((o) => (o.call === undefined ? o.closer : `${filler(o.call, o.argument, o.transformation, o.pathFunction, o.colon)}${o.closer}`))
    .reverse()
    .join('');
  const innermost = open[open.length - 1];
  return innermost?.call === undefined ? { closers } : { closers, call: { name: innermost.call, argument: innermost.argument } };
}
