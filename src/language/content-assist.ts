/**
 * Which tokens the grammar allows after a sequence of tokens: content assist over the grammar
 * Chevrotain recorded from the parser's rules (`getGAstProductions`), the same productions its
 * lookahead and error messages come from. (Chevrotain 11's `computeContentAssist` did this; 12
 * removed it, so this walk reads the recorded productions itself.)
 *
 * The walk keeps every path of the grammar that matches the tokens so far; where the tokens end,
 * each path's next terminal is one suggestion, with the rules it is in. An alternative whose first
 * tokens cannot match the next token is not followed (the first sets of the productions, computed
 * once), so a token costs about the depth of the rules it is parsed in. What the recording does not
 * hold, the parser's gates, the caller gives as {@link Gates}.
 */
import {
  Alternation,
  NonTerminal,
  Option,
  Repetition,
  RepetitionMandatory,
  RepetitionMandatoryWithSeparator,
  RepetitionWithSeparator,
  Rule,
  Terminal,
  tokenMatcher,
  type IProduction,
  type IToken,
  type TokenType,
} from 'chevrotain';
import { keywordSpelling } from '../syntax/lexer.js';

/** A token the grammar allows next, and the rules it would be parsed in (outermost first). */
export interface NextToken {
  readonly type: TokenType;
  /** Which of the rule's consumptions of that token type it is (0 for `CONSUME`, 2 for `CONSUME2`, …). */
  readonly occurrence: number;
  readonly ruleStack: readonly string[];
  /** Where each rule of the stack began: the index of its first token. */
  readonly ruleStarts: readonly number[];
}

/** The parser's gates, which the recorded grammar does not hold. */
export interface Gates {
  /**
   * Whether `rule` may be entered from `parent` (a gated alternative), given the tokens and the
   * position where `parent` began.
   */
  enter?(rule: string, parent: string, parentStart: number, tokens: readonly IToken[]): boolean;
  /** The one word a terminal of `rule` (by its occurrence) reads, where a gate checks the word (`with`, `from`). */
  word?(rule: string, occurrence: number): string | undefined;
  /** Whether a terminal of a gated alternative written inline in `rule` (which began at `ruleStart`) is allowed. */
  allows?(rule: string, occurrence: number, type: TokenType, ruleStart: number, tokens: readonly IToken[]): boolean;
}

/** Productions still to match: a list of productions, then what follows it. */
interface Pending {
  readonly productions: readonly IProduction[];
  readonly index: number;
  /** Whether a rule ends with this list: popped from the rule stack at its end. */
  readonly endsRule: boolean;
  readonly next: Pending | undefined;
}

/** The rules a path is in, innermost first, each with the token position where it began. */
interface Rules {
  readonly name: string;
  readonly start: number;
  readonly outer: Rules | undefined;
}

interface Path {
  readonly position: number;
  readonly pending: Pending | undefined;
  readonly rules: Rules;
}

/** Steps of the walk before it gives up (a guard: the paths die out long before). */
const MAX_STEPS = 100_000;

/** The rule names of a stack and where each began, outermost first. */
function namesOf(rules: Rules): { names: string[]; starts: number[] } {
  const names: string[] = [];
  const starts: number[] = [];
  for (let r: Rules | undefined = rules; r !== undefined; r = r.outer) {
    names.push(r.name);
    starts.push(r.start);
  }
  return { names: names.reverse(), starts: starts.reverse() };
}

/**
 * The tokens the rule `start` of the grammar `rules` allows after `tokens` (every token of which
 * must match): each token type once per rule stack. Empty when the tokens cannot begin the rule.
 * Repetitions in a Chevrotain grammar never match nothing (its validation refuses them), so the
 * walk ends; its steps are bounded all the same.
 */
