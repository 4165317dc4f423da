/**
 * `createTableSql`: a `CREATE TABLE` statement for an entity set, with the storage conventions
 * the SQL backend assumes for each dialect (see the README's storage table). Meant for tests,
 * demos and new schemas; existing schemas only need to follow the same conventions.
 */
import type { EntitySet, Property } from '../../model/model.js';
import type { DialectName } from './dialect.js';
import { DIALECTS } from './dialects.js';
import { complexLeaves, type SqlMapping } from './mapping.js';

const COLUMN_TYPES: Readonly<Record<DialectName, Readonly<Record<string, string>>>> = {
  postgres: {
    'Edm.String': 'text',
    'Edm.Boolean': 'boolean',
    'Edm.Byte': 'smallint',
    'Edm.SByte': 'smallint',
    'Edm.Int16': 'smallint',
    'Edm.Int32': 'integer',
    'Edm.Int64': 'bigint',
    'Edm.Decimal': 'numeric',
    'Edm.Double': 'double precision',
    'Edm.Single': 'real',
    'Edm.Guid': 'uuid',
    'Edm.Date': 'date',
    'Edm.DateTimeOffset': 'timestamptz',
    'Edm.TimeOfDay': 'time',
    'Edm.Duration': 'interval',
    enum: 'text',
  },
  sqlite: {
    'Edm.String': 'TEXT',
    'Edm.Boolean': 'INTEGER',
    'Edm.Byte': 'INTEGER',
    'Edm.SByte': 'INTEGER',
    'Edm.Int16': 'INTEGER',
    'Edm.Int32': 'INTEGER',
    'Edm.Int64': 'INTEGER',
    'Edm.Decimal': 'REAL',
    'Edm.Double': 'REAL',
    'Edm.Single': 'REAL',
    'Edm.Guid': 'TEXT',
    'Edm.Date': 'TEXT',
    'Edm.DateTimeOffset': 'TEXT',
    'Edm.TimeOfDay': 'TEXT',
    'Edm.Duration': 'TEXT',
    enum: 'TEXT',
  },
  mysql: {
    'Edm.String': 'LONGTEXT',
    'Edm.Boolean': 'BOOLEAN',
    'Edm.Byte': 'SMALLINT',
    'Edm.SByte': 'SMALLINT',
    'Edm.Int16': 'SMALLINT',
    'Edm.Int32': 'INT',
    'Edm.Int64': 'BIGINT',
    'Edm.Decimal': 'DECIMAL(38, 18)',
    'Edm.Double': 'DOUBLE',
    'Edm.Single': 'FLOAT',
    'Edm.Guid': 'CHAR(36)',
    'Edm.Date': 'DATE',
    'Edm.DateTimeOffset': 'DATETIME(6)',
    'Edm.TimeOfDay': 'TIME(6)',
    'Edm.Duration': 'VARCHAR(64)',
    enum: 'VARCHAR(255)',
  },
  mssql: {
    'Edm.String': 'NVARCHAR(MAX)',
    'Edm.Boolean': 'BIT',
    'Edm.Byte': 'TINYINT',
    'Edm.SByte': 'SMALLINT',
    'Edm.Int16': 'SMALLINT',
    'Edm.Int32': 'INT',
    'Edm.Int64': 'BIGINT',
    'Edm.Decimal': 'DECIMAL(38, 18)',
    'Edm.Double': 'FLOAT',
    'Edm.Single': 'REAL',
    'Edm.Guid': 'UNIQUEIDENTIFIER',
    'Edm.Date': 'DATE',
    'Edm.DateTimeOffset': 'DATETIMEOFFSET(7)',
    'Edm.TimeOfDay': 'TIME(7)',
    'Edm.Duration': 'VARCHAR(64)',
    enum: 'NVARCHAR(255)',
  },
};

/** The column type of a (non-collection, non-complex) property. */
export function columnType(property: Property, dialect: DialectName): string {
  const types = COLUMN_TYPES[dialect];
  const name = property.type.kind === 'enum' ? 'enum' : property.type.kind === 'primitive' ? property.type.name : '';
  const type = types[name];
  if (type === undefined) throw new Error(`No ${dialect} column type for '${property.name}'`);
  if (!property.collection) return type;
  // Primitive collections: PostgreSQL arrays, JSON text elsewhere.
  return dialect === 'postgres' ? `${type}[]` : dialect === 'mssql' ? 'NVARCHAR(MAX)' : dialect === 'mysql' ? 'LONGTEXT' : 'TEXT';
}

/** `CREATE TABLE` for an entity set (structural, non-collection properties; the key as primary key). */
export function createTableSql(set: EntitySet, dialect: DialectName, mapping: SqlMapping = {}): string {
  const d = DIALECTS[dialect];
  const naming = (name: string): string => (mapping.naming === 'snake_case' ? name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : name);
  const column = (property: Property): string => mapping.columns?.[`${set.type.name}.${property.name}`] ?? mapping.columns?.[property.name] ?? naming(property.name);
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
  const options = dialect === 'mysql' ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_bin' : '';
  return `CREATE TABLE ${d.quote(table)} (${columns.join(', ')}, PRIMARY KEY (${key}))${options}`;
}
