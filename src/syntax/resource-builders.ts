/**
 * Builders of resource-path segments (see `resourceSegmentOption` in parser.ts): a name with its
 * parenthesised lists, and the `$` segments. Which list is a key and which a function's parameters
 * is the binder's to decide; here only the form is checked.
 */
import type { IToken } from 'chevrotain';
import type { ResourceSegment, ResourceSystemSegment, SegmentArgument } from './ast.js';
import { syntaxError, type RawArgument } from './builders.js';

const SYSTEM_SEGMENTS: ReadonlySet<string> = new Set<ResourceSystemSegment>([
  '$count',
  '$ref',
  '$value',
  '$each',
  '$query',
  '$all',
  '$entity',
  '$metadata',
  '$batch',
]);

/** A parenthesised list as segment arguments: all named (`k=1,j=2`) or one or more positional. */
function segmentArguments(name: string, list: { args: RawArgument[] }): SegmentArgument[] {
  const args = list.args;
  for (const arg of args) if (arg.then !== undefined) throw syntaxError(`Unexpected ':' in the parentheses after '${name}'`, arg.value.span.end);
  const named = args.filter((arg) => arg.name !== undefined).length;
  if (named !== 0 && named !== args.length)
    throw syntaxError(`The values in the parentheses after '${name}' must be all named or all positional`, args[0]?.span.start ?? 0);
  return args.map((arg) => (arg.name === undefined ? { value: arg.value, span: arg.span } : { name: arg.name, value: arg.value, span: arg.span }));
}

/** `Name`, `Name(…)` or `Name(…)(…)`. */
export function buildNameSegment(name: IToken, lists: readonly { args: RawArgument[]; close: IToken }[], text: string): ResourceSegment {
  const start = name.startOffset;
  const last = lists[lists.length - 1];
  const end = last === undefined ? start + name.image.length : last.close.startOffset + 1;
  return { kind: 'name', name: name.image, lists: lists.map((list) => segmentArguments(name.image, list)), text: text.slice(start, end), span: { start, end } };
}

/** `$count`, `$ref`, …, `$filter(expr)`, `$crossjoin(A,B)`. */
export function buildSystemSegment(token: IToken, list: { args: RawArgument[]; close: IToken } | undefined): ResourceSegment {
  const name = token.image;
  const start = token.startOffset;
  const at = { start, end: list === undefined ? start + name.length : list.close.startOffset + 1 };
  if (name === '$filter') {
    const predicate = list?.args.length === 1 && list.args[0]?.name === undefined ? list.args[0].value : undefined;
    if (predicate === undefined) throw syntaxError(`'$filter' in a path takes one expression in parentheses: $filter(…)`, start);
    return { kind: 'filter', predicate, span: at };
  }
  if (name === '$crossjoin') {
    const sets = (list?.args ?? []).map((arg) => {
      const value = arg.value;
      if (
        arg.name !== undefined ||
        value.kind !== 'path' ||
        value.head.kind !== 'implicit' ||
        value.segments.length !== 1 ||
        value.segments[0]?.kind !== 'member'
      )
        throw syntaxError(`'$crossjoin' takes entity set names`, arg.span.start);
      return value.segments[0].name;
    });
    if (sets.length === 0) throw syntaxError(`'$crossjoin' takes one or more entity set names in parentheses`, start);
    return { kind: 'crossjoin', sets, span: at };
  }
  if (!SYSTEM_SEGMENTS.has(name)) throw syntaxError(`'${name}' is not a resource path segment`, start);
  if (list !== undefined) throw syntaxError(`'${name}' takes no parentheses`, list.close.startOffset);
  return { kind: 'system', name: name as ResourceSystemSegment, span: at };
}
