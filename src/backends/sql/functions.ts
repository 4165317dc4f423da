/**
 * The canonical functions in SQL: one table over the dialect hooks (dialect.ts), complete for the
 * registry (src/semantic/functions.ts). A function is a value (its arguments compiled first), a
 * condition (a predicate: its value is that condition's three values, see `SqlCompiler`), or a
 * declared refusal; a dialect without a hook a function needs refuses it with the same reason
 * here and in the capability table of docs/backends.md.
 */
import { ODataError } from '../../errors/odata-error.js';
import type { BoundExpression } from '../../semantic/bound-ast.js';
import { FOLDED, isRefusal, refuse, type FunctionTable } from '../../semantic/function-table.js';
import { checkMatchesPattern } from '../../semantic/pattern-subset.js';
import { isPrimitive, type ExpressionType } from '../../semantic/types.js';
import type { CanonicalFunctionName } from '../../syntax/ast.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { Property } from '../../model/model.js';
import { castValue, isofCondition, type CastContext } from './casts.js';
import type { Dialect, ParameterKind, SpatialFamily, SpatialHooks } from './dialect.js';
import { EARTH_RADIUS, geoFamilyOf, readGeo, toWkt } from '../../reference/geo.js';

type Call = Extract<BoundExpression, { kind: 'call' }>;
type PathNode = Extract<BoundExpression, { kind: 'path' }>;

function unsupported(what: string): ODataError {
  return unsupportedFeature('SQL', what);
}

/** The elements of a primitive collection: the element's SQL, and the FROM and WHERE that give them. */
type Elements = { readonly kind: 'elements'; readonly value: string; readonly from: string; readonly where: string };

/** What the functions need of the compiler, in the scope of the call. */
export interface SqlFunctionContext {
  readonly dialect: Dialect;
  /** The SQL value of an operand. */
  expression(node: BoundExpression): string;
  /** A parameter holding `value`. */
  parameter(value: unknown, kind: ParameterKind): string;
  /** The column of a property of the scope's row. */
  column(property: Property): string;
  /** The rows or elements of a collection path. */
  collection(node: PathNode): { readonly kind: 'entities' } | Elements;
  /** What `cast`/`isof` (casts.ts) need. */
  castContext(): CastContext;
}

/** A function computed as a value, from its compiled arguments. */
export interface SqlValueFunction {
  readonly value: (call: Call, args: readonly (string | undefined)[], c: SqlFunctionContext) => string;
  /** Why a dialect refuses it (the capability table's cell), where one may. */
  readonly refusedOn?: (dialect: Dialect) => string | undefined;
}

/** A predicate, compiled as a condition. */
export interface SqlConditionFunction {
  readonly condition: (call: Call, c: SqlFunctionContext) => string;
  /** Why a dialect refuses it (the capability table's cell), where one may. */
  readonly refusedOn?: (dialect: Dialect) => string | undefined;
}

/** One entry of the SQL table. */
export type SqlFunction = SqlValueFunction | SqlConditionFunction;

const value = (build: SqlValueFunction['value'], refusedOn?: SqlValueFunction['refusedOn']): SqlValueFunction =>
  refusedOn === undefined ? { value: build } : { value: build, refusedOn };
const first = (build: (x: string, d: Dialect) => string): SqlValueFunction => value((_, args, c) => build(args[0] as string, c.dialect));

/** round (half away from zero), floor and ceiling, computed exactly where the dialect allows. */
const rounding = value((call, args, c) => {
  const type = call.args[0]?.type ?? call.type;
  return c.dialect.rounding(call.name as 'round', args[0] as string, isPrimitive(type, 'Edm.Double') || isPrimitive(type, 'Edm.Single'));
});

/** year … second. DateTimeOffset values are stored in UTC, so their parts are UTC parts (see DEVIATIONS). */
const datePart = value((call, args, c) => {
  const type = call.args[0]?.type;
  return c.dialect.datePart(call.name as 'year', args[0] as string, type !== undefined && isPrimitive(type, 'Edm.Date'));
});

/** `date`, `time`, `fractionalseconds` and `totalseconds` through the dialect's hooks, where it has them. */
type TemporalName = 'date' | 'time' | 'fractionalseconds' | 'totalseconds';
const TEMPORAL_HOOKS = {
  date: 'dateOf',
  time: 'timeOf',
  fractionalseconds: 'fractionalSeconds',
  totalseconds: 'totalSeconds',
} as const satisfies Record<TemporalName, keyof Dialect>;
function temporal(name: TemporalName, build: (x: string, d: Dialect, type: ExpressionType | undefined) => string): SqlValueFunction {
  const hook = TEMPORAL_HOOKS[name];
  const refusedOn = (dialect: Dialect): string | undefined => (dialect[hook] === undefined ? `no \`${hook}\` hook (yet)` : undefined);
  return value((call, args, c) => {
    if (c.dialect[hook] === undefined) throw unsupported(`'${name}' on ${c.dialect.displayName} (yet)`);
    return build(args[0] as string, c.dialect, call.args[0]?.type);
  }, refusedOn);
}

