/**
 * Enum values as the SQL and MongoDB backends store them: member names (a flag value its names
 * separated by commas, `'read,write'`). Enums order by their members' values (the ordinals
 * below); flag comparisons use bits, the bitwise or of the members' values.
 */
import type { EnumType } from '../model/model.js';
import type { BoundLiteral } from '../semantic/bound-ast.js';
import { INTEGER_RANGES } from '../semantic/types.js';

/** The bits of a flag enum literal (member names, or a number as text). */
export function flagBits(value: BoundLiteral['value'], type: EnumType): bigint {
  const names = Array.isArray(value) ? value : String(value).split(',');
  let bits = 0n;
  for (const raw of names) {
    const name = String(raw).trim();
    bits |= type.members.get(name) ?? (/^\d+$/.test(name) ? BigInt(name) : 0n);
  }
  return bits;
}

/** The single bits of a number, low to high. */
export function* bitsOf(value: bigint): Generator<bigint> {
  for (let bit = 1n; bit <= value; bit <<= 1n) if ((value & bit) !== 0n) yield bit;
}

/** Every member with its value as a number, in declaration order: what a stored name orders by. */
export function memberOrdinals(type: EnumType): readonly (readonly [string, number])[] {
  return [...type.members].map(([name, value]) => [name, Number(value)] as const);
}

/**
 * The member each value names, for casting an integer to a (non-flag) enumeration (URL
 * 5.1.1.10.1 rule 10): of members sharing a value, the first declared.
 */
export function membersByValue(type: EnumType): readonly (readonly [bigint, string])[] {
  const byValue = new Map<bigint, string>();
  for (const [name, value] of type.members) if (!byValue.has(value)) byValue.set(value, name);
  return [...byValue];
}

/**
 * The integers that are values of a flag enumeration (URL 5.1.1.10.1 rule 10, for `isof`): every
 * value of its underlying type, from `lowest` to `highest`, and any member's value `outside` them.
 */
export function flagValues(type: EnumType): { readonly lowest: bigint; readonly highest: bigint; readonly outside: readonly bigint[] } {
  const [lowest, highest] = INTEGER_RANGES[type.underlyingType] as readonly [bigint, bigint];
  const outside = membersByValue(type)
    .map(([value]) => value)
    .filter((value) => value < lowest || value > highest);
  return { lowest, highest, outside };
}

/** The names of the members whose value carries `bit` (for `has` on names). */
export function membersCarrying(type: EnumType, bit: bigint): string[] {
  return [...type.members].filter(([, value]) => (value & bit) !== 0n).map(([name]) => name);
}
