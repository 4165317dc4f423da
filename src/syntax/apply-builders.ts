/**
 * AST construction and checks for `$apply` (OData Extension for Data Aggregation 4.0), used by the
 * parser's embedded actions. The words of the aggregation grammar (`with`, `from`, `as`, the
 * transformation and method names) are case-sensitive (`%s"…"` in its ABNF); the lexer reads them
 * as identifiers and they are checked here.
 */
import type { IToken } from 'chevrotain';
import type { AggregateItem, AggregateMethod, ApplyTransformation, ComputeItem, Expression, MemberPath, PathSegment, Span } from './ast.js';
import { syntaxError } from './builders.js';

const span = (start: number, end: number): Span => ({ start, end });
const endOf = (token: IToken): number => token.startOffset + token.image.length;

/** A transformation without its span (the parser adds it once the closing parenthesis is read). */
export type TransformationBody = ApplyTransformation extends infer T ? (T extends unknown ? Omit<T, 'span'> : never) : never;

/** What a transformation name stands for: a named transformation, or `custom` (`Namespace.function`). */
export type TransformationKind =
  | 'aggregate'
  | 'groupby'
  | 'filter'
  | 'compute'
  | 'orderby'
  | 'top'
  | 'skip'
  | 'search'
  | 'identity'
  | 'concat'
  | 'topcount'
  | 'bottomcount'
  | 'toppercent'
  | 'bottompercent'
  | 'topsum'
  | 'bottomsum'
  | 'join'
  | 'outerjoin'
  | 'nest'
  | 'addnested'
  | 'ancestors'
  | 'descendants'
  | 'traverse'
  | 'custom';

const TRANSFORMATIONS: ReadonlySet<string> = new Set<TransformationKind>([
  'aggregate',
  'groupby',
  'filter',
  'compute',
  'orderby',
  'top',
  'skip',
  'search',
  'identity',
  'concat',
  'topcount',
  'bottomcount',
  'toppercent',
  'bottompercent',
  'topsum',
  'bottomsum',
  'join',
  'outerjoin',
  'nest',
  'addnested',
  'ancestors',
  'descendants',
  'traverse',
]);

/** The names of the transformations of `$apply` (Data Aggregation 3 and 6), for completion. */
export const TRANSFORMATION_NAMES: readonly string[] = [...TRANSFORMATIONS];

/** The transformations whose syntax is checked but that get no tree of their own (`kind: 'other'`). */
export const OTHER_TRANSFORMATIONS: ReadonlySet<TransformationKind> = new Set<TransformationKind>(['custom']);

/** The kind of the transformation a name token starts, or an error naming the known ones. */
export function transformationKind(name: IToken): TransformationKind {
  const text = name.image;
  if (TRANSFORMATIONS.has(text)) return text as TransformationKind;
  if (text.includes('.')) return 'custom';
  const known = [...TRANSFORMATIONS].find((known) => known.toLowerCase() === text.toLowerCase());
  throw syntaxError(
    known === undefined
      ? `'${text}' is not a transformation; expected aggregate, groupby, filter, compute, orderby, top, skip, search, identity, concat, topcount, … or a namespace-qualified custom function`
      : `'${text}' is not a transformation; transformation names are case-sensitive: '${known}'`,
    name.startOffset,
  );
}

/** True when `token` (followed by `next`) can start a transformation: a known name then `(`, `identity`, or `Ns.fn(`. */
export function startsTransformation(token: IToken, next: IToken): boolean {
  const text = token.image;
  if (text === 'identity') return true;
  return next.image === '(' && (TRANSFORMATIONS.has(text) || text.includes('.'));
}

/** Checks a case-sensitive word of the aggregation grammar (`with`, `from`, `as`, `keep`, …). */
export function expectWord(token: IToken, word: string): void {
  if (token.image !== word) throw syntaxError(`Expected '${word}' but found '${token.image}'`, token.startOffset);
}

/** `as Alias`: `as` in lower case, a simple name. */
export function checkAlias(as: IToken, alias: IToken): string {
  expectWord(as, 'as');
  if (alias.image.includes('.')) throw syntaxError(`An alias must be a simple name, but '${alias.image}' is qualified`, alias.startOffset);
  return alias.image;
}

