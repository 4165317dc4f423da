/**
 * The one pattern language of `matchesPattern`: a subset of regular expressions that JavaScript
 * (the in-memory backend's `RegExp`), PostgreSQL's AREs (`~`), DuckDB's RE2, MySQL 8's ICU and
 * MariaDB's PCRE2 (`REGEXP`) and MongoDB's PCRE (`$regexMatch`) read the same way, and that
 * backtracking engines (JavaScript, PCRE, ICU) match in bounded time. A small hand-written parser checks a
 * pattern and renders it for each engine; every refusal is an ODataError that names the construct.
 *
 * The subset:
 * - characters stand for themselves, except the metacharacters `\ ^ $ . | ? * + ( ) [ ] { }`,
 *   which a backslash makes literal (`\.`); no other escape (`\d`, `\w`, `\s`, `\b`, `\n`, `\1`,
 *   `\p{…}`: engines disagree on them or they are not regular);
 * - `.` is any character, line breaks included;
 * - bracket classes `[abc]`, `[a-z]`, `[^…]`, where `\ ] [ ^ -` are escaped when meant literally
 *   (no POSIX `[:alpha:]`, no ICU set operations `&&`);
 * - `^` at the start and `$` at the end of a top-level alternative (the whole text's ends);
 * - `? * + {m} {m,} {m,n}` (m ≤ n ≤ 100) after a single character, `.` or a class, never after
 *   a group or another quantifier (no lazy or possessive forms);
 * - groups `( … )` (without a quantifier) and alternation `|`; no `(?…)` of any kind.
 *
 * Bounded cost: nested repetition cannot be written, and the pattern is refused when two
 * unbounded repetitions can take turns over the same characters (`.*a.*=`, `a*a*`), counting the
 * search for a start position of a pattern not anchored with `^` as one (`a+b`, `x.*=`); each is
 * a quadratic blow-up for a backtracking engine. Bounded repetitions and alternatives multiply
 * the work per position, so their product is bounded too.
 */
import { ODataError } from '../errors/odata-error.js';

/** The longest pattern accepted. */
export const MAX_PATTERN_LENGTH = 256;
/** The largest bound of `{m,n}`. */
export const MAX_REPEAT = 100;
/** The largest product of alternatives and bounded repetition ranges (`?` counts 2, `{2,5}` 4). */
export const MAX_BRANCHING = 256;

/** A pattern of the subset, rendered for each engine. */
export interface CheckedPattern {
  /** The pattern as written. */
  readonly source: string;
  /**
   * For JavaScript's `RegExp` (the in-memory backend): `new RegExp(js.source, js.flags)`, with the
   * `s` flag (`.` matches line breaks) and the `u` flag (a character is a code point, as on every
   * other engine).
   */
  readonly js: { readonly source: string; readonly flags: 'su' };
  /** For RE2 (DuckDB's `regexp_matches`, with `(?s)`): the POSIX rendering. */
  readonly re2: string;
  /** For PostgreSQL's `~` (an ARE, where `.` matches line breaks and `$` only the end). */
  readonly postgres: string;
  /** For MySQL's ICU and MariaDB's PCRE2 `REGEXP`: `(?s)` and `$` as "no character follows". */
  readonly mysql: string;
  /** For MongoDB's `$regexMatch`: PCRE with the `s` option, `$` as "no character follows". */
  readonly mongo: { readonly regex: string; readonly options: 's' };
}

/** Inclusive code point ranges; `negated` complements them. */
interface CharSet {
  readonly negated: boolean;
  readonly ranges: readonly (readonly [number, number])[];
}

interface ClassItem {
  readonly from: number;
  readonly to: number;
}

type Atom =
  | { readonly kind: 'char'; readonly code: number }
  | { readonly kind: 'any' }
  | { readonly kind: 'class'; readonly negated: boolean; readonly items: readonly ClassItem[] };

type Node =
  | { readonly kind: 'atom'; readonly atom: Atom; readonly min: number; readonly max: number; readonly quantifier: string }
  | { readonly kind: 'group'; readonly alternatives: readonly (readonly Node[])[] }
  | { readonly kind: 'start' }
  | { readonly kind: 'end' };

