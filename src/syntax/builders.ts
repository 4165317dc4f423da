/**
 * AST construction helpers for the parser's embedded actions: literals from tokens, calls from
 * argument lists, nested option blocks. Kept apart from the grammar so that the grammar file
 * reads as a grammar.
 */
import { tokenMatcher, type IToken } from 'chevrotain';
import { ODataError, type ODataErrorCode } from '../errors/odata-error.js';
import {
  CANONICAL_FUNCTIONS,
  type ApplyTransformation,
  type CanonicalFunctionName,
  type ComputeItem,
  type ExpandItem,
  type Expression,
  type ItemPathSegment,
  type Literal,
  type MemberPath,
  type NestedOptions,
  type PathHead,
  type OrderByItem,
  type PathSegment,
  type SearchExpression,
  type SegmentArgument,
  type SelectItem,
  type Span,
  type TypeName,
} from './ast.js';
import * as T from './lexer.js';
import {
  LiteralError,
  checkBinary,
  checkDate,
  checkDateTimeOffset,
  checkDuration,
  checkGeoLiteral,
  checkTimeOfDay,
  decodeEnumMembers,
  decodeJsonString,
  decodeNumber,
  unquote,
} from './literals.js';
import { createRecord } from '../util/record.js';

/** An ODataError at `position` of the option being parsed (the caller adds the option name). */
export function syntaxError(reason: string, position: number, code: ODataErrorCode = 'syntax_error'): ODataError {
  // An unknown function keeps OData.net's exact sentence; the position is in `position`.
  return new ODataError({ code, reason, position, appendLocation: code !== 'unknown_function' });
}

const span = (start: number, end: number): Span => ({ start, end });

function tokenSpan(token: IToken): Span {
  return span(token.startOffset, token.startOffset + token.image.length);
}

function literalError(token: IToken, error: unknown): ODataError {
  const reason = error instanceof LiteralError ? error.message : String(error);
  return syntaxError(`Invalid literal '${token.image}': ${reason}`, token.startOffset, 'invalid_literal');
}

/** The literal node for a literal token, with its content checked. */
export function buildLiteral(token: IToken): Literal {
  const at = tokenSpan(token);
  const text = token.image;
  try {
    switch (token.tokenType) {
      case T.StringLiteral:
        return { kind: 'literal', type: 'Edm.String', value: unquote(text), span: at };
      case T.JsonString:
        return { kind: 'literal', type: 'Edm.String', value: decodeJsonString(text), span: at };
      case T.NumberLiteral: {
        // The same keys in the same order as a spread would give, without the spread's copying.
        const number = decodeNumber(text);
        return { kind: 'literal', type: number.type, value: number.value, span: at } as Literal;
      }
      case T.True:
        return { kind: 'literal', type: 'Edm.Boolean', value: true, span: at };
      case T.False:
        return { kind: 'literal', type: 'Edm.Boolean', value: false, span: at };
      case T.Null:
        return { kind: 'literal', type: 'null', value: null, span: at };
      case T.Inf:
        return { kind: 'literal', type: 'Edm.Double', value: Infinity, span: at };
      case T.MinusInf:
        return { kind: 'literal', type: 'Edm.Double', value: -Infinity, span: at };
      case T.NaN:
        return { kind: 'literal', type: 'Edm.Double', value: NaN, span: at };
      case T.DateTimeOffsetLiteral:
        checkDateTimeOffset(text);
        return { kind: 'literal', type: 'Edm.DateTimeOffset', value: text, span: at };
      case T.DateLiteral:
        checkDate(text);
        return { kind: 'literal', type: 'Edm.Date', value: text, span: at };
      case T.TimeOfDayLiteral:
        checkTimeOfDay(text);
        return { kind: 'literal', type: 'Edm.TimeOfDay', value: text, span: at };
      case T.GuidLiteral:
        return { kind: 'literal', type: 'Edm.Guid', value: text, span: at };
      case T.PrefixedString:
        return buildPrefixedLiteral(text, at);
      default:
        throw new LiteralError(`unexpected token ${token.tokenType.name}`);
    }
  } catch (error) {
    if (error instanceof ODataError) throw error;
    throw literalError(token, error);
  }
}

