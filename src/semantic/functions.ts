/**
 * Signatures of the canonical functions (URL Conventions 5.1.1.5 to 5.1.1.11): for each name,
 * its overloads as parameter kinds and a result. Arity alone is checked by the parser.
 */
import type { CanonicalFunctionName } from '../syntax/ast.js';
import { BOOLEAN, DECIMAL, DOUBLE, INT32, STRING, isNumeric, primitive, spatialFamily, typeName, type ExpressionType } from './types.js';

/** What a parameter of an overload accepts. */
export type ParameterKind =
  'string' | 'number' | 'integer' | 'date' | 'dateTimeOffset' | 'timeOfDay' | 'duration' | 'collection' | 'point' | 'lineString' | 'polygon';

/** One signature: parameter kinds and the result type (or how the arguments' types give it). */
export interface Overload {
  readonly parameters: readonly ParameterKind[];
  readonly result: ExpressionType | ((args: readonly ExpressionType[]) => ExpressionType);
}

const DATE = primitive('Edm.Date');
const DATE_TIME_OFFSET = primitive('Edm.DateTimeOffset');
const TIME_OF_DAY = primitive('Edm.TimeOfDay');

const INTEGERS = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64']);

/** Whether a parameter of kind `kind` accepts a value of `type` (null and untyped values fit any). */
export function accepts(kind: ParameterKind, type: ExpressionType): boolean {
  if (type.kind === 'null' || (type.kind === 'primitive' && type.name === 'Edm.Untyped')) return true;
  if (type.kind === 'collection') return kind === 'collection';
  if (type.kind !== 'primitive') return false;
  switch (kind) {
    case 'string':
      return type.name === 'Edm.String';
    case 'number':
      return isNumeric(type);
    case 'integer':
      return INTEGERS.has(type.name);
    case 'date':
      return type.name === 'Edm.Date';
    case 'dateTimeOffset':
      return type.name === 'Edm.DateTimeOffset';
    case 'timeOfDay':
      return type.name === 'Edm.TimeOfDay';
    case 'duration':
      return type.name === 'Edm.Duration';
    case 'collection':
      return false;
    case 'point':
      return type.name.endsWith('Point') || type.name === 'Edm.Geography' || type.name === 'Edm.Geometry';
    case 'lineString':
      return type.name.endsWith('LineString') || type.name === 'Edm.Geography' || type.name === 'Edm.Geometry';
    case 'polygon':
      return type.name.endsWith('Polygon') || type.name === 'Edm.Geography' || type.name === 'Edm.Geometry';
  }
}

/** `round`, `floor`, `ceiling`: Double for floating arguments, otherwise Decimal. */
const roundingResult = ([arg]: readonly ExpressionType[]): ExpressionType =>
  arg !== undefined && arg.kind === 'primitive' && (arg.name === 'Edm.Double' || arg.name === 'Edm.Single') ? DOUBLE : DECIMAL;

const o = (parameters: readonly ParameterKind[], result: Overload['result']): Overload => ({ parameters, result });

/** What a call gives when an argument is null. */
export type NullBehaviour =
  /** A null argument gives null (every function with arguments but `isof`). */
  | 'null in, null out'
  /** `isof` of null is false, never null. */
  | 'false'
  /** No argument: the value does not depend on the row. */
  | 'no arguments';

/** One canonical function: all that the binder, the passes and every backend know of it. */
export interface CanonicalFunction {
  /** The overloads; `type argument` for `cast` and `isof`, whose last argument is a type (bound separately). */
  readonly signatures: readonly Overload[] | 'type argument';
  readonly nulls: NullBehaviour;
  /** False for `now()`, whose value depends on when the query runs (one value per compiled query). */
  readonly deterministic: boolean;
  /** A Boolean usable as a condition: backends compile it as one and its value as that condition's three values. */
  readonly predicate: boolean;
}

