/**
 * `quickFixes`: for the problems `validateQuery` finds, the edits that obviously fix some of
 * them: a misspelt property, navigation property, function or option name ("did you mean"), a
 * string literal without its closing quote, `=` or `==` written for `eq`, `!=` for `ne`.
 */
import type { BindSettings } from '../semantic/settings.js';
import { validateQuery, type Diagnostic } from '../validation/validate-query.js';
import { completeQuery } from './complete-query.js';
import { canonicalOption, type TextRange } from './cursor.js';
import { splitQueryString } from '../syntax/query-string.js';

/** One text edit: `range` of the query replaced by `newText`. */
export interface TextEdit {
  readonly range: TextRange;
  readonly newText: string;
}

/** A fix of one diagnostic: its title (`Change to 'name'`) and its edits. */
export interface QuickFix {
  readonly title: string;
  readonly diagnostic: Diagnostic;
  readonly edits: readonly TextEdit[];
}

/** The system query options a misspelt option name may have meant. */
const OPTIONS = ['filter', 'select', 'expand', 'orderby', 'top', 'skip', 'count', 'search', 'compute', 'apply', 'format', 'skiptoken'];

/** Edit distance (insertions, deletions, substitutions, transpositions), case-insensitively; stops early past `max`. */
function distance(a: string, b: string, max: number): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (Math.abs(x.length - y.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= x.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= y.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1] as number[])[j]! + 1, row[j - 1]! + 1, (rows[i - 1] as number[])[j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, (rows[i - 2] as number[])[j - 2]! + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[x.length] as number[])[y.length]!;
}

/** The names closest to `word` (at most a third of its letters off, and at most 3), best first. */
function closest(word: string, names: readonly string[]): string[] {
  const max = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return names
    .map((name) => ({ name, d: distance(word, name, max) }))
    .filter(({ name, d }) => d <= max && name !== word)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map(({ name }) => name);
}

/**
 * The quick fixes for the diagnostics of `validateQuery(text, settings)`: for each diagnostic with
 * an obvious fix, one fix per candidate (the closest names first). Never throws.
 *
 * @example
 * ```ts
 * quickFixes("$filter=nmae eq 'x'", { model, entitySet: 'Products' });
 * // [{ title: "Change to 'Name'", diagnostic: {…}, edits: [{ range: { start: 8, end: 12 }, newText: 'Name' }] }]
 * ```
 */
export function quickFixes(text: string, settings: BindSettings): QuickFix[] {
  try {
    return validateQuery(text, settings).flatMap((diagnostic) => fixesOf(text, diagnostic, settings));
  } catch {
    return [];
  }
}

function fixesOf(text: string, diagnostic: Diagnostic, settings: BindSettings): QuickFix[] {
  const { range } = diagnostic;
  const written = text.slice(range.start, range.end);
  const change = (newText: string, at: TextRange = range, title = `Change to '${newText}'`): QuickFix => ({
    title,
    diagnostic,
    edits: [{ range: at, newText }],
  });
  switch (diagnostic.code) {
    case 'unknown_property':
    case 'unknown_function': {
      // The names the language service offers where the misspelt one stands.
      const offered = completeQuery(text, range.start, settings)
        .filter((item) => (diagnostic.code === 'unknown_function' ? item.kind === 'function' : item.kind === 'property' || item.kind === 'navigation'))
        .map((item) => item.label);
      return closest(written, [...new Set(offered)]).map((name) => change(name));
    }
    case 'unknown_option': {
      const part = splitQueryString(text).find((p) => p.offset === range.start);
      if (part === undefined) return [];
      const name = canonicalOption(part.rawName);
      const at = { start: part.offset, end: part.offset + part.rawName.length };
      return closest(name, OPTIONS).map((option) => change(`$${option}`, at));
    }
    case 'syntax_error':
    case 'invalid_token': {
      if (written.startsWith("'") && diagnostic.code === 'invalid_token') {
        // A string without its closing quote: close it where the option's value ends.
        const part = splitQueryString(text).find((p) => p.valueOffset <= range.start && range.start <= p.offset + p.text.length);
        if (part === undefined) return [];
        const end = part.offset + part.text.length;
        return [change("'", { start: end, end }, 'Close the string')];
      }
      const operator = text.startsWith('==', range.start)
        ? '=='
        : text.startsWith('!=', range.start)
          ? '!='
          : text.startsWith('=', range.start)
            ? '='
            : undefined;
      if (operator === undefined) return [];
      const replacement = operator === '!=' ? 'ne' : 'eq';
      const before = range.start > 0 && text.charAt(range.start - 1) !== ' ' ? ' ' : '';
      const after = text.charAt(range.start + operator.length) !== ' ' ? ' ' : '';
      return [
        change(`${before}${replacement}${after}`, { start: range.start, end: range.start + operator.length }, `Change '${operator}' to '${replacement}'`),
      ];
    }
    default:
      return [];
  }
}
