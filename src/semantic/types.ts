/**
 * Types of bound expressions and the type rules of URL Conventions 5.1.1: numeric promotion
 * (5.1.1.18), comparability, and names for messages.
 */
import type { EnumType, PrimitiveTypeName, StructuredType, TypeReference } from '../model/model.js';

/** The type of a bound expression. */
export type ExpressionType =
  | { readonly kind: 'primitive'; readonly name: PrimitiveTypeName }
  | { readonly kind: 'enum'; readonly type: EnumType }
  | { readonly kind: 'complex'; readonly type: StructuredType }
  | { readonly kind: 'entity'; readonly type: StructuredType }
  | { readonly kind: 'collection'; readonly element: ExpressionType }
  /** The type of the `null` literal: comparable with everything. */
  | { readonly kind: 'null' };

const primitives = new Map<PrimitiveTypeName, ExpressionType>();
/** The (shared) expression type of a primitive type name. */
export function primitive(name: PrimitiveTypeName): ExpressionType {
  let type = primitives.get(name);
  if (type === undefined) {
    type = Object.freeze({ kind: 'primitive', name });
    primitives.set(name, type);
  }
  return type;
}

export const BOOLEAN = primitive('Edm.Boolean');
export const STRING = primitive('Edm.String');
export const INT32 = primitive('Edm.Int32');
export const INT64 = primitive('Edm.Int64');
export const DECIMAL = primitive('Edm.Decimal');
export const DOUBLE = primitive('Edm.Double');
export const NULL_TYPE: ExpressionType = Object.freeze({ kind: 'null' });
/** The type of a dynamic property of an open type: known only at run time. */
export const UNTYPED = primitive('Edm.Untyped');

export function isUntyped(type: ExpressionType): boolean {
  return type.kind === 'primitive' && type.name === 'Edm.Untyped';
}

export function fromReference(reference: TypeReference, collection = false): ExpressionType {
  const single: ExpressionType = reference.kind === 'primitive' ? primitive(reference.name) : reference;
  return collection ? { kind: 'collection', element: single } : single;
}

/** `Edm.Int32`, `Ns.Color`, `Collection(Edm.String)`, `null`. */
export function typeName(type: ExpressionType): string {
  switch (type.kind) {
    case 'primitive':
      return type.name;
    case 'enum':
    case 'complex':
    case 'entity':
      return type.type.qualifiedName;
    case 'collection':
      return `Collection(${typeName(type.element)})`;
    case 'null':
      return 'null';
  }
}

/** Numeric types from narrowest to widest (URL 5.1.1.18 promotes to the wider one). */
const NUMERIC_RANK: Partial<Record<PrimitiveTypeName, number>> = {
  'Edm.Byte': 1,
  'Edm.SByte': 1,
  'Edm.Int16': 2,
  'Edm.Int32': 3,
  'Edm.Int64': 4,
  'Edm.Decimal': 5,
  'Edm.Single': 6,
  'Edm.Double': 7,
};

export function isNumeric(type: ExpressionType): type is { kind: 'primitive'; name: PrimitiveTypeName } {
  return type.kind === 'primitive' && NUMERIC_RANK[type.name] !== undefined;
}

export function isPrimitive(type: ExpressionType, name: PrimitiveTypeName): boolean {
  return type.kind === 'primitive' && type.name === name;
}

/** The type both numeric operands are promoted to. `Byte` and `SByte` together become `Int16`. */
export function promoteNumeric(left: ExpressionType, right: ExpressionType): ExpressionType {
  const l = left.kind === 'primitive' ? left.name : 'Edm.Int32';
  const r = right.kind === 'primitive' ? right.name : 'Edm.Int32';
  if (l === r) return left;
  const lr = NUMERIC_RANK[l] ?? 0;
  const rr = NUMERIC_RANK[r] ?? 0;
  if (lr === rr) return lr === 1 ? primitive('Edm.Int16') : left;
  return lr > rr ? left : right;
}

export function isSpatial(type: ExpressionType): boolean {
  return type.kind === 'primitive' && (type.name.startsWith('Edm.Geography') || type.name.startsWith('Edm.Geometry'));
}

/** The family of a spatial type: `Edm.GeographyPoint` → `Edm.Geography`. */
export function spatialFamily(type: ExpressionType): 'Edm.Geography' | 'Edm.Geometry' | undefined {
  if (type.kind !== 'primitive') return undefined;
  if (type.name.startsWith('Edm.Geography')) return 'Edm.Geography';
  if (type.name.startsWith('Edm.Geometry')) return 'Edm.Geometry';
  return undefined;
}

/** True if values of the two (non-null) types can be compared with `eq`/`ne`. */
export function equalityComparable(left: ExpressionType, right: ExpressionType): boolean {
  if (isUntyped(left) || isUntyped(right)) return left.kind !== 'collection' && right.kind !== 'collection';
  // null compares with any single value, but a collection is never null (it is empty).
  if (left.kind === 'null' || right.kind === 'null') return left.kind !== 'collection' && right.kind !== 'collection';
  if (isNumeric(left) && isNumeric(right)) return true;
  if (left.kind === 'primitive' && right.kind === 'primitive') {
    if (left.name === right.name) return left.name !== 'Edm.Stream' && !isSpatial(left);
    const dates = new Set(['Edm.Date', 'Edm.DateTimeOffset']);
    return dates.has(left.name) && dates.has(right.name);
  }
  if (left.kind === 'enum' && right.kind === 'enum') return left.type === right.type;
  return false;
}

/** True if the two (non-null) types can be ordered with `gt`, `ge`, `lt`, `le`. */
export function orderComparable(left: ExpressionType, right: ExpressionType): boolean {
  if (left.kind === 'null' || right.kind === 'null') return left.kind !== 'null' ? isOrderable(left) : right.kind !== 'null' ? isOrderable(right) : true;
  return equalityComparable(left, right) && isOrderable(left) && isOrderable(right);
}

/** Types with an order: primitives other than binary, stream and spatial; enums. */
export function isOrderable(type: ExpressionType): boolean {
  if (type.kind === 'enum') return true;
  if (type.kind !== 'primitive') return false;
  return type.name !== 'Edm.Binary' && type.name !== 'Edm.Stream' && !isSpatial(type);
}

/** The integer EDM types and their ranges (CSDL 4.4): the one table every backend and the reference read. */
export const INTEGER_RANGES: Readonly<Partial<Record<string, readonly [bigint, bigint]>>> = {
  'Edm.Byte': [0n, 255n],
  'Edm.SByte': [-128n, 127n],
  'Edm.Int16': [-32768n, 32767n],
  'Edm.Int32': [-2147483648n, 2147483647n],
  'Edm.Int64': [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Whether a type is one of the integer types (Byte, SByte, Int16, Int32, Int64). */
export function isIntegerType(type: ExpressionType): type is Extract<ExpressionType, { kind: 'primitive' }> {
  return type.kind === 'primitive' && INTEGER_RANGES[type.name] !== undefined;
}