const METHODS: ReadonlySet<string> = new Set(['sum', 'min', 'max', 'average', 'countdistinct']);

/** An aggregation method: a standard one (case-sensitive) or a namespace-qualified custom one. */
export function aggregateMethod(token: IToken): AggregateMethod {
  const text = token.image;
  if (METHODS.has(text)) return text as AggregateMethod;
  if (text.includes('.')) return { custom: text };
  throw syntaxError(
    `'${text}' is not an aggregation method; expected sum, min, max, average, countdistinct or a namespace-qualified custom method`,
    token.startOffset,
  );
}

/** A path of `$apply` (grouping properties, hierarchy and nesting paths): names and type casts, no function or key. */
export function aggregationPath(steps: readonly IToken[]): MemberPath {
  const segments: PathSegment[] = steps.map((step) =>
    step.image.startsWith('@')
      ? { kind: 'annotation', term: step.image.slice(1), span: span(step.startOffset, endOf(step)) }
      : { kind: 'member', name: step.image, span: span(step.startOffset, endOf(step)) },
  );
  const first = steps[0] as IToken;
  const last = steps[steps.length - 1] as IToken;
  return { kind: 'path', head: { kind: 'implicit' }, segments, span: span(first.startOffset, endOf(last)) };
}

/**
 * A grouping property (or a hierarchy's node property): properties with optional type casts in
 * between, ending in a property. Term casts (annotations) are not allowed in aggregation paths.
 */
export function checkGroupingPath(path: MemberPath): MemberPath {
  for (const segment of path.segments) {
    if (segment.kind === 'annotation') throw syntaxError(`Annotations are not allowed in a grouping path`, segment.span.start);
  }
  const last = path.segments[path.segments.length - 1];
  if (last?.kind === 'member' && last.name.includes('.')) {
    throw syntaxError(`A grouping path must end with a property, not with the type cast '${last.name}'`, last.span.start);
  }
  return path;
}

/** The path of `join`, `outerjoin` and `addnested`: names and type casts, no annotation (term casts are not in the grammar here). */
export function checkNestPath(path: MemberPath): MemberPath {
  for (const segment of path.segments) {
    if (segment.kind === 'annotation') throw syntaxError(`Annotations are not allowed in a nesting or join path`, segment.span.start);
  }
  return path;
}

/** One `from` step as parsed. */
export interface RawFrom {
  readonly from: IToken;
  readonly properties: readonly MemberPath[];
  readonly method?: IToken;
}

/**
 * One aggregate item: `$count`, an expression with `with method`, `path/$count`, or a custom
 * aggregate (`Forecast`, `Sales/Forecast`), each with `from` steps and an alias as parsed.
 */
export function buildAggregateItem(
  start: IToken,
  count: IToken | undefined,
  expression: Expression | undefined,
  withToken: IToken | undefined,
  method: IToken | undefined,
  froms: readonly RawFrom[],
  alias: string | undefined,
  end: number,
): AggregateItem {
  const at = span(start.startOffset, end);
  if (withToken !== undefined) expectWord(withToken, 'with');
  const fromSteps = froms.map((step) => {
    expectWord(step.from, 'from');
    const stepEnd = step.method === undefined ? (step.properties[step.properties.length - 1] as MemberPath).span.end : endOf(step.method);
    for (const property of step.properties) checkGroupingPath(property);
    return {
      properties: step.properties,
      ...(step.method === undefined ? {} : { method: aggregateMethod(step.method) }),
      span: span(step.from.startOffset, stepEnd),
    };
  });
  const base = {
    kind: 'aggregateItem' as const,
    ...(alias === undefined ? {} : { alias }),
    span: at,
  };
  const withFrom = (custom: boolean): { from?: AggregateItem['from'] } => {
    if (fromSteps.length === 0) return {};
    if (!custom) {
      froms.forEach((step, index) => {
        if (step.method === undefined) {
          const properties = fromSteps[index]?.properties ?? [];
          throw syntaxError(
            `Expected 'with' and an aggregation method after the 'from' properties`,
            (properties[properties.length - 1] as MemberPath).span.end,
          );
        }
      });
    }
    return { from: fromSteps };
  };
  if (count !== undefined) {
    if (method !== undefined && withToken !== undefined) throw syntaxError(`'$count' cannot be aggregated 'with' a method`, withToken.startOffset);
    return { ...base, count: true, ...withFrom(false) };
  }
  const value = expression as Expression;
  if (method !== undefined) return { ...base, expression: value, method: aggregateMethod(method), ...withFrom(false) };
  if (value.kind === 'path') {
    const segments = value.segments;
    const last = segments[segments.length - 1];
    if (last?.kind === 'count' && last.filter === undefined && last.search === undefined && segments.length > 1) {
      const prefix: MemberPath = { kind: 'path', head: value.head, segments: segments.slice(0, -1), span: span(value.span.start, last.span.start - 1) };
      return { ...base, expression: prefix, count: true, ...withFrom(false) };
    }
    if (value.head.kind === 'implicit' && last?.kind === 'member' && !last.name.includes('.') && segments.every((segment) => segment.kind === 'member')) {
      const prefix: MemberPath | undefined =
        segments.length === 1
          ? undefined
          : { kind: 'path', head: value.head, segments: segments.slice(0, -1), span: span(value.span.start, last.span.start - 1) };
      return { ...base, ...(prefix === undefined ? {} : { expression: prefix }), custom: last.name, ...withFrom(true) };
    }
  }
  throw syntaxError(`Expected 'with' and an aggregation method after the aggregated expression`, value.span.end);
}