/**
 * `substring` with a zero-based start: a negative start counts from the end, starts and lengths
 * up to 2^63 - 1 are clamped to 32 bits, and a negative (computed) length yields null.
 */
function substring(c: SqlFunctionContext, text: string, start: string, length: string | undefined): string {
  const { dialect } = c;
  const { greatest, least } = dialect;
  // Typed as 64-bit integers (an untyped NULL would be text in PostgreSQL's derived table).
  const integer = (sql: string): string => dialect.typedPlaceholder(`(${sql})`, 'bigint');
  const expressions = length === undefined ? [text, integer(start)] : [text, integer(start), integer(length)];
  return dialect.withValues(expressions, ([t, s, n]) => {
    const count = n === undefined ? undefined : least(n, c.parameter(2147483647, 'integer'));
    // Each branch clamped on its own: a database may fold the branch that is not taken.
    const fromEnd = `${greatest(`${dialect.length(t as string)} + ${least(s as string, c.parameter(0, 'integer'))}`, c.parameter(0, 'integer'))} + 1`;
    const fromStart = `${greatest(least(s as string, c.parameter(2147483646, 'integer')), c.parameter(0, 'integer'))} + 1`;
    const negative = n === undefined ? '' : `WHEN ${n} < 0 THEN NULL `;
    return `(CASE ${negative}WHEN ${s} < 0 THEN ${dialect.substring(t as string, fromEnd, count)} ELSE ${dialect.substring(t as string, fromStart, count)} END)`;
  });
}

/** Escapes LIKE metacharacters of a pattern given as SQL (a parameter or an expression). */
function likePattern(c: SqlFunctionContext, node: BoundExpression, before: string, after: string): string {
  const escape = c.dialect.escapeChar;
  if (node.kind === 'literal' && typeof node.value === 'string') {
    const text = node.value;
    // Most patterns have nothing to escape: the replaces only when one of the characters is there.
    const escaped =
      text.includes(escape) || text.includes('%') || text.includes('_')
        ? text
            .replaceAll(escape, escape + escape)
            .replaceAll('%', `${escape}%`)
            .replaceAll('_', `${escape}_`)
        : text;
    return c.parameter(`${before}${escaped}${after}`, 'string');
  }
  // The prefix, the escaped expression, the suffix.
  const prefix = before ? c.parameter(before, 'string') : undefined;
  const sql = c.expression(node);
  const e = c.parameter(escape, 'string');
  const escapedSql = `REPLACE(REPLACE(REPLACE(${sql}, ${e}, ${c.parameter(escape + escape, 'string')}), ${c.parameter('%', 'string')}, ${c.parameter(`${escape}%`, 'string')}), ${c.parameter('_', 'string')}, ${c.parameter(`${escape}_`, 'string')})`;
  let pattern = prefix === undefined ? escapedSql : c.dialect.concat(prefix, escapedSql);
  if (after) pattern = c.dialect.concat(pattern, c.parameter(after, 'string'));
  return pattern;
}

/** `contains`, `startswith`, `endswith` of `text` and `needle`: the dialect's string match, or LIKE. */
function stringMatch(name: 'contains' | 'startswith' | 'endswith', textNode: BoundExpression, needle: BoundExpression, c: SqlFunctionContext): string {
  // Each use of an operand is compiled where it stands in the text.
  const text = (): string => c.expression(textNode);
  const match = c.dialect.stringMatch;
  if (match !== undefined) return match(name, text, () => c.expression(needle));
  const subject = text();
  const pattern = likePattern(c, needle, name === 'startswith' ? '' : '%', name === 'endswith' ? '' : '%');
  return c.dialect.like(subject, pattern);
}

/** A condition of two arguments (the binder guarantees both; a missing one is refused as today). */
const binaryCondition = (build: (a: BoundExpression, b: BoundExpression, call: Call, c: SqlFunctionContext) => string): SqlConditionFunction => ({
  condition: (call, c) => {
    const [a, b] = call.args;
    if (a === undefined || b === undefined) throw unsupported(`the function '${call.name}' as a condition`);
    return build(a, b, call, c);
  },
});

/**
 * `hassubset(a, b)` of two primitive collection properties: whether every element of `b` is an
 * element of `a` (null when either is null), over the dialect's collection elements.
 */