const METACHARACTERS = new Set([...'\\^$.|?*+()[]{}'].map((c) => c.codePointAt(0) as number));
const CLASS_SPECIAL = new Set([...'\\]^-['].map((c) => c.codePointAt(0) as number));
const ANY: CharSet = { negated: true, ranges: [] };

function refuse(reason: string): ODataError {
  return new ODataError({ code: 'invalid_option_value', reason: `The pattern of matchesPattern ${reason}`, appendLocation: false });
}

class Parser {
  private at = 0;
  private readonly codes: number[];

  constructor(private readonly text: string) {
    this.codes = [...text].map((c) => c.codePointAt(0) as number);
  }

  private peek(offset = 0): number | undefined {
    return this.codes[this.at + offset];
  }

  private is(char: string, offset = 0): boolean {
    return this.peek(offset) === char.codePointAt(0);
  }

  private where(): string {
    return `at character ${this.at + 1}`;
  }

  parse(): (readonly Node[])[] {
    const alternatives = this.alternatives(0);
    if (this.at < this.codes.length) throw refuse(`has an unmatched ')' ${this.where()}; write '\\)' for the character`);
    return alternatives;
  }

  private alternatives(depth: number): Node[][] {
    const alternatives: Node[][] = [this.sequence(depth)];
    while (this.is('|')) {
      this.at++;
      alternatives.push(this.sequence(depth));
    }
    for (const alternative of alternatives)
      if (alternative.length === 0) throw refuse(depth === 0 && alternatives.length === 1 ? 'is empty' : `has an empty alternative ${this.where()}`);
    return alternatives;
  }

  private sequence(depth: number): Node[] {
    const nodes: Node[] = [];
    for (;;) {
      const code = this.peek();
      if (code === undefined || this.is('|') || this.is(')')) {
        if (this.is(')') && depth === 0) throw refuse(`has an unmatched ')' ${this.where()}; write '\\)' for the character`);
        return nodes;
      }
      if (nodes.at(-1)?.kind === 'end') throw refuse(`has '$' before the end ${this.where()}: '$' may only end the pattern or an alternative of it`);
      const char = String.fromCodePoint(code);
      switch (char) {
        case '(': {
          this.at++;
          if (this.is('?')) throw refuse(`has '(?' ${this.where()}: non-capturing and named groups, lookaround and inline flags are not allowed`);
          const alternatives = this.alternatives(depth + 1);
          if (!this.is(')')) throw refuse(`has an unclosed '('`);
          this.at++;
          if (this.isQuantifier()) throw refuse(`repeats a group ${this.where()}: quantifiers may only follow a single character, '.' or a class`);
          nodes.push({ kind: 'group', alternatives });
          break;
        }
        case '^':
          if (depth > 0 || nodes.length > 0)
            throw refuse(`has '^' ${this.where()}: '^' may only start the pattern or an alternative of it; write '\\^' for the character`);
          this.at++;
          nodes.push({ kind: 'start' });
          break;
        case '$':
          this.at++;
          if (depth > 0 || (this.peek() !== undefined && !this.is('|')))
            throw refuse(`has '$' before the end at character ${this.at}: '$' may only end the pattern or an alternative of it; write '\\$' for the character`);
          nodes.push({ kind: 'end' });
          break;
        case '*':
        case '+':
        case '?':
        case '{':
          throw refuse(`has '${char}' ${this.where()} with nothing to repeat${char === '{' ? "; write '\\{' for the character" : ''}`);
        case ']':
        case '}':
          throw refuse(`has an unescaped '${char}' ${this.where()}; write '\\${char}' for the character`);
        default: {
          const atom = this.atom();
          nodes.push(this.quantified(atom));
        }
      }
    }
  }

  private isQuantifier(): boolean {
    return this.is('*') || this.is('+') || this.is('?') || this.is('{');
  }

  /** A single character, `.`, an escape or a bracket class. */
  private atom(): Atom {
    const code = this.peek() as number;
    if (this.is('.')) {
      this.at++;
      return { kind: 'any' };
    }
    if (this.is('[')) return this.charClass();
    if (this.is('\\')) return { kind: 'char', code: this.escape(METACHARACTERS) };
    this.at++;
    return { kind: 'char', code: checkedCharacter(code, this.at) };
  }

