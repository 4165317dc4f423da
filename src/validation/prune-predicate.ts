/**
 * How the validators find more than one problem in a `$filter`: a binding error prunes the smallest
 * predicate that holds it (it becomes `true`) and the filter is bound again; and how long the token
 * at an error's position is, for the diagnostic's range.
 */
import type { Expression, Span } from '../syntax/ast.js';

/** Does `span` contain the position? */
export const within = (span: Span, position: number): boolean => span.start <= position && position <= span.end;

/**
 * `filter` with the smallest predicate that contains `position` replaced by `true`; `undefined`
 * when the predicate is the whole filter (then the option goes). A loop, not recursion: a chain
 * of thousands of `or`s is a left-deep tree thousands of levels deep.
 */
export function prunePredicate(filter: Expression, position: number): Expression | undefined {
  const path: { node: Expression; side: 'left' | 'right' | 'operand' }[] = [];
  let current = filter;
  for (;;) {
    if (current.kind === 'binary' && (current.operator === 'and' || current.operator === 'or')) {
      const side = within(current.left.span, position) ? 'left' : within(current.right.span, position) ? 'right' : undefined;
      if (side === undefined) break;
      path.push({ node: current, side });
      current = current[side];
      continue;
    }
    if (current.kind === 'unary' && current.operator === 'not' && within(current.operand.span, position)) {
      path.push({ node: current, side: 'operand' });
      current = current.operand;
      continue;
    }
    break;
  }
  if (path.length === 0) return undefined;
  let replaced = truth(current.span);
  for (let i = path.length - 1; i >= 0; i--) {
    const { node, side } = path[i] as (typeof path)[number];
    replaced = { ...node, [side]: replaced } as Expression;
  }
  return replaced;
}

function truth(span: Span): Expression {
  return { kind: 'literal', type: 'Edm.Boolean', value: true, span };
}

/** The length of the token at `position`: an identifier or path, a quoted string, or one character. */
export function tokenLength(text: string, position: number): number {
  const rest = text.slice(position);
  const quoted = /^'(?:[^']|'')*'?/.exec(rest);
  if (quoted !== null && rest.startsWith("'")) return quoted[0].length;
  const word = /^[\p{L}\p{N}_$@.]+/u.exec(rest);
  return word === null ? Math.min(1, rest.length) : word[0].length;
}
