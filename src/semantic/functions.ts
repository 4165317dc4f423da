/**
 * Signatures of the canonical functions (URL Conventions 5.1.1.5 to 5.1.1.11): for each name,
 * its overloads as parameter kinds and a result. Arity alone is checked by the parser.
 */
import type { CanonicalFunctionName } from '../syntax/ast.js';
import { BOOLEAN, DECIMAL, DOUBLE, INT32, STRING, isNumeric, primitive, spatialFamily, type ExpressionType } from './types.js';

/** What a parameter accepts. */
type ParameterKind = 'string' | 'number' | 'integer' | 'date' | 'dateTimeOffset' | 'timeOfDay' | 'duration' | 'collection' | 'point' | 'lineString' | 'polygon';

interface Overload {
  readonly parameters: readonly ParameterKind[];
  readonly result: ExpressionType | ((args: readonly ExpressionType[]) => ExpressionType);
}

const DATE = primitive('Edm.Date');
const DATE_TIME_OFFSET = primitive('Edm.DateTimeOffset');
const TIME_OF_DAY = primitive('Edm.TimeOfDay');

const INTEGERS = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64']);

function accepts(kind: ParameterKind, type: ExpressionType): boolean {
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

/** Overloads by function name; `cast` and `isof` are bound separately. */
export const SIGNATURES: Readonly<Record<Exclude<CanonicalFunctionName, 'cast' | 'isof'>, readonly Overload[]>> = {
  contains: [o(['string', 'string'], BOOLEAN)],
  startswith: [o(['string', 'string'], BOOLEAN)],
  endswith: [o(['string', 'string'], BOOLEAN)],
  substringof: [o(['string', 'string'], BOOLEAN)],
  matchesPattern: [o(['string', 'string'], BOOLEAN)],
  length: [o(['string'], INT32)],
  indexof: [o(['string', 'string'], INT32)],
  substring: [o(['string', 'integer'], STRING), o(['string', 'integer', 'integer'], STRING)],
  tolower: [o(['string'], STRING)],
  toupper: [o(['string'], STRING)],
  trim: [o(['string'], STRING)],
  concat: [o(['string', 'string'], STRING)],
  hassubset: [o(['collection', 'collection'], BOOLEAN)],
  hassubsequence: [o(['collection', 'collection'], BOOLEAN)],
  year: [o(['date'], INT32), o(['dateTimeOffset'], INT32)],
  month: [o(['date'], INT32), o(['dateTimeOffset'], INT32)],
  day: [o(['date'], INT32), o(['dateTimeOffset'], INT32)],
  hour: [o(['dateTimeOffset'], INT32), o(['timeOfDay'], INT32)],
  minute: [o(['dateTimeOffset'], INT32), o(['timeOfDay'], INT32)],
  second: [o(['dateTimeOffset'], INT32), o(['timeOfDay'], INT32)],
  fractionalseconds: [o(['dateTimeOffset'], DECIMAL), o(['timeOfDay'], DECIMAL)],
  totalseconds: [o(['duration'], DECIMAL)],
  date: [o(['dateTimeOffset'], DATE)],
  time: [o(['dateTimeOffset'], TIME_OF_DAY)],
  totaloffsetminutes: [o(['dateTimeOffset'], INT32)],
  now: [o([], DATE_TIME_OFFSET)],
  mindatetime: [o([], DATE_TIME_OFFSET)],
  maxdatetime: [o([], DATE_TIME_OFFSET)],
  round: [o(['number'], roundingResult)],
  floor: [o(['number'], roundingResult)],
  ceiling: [o(['number'], roundingResult)],
  'geo.distance': [o(['point', 'point'], DOUBLE)],
  'geo.intersects': [o(['point', 'polygon'], BOOLEAN)],
  'geo.length': [o(['lineString'], DOUBLE)],
};

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
