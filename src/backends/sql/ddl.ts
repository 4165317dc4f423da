/**
 * `createTableSql`: a `CREATE TABLE` statement for an entity set, with the storage conventions
 * the SQL backend assumes, which each dialect declares (`columnTypes`; see the README's storage table). Meant for tests,
 * demos and new schemas; existing schemas only need to follow the same conventions.
 */
import type { EntitySet, Model, Property } from '../../model/model.js';
import { entityTable, storedTables, type LinkTable } from '../../storage/tables.js';
import type { Dialect, DialectName } from './dialect.js';
import { DIALECTS } from './dialects/index.js';
import { columnName, complexLeaves, dynamicColumnName, snake, type SqlMapping } from './mapping.js';
import { defaultSrid, geoFamilyOf, geoKindOf } from '../../reference/geo.js';

const resolve = (dialect: DialectName | Dialect): Dialect => (typeof dialect === 'string' ? DIALECTS[dialect] : dialect);

/** The longest key string a column holds where the engine needs a bound to index it (MySQL/MariaDB) and the model gives none. */
export const DEFAULT_KEY_LENGTH = 255;

/**
 * The column type of a (non-complex) property: the dialect's storage convention; a string with a
 * `MaxLength` facet, or in a key (`role`), a bounded string where the dialect has one; a spatial
 * one's from the dialect's `spatial` hook (`geography(Point, 4326)` on PostGIS), else its GeoJSON
 * text (geo functions are refused there).
 */
export function columnType(property: Property, dialect: DialectName | Dialect, role: 'value' | 'key' = 'value', keyLength = DEFAULT_KEY_LENGTH): string {
  const d = resolve(dialect);
  const name = property.type.kind === 'enum' ? 'enum' : property.type.kind === 'primitive' ? property.type.name : '';
  const maxLength = property.facets?.maxLength ?? (role === 'key' ? keyLength : undefined);
  if (name === 'Edm.String' && !property.collection && maxLength !== undefined && d.boundedStringType !== undefined) return d.boundedStringType(maxLength);
  // Spatial properties: the dialect's spatial column type, by kind and SRID (the property's facet, else the family's default).
  const family = geoFamilyOf(name);
  const srid = property.facets?.srid;
  const spatial = family === undefined ? undefined : d.spatial?.columnType(family, geoKindOf(name), typeof srid === 'number' ? srid : defaultSrid(family));
  // Without a type of their own: a stream property's bytes as Binary, an untyped value as its JSON text.
  const fallback = family !== undefined || name === 'Edm.Untyped' ? 'Edm.String' : name === 'Edm.Stream' ? 'Edm.Binary' : undefined;
  const type = spatial ?? d.columnTypes[name] ?? (fallback === undefined ? undefined : d.columnTypes[fallback]);
  if (type === undefined) throw new Error(`No ${d.displayName} column type for '${property.name}'`);
  return property.collection ? d.collectionColumnType(type) : type;
}

/** The name of a column or table the model does not declare, under the mapping (an override, else the naming). */
function storedName(logical: string, mapping: SqlMapping, override: Readonly<Record<string, string>> | undefined = mapping.columns): string {
  const named = override !== undefined && Object.hasOwn(override, logical) ? override[logical] : undefined;
  return named ?? (mapping.naming === 'snake_case' ? snake(logical) : logical);
}

/** The SQL type of a column that holds a key property's values (a foreign key, a container's or a link table's column). */
function heldType(holds: Property, d: Dialect, keyLength = DEFAULT_KEY_LENGTH): string {
  return columnType({ ...holds, collection: false }, d, 'key', keyLength);
}

const unboundedString = (p: Property): boolean => p.type.kind === 'primitive' && p.type.name === 'Edm.String' && p.facets?.maxLength === undefined;

/**
 * The length of the strings without `MaxLength` in one primary key of the properties `key` holds:
 * {@link DEFAULT_KEY_LENGTH}, or less where the dialect bounds an index key's bytes
 * (`indexKeyLimit`) and the key holds several such strings (four strings of 255 characters are
 * 4 080 bytes in utf8mb4, past InnoDB's 3 072): they share what the key's other columns leave.
 */
function keyLength(key: readonly Property[], d: Dialect): number {
  const limit = d.indexKeyLimit;
  const open = key.filter(unboundedString).length;
  if (limit === undefined || open === 0) return DEFAULT_KEY_LENGTH;
  let fixed = 0;
  for (const p of key) {
    if (unboundedString(p)) continue;
    const characters = /CHAR\((\d+)\)/i.exec(columnType({ ...p, collection: false }, d, 'key'));
    // A bounded string (or CHAR) counts its characters; any other type at most 16 bytes.
    fixed += characters === null ? 16 : Number(characters[1]) * limit.bytesPerCharacter;
  }
  return Math.max(1, Math.min(DEFAULT_KEY_LENGTH, Math.floor((limit.bytes - fixed) / limit.bytesPerCharacter / open)));
}

