/**
 * Records in and out: checking a JSON request body against an entity type (types, required
 * properties, lengths, enum members, ISO 8601 instants), and turning a row read by its own SQL
 * into JSON with the library's `jsonValue` (rows of `toSql` statements are read by `readSqlRows`).
 */
import { jsonValue, type Property, type StructuredType } from 'odata-engine';
import { ValidationError } from './errors.js';
import { csdl, SERVER_MANAGED } from './model.js';
import { snakeCase } from './schema.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether a string is a UUID (any case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** `$MaxLength` of a property in the CSDL document, if any. */
function maxLength(type: StructuredType, property: string): number | undefined {
  const schema = csdl.AssetManagement as unknown as Record<string, Record<string, { $MaxLength?: number } | undefined>>;
  return schema[type.name]?.[property]?.$MaxLength;
}

function validInstant(text: string): boolean {
  const match = INSTANT.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part))) as number[];
  const daysInMonth = new Date(Date.UTC(year as number, month as number, 0)).getUTCDate();
  return (
    (year as number) >= 1 &&
    (month as number) >= 1 &&
    (month as number) <= 12 &&
    (day as number) >= 1 &&
    (day as number) <= daysInMonth &&
    (hour as number) <= 23 &&
    (minute as number) <= 59 &&
    (second as number) <= 59 &&
    (offsetHours as number) <= 14 &&
    (offsetMinutes as number) <= 59 &&
    !Number.isNaN(Date.parse(text))
  );
}

/** One property's problem with its value, or `undefined` when the value is fine. Converts as it checks. */
function checkValue(type: StructuredType, property: Property, value: unknown): { error: string } | { value: unknown } {
  const name = property.name;
  if (value === null) return property.nullable ? { value: null } : { error: `The '${name}' field is required.` };
  switch (property.type.kind) {
    case 'enum': {
      const members = [...property.type.type.members.keys()];
      if (typeof value !== 'string' || !members.includes(value)) return { error: `The '${name}' field must be one of: ${members.join(', ')}.` };
      return { value };
    }
    case 'primitive':
      switch (property.type.name) {
        case 'Edm.Guid':
          if (typeof value !== 'string' || !UUID.test(value)) return { error: `The '${name}' field must be a UUID.` };
          return { value: value.toLowerCase() };
        case 'Edm.DateTimeOffset':
          if (typeof value !== 'string' || !validInstant(value))
            return { error: `The '${name}' field must be an ISO 8601 date and time with an offset, such as '2024-05-01T08:30:00Z'.` };
          return { value: new Date(value).toISOString() };
        case 'Edm.String': {
          if (typeof value !== 'string') return { error: `The '${name}' field must be a string.` };
          if (value.includes('\u0000')) return { error: `The '${name}' field must not contain NUL characters.` };
          if (!property.nullable && value.trim() === '') return { error: `The '${name}' field must not be empty.` };
          const max = maxLength(type, name);
          if (max !== undefined && [...value].length > max) return { error: `The '${name}' field must be at most ${max} characters long.` };
          return { value };
        }
        default:
          return { error: `The '${name}' field has an unsupported type.` };
      }
    default:
      return { error: `The '${name}' field has an unsupported type.` };
  }
}

/** A checked body: column name → value, in the model's property order (`id` first). */
export type Columns = ReadonlyMap<string, unknown>;

/**
 * Checks a create (`POST`) or replace (`PUT`) body against the entity type. Every writable
 * property is set: a missing nullable property becomes `null`. `createdAt` and `updatedAt` are
 * server-managed and ignored if sent; `id` is required on create, and on replace must match the
 * URL when sent.
 *
 * @throws {ValidationError} listing every problem, in property order (the same body always gives the same error)
 */
export function checkBody(type: StructuredType, body: unknown, mode: 'create' | 'replace', urlId?: string): Columns {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('The request body must be a JSON object.');
  const record = body as Record<string, unknown>;
  const errors: { Field: string; Message: string }[] = [];
  for (const key of Object.keys(record)) {
    if (type.navigation.has(key)) {
      const many = type.navigation.get(key)?.collection === true;
      errors.push({
        Field: key,
        Message: `The navigation property '${key}' cannot be written; ${many ? 'write the related records themselves' : 'set its id instead'}.`,
      });
    } else if (!type.properties.has(key)) errors.push({ Field: key, Message: `The property '${key}' does not exist on '${type.name}'.` });
  }
  const columns = new Map<string, unknown>();
  for (const property of type.properties.values()) {
    const name = property.name;
    if (SERVER_MANAGED.has(name)) continue;
    const present = Object.hasOwn(record, name);
    if (name === 'id') {
      if (mode === 'replace') {
        if (present && (typeof record.id !== 'string' || record.id.toLowerCase() !== urlId))
          errors.push({ Field: 'id', Message: "The 'id' field must match the id in the URL." });
        columns.set('id', urlId);
        continue;
      }
      if (!present) {
        errors.push({ Field: 'id', Message: "The 'id' field is required (a client-generated UUID)." });
        continue;
      }
    }
    const checked = checkValue(type, property, present ? record[name] : null);
    if ('error' in checked) errors.push({ Field: name, Message: checked.error });
    else columns.set(snakeCase(name), checked.value);
  }
  if (errors.length > 0) {
    errors.sort((a, b) => (a.Field < b.Field ? -1 : a.Field > b.Field ? 1 : 0));
    throw new ValidationError(errors.map((e) => e.Message).join(' '), { Errors: errors });
  }
  return columns;
}

/** A row read with explicit snake_case columns (get by id) as a JSON record. */
export function rowToRecord(type: StructuredType, row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const property of type.properties.values()) out[property.name] = jsonValue(property.type, row[snakeCase(property.name)]);
  return out;
}

/**
 * The service never writes `@odata.count` (its lists say `count`): an expansion's count, which the
 * library names `<navigation>@odata.count`, is written `<navigation>@count`, the OData 4.01 form
 * without the `odata.` prefix. Applied to a record and, inside it, to every expanded record.
 */
export function withServiceCountNames(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([name, value]) => [
      name.endsWith('@odata.count') ? `${name.slice(0, -'@odata.count'.length)}@count` : name,
      Array.isArray(value)
        ? value.map((item: unknown) => (isRecord(item) ? withServiceCountNames(item) : item))
        : isRecord(value) && !name.includes('@')
          ? withServiceCountNames(value)
          : value,
    ]),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
