/**
 * The rows of `$crossjoin(…)`'s virtual set (semantic/resource-path/crossjoin.ts) in SQL: a
 * derived table, the `CROSS JOIN` of the joined sets' tables, each restricted by the mapping's
 * scope, with the stored key of each set's row in the column its navigation property is stored
 * in (`Products_ID`), so that the navigation properties join as any other.
 */
import type { EntitySet, Property, StructuredType } from '../../model/model.js';
import type { CrossJoin } from '../../semantic/resource-path/crossjoin.js';
import { navigationLink } from '../../storage/links.js';
import type { StorageMapping } from '../../storage/storage-mapping.js';

/** What of the statement's compiler (compiler.ts, which calls this) the derived table uses. */
export interface CrossJoinCompiler {
  readonly dialect: { quote(name: string): string };
  readonly mapping: StorageMapping;
  freshAlias(): string;
  table(set: EntitySet): string;
  column(type: StructuredType, property: Property, alias: string): string;
  storedName(logical: string): string;
  scopeCondition(alias: string): string;
}

/**
 * `(SELECT j1."ID" AS "Products_ID", j2."ID" AS "Sales_ID" FROM "Products" j1 CROSS JOIN "Sales" j2 WHERE …scope)`.
 * Identifiers come from the model and the mapping only; the scope's values are parameters.
 */
export function crossJoinTable(compiler: CrossJoinCompiler, join: CrossJoin, declaring: StructuredType): string {
  const quote = (name: string): string => compiler.dialect.quote(name);
  const columns: string[] = [];
  const tables: string[] = [];
  const restrictions: string[] = [];
  join.sets.forEach((set, i) => {
    const navigation = join.navigation[i] as (typeof join.navigation)[number];
    const link = navigationLink(declaring, navigation, compiler.mapping);
    if (link === undefined || link.kind !== 'direct') throw new Error(`internal error: no stored key for '$crossjoin' of '${set.name}'`);
    const alias = compiler.freshAlias();
    tables.push(`${compiler.table(set)} ${alias}`);
    for (const { source, target } of link.pairs) {
      const value = target.property !== undefined ? compiler.column(set.type, target.property, alias) : `${alias}.${quote(compiler.storedName(target.column))}`;
      columns.push(`${value} AS ${quote(compiler.storedName(source.column ?? source.property.name))}`);
    }
    const restricted = compiler.scopeCondition(alias);
    if (restricted !== '') restrictions.push(restricted);
  });
  const where = restrictions.length === 0 ? '' : ` WHERE ${restrictions.join(' AND ')}`;
  return `(SELECT ${columns.join(', ')} FROM ${tables.join(' CROSS JOIN ')}${where})`;
}