/** `duration'…'`, `binary'…'`, `geography'…'`, `geometry'…'`, or an enum literal `Ns.Type'…'`. */
function buildPrefixedLiteral(text: string, at: Span): Literal {
  const quote = text.indexOf("'");
  const prefix = text.slice(0, quote);
  const body = unquote(text.slice(quote));
  switch (prefix.toLowerCase()) {
    case 'duration':
      checkDuration(body);
      return { kind: 'literal', type: 'Edm.Duration', value: body, span: at };
    case 'binary':
      checkBinary(body);
      return { kind: 'literal', type: 'Edm.Binary', value: body, span: at };
    case 'geography':
      checkGeoLiteral(body);
      return { kind: 'literal', type: 'Edm.Geography', value: body, span: at };
    case 'geometry':
      checkGeoLiteral(body);
      return { kind: 'literal', type: 'Edm.Geometry', value: body, span: at };
    default:
      if (!prefix.includes('.')) throw new LiteralError(`'${prefix}' is not a literal prefix; enumeration types must be namespace-qualified`);
      return { kind: 'literal', type: 'enum', enumType: prefix, value: decodeEnumMembers(body), span: at };
  }
}

// ---------------------------------------------------------------------------------------------
// Calls: canonical functions, lambdas, bound functions and key predicates
// ---------------------------------------------------------------------------------------------

/** An argument as parsed: `value`, `name=value` or `value:then`. */
export interface RawArgument {
  readonly name?: string;
  readonly value: Expression;
  readonly then?: Expression;
  readonly span: Span;
}

const CANONICAL_BY_LOWER_NAME: ReadonlyMap<string, CanonicalFunctionName> = new Map(
  (Object.keys(CANONICAL_FUNCTIONS) as CanonicalFunctionName[]).map((name) => [name.toLowerCase(), name]),
);

/** The canonical spelling of a function name (case-insensitive, 4.01), or `undefined`. */
export function canonicalFunctionName(name: string): CanonicalFunctionName | undefined {
  return CANONICAL_BY_LOWER_NAME.get(name) ?? CANONICAL_BY_LOWER_NAME.get(name.toLowerCase());
}

export type BuiltCall = { readonly kind: 'expression'; readonly expression: Expression } | { readonly kind: 'segment'; readonly segment: PathSegment };

/**
 * Interprets `name(args)`: a canonical function or `case` at the start of an expression, a
 * lambda after `/`, otherwise a bound function or key predicate segment.
 */
export function buildCall(nameToken: IToken, args: readonly RawArgument[], end: number, afterSlash = false): BuiltCall {
  const name = nameToken.image;
  const at = span(nameToken.startOffset, end);
  // A canonical function first (the most frequent call: its name is looked up as written).
  const canonical = afterSlash ? undefined : canonicalFunctionName(name);
  if (canonical !== undefined) return { kind: 'expression', expression: buildCanonicalCall(canonical, args, at) };
  const lower = name.toLowerCase();
  if (afterSlash && (lower === 'any' || lower === 'all')) return { kind: 'segment', segment: buildLambda(lower, args, at) };
  if (!afterSlash) {
    if (lower === 'case') return { kind: 'expression', expression: buildCase(args, at) };
    if (name === 'isdefined') return { kind: 'expression', expression: buildIsDefined(args, at) };
    if (lower === 'any' || lower === 'all') {
      throw syntaxError(`The lambda operator '${lower}' must follow a collection path, e.g. Items/${lower}(…)`, at.start);
    }
  }
  for (const arg of args) {
    if (arg.then !== undefined) throw syntaxError(`Unexpected ':' in the arguments of '${name}'`, arg.value.span.end);
  }
  const named = args.filter((arg) => arg.name !== undefined).length;
  if (named !== 0 && named !== args.length) {
    throw syntaxError(`The arguments of '${name}' must be all named or all positional`, at.start);
  }
  // An unqualified name at the start of a path is a key predicate only with one positional value.
  if (!afterSlash && !name.includes('.') && (named > 0 || args.length !== 1)) {
    throw syntaxError(
      `An unknown function with name '${name}' was found. This may also be a function import or a key lookup on a navigation property, which is not allowed.`,
      at.start,
      'unknown_function',
    );
  }
  const segmentArgs: SegmentArgument[] = args.map((arg) =>
    arg.name === undefined ? { value: arg.value, span: arg.span } : { name: arg.name, value: arg.value, span: arg.span },
  );
  return { kind: 'segment', segment: { kind: 'invoke', name, args: segmentArgs, span: at } };
}