function hasSubset(first: BoundExpression, second: BoundExpression, c: SqlFunctionContext): string {
  const column = (node: BoundExpression): string => {
    const step = node.kind === 'path' && node.root.kind === 'it' && node.steps.length === 1 ? node.steps[0] : undefined;
    if (step?.kind !== 'property' || !step.property.collection || step.property.type.kind === 'complex')
      throw unsupported("'hassubset' of anything but two primitive collection properties");
    return c.column(step.property);
  };
  const [a, b] = [column(first), column(second)];
  const [outer, inner] = [c.collection(second as PathNode), c.collection(first as PathNode)];
  if (outer.kind !== 'elements' || inner.kind !== 'elements') throw unsupported("'hassubset' of these collections");
  const { dialect } = c;
  const strings = first.type.kind === 'collection' && isPrimitive(first.type.element, 'Edm.String') && !dialect.binaryEquality;
  const element = (v: string): string => (strings ? dialect.binary(v) : v);
  const found = `EXISTS (SELECT 1 FROM ${inner.from} WHERE ${inner.where} AND ${dialect.notDistinct(
    () => element(inner.value),
    () => element(outer.value),
  )})`;
  const subset = `NOT EXISTS (SELECT 1 FROM ${outer.from} WHERE ${outer.where} AND NOT ${found})`;
  const yes = dialect.booleanLiteral(true);
  const no = dialect.booleanLiteral(false);
  return dialect.booleanCondition(`(CASE WHEN ${a} IS NULL OR ${b} IS NULL THEN NULL WHEN ${subset} THEN ${yes} ELSE ${no} END)`);
}

/** A dialect without the `matchesPattern` hook has no regular expressions. */
const noRegularExpressions = (dialect: Dialect): string | undefined => (dialect.matchesPattern === undefined ? 'no regular expressions' : undefined);

/** A literal pattern of the shared subset only (src/semantic/pattern-subset.ts), rendered for the engine. */
const matchesPattern: SqlConditionFunction = {
  ...binaryCondition((text, pattern, _, c) => {
    if (pattern.kind !== 'literal' || typeof pattern.value !== 'string') throw unsupported("'matchesPattern' with a pattern that is not a literal");
    const checked = checkMatchesPattern(pattern.value);
    if (c.dialect.matchesPattern === undefined) throw unsupported(`'matchesPattern' on ${c.dialect.displayName} (it has no regular expressions)`);
    return c.dialect.matchesPattern(c.expression(text), checked, (p) => c.parameter(p, 'string'));
  }),
  refusedOn: noRegularExpressions,
};

/** Why a dialect refuses the geo functions: it has no `spatial` hook (the reason it gives, if any). */
const noSpatial = (dialect: Dialect): string | undefined => (dialect.spatial === undefined ? (dialect.noSpatial ?? 'no spatial types') : undefined);

/** The dialect's spatial hooks, or the refusal of the call. */
function spatialOf(call: Call, c: SqlFunctionContext): SpatialHooks {
  if (c.dialect.spatial === undefined) throw unsupported(`'${call.name}' on ${c.dialect.displayName} (${c.dialect.noSpatial ?? 'no spatial types'})`);
  return c.dialect.spatial;
}

/** The family of a geo call (the binder has its spatial arguments of one family). */
function familyOf(call: Call): SpatialFamily {
  for (const arg of call.args) {
    const family = arg.type.kind === 'primitive' ? geoFamilyOf(arg.type.name) : undefined;
    if (family !== undefined) return family;
  }
  return 'geography';
}

/**
 * A spatial argument as SQL: a literal as the dialect's value of its OGC WKT text and SRID (two
 * parameters, the text rewritten from the literal's GeoJSON form), anything else as compiled.
 */
function spatialArgument(node: BoundExpression, family: SpatialFamily, hooks: SpatialHooks, c: SqlFunctionContext): string {
  if (node.kind !== 'literal' || typeof node.value !== 'string') return c.expression(node);
  const value = readGeo(node.value, family);
  if (value === null) throw unsupported(`the spatial literal '${node.value}'`);
  const { wkt, srid } = toWkt(value, family);
  return hooks.fromText(family, c.parameter(wkt, 'string'), c.parameter(srid, 'integer'));
}

/** Whether a geo call has a null literal argument (then its value is null: no database types an untyped NULL for it). */
const hasNullArgument = (call: Call): boolean => call.args.some((arg) => arg.kind === 'literal' && arg.value === null);

/** `geo.distance` and `geo.length` as values over the dialect's spatial hooks. */
const geoValue = (build: (call: Call, hooks: SpatialHooks, family: SpatialFamily, c: SqlFunctionContext) => string): SqlValueFunction =>
  value((call, _, c) => {
    const hooks = spatialOf(call, c);
    return hasNullArgument(call) ? 'NULL' : build(call, hooks, familyOf(call), c);
  }, noSpatial);

/** The sphere's radius (src/reference/geo.ts), a parameter, for the dialects that take it. */
const radius = (c: SqlFunctionContext) => (): string => c.parameter(EARTH_RADIUS, 'double');