export function nextTokens(grammar: Readonly<Record<string, Rule>>, start: string, tokens: readonly IToken[], gates: Gates = {}): NextToken[] {
  const rule = grammar[start];
  if (rule === undefined) return [];
  const found = new Map<string, NextToken>();
  const stack: Path[] = [
    { position: 0, pending: { productions: rule.definition, index: 0, endsRule: true, next: undefined }, rules: { name: start, start: 0, outer: undefined } },
  ];
  let steps = 0;
  while (stack.length > 0) {
    if (++steps > MAX_STEPS) break;
    const path = stack.pop() as Path;
    let pending = path.pending;
    let rules: Rules | undefined = path.rules;
    // Past the end of a list: pop it (and its rule).
    while (pending !== undefined && pending.index >= pending.productions.length) {
      if (pending.endsRule) rules = rules?.outer;
      pending = pending.next;
    }
    if (pending === undefined || rules === undefined) continue; // the start rule is complete: nothing may follow it
    const production = pending.productions[pending.index] as IProduction;
    const rest: Pending = { productions: pending.productions, index: pending.index + 1, endsRule: pending.endsRule, next: pending.next };
    const position = path.position;
    const token = tokens[position];
    const within: Rules = rules;
    const type = token === undefined ? -1 : token.tokenTypeIdx;
    if (production instanceof Terminal) {
      if (gates.allows !== undefined && !gates.allows(within.name, production.idx, production.terminalType, within.start, tokens)) continue;
      const word = gates.word?.(within.name, production.idx);
      if (token !== undefined) {
        if (tokenMatcher(token, production.terminalType) && (word === undefined || token.image === word))
          stack.push({ position: position + 1, pending: rest, rules: within });
      } else {
        const { names, starts } = namesOf(within);
        const key = `${production.terminalType.name}#${production.idx}|${names.join('>')}`;
        if (!found.has(key)) found.set(key, { type: production.terminalType, occurrence: production.idx, ruleStack: names, ruleStarts: starts });
      }
      continue;
    }
    if (production instanceof NonTerminal) {
      const name = production.nonTerminalName;
      if (gates.enter !== undefined && !gates.enter(name, within.name, within.start, tokens)) continue;
      follow(stack, position, type, { productions: production.definition, index: 0, endsRule: true, next: rest }, { name, start: position, outer: within });
      continue;
    }
    // A keyword (`not`, `eq`, `asc`…) is also a name where no keyword can stand. The parser decides
    // as Chevrotain does with one token of lookahead: the first alternative that can begin with it,
    // an optional part whenever it can begin with it; the walk follows that choice alone.
    const keyword = token !== undefined && keywordSpelling(token.tokenType) !== undefined;
    if (production instanceof Alternation) {
      const alternatives = production.definition as unknown as { definition: IProduction[] }[];
      /** Whether the parser's gate lets the alternative be chosen (its first rule, where one is gated). */
      const open = (alternative: { definition: IProduction[] }): boolean => {
        const first = alternative.definition[0];
        return !(first instanceof NonTerminal) || gates.enter === undefined || gates.enter(first.nonTerminalName, within.name, within.start, tokens);
      };
      const chosen = keyword ? alternatives.find((alternative) => open(alternative) && firstFrom(alternative.definition, 0).matches.has(type)) : undefined;
      if (chosen !== undefined) push(stack, position, type, chosen.definition, rest, within);
      else
        for (let i = alternatives.length - 1; i >= 0; i--)
          push(stack, position, type, (alternatives[i] as { definition: IProduction[] }).definition, rest, within);
      continue;
    }
    if (production instanceof Option || production instanceof Repetition || production instanceof RepetitionWithSeparator) {
      // Skip it, or take it (a repetition then again).
      const body = production instanceof Option ? production.definition : production instanceof Repetition ? repeated(production) : separatedBody(production);
      // (Where the part begins with a word a gate checks, `with` or `from`, only that word takes it.)
      const word = leadingWord(body, within.name, gates);
      const taken = keyword && firstFrom(body, 0).matches.has(type) && (word === undefined || word === token.image);
      if (!taken) follow(stack, position, type, rest, within);
      push(stack, position, type, body, rest, within);
      continue;
    }
    if (production instanceof RepetitionMandatory) {
      push(stack, position, type, mandatoryBody(production), rest, within);
      continue;
    }
    if (production instanceof RepetitionMandatoryWithSeparator) {
      push(stack, position, type, separatedBody(production), rest, within);
      continue;
    }
    // Alternative, Rule and any other flat list of productions.
    push(stack, position, type, (production as unknown as { definition: IProduction[] }).definition, rest, within);
  }
  return [...found.values()];
}

/** The word a gate requires of the first token of `productions` (in `rule`), if its first terminal has one. */
function leadingWord(productions: readonly IProduction[], rule: string, gates: Gates, depth = 0): string | undefined {
  const first = productions[0];
  if (first === undefined || depth > 8 || gates.word === undefined) return undefined;
  if (first instanceof Terminal) return gates.word(rule, first.idx);
  if (first instanceof NonTerminal) return leadingWord(first.definition, first.nonTerminalName, gates, depth + 1);
  return undefined;
}

/** Follows `pending` where it can begin with the next token, of type index `type` (any path at the end of the tokens: -1). */
function follow(stack: Path[], position: number, type: number, pending: Pending, rules: Rules): void {
  if (type < 0 || canBegin(pending, type)) stack.push({ position, pending, rules });
}