function buildCanonicalCall(name: CanonicalFunctionName, args: readonly RawArgument[], at: Span): Expression {
  const [min, max] = CANONICAL_FUNCTIONS[name];
  if (args.length < min || args.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    throw syntaxError(`Function '${name}' takes ${expected} argument${max === 1 ? '' : 's'} but was given ${args.length}`, at.start, 'wrong_arity');
  }
  for (const arg of args) {
    if (arg.name !== undefined) throw syntaxError(`Arguments of '${name}' cannot be named`, arg.span.start);
    if (arg.then !== undefined) throw syntaxError(`Unexpected ':' in the arguments of '${name}'`, arg.value.span.end);
  }
  const values: (Expression | TypeName)[] = args.map((arg) => arg.value);
  if (name === 'cast' || name === 'isof') {
    const last = values.length - 1;
    values[last] = toTypeName(values[last] as Expression, name);
  }
  return { kind: 'call', name, args: values, span: at };
}

/** The last argument of `cast`/`isof` must be a type name: `Edm.Int32`, `Model.Customer`, `Collection(Edm.String)`. */
function toTypeName(value: Expression, fn: string): TypeName {
  // OData 4.0 clients quote the type name: isof(Shoe,'Edm.String').
  if (value.kind === 'literal' && value.type === 'Edm.String' && /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+$/.test(value.value)) {
    return { kind: 'typeName', name: value.value, collection: false, span: value.span };
  }
  if (value.kind === 'path' && value.head.kind === 'implicit' && value.segments.length === 1) {
    const [segment] = value.segments;
    if (segment?.kind === 'member') return { kind: 'typeName', name: segment.name, collection: false, span: value.span };
    if (segment?.kind === 'invoke' && segment.name === 'Collection' && segment.args.length === 1) {
      const inner = segment.args[0];
      if (inner && inner.name === undefined) {
        const element = toTypeName(inner.value, fn);
        if (!element.collection) return { kind: 'typeName', name: element.name, collection: true, span: value.span };
      }
    }
  }
  throw syntaxError(`Expected a type name as the last argument of '${fn}'`, value.span.start);
}

/** `isdefined(path)` (Data Aggregation `isdefinedExpr`): one member path, positional. */
function buildIsDefined(args: readonly RawArgument[], at: Span): Expression {
  const [arg] = args;
  if (args.length !== 1 || arg === undefined) throw syntaxError(`Function 'isdefined' takes 1 argument but was given ${args.length}`, at.start, 'wrong_arity');
  if (arg.name !== undefined || arg.then !== undefined || arg.value.kind !== 'path')
    throw syntaxError(`The argument of 'isdefined' must be a property path`, arg.span.start);
  return { kind: 'call', name: 'isdefined', args: [arg.value], span: at };
}

function buildCase(args: readonly RawArgument[], at: Span): Expression {
  if (args.length === 0) throw syntaxError(`'case' needs at least one 'condition:value' pair`, at.start);
  const branches = args.map((arg) => {
    if (arg.then === undefined || arg.name !== undefined) throw syntaxError(`Expected 'condition:value' in 'case'`, arg.span.start);
    return { when: arg.value, then: arg.then, span: arg.span };
  });
  return { kind: 'case', branches, span: at };
}