  /** `\` and a metacharacter: that character. */
  private escape(allowed: ReadonlySet<number>): number {
    this.at++;
    const next = this.peek();
    if (next === undefined) throw refuse('ends with a lone backslash');
    const char = String.fromCodePoint(next);
    if (!allowed.has(next)) {
      if (/[dDwWsS]/.test(char)) throw refuse(`has '\\${char}' ${this.where()}: engines disagree on it; write a class such as [0-9] or [A-Za-z0-9_] instead`);
      if (/[1-9]/.test(char)) throw refuse(`has the back-reference '\\${char}' ${this.where()}, which is not allowed`);
      throw refuse(
        `has the escape '\\${char}' ${this.where()}: only metacharacters (\\ ^ $ . | ? * + ( ) [ ] { }${allowed === METACHARACTERS ? '' : ' and - inside a class'}) may be escaped`,
      );
    }
    this.at++;
    return next;
  }

  private charClass(): Atom {
    const start = this.at;
    this.at++;
    let negated = false;
    if (this.is('^')) {
      negated = true;
      this.at++;
    }
    const items: ClassItem[] = [];
    const member = (): number => {
      const code = this.peek();
      if (code === undefined) throw refuse(`has an unclosed '[' at character ${start + 1}`);
      if (this.is('\\')) return this.escape(new Set([...METACHARACTERS, ...CLASS_SPECIAL]));
      if (this.is('[')) throw refuse(`has '[' inside a class ${this.where()}: POSIX classes and nested sets are not allowed; write '\\[' for the character`);
      if (this.is('^')) throw refuse(`has '^' inside a class ${this.where()}; write '\\^' for the character (a leading '^' negates)`);
      if (this.is('-')) throw refuse(`has '-' ${this.where()} that is not a range between two characters; write '\\-' for the character`);
      if (this.is('&') && this.is('&', 1)) throw refuse(`has '&&' inside a class ${this.where()} (a set operation in ICU); write '\\&' for the character`);
      this.at++;
      return checkedCharacter(code, this.at);
    };
    while (!this.is(']')) {
      const from = member();
      if (this.is('-') && !this.is(']', 1)) {
        this.at++;
        const to = member();
        if (to < from) throw refuse(`has the range '${String.fromCodePoint(from)}-${String.fromCodePoint(to)}' in the wrong order ${this.where()}`);
        items.push({ from, to });
      } else items.push({ from, to: from });
    }
    this.at++;
    if (items.length === 0) throw refuse(`has an empty class at character ${start + 1}`);
    return { kind: 'class', negated, items };
  }

  /** An atom and its quantifier, if any. */
  private quantified(atom: Atom): Node {
    const from = this.at;
    let min = 1;
    let max = 1;
    if (this.is('?')) [min, max] = [0, 1];
    else if (this.is('*')) [min, max] = [0, Infinity];
    else if (this.is('+')) [min, max] = [1, Infinity];
    else if (this.is('{')) {
      const match = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(this.text.slice(this.unitIndex()));
      if (match === null) throw refuse(`has '{' ${this.where()} that is not a repetition {m}, {m,} or {m,n}; write '\\{' for the character`);
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw refuse(`repeats more than ${MAX_REPEAT} times ${this.where()}`);
      if (max < min) throw refuse(`has the repetition ${match[0]} with its bounds in the wrong order ${this.where()}`);
      this.at += match[0].length - 1;
    } else return { kind: 'atom', atom, min, max, quantifier: '' };
    this.at++;
    const quantifier = String.fromCodePoint(...this.codes.slice(from, this.at));
    if (this.isQuantifier())
      throw refuse(`has a quantifier after a quantifier ${this.where()} (lazy, possessive or repeated repetition), which is not allowed`);
    return { kind: 'atom', atom, min, max, quantifier };
  }

  /** The UTF-16 index of the current code point (quantifier text is ASCII). */
  private unitIndex(): number {
    return String.fromCodePoint(...this.codes.slice(0, this.at)).length;
  }
}

function checkedCharacter(code: number, position: number): number {
  if (code === 0) throw refuse(`has a NUL character at character ${position}`);
  if (code >= 0xd800 && code <= 0xdfff) throw refuse(`has a lone surrogate at character ${position}`);
  return code;
}

// ---- cost: positions of the pattern (one per atom) and which repetitions can take turns ----

interface Position {
  readonly set: CharSet;
  readonly loop: boolean;
  readonly follow: Set<Position>;
}