/** Follows `productions`, then `rest`. */
function push(stack: Path[], position: number, type: number, productions: readonly IProduction[], rest: Pending, rules: Rules): void {
  follow(stack, position, type, { productions, index: 0, endsRule: false, next: rest }, rules);
}

// ---- first sets ---------------------------------------------------------------------------------

interface First {
  /** The token type indexes (categories' members included) the productions can begin with. */
  readonly matches: ReadonlySet<number>;
  readonly nullable: boolean;
}

const firsts = new WeakMap<object, First>();
const inProgress = new WeakSet<object>();

/** The indexes of the token types that match `type`: itself and, for a category, its members. */
function matchesOf(type: TokenType): number[] {
  return [type.tokenTypeIdx as number, ...((type as { categoryMatches?: number[] }).categoryMatches ?? [])];
}

/** The tokens a production can begin with, and whether it can match nothing. */
function firstOf(production: IProduction): First {
  const kept = firsts.get(production);
  if (kept !== undefined) return kept;
  if (production instanceof Terminal) return remember(production, { matches: new Set(matchesOf(production.terminalType)), nullable: false });
  // (A rule met again before a token is consumed: left recursion, which the grammar's validation rules out.)
  if (inProgress.has(production)) return { matches: new Set(), nullable: false };
  inProgress.add(production);
  let first: First;
  if (production instanceof Alternation) {
    const matches = new Set<number>();
    let isNullable = false;
    for (const alternative of production.definition) {
      const f = firstFrom((alternative as unknown as { definition: IProduction[] }).definition, 0);
      for (const m of f.matches) matches.add(m);
      isNullable ||= f.nullable;
    }
    first = { matches, nullable: isNullable };
  } else {
    const body = firstFrom((production as unknown as { definition: IProduction[] }).definition, 0);
    const optional = production instanceof Option || production instanceof Repetition || production instanceof RepetitionWithSeparator;
    first = { matches: body.matches, nullable: body.nullable || optional };
  }
  inProgress.delete(production);
  return remember(production, first);
}

function remember(production: object, first: First): First {
  firsts.set(production, first);
  return first;
}

/** {@link firstOf} the productions of a list from `index` on, in sequence (kept per list and index). */
const listFirsts = new WeakMap<readonly IProduction[], First[]>();
function firstFrom(productions: readonly IProduction[], index: number): First {
  let kept = listFirsts.get(productions);
  if (kept === undefined) listFirsts.set(productions, (kept = []));
  const known = kept[index];
  if (known !== undefined) return known;
  const matches = new Set<number>();
  let isNullable = true;
  for (let i = index; i < productions.length; i++) {
    const f = firstOf(productions[i] as IProduction);
    for (const m of f.matches) matches.add(m);
    if (!f.nullable) {
      isNullable = false;
      break;
    }
  }
  const first = { matches, nullable: isNullable };
  kept[index] = first;
  return first;
}

/** Whether what is pending can begin with a token of type index `type` (through the lists that can match nothing). */
function canBegin(pending: Pending | undefined, type: number): boolean {
  for (let p = pending; p !== undefined; p = p.next) {
    const f = firstFrom(p.productions, p.index);
    if (f.matches.has(type)) return true;
    if (!f.nullable) return false;
  }
  return false;
}

// ---- repetitions --------------------------------------------------------------------------------

/** The body of a repetition followed by the repetition again (one list per repetition). */
const repeatedBodies = new WeakMap<IProduction, readonly IProduction[]>();
function repeated(production: Repetition): readonly IProduction[] {
  let body = repeatedBodies.get(production);
  if (body === undefined) repeatedBodies.set(production, (body = [...production.definition, production]));
  return body;
}

/** A separated repetition's first item, then `(SEP item)*` (one list per repetition). */
const separatedBodies = new WeakMap<IProduction, readonly IProduction[]>();
function separatedBody(production: RepetitionWithSeparator | RepetitionMandatoryWithSeparator): readonly IProduction[] {
  let body = separatedBodies.get(production);
  if (body === undefined) {
    const tail = new Repetition({ definition: [new Terminal({ terminalType: production.separator }), ...production.definition] });
    separatedBodies.set(production, (body = [...production.definition, tail]));
  }
  return body;
}

/** A mandatory repetition's first item, then `item*` (one list per repetition). */
const mandatoryBodies = new WeakMap<IProduction, readonly IProduction[]>();
function mandatoryBody(production: RepetitionMandatory): readonly IProduction[] {
  let body = mandatoryBodies.get(production);
  if (body === undefined) mandatoryBodies.set(production, (body = [...production.definition, new Repetition({ definition: production.definition })]));
  return body;
}
