/**
 * Parameters of the SQL compiler: the kind of each value (for typed placeholders and driver
 * conversion), the placeholder markers the statement numbers, and the threshold from which an
 * `in` list travels as one parameter.
 */
import type { ExpressionType } from '../../semantic/types.js';
import type { ParameterKind } from './dialect.js';

/** The parameter kind of a value of `type` (`literalType` decides for untyped comparisons). */
export function parameterKind(type: ExpressionType, literalType: ExpressionType): ParameterKind {
  const t = type.kind === 'null' || (type.kind === 'primitive' && type.name === 'Edm.Untyped') ? literalType : type;
  if (t.kind === 'enum') return 'enum';
  if (t.kind !== 'primitive') return 'string';
  switch (t.name) {
    case 'Edm.Boolean':
      return 'boolean';
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
      return 'integer';
    case 'Edm.Int64':
      return 'bigint';
    case 'Edm.Decimal':
      return 'decimal';
    case 'Edm.Double':
    case 'Edm.Single':
      return 'double';
    case 'Edm.Guid':
      return 'guid';
    case 'Edm.Date':
      return 'date';
    case 'Edm.DateTimeOffset':
      return 'timestamp';
    case 'Edm.TimeOfDay':
      return 'time';
    case 'Edm.Duration':
      return 'interval';
    default:
      return 'string';
  }
}

/** From this many items on, an `in` list is one parameter. */
export const LIST_PARAMETER_THRESHOLD = 1000;

/**
 * Placeholder markers (characters that no SQL text of the compiler contains): `\u0001<index>\u0002`,
 * numbered by `numbered` in to-sql.ts.
 */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

/** The kind of a `scope` value: a UUID-shaped string is a Guid. */
export function scopeKind(value: unknown): ParameterKind {
  if (typeof value === 'bigint') return 'bigint';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'double';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return 'guid';
  return 'string';
}