interface Fragment {
  readonly first: Set<Position>;
  readonly last: Set<Position>;
  readonly nullable: boolean;
}

function setOf(atom: Atom): CharSet {
  if (atom.kind === 'any') return ANY;
  if (atom.kind === 'char') return { negated: false, ranges: [[atom.code, atom.code]] };
  return { negated: atom.negated, ranges: atom.items.map((item) => [item.from, item.to] as const) };
}

/** Whether two sets share a character (exactly, on code point ranges). */
function intersects(a: CharSet, b: CharSet): boolean {
  if (a.negated && b.negated) return true; // two complements of finite sets always share one
  if (a.negated || b.negated) {
    const [positive, negative] = a.negated ? [b, a] : [a, b];
    // Some code point of a positive range outside every range of the negated set.
    return positive.ranges.some(([from, to]) => {
      let next = from;
      const blocking = [...negative.ranges].filter(([f, t]) => t >= from && f <= to).sort((x, y) => x[0] - y[0]);
      for (const [f, t] of blocking) {
        if (f > next) return true;
        next = Math.max(next, t + 1);
        if (next > to) return false;
      }
      return next <= to;
    });
  }
  return a.ranges.some(([f1, t1]) => b.ranges.some(([f2, t2]) => f1 <= t2 && f2 <= t1));
}

function intersection(a: CharSet, b: CharSet): CharSet | undefined {
  // Only used as a filter: a positive set when one side is positive (exact enough for the check).
  if (!intersects(a, b)) return undefined;
  if (a.negated && b.negated) return { negated: true, ranges: [...a.ranges, ...b.ranges] };
  return a.negated ? b : a;
}

function fragment(nodes: readonly Node[], positions: Position[], branching: { value: number }): Fragment {
  let first = new Set<Position>();
  let last = new Set<Position>();
  let nullable = true;
  for (const node of nodes) {
    let part: Fragment;
    if (node.kind === 'start' || node.kind === 'end') continue;
    if (node.kind === 'atom') {
      const position: Position = { set: setOf(node.atom), loop: node.max === Infinity, follow: new Set() };
      positions.push(position);
      if (position.loop) position.follow.add(position);
      if (node.max !== Infinity && node.max > node.min) branching.value *= node.max - node.min + 1;
      part = { first: new Set([position]), last: new Set([position]), nullable: node.min === 0 };
    } else {
      if (node.alternatives.length > 1) branching.value *= node.alternatives.length;
      const parts = node.alternatives.map((alternative) => fragment(alternative, positions, branching));
      part = { first: new Set(parts.flatMap((p) => [...p.first])), last: new Set(parts.flatMap((p) => [...p.last])), nullable: parts.some((p) => p.nullable) };
    }
    for (const p of last) for (const q of part.first) p.follow.add(q);
    first = nullable ? new Set([...first, ...part.first]) : first;
    last = part.nullable ? new Set([...last, ...part.last]) : part.last;
    nullable = nullable && part.nullable;
  }
  return { first, last, nullable };
}

/** A loop that can hand characters over to another: through positions that all can match a shared character. */
function takesTurns(from: { set: CharSet; follow: Iterable<Position> }, self: Position | undefined, loops: readonly Position[]): boolean {
  for (const other of loops) {
    if (other === self) continue;
    const shared = intersection(from.set, other.set);
    if (shared === undefined) continue;
    const seen = new Set<Position>();
    const queue = [...from.follow].filter((p) => p !== self);
    while (queue.length > 0) {
      const p = queue.pop() as Position;
      if (seen.has(p) || !intersects(p.set, shared)) continue;
      if (p === other) return true;
      seen.add(p);
      for (const q of p.follow) if (q !== p) queue.push(q);
    }
  }
  return false;
}