type Options = { readonly predicate?: boolean; readonly nulls?: NullBehaviour; readonly deterministic?: boolean };
const fn = (signatures: CanonicalFunction['signatures'], options: Options = {}): CanonicalFunction => ({
  signatures,
  nulls: options.nulls ?? (signatures !== 'type argument' && signatures.every((s) => s.parameters.length === 0) ? 'no arguments' : 'null in, null out'),
  deterministic: options.deterministic ?? true,
  predicate: options.predicate ?? false,
});
const predicate = { predicate: true } as const;

/**
 * The canonical functions (URL Conventions 5.1.1; the OData 2.0 `substringof` too), each once. Adding one: its
 * arity in `CANONICAL_FUNCTIONS` (src/syntax/ast.ts), its entry here, then TypeScript names every backend table
 * that lacks it (docs/contributing.md, "Adding a canonical function").
 */
export const FUNCTIONS = {
  contains: fn([o(['string', 'string'], BOOLEAN)], predicate),
  startswith: fn([o(['string', 'string'], BOOLEAN)], predicate),
  endswith: fn([o(['string', 'string'], BOOLEAN)], predicate),
  substringof: fn([o(['string', 'string'], BOOLEAN)], predicate),
  matchesPattern: fn([o(['string', 'string'], BOOLEAN)], predicate),
  length: fn([o(['string'], INT32)]),
  indexof: fn([o(['string', 'string'], INT32)]),
  substring: fn([o(['string', 'integer'], STRING), o(['string', 'integer', 'integer'], STRING)]),
  tolower: fn([o(['string'], STRING)]),
  toupper: fn([o(['string'], STRING)]),
  trim: fn([o(['string'], STRING)]),
  concat: fn([o(['string', 'string'], STRING)]),
  hassubset: fn([o(['collection', 'collection'], BOOLEAN)], predicate),
  hassubsequence: fn([o(['collection', 'collection'], BOOLEAN)], predicate),
  year: fn([o(['date'], INT32), o(['dateTimeOffset'], INT32)]),
  month: fn([o(['date'], INT32), o(['dateTimeOffset'], INT32)]),
  day: fn([o(['date'], INT32), o(['dateTimeOffset'], INT32)]),
  hour: fn([o(['dateTimeOffset'], INT32), o(['timeOfDay'], INT32)]),
  minute: fn([o(['dateTimeOffset'], INT32), o(['timeOfDay'], INT32)]),
  second: fn([o(['dateTimeOffset'], INT32), o(['timeOfDay'], INT32)]),
  fractionalseconds: fn([o(['dateTimeOffset'], DECIMAL), o(['timeOfDay'], DECIMAL)]),
  totalseconds: fn([o(['duration'], DECIMAL)]),
  date: fn([o(['dateTimeOffset'], DATE)]),
  time: fn([o(['dateTimeOffset'], TIME_OF_DAY)]),
  totaloffsetminutes: fn([o(['dateTimeOffset'], INT32)]),
  now: fn([o([], DATE_TIME_OFFSET)], { deterministic: false }),
  mindatetime: fn([o([], DATE_TIME_OFFSET)]),
  maxdatetime: fn([o([], DATE_TIME_OFFSET)]),
  round: fn([o(['number'], roundingResult)]),
  floor: fn([o(['number'], roundingResult)]),
  ceiling: fn([o(['number'], roundingResult)]),
  cast: fn('type argument'),
  isof: fn('type argument', { predicate: true, nulls: 'false' }),
  'geo.distance': fn([o(['point', 'point'], DOUBLE)]),
  'geo.intersects': fn([o(['point', 'polygon'], BOOLEAN)], predicate),
  'geo.length': fn([o(['lineString'], DOUBLE)]),
} as const satisfies { readonly [N in CanonicalFunctionName]: CanonicalFunction };

/** Every canonical function name, in the registry's order. */
export const FUNCTION_NAMES = Object.keys(FUNCTIONS) as readonly CanonicalFunctionName[];

