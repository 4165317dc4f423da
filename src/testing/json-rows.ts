/**
 * Rows of an OData JSON answer read back into the forms rows store values in (docs/memory.md), so
 * that the reference can evaluate a query over them and compare them: Int64 and Decimal numbers
 * read exactly (`parseJsonText`'s {@link JsonNumber}s) keep their digits, `INF`/`NaN` are numbers.
 */
import type { Property, StructuredType } from '../model/model.js';
import type { Row } from '../reference/rows.js';
import { JsonNumber } from '../util/json-text.js';

/** The value of a property of an OData JSON row, in the form rows store values of its type. */
export function storedValue(property: Property, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (property.collection) return Array.isArray(value) ? value.map((item) => storedItem(property, item)) : value;
  return storedItem(property, value);
}

function storedItem(property: Property, value: unknown): unknown {
  if (value === null) return null;
  const type = property.type;
  if (type.kind === 'complex' || type.kind === 'entity') {
    return typeof value === 'object' && !Array.isArray(value) ? storedRow(type.type, value as Record<string, unknown>) : value;
  }
  if (type.kind !== 'primitive') return value;
  // A number read exactly (parseJsonText): its digits as the type reads them.
  if (value instanceof JsonNumber) {
    if (type.name === 'Edm.Decimal') return value.text;
    if (type.name === 'Edm.Int64' && /^-?\d+$/.test(value.text)) return BigInt(value.text);
    return Number(value.text);
  }
  switch (type.name) {
    case 'Edm.Int64':
      return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value)) ? BigInt(value) : value;
    case 'Edm.Decimal':
      return typeof value === 'number' ? String(value) : value;
    case 'Edm.Double':
    case 'Edm.Single':
      return value === 'INF' ? Infinity : value === '-INF' ? -Infinity : value === 'NaN' ? Number.NaN : value;
    default:
      return value;
  }
}

/** An OData JSON row in stored form: its structural properties read back, annotations and the rest left out. */
export function storedRow(type: StructuredType, row: Record<string, unknown>): Row {
  const stored: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    const property = type.properties.get(name);
    if (property?.kind === 'property') stored[name] = storedValue(property, value);
  }
  return stored;
}

/** A row of the answer as a report shows it: exactly read numbers as their digits. */
export const shownRow = (row: unknown): string =>
  JSON.stringify(row, (_key, value: unknown) => (value instanceof JsonNumber ? `\u0000${value.text}\u0000` : value)).replace(/"\\u0000(.*?)\\u0000"/g, '$1');