function buildLambda(operator: 'any' | 'all', args: readonly RawArgument[], at: Span): PathSegment {
  if (args.length === 0) {
    if (operator === 'all') throw syntaxError(`'all' needs a lambda expression, e.g. all(x:x/Price gt 5)`, at.end - 1);
    return { kind: 'lambda', operator, span: at };
  }
  const [arg] = args;
  if (args.length > 1 || arg === undefined) throw syntaxError(`'${operator}' takes one 'variable:expression' argument`, at.start);
  const variable = arg.value;
  if (
    arg.then === undefined ||
    arg.name !== undefined ||
    variable.kind !== 'path' ||
    variable.head.kind !== 'implicit' ||
    variable.segments.length !== 1 ||
    variable.segments[0]?.kind !== 'member' ||
    variable.segments[0].name.includes('.')
  ) {
    throw syntaxError(`Expected 'variable:expression' in '${operator}'`, arg.span.start);
  }
  const name = variable.segments[0].name;
  const shadowing = findLambdaVariable(arg.then, name);
  if (shadowing !== undefined) throw syntaxError(`The range variable '${name}' has already been declared.`, shadowing.start);
  return { kind: 'lambda', operator, variable: name, predicate: arg.then, span: at };
}

/** The span of a lambda inside `node` that declares `name` again, if any. */
export function findLambdaVariable(node: Expression, name: string): Span | undefined {
  const inSegments = (segments: readonly PathSegment[]): Span | undefined => {
    for (const segment of segments) {
      if (segment.kind === 'lambda') {
        if (segment.variable === name) return segment.span;
        if (segment.predicate !== undefined) {
          const found = findLambdaVariable(segment.predicate, name);
          if (found !== undefined) return found;
        }
      }
    }
    return undefined;
  };
  switch (node.kind) {
    case 'path':
      return inSegments(node.segments);
    case 'binary':
    case 'in':
      return findLambdaVariable(node.left, name) ?? (node.right.kind === 'list' ? undefined : findLambdaVariable(node.right, name));
    case 'unary':
      return findLambdaVariable(node.operand, name);
    case 'call':
      for (const arg of node.args) {
        if (arg.kind === 'typeName') continue;
        const found = findLambdaVariable(arg, name);
        if (found !== undefined) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// $select / $expand paths
// ---------------------------------------------------------------------------------------------

export type ItemStep =
  ItemPathSegment | { readonly kind: 'star'; readonly span: Span } | { readonly kind: 'namespaceStar'; readonly namespace: string; readonly span: Span };

export interface ItemPath {
  readonly path: ItemPathSegment[];
  readonly star?: '*' | { readonly namespace: string };
  readonly start: number;
  readonly end: number;
}

/** Checks that `*` and `Ns.*` only end a path and assembles the item path. */
export function assembleItemPath(steps: readonly ItemStep[]): ItemPath {
  const path: ItemPathSegment[] = [];
  let star: '*' | { namespace: string } | undefined;
  for (const [index, step] of steps.entries()) {
    if (star !== undefined) throw syntaxError(`Nothing can follow '*'`, step.span.start);
    if (step.kind === 'star') star = '*';
    else if (step.kind === 'namespaceStar') {
      if (index > 0) throw syntaxError(`'${step.namespace}.*' must stand alone`, step.span.start);
      star = { namespace: step.namespace };
    } else path.push(step);
  }
  const first = steps[0] as ItemStep;
  const last = steps[steps.length - 1] as ItemStep;
  return { path, ...(star === undefined ? {} : { star }), start: first.span.start, end: last.span.end };
}

// ---------------------------------------------------------------------------------------------
// Nested options
// ---------------------------------------------------------------------------------------------

/** One parsed `name=value` inside `( … )`, before checking. */
export type NestedOptionValue =
  | { readonly name: 'filter'; readonly token: IToken; readonly value: Expression; readonly end: number }
  | { readonly name: 'search'; readonly token: IToken; readonly value: SearchExpression; readonly end: number }
  | { readonly name: 'orderby'; readonly token: IToken; readonly value: OrderByItem[]; readonly end: number }
  | { readonly name: 'select'; readonly token: IToken; readonly value: SelectItem[]; readonly end: number }
  | { readonly name: 'expand'; readonly token: IToken; readonly value: ExpandItem[]; readonly end: number }
  | { readonly name: 'compute'; readonly token: IToken; readonly value: ComputeItem[]; readonly end: number }
  | { readonly name: 'apply'; readonly token: IToken; readonly value: ApplyTransformation[]; readonly end: number }
  | { readonly name: 'top' | 'skip' | 'levels' | 'count'; readonly token: IToken; readonly value: IToken; readonly end: number }
  | { readonly name: 'alias'; readonly token: IToken; readonly value: Expression; readonly end: number };

/** The end offset of the last node in a list. */
export function lastEnd(items: readonly { readonly span: Span }[]): number {
  return items[items.length - 1]?.span.end ?? 0;
}

/**
 * Parses the text of a `$top` or `$skip` value: digits only. Values beyond 2^53 − 1 are kept
 * exactly, as a `bigint`, so that limits are checked without float rounding.
 */
export function decodeCount(text: string, option: string, position: number): number | bigint {
  if (!/^\d+$/.test(text)) {
    throw syntaxError(
      `Invalid value '${text}' for ${option} query option found. The ${option} query option requires a non-negative integer value.`,
      position,
      'invalid_option_value',
    );
  }
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

/** Builds a nested options node, rejecting duplicates and malformed `$top`/`$skip`/`$levels`/`$count`. */
export function buildNestedOptions(values: readonly NestedOptionValue[], at: Span): NestedOptions {
  const seen = new Set<string>();
  const options: Record<string, unknown> = { kind: 'nestedOptions', span: at };
  let aliases: Record<string, Expression> | undefined;
  for (const option of values) {
    const position = option.token.startOffset;
    if (option.name === 'alias') {
      aliases ??= createRecord<Expression>();
      const name = option.token.image.slice(1);
      if (Object.hasOwn(aliases, name)) throw syntaxError(`Parameter alias '@${name}' is defined twice`, position, 'duplicate_option');
      aliases[name] = option.value;
      continue;
    }
    if (seen.has(option.name)) throw syntaxError(`Option '$${option.name}' is specified twice`, position, 'duplicate_option');
    seen.add(option.name);
    switch (option.name) {
      case 'filter':
      case 'search':
      case 'select':
      case 'expand':
      case 'compute':
      case 'apply':
        options[option.name] = option.value;
        break;
      case 'orderby':
        options.orderBy = option.value;
        break;
      case 'top':
      case 'skip':
        options[option.name] = decodeCount(option.value.image, `$${option.name}`, option.value.startOffset);
        break;
      case 'count':
        options.count = tokenMatcher(option.value, T.True);
        break;
      case 'levels':
        options.levels = decodeLevels(option.value);
        break;
    }
  }
  if (aliases !== undefined) options.aliases = aliases;
  return options as unknown as NestedOptions;
}

/** Checks a nested `$top`, `$skip` or `$levels` number as soon as it is read. */
export function checkNestedNumber(name: string, token: IToken): void {
  if (name === 'levels') decodeLevels(token);
  else decodeCount(token.image, `$${name}`, token.startOffset);
}

function decodeLevels(token: IToken): number | 'max' {
  if (tokenMatcher(token, T.Identifier)) {
    if (token.image.toLowerCase() !== 'max') throw syntaxError(`$levels must be a positive integer or 'max'`, token.startOffset, 'invalid_option_value');
    return 'max';
  }
  if (!/^[1-9]\d*$/.test(token.image)) {
    throw syntaxError(`$levels must be a positive integer without leading zeros or 'max', but was '${token.image}'`, token.startOffset, 'invalid_option_value');
  }
  const levels = decodeCount(token.image, '$levels', token.startOffset);
  if (typeof levels === 'bigint') throw syntaxError(`$levels value '${token.image}' is too large`, token.startOffset, 'invalid_option_value');
  return levels;
}

// ---------------------------------------------------------------------------------------------
// Paths, arguments, postfix operators
// ---------------------------------------------------------------------------------------------

/** A member path node; checks that a lambda or `$count` ends it. */
export function makePath(head: PathHead, segments: PathSegment[], start: number): MemberPath {
  const last = segments[segments.length - 1];
  if (segments.length > 1) checkLambdaPlacement(segments);
  return { kind: 'path', head, segments, span: span(start, last ? last.span.end : start + headLength(head)) };
}

function headLength(head: PathHead): number {
  return head.kind === 'alias' ? head.name.length + 1 : head.kind === 'implicit' ? 0 : head.kind.length;
}

/** A lambda or `$count` ends a path: nothing may follow it. */
function checkLambdaPlacement(segments: readonly PathSegment[]): void {
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i] as PathSegment;
    if (segment.kind === 'lambda' || segment.kind === 'count' || segment.kind === 'aggregate') {
      const next = segments[i + 1] as PathSegment;
      const what = segment.kind === 'count' ? '$count' : segment.kind === 'aggregate' ? 'aggregate(…)' : segment.operator;
      throw syntaxError(`A path cannot continue after '${what}'`, next.span.start);
    }
  }
}

const IMPLICIT: PathHead = Object.freeze({ kind: 'implicit' });

/**
 * `Name…`, `fn(…)`, `Ns.Fn(…)/…`: a canonical call, `case`, or a path whose first segment is a
 * member or an invoke segment.
 */
export function buildIdentifierExpression(
  first: IToken,
  call: { readonly args: readonly RawArgument[]; readonly close: IToken } | undefined,
  rest: PathSegment[],
  typeNameAllowed: boolean,
): Expression {
  if (call === undefined) {
    const name = first.image;
    if (rest.length === 0 && !typeNameAllowed && name.includes('.')) {
      throw syntaxError(`Expected '/' and a path after the type cast '${name}', or '(…)' to call a function`, first.startOffset + name.length);
    }
    const member: PathSegment = { kind: 'member', name, span: tokenSpan(first) };
    return makePath(IMPLICIT, rest.length === 0 ? [member] : [member, ...rest], first.startOffset);
  }
  const built = buildCall(first, call.args, call.close.startOffset + 1);
  if (built.kind === 'expression') {
    const [next] = rest;
    if (next !== undefined) throw syntaxError(`A path cannot continue after the function call`, next.span.start);
    return built.expression;
  }
  return makePath(IMPLICIT, rest.length === 0 ? [built.segment] : [built.segment, ...rest], first.startOffset);
}

/** An argument from `value`, `value=value` (named) or `value:value` (lambda, case). */
export function buildArgument(value: Expression, separator: IToken | undefined, second: Expression | undefined): RawArgument {
  if (separator === undefined || second === undefined) return { value, span: value.span };
  const at = span(value.span.start, second.span.end);
  if (separator.tokenType === T.Colon) return { value, then: second, span: at };
  const [segment] = value.kind === 'path' ? value.segments : [];
  if (value.kind !== 'path' || value.head.kind !== 'implicit' || value.segments.length !== 1 || segment?.kind !== 'member' || segment.name.includes('.')) {
    throw syntaxError(`Expected a parameter name before '='`, value.span.start);
  }
  return { name: segment.name, value: second, span: at };
}

/** The parenthesized right side of `in`: a list of literals, or one parenthesized expression. */
export function buildParenthesized(items: readonly Expression[], at: Span): Expression {
  const [only] = items;
  if (items.length === 1 && only !== undefined && only.kind !== 'literal') return only;
  for (const item of items) {
    if (item.kind !== 'literal') throw syntaxError('Expected a primitive literal in the list of the in operator', item.span.start);
  }
  return { kind: 'list', items: items as Literal[], span: at };
}

/** `left has right` or `left in right`. */
export function buildPostfix(op: IToken, left: Expression, right: Expression): Expression {
  const at = span(left.span.start, right.span.end);
  if (op.tokenType === T.In) return { kind: 'in', left, right, span: at };
  if (right.kind === 'list') {
    const [only] = right.items;
    if (right.items.length !== 1 || only === undefined) throw syntaxError(`A list cannot follow 'has'`, right.span.start);
    return { kind: 'binary', operator: 'has', left, right: only, span: at };
  }
  return { kind: 'binary', operator: 'has', left, right, span: at };
}
