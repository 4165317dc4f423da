/**
 * The SQL schema, created (idempotently) at start: the tenant and client tables, one table per
 * entity set with a `tenant_id` column, row-level security policies, and the application role.
 *
 * Column types follow the library's storage conventions (`columnType`); columns are the
 * properties in snake_case, the naming `toSql` is given.
 */
import { columnType, type Model, type Property } from 'odata-engine';
import { APP_ROLE, type Database } from './db.js';
import { resources } from './model.js';

/** `localityId` → `locality_id`, as `toSql`'s `naming: 'snake_case'`. */
export function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Foreign keys of the entity tables, all within one tenant: `(tenant_id, x_id) → (tenant_id, id)`. */
const FOREIGN_KEYS: Readonly<Record<string, readonly { column: string; table: string }[]>> = {
  assets: [{ column: 'locality_id', table: 'localities' }],
  maintenance_tickets: [{ column: 'asset_id', table: 'assets' }],
  inspections: [{ column: 'asset_id', table: 'assets' }],
};

function entityTable(model: Model, entitySet: string, table: string): string {
  const set = model.entitySets.get(entitySet);
  if (set === undefined) throw new Error(`No entity set '${entitySet}'`);
  const properties = [...set.type.properties.values()] as Property[];
  const columns = properties.map((p) => `"${snakeCase(p.name)}" ${columnType(p, 'postgres')}${p.nullable ? '' : ' NOT NULL'}`);
  const keys = (FOREIGN_KEYS[table] ?? []).map((fk) => `FOREIGN KEY (tenant_id, "${fk.column}") REFERENCES "${fk.table}" (tenant_id, id)`);
  const indexes = [
    `CREATE INDEX IF NOT EXISTS "${table}_created_at" ON "${table}" (tenant_id, created_at)`,
    ...(FOREIGN_KEYS[table] ?? []).map((fk) => `CREATE INDEX IF NOT EXISTS "${table}_${fk.column}" ON "${table}" (tenant_id, "${fk.column}")`),
  ];
  const isolation = `tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::uuid`;
  return [
    `CREATE TABLE IF NOT EXISTS "${table}" (tenant_id uuid NOT NULL REFERENCES tenants (id), ${[...columns, 'PRIMARY KEY (tenant_id, id)', ...keys].join(', ')})`,
    ...indexes,
    `ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY`,
    `DROP POLICY IF EXISTS tenant_isolation ON "${table}"`,
    `CREATE POLICY tenant_isolation ON "${table}" USING (${isolation}) WITH CHECK (${isolation})`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON "${table}" TO ${APP_ROLE}`,
  ].join(';\n');
}

/** The whole schema as one script (for the README and for {@link createSchema}). */
export function schemaSql(model: Model, schema: string): string {
  return [
    // CREATE ROLE is cluster-wide: tolerate a role that exists, or that a concurrent start creates.
    `DO $$ BEGIN
       IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN CREATE ROLE ${APP_ROLE} NOLOGIN; END IF;
     EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
     END $$`,
    // A connecting user that is not a superuser needs membership to SET ROLE.
    `DO $$ BEGIN
       IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AND NOT pg_has_role(current_user, '${APP_ROLE}', 'MEMBER') THEN
         EXECUTE format('GRANT %I TO %I', '${APP_ROLE}', current_user);
       END IF;
     END $$`,
    `GRANT USAGE ON SCHEMA "${schema}" TO ${APP_ROLE}`,
    `CREATE TABLE IF NOT EXISTS tenants (id uuid PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE IF NOT EXISTS clients (client_id text PRIMARY KEY, name text NOT NULL, secret_hash text NOT NULL, can_write boolean NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE IF NOT EXISTS client_tenants (client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE, tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE, PRIMARY KEY (client_id, tenant_id))`,
    ...resources.map((r) => entityTable(model, r.entitySet, r.table)),
  ].join(';\n');
}

/** Creates the schema's tables, policies and role if they do not exist yet. */
export async function createSchema(db: Database, model: Model, schema: string): Promise<void> {
  await db.exec(schemaSql(model, schema));
}