/** Every canonical function in SQL (exported for the test that it covers the registry). */
export const SQL_FUNCTIONS: FunctionTable<SqlFunction> = {
  contains: binaryCondition((a, b, _, c) => stringMatch('contains', a, b, c)),
  startswith: binaryCondition((a, b, _, c) => stringMatch('startswith', a, b, c)),
  endswith: binaryCondition((a, b, _, c) => stringMatch('endswith', a, b, c)),
  // The OData 2.0 form: substringof(needle, text) is contains(text, needle).
  substringof: binaryCondition((needle, text, _, c) => stringMatch('contains', text, needle, c)),
  matchesPattern,
  length: first((x, d) => d.length(x)),
  indexof: value((_, args, c) => c.dialect.indexOf(args[0] as string, args[1] as string)),
  substring: value((_, args, c) => substring(c, args[0] as string, args[1] as string, args[2])),
  tolower: first((x) => `LOWER(${x})`),
  toupper: first((x) => `UPPER(${x})`),
  // Removes spaces (SQL's TRIM), not every Unicode white space: see DEVIATIONS.
  trim: first((x, d) => d.trim(x)),
  concat: value((_, args, c) => c.dialect.concat(args[0] as string, args[1] as string)),
  hassubset: binaryCondition((a, b, _, c) => hasSubset(a, b, c)),
  hassubsequence: refuse('not implemented (yet)'),
  year: datePart,
  month: datePart,
  day: datePart,
  hour: datePart,
  minute: datePart,
  second: datePart,
  fractionalseconds: temporal('fractionalseconds', (x, d, type) =>
    (d.fractionalSeconds as NonNullable<Dialect['fractionalSeconds']>)(x, type !== undefined && isPrimitive(type, 'Edm.TimeOfDay')),
  ),
  totalseconds: temporal('totalseconds', (x, d) => (d.totalSeconds as NonNullable<Dialect['totalSeconds']>)(x)),
  date: temporal('date', (x, d) => (d.dateOf as NonNullable<Dialect['dateOf']>)(x)),
  time: temporal('time', (x, d) => (d.timeOf as NonNullable<Dialect['timeOf']>)(x)),
  // Instants are stored in UTC (see DEVIATIONS, "Date and time parts of DateTimeOffset values").
  totaloffsetminutes: first((x) => `(CASE WHEN ${x} IS NULL THEN NULL ELSE 0 END)`),
  now: FOLDED,
  mindatetime: FOLDED,
  maxdatetime: FOLDED,
  round: rounding,
  floor: rounding,
  ceiling: rounding,
  cast: value((call, _, c) => castValue(call, c.castContext())),
  isof: { condition: (call, c) => isofCondition(call, c.castContext()) },
  'geo.distance': geoValue((call, hooks, family, c) =>
    hooks.distance(family, spatialArgument(call.args[0]!, family, hooks, c), spatialArgument(call.args[1]!, family, hooks, c), radius(c)),
  ),
  'geo.length': geoValue((call, hooks, family, c) => hooks.length(family, () => spatialArgument(call.args[0]!, family, hooks, c), radius(c))),
  'geo.intersects': {
    ...binaryCondition((point, polygon, call, c) => {
      const hooks = spatialOf(call, c);
      if (hasNullArgument(call)) return c.dialect.booleanCondition('NULL');
      const family = familyOf(call);
      return hooks.intersects(family, spatialArgument(point, family, hooks, c), spatialArgument(polygon, family, hooks, c));
    }),
    refusedOn: noSpatial,
  },
};

/**
 * Why the SQL backend refuses a canonical function on `dialect` (the capability table's cell), or
 * `undefined` where it runs it (also where constant folding computes it before compiling).
 */
export function sqlFunctionRefusal(name: CanonicalFunctionName, dialect: Dialect): string | undefined {
  const entry = SQL_FUNCTIONS[name];
  if (isRefusal(entry)) return entry.folded === true ? undefined : entry.refused;
  return entry.refusedOn?.(dialect);
}

/** A call as a condition; a function without a condition form is refused. */
export function functionCondition(call: Call, c: SqlFunctionContext): string {
  const entry = SQL_FUNCTIONS[call.name];
  if (isRefusal(entry) || !('condition' in entry)) throw unsupported(`the function '${call.name}' as a condition`);
  return entry.condition(call, c);
}

/** A (non-predicate) call as a value, from its arguments' values. */
export function functionValue(call: Call, c: SqlFunctionContext): string {
  const args = call.args.map((arg) => c.expression(arg));
  const entry = SQL_FUNCTIONS[call.name];
  if (isRefusal(entry) || !('value' in entry)) throw unsupported(`the function '${call.name}' (yet)`);
  return entry.value(call, args, c);
}