/**
 * `CREATE TABLE` for an entity set, or the implicit set of contained entities: its structural,
 * non-collection properties (complex values flattened), the foreign keys and container's key
 * the storage mapping adds (storage/tables.ts), and the primary key (the container's key, then
 * the type's key).
 */
export function createTableSql(set: EntitySet, dialect: DialectName | Dialect, mapping: SqlMapping = {}): string {
  const d = resolve(dialect);
  const table = entityTable(set, mapping);
  const column = (property: Property): string => columnName(set.type, property, mapping);
  // The key's strings without MaxLength share the dialect's index key limit.
  const keyProperties = table.key.map((k) => (set.type.key.includes(k) ? set.type.properties.get(k) : table.hidden.find((h) => h.column === k)?.holds));
  const length = keyLength(
    keyProperties.filter((p): p is Property => p !== undefined),
    d,
  );
  // Complex values are flattened into columns (`address_city`), all nullable: the value may be null.
  const columns = [
    ...table.hidden.map(
      (h) =>
        `${d.quote(storedName(h.column, mapping))} ${heldType(h.holds, d, table.key.includes(h.column) ? length : DEFAULT_KEY_LENGTH)}${table.key.includes(h.column) ? ' NOT NULL' : ''}`,
    ),
    ...[...set.type.properties.values()]
      // A collection of complex values is one JSON column where the dialect stores them (else left out).
      .filter((p) => !(p.collection && p.type.kind === 'complex') || d.complexCollections !== undefined)
      .flatMap((p) =>
        p.collection && p.type.kind === 'complex'
          ? [`${d.quote(column(p))} ${(d.complexCollections as NonNullable<Dialect['complexCollections']>).columnType}`]
          : p.type.kind === 'complex'
            ? complexLeaves(set.type, p, mapping).map((leaf) => `${d.quote(leaf.column)} ${columnType(leaf.property, dialect)}`)
            : [`${d.quote(column(p))} ${columnType(p, dialect, set.type.key.includes(p.name) ? 'key' : 'value', length)}${p.nullable ? '' : ' NOT NULL'}`],
      ),
  ];
  // An open type's dynamic properties: one JSON object column (storage/dynamic-properties.ts).
  const dynamic = dynamicColumnName(set.type, mapping);
  if (dynamic !== undefined && d.dynamicProperties !== undefined) columns.push(`${d.quote(dynamic)} ${d.dynamicProperties.columnType}`);
  const key = table.key
    .map((k) => {
      const property = set.type.key.includes(k) ? set.type.properties.get(k) : undefined;
      return d.quote(property === undefined ? storedName(k, mapping) : column(property));
    })
    .join(', ');
  const name = mapping.tables?.[set.name] ?? (mapping.naming === 'snake_case' ? snake(set.name) : set.name);
  return `CREATE TABLE ${d.quote(name)} (${columns.join(', ')}, PRIMARY KEY (${key}))${d.tableOptions === undefined ? '' : ` ${d.tableOptions}`}`;
}

/** `CREATE TABLE` for a link table (many-to-many): its columns, all of them the primary key. */
export function createLinkTableSql(table: LinkTable, dialect: DialectName | Dialect, mapping: SqlMapping = {}): string {
  const d = resolve(dialect);
  // Every column is in the primary key: their strings without MaxLength share the index key limit.
  const length = keyLength(
    table.columns.map((c) => c.holds),
    d,
  );
  const columns = table.columns.map((c) => `${d.quote(storedName(c.column, mapping))} ${heldType(c.holds, d, length)} NOT NULL`);
  const key = table.columns.map((c) => d.quote(storedName(c.column, mapping))).join(', ');
  const name = storedName(table.name, mapping, mapping.tables);
  return `CREATE TABLE ${d.quote(name)} (${columns.join(', ')}, PRIMARY KEY (${key}))${d.tableOptions === undefined ? '' : ` ${d.tableOptions}`}`;
}

/**
 * The whole schema of a model under the storage mapping: a `CREATE TABLE` per stored table (entity
 * sets, contained entities, link tables; see `storedTables`), in that order. No foreign key
 * constraints are declared (rows may be loaded in any order).
 *
 * @example
 * ```ts
 * for (const statement of createSchemaSql(modelFromCsdlXml(tripPinXml), 'postgres')) await client.query(statement);
 * ```
 */
export function createSchemaSql(model: Model, dialect: DialectName | Dialect, mapping: SqlMapping = {}): string[] {
  return storedTables(model, mapping).map((table) =>
    table.kind === 'entities' ? createTableSql(table.set, dialect, mapping) : createLinkTableSql(table, dialect, mapping),
  );
}