function checkCost(alternatives: readonly (readonly Node[])[]): void {
  const positions: Position[] = [];
  const branching = { value: alternatives.length };
  // Where the search for a start position enters (alternatives without '^'), and the positions
  // after which the rest of an alternative (without '$') can match nothing: reaching a final
  // repetition is a match, so it never gives characters back.
  const entries = new Set<Position>();
  const finals = new Set<Position>();
  for (const alternative of alternatives) {
    const part = fragment(alternative, positions, branching);
    if (alternative[0]?.kind !== 'start') for (const p of part.first) entries.add(p);
    if (alternative.at(-1)?.kind !== 'end') for (const p of part.last) finals.add(p);
  }
  if (branching.value > MAX_BRANCHING)
    throw refuse(
      `has too many combinations of alternatives and bounded repetitions (more than ${MAX_BRANCHING}), which a backtracking engine would try one by one`,
    );
  const loops = positions.filter((p) => p.loop && !finals.has(p));
  if (entries.size > 0 && loops.length > 0 && takesTurns({ set: ANY, follow: entries }, undefined, loops)) {
    throw refuse(
      "repeats a character it can also start with and is not anchored with '^' (e.g. 'a+b', 'x.*='): a backtracking engine would take quadratic time; anchor it with '^' or start it with a character the repetition cannot match",
    );
  }
  for (const loop of loops) {
    if (takesTurns(loop, loop, loops))
      throw refuse(
        "has two unbounded repetitions that can match the same characters in turn (e.g. '.*a.*=', 'a*a*'): a backtracking engine would take polynomial time; use classes that exclude each other's characters (e.g. '[^a]*a')",
      );
  }
}

// ---- rendering ----

function literal(code: number): string {
  const char = String.fromCodePoint(code);
  return METACHARACTERS.has(code) ? `\\${char}` : char;
}

function classMember(code: number, escapeAllPunctuation: boolean): string {
  // (JavaScript's `u` flag refuses an escape of anything but syntax characters and '-': it never escapes all.)
  const char = String.fromCodePoint(code);
  if (CLASS_SPECIAL.has(code)) return `\\${char}`;
  // ICU reads some punctuation inside sets specially ('&&', '$', spaces in its set syntax): escape it all there.
  if (escapeAllPunctuation && code < 0x80 && !/[A-Za-z0-9]/.test(char)) return `\\${char}`;
  return char;
}

/**
 * The pattern in an engine family's syntax: `posix` (PostgreSQL's AREs, RE2), `pcre` (PCRE, ICU,
 * PCRE2: `$` may match before a final line break there) or `js` (a `u`-flag RegExp: escapes only
 * of syntax characters, `$` is the very end without the `m` flag).
 */
function render(alternatives: readonly (readonly Node[])[], family: 'posix' | 'pcre' | 'js'): string {
  const atom = (a: Atom): string => {
    if (a.kind === 'any') return '.';
    if (a.kind === 'char') return literal(a.code);
    const items = a.items.map((item) =>
      item.from === item.to
        ? classMember(item.from, family === 'pcre')
        : `${classMember(item.from, family === 'pcre')}-${classMember(item.to, family === 'pcre')}`,
    );
    return `[${a.negated ? '^' : ''}${items.join('')}]`;
  };
  const node = (n: Node): string => {
    switch (n.kind) {
      case 'start':
        return '^';
      case 'end':
        // PCRE's and ICU's '$' also match before a final line break: "no character follows" (with dotall).
        return family === 'pcre' ? '(?!.)' : '$';
      case 'group':
        return `(${n.alternatives.map((alternative) => alternative.map(node).join('')).join('|')})`;
      case 'atom':
        return atom(n.atom) + n.quantifier;
    }
  };
  return alternatives.map((alternative) => alternative.map(node).join('')).join('|');
}

const cache = new Map<string, CheckedPattern>();

/**
 * Checks a `matchesPattern` pattern against the subset and renders it for each engine; throws
 * an `invalid_option_value` ODataError (400) that names the refused construct.
 */
export function checkMatchesPattern(pattern: string): CheckedPattern {
  const known = cache.get(pattern);
  if (known !== undefined) return known;
  if (pattern.length > MAX_PATTERN_LENGTH) throw refuse(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  const alternatives = new Parser(pattern).parse();
  checkCost(alternatives);
  const posix = render(alternatives, 'posix');
  const pcre = render(alternatives, 'pcre');
  const checked: CheckedPattern = {
    source: pattern,
    js: { source: render(alternatives, 'js'), flags: 'su' },
    re2: posix,
    postgres: posix,
    mysql: `(?s)${pcre}`,
    mongo: { regex: pcre, options: 's' },
  };
  if (cache.size >= 256) cache.clear();
  cache.set(pattern, checked);
  return checked;
}
