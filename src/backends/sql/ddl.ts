/**
 * `createTableSql`: a `CREATE TABLE` statement for an entity set, with the storage conventions
 * the SQL backend assumes, which each dialect declares (`columnTypes`; see the README's storage table). Meant for tests,
 * demos and new schemas; existing schemas only need to follow the same conventions.
 */
import type { EntitySet, Property } from '../../model/model.js';
import type { Dialect, DialectName } from './dialect.js';
import { DIALECTS } from './dialects/index.js';
import { complexLeaves, type SqlMapping } from './mapping.js';
import { defaultSrid, geoFamilyOf, geoKindOf } from '../../reference/geo.js';

const resolve = (dialect: DialectName | Dialect): Dialect => (typeof dialect === 'string' ? DIALECTS[dialect] : dialect);

/**
 * The column type of a (non-complex) property: the dialect's storage convention; a spatial one's
 * from the dialect's `spatial` hook (`geography(Point, 4326)` on PostGIS), none without it.
 */
export function columnType(property: Property, dialect: DialectName | Dialect): string {
  const d = resolve(dialect);
  const name = property.type.kind === 'enum' ? 'enum' : property.type.kind === 'primitive' ? property.type.name : '';
  // Spatial properties: the dialect's spatial column type, by kind and SRID (the property's facet, else the family's default).
  const family = geoFamilyOf(name);
  const srid = property.facets?.srid;
  const spatial = family === undefined ? undefined : d.spatial?.columnType(family, geoKindOf(name), typeof srid === 'number' ? srid : defaultSrid(family));
  const type = spatial ?? d.columnTypes[name];
  if (type === undefined) throw new Error(`No ${d.displayName} column type for '${property.name}'`);
  return property.collection ? d.collectionColumnType(type) : type;
}

/** `CREATE TABLE` for an entity set (structural, non-collection properties; the key as primary key). */
export function createTableSql(set: EntitySet, dialect: DialectName | Dialect, mapping: SqlMapping = {}): string {
  const d = resolve(dialect);
  const naming = (name: string): string => (mapping.naming === 'snake_case' ? name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : name);
  const column = (property: Property): string =>
    mapping.columns?.[`${set.type.name}.${property.name}`] ?? mapping.columns?.[property.name] ?? naming(property.name);
  // Complex values are flattened into columns (`address_city`), all nullable: the value may be null.
  const columns = [...set.type.properties.values()]
    .filter((p) => !(p.collection && p.type.kind === 'complex'))
    .flatMap((p) =>
      p.type.kind === 'complex'
        ? complexLeaves(set.type, p, mapping).map((leaf) => `${d.quote(leaf.column)} ${columnType(leaf.property, dialect)}`)
        : [`${d.quote(column(p))} ${columnType(p, dialect)}${p.nullable ? '' : ' NOT NULL'}`],
    );
  const key = set.type.key.map((k) => d.quote(column(set.type.properties.get(k) as Property))).join(', ');
  const table = mapping.tables?.[set.name] ?? naming(set.name);
  return `CREATE TABLE ${d.quote(table)} (${columns.join(', ')}, PRIMARY KEY (${key}))${d.tableOptions === undefined ? '' : ` ${d.tableOptions}`}`;
}