/** The functions with overloads (all but `cast` and `isof`, which are bound separately). */
type OverloadedName = Exclude<CanonicalFunctionName, 'cast' | 'isof'>;

/** Overloads by function name, from {@link FUNCTIONS}. */
export const SIGNATURES = Object.fromEntries(
  FUNCTION_NAMES.filter((name): name is OverloadedName => name !== 'cast' && name !== 'isof').map((name) => [name, FUNCTIONS[name].signatures]),
) as Readonly<Record<OverloadedName, readonly Overload[]>>;

const KIND_NAMES: Readonly<Record<ParameterKind, string>> = {
  string: 'Edm.String',
  number: 'Edm.Decimal',
  integer: 'Edm.Int32',
  date: 'Edm.Date',
  dateTimeOffset: 'Edm.DateTimeOffset',
  timeOfDay: 'Edm.TimeOfDay',
  duration: 'Edm.Duration',
  collection: 'Collection',
  point: 'Edm.GeographyPoint',
  lineString: 'Edm.GeographyLineString',
  polygon: 'Edm.GeographyPolygon',
};

/** `contains(Edm.String, Edm.String)`, for the message of a failed match. */
export function describeOverloads(name: string): string {
  const overloads = SIGNATURES[name as keyof typeof SIGNATURES] ?? [];
  return overloads.map((overload) => `${name}(${overload.parameters.map((p) => KIND_NAMES[p]).join(', ')})`).join('; ');
}

/** One overload as text: its parameters' type names and its result's (`number` results: `Edm.Decimal or Edm.Double`). */
export interface OverloadText {
  readonly parameters: readonly string[];
  readonly result: string;
}

/** The overloads of a canonical function as text (none for `cast` and `isof`, whose argument is a type name). */
export function overloadTexts(name: string): OverloadText[] {
  const overloads = SIGNATURES[name as keyof typeof SIGNATURES] ?? [];
  return overloads.map((overload) => ({
    parameters: overload.parameters.map((p) => KIND_NAMES[p]),
    result: typeof overload.result === 'function' ? 'Edm.Decimal or Edm.Double' : typeName(overload.result),
  }));
}

/** The index of the first overload that accepts the argument types (the one {@link matchOverload} takes), or -1. */
export function matchedOverloadIndex(name: string, args: readonly ExpressionType[]): number {
  const overloads = SIGNATURES[name as keyof typeof SIGNATURES] ?? [];
  overloads: for (let index = 0; index < overloads.length; index++) {
    const { parameters } = overloads[index] as Overload;
    if (parameters.length !== args.length) continue;
    for (let i = 0; i < parameters.length; i++) if (!accepts(parameters[i]!, args[i] as ExpressionType)) continue overloads;
    if (mixedSpatialFamilies(args)) continue;
    return index;
  }
  return -1;
}

/** The result type of the first overload that accepts the argument types, or `undefined`. */
export function matchOverload(name: keyof typeof SIGNATURES, args: readonly ExpressionType[]): ExpressionType | undefined {
  // Loops rather than every/map/Set: this runs for every call of every query bound.
  overloads: for (const overload of SIGNATURES[name]) {
    const { parameters } = overload;
    if (parameters.length !== args.length) continue;
    for (let i = 0; i < parameters.length; i++) if (!accepts(parameters[i]!, args[i] as ExpressionType)) continue overloads;
    // Spatial arguments of one call must be of one family (both geography or both geometry).
    if (mixedSpatialFamilies(args)) continue;
    return typeof overload.result === 'function' ? overload.result(args) : overload.result;
  }
  return undefined;
}

function mixedSpatialFamilies(args: readonly ExpressionType[]): boolean {
  let family: string | undefined;
  for (const arg of args) {
    const f = spatialFamily(arg);
    if (f === undefined) continue;
    if (family === undefined) family = f;
    else if (family !== f) return true;
  }
  return false;
}