/** Items of `aggregate(…)`: each needs an alias, except a custom aggregate without `from`. */
export function checkAggregateItems(items: readonly AggregateItem[]): AggregateItem[] {
  for (const item of items) {
    if (item.alias === undefined && (item.custom === undefined || item.from !== undefined)) {
      throw syntaxError(`Expected 'as' and an alias after the aggregate expression`, item.span.end);
    }
  }
  return [...items];
}

/**
 * `compute(…)` in `$apply` reuses the `$compute` items, whose `as` is case-insensitive: here it
 * must be lower case (`%s"as"`).
 */
export function checkComputeAs(items: readonly ComputeItem[], text: string): ComputeItem[] {
  for (const item of items) {
    const between = text.slice(item.expression.span.end, item.span.end - item.alias.length);
    const at = between.search(/as\s*$/i);
    if (at >= 0 && !between.startsWith('as', at)) {
      throw syntaxError(`Expected 'as' but found '${between.slice(at, at + 2)}'`, item.expression.span.end + at);
    }
  }
  return [...items];
}

/** The `,n` and `,keep start` tails of `ancestors(…)` and `descendants(…)`, in that order, each once. */
export function checkHierarchyTail(parts: readonly (IToken | readonly [IToken, IToken])[]): void {
  let seenNumber = false;
  let seenKeep = false;
  for (const part of parts) {
    if (Array.isArray(part)) {
      const [keep, start] = part as readonly [IToken, IToken];
      expectWord(keep, 'keep');
      expectWord(start, 'start');
      if (seenKeep) throw syntaxError(`'keep start' is given twice`, keep.startOffset);
      seenKeep = true;
    } else {
      const number = part as IToken;
      if (!/^\d+$/.test(number.image)) throw syntaxError(`Expected a distance (digits) but found '${number.image}'`, number.startOffset);
      if (seenNumber || seenKeep) throw syntaxError(`Unexpected '${number.image}': the distance comes once, before 'keep start'`, number.startOffset);
      seenNumber = true;
    }
  }
}

/** `$root/…`, the first argument of a recursive hierarchy reference. */
export function checkRootPath(expression: Expression): void {
  if (expression.kind !== 'path' || expression.head.kind !== '$root') {
    throw syntaxError(`Expected a '$root/…' path to the hierarchy's entity set`, expression.span.start);
  }
}

/** The body of a transformation that gets no tree of its own (`kind: 'other'`; name and text are filled in by the parser). */
export const OTHER_BODY: TransformationBody = Object.freeze({ kind: 'other', name: '', text: '' });

/** Where a `from` step ends. */
export function endOfFrom(step: RawFrom): number {
  return step.method === undefined ? (step.properties[step.properties.length - 1] as MemberPath).span.end : endOf(step.method);
}
