/**
 * `dataResolver`: navigation properties followed through rows grouped by stored table, by the
 * storage mapping's links (storage/links.ts), with a lazily built index per table and columns.
 */
import type { EntitySet, NavigationProperty, Property } from '../../model/model.js';
import { propertyGetter, type NavigationResolver, type Row } from '../../reference/rows.js';
import { domainOf, type Domain } from '../../reference/values.js';
import { fromReference } from '../../semantic/types.js';
import { columnName, heldProperty, navigationLink, type StoredColumn, type StoredLink } from '../../storage/links.js';
import { NO_STORAGE, type StorageMapping } from '../../storage/storage-mapping.js';

const NULL_DOMAIN = domainOf({ kind: 'null' });

/** One part of a composite key: a key value made comparable across value forms (a number and a bigint, a Date and its text). */
function keyPart(domain: Domain, value: unknown): string | undefined {
  const normalized = value === undefined || value === null ? null : domain.normalize(value);
  if (normalized === null) return undefined;
  return typeof normalized === 'object'
    ? JSON.stringify(normalized, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))
    : `${typeof normalized}:${String(normalized)}`;
}

/** The name a stored column has in a row (a property's own name, or the hidden column's). */
const columnOf = columnName;

/** The domain the values of a pair of columns are compared in: the key property's they hold. */
function domainOfPair(first: StoredColumn): Domain {
  const property = heldProperty(first) as Property | undefined;
  return property === undefined ? NULL_DOMAIN : domainOf(fromReference(property.type));
}

/**
 * Follows navigation properties through `data` (rows by stored table name: entity sets, the
 * implicit sets of contained entities, link tables), as the storage mapping relates them.
 *
 * @example
 * ```ts
 * const resolve = dataResolver({ People: people, Person_Friends: friendships, Person_Trips: trips });
 * compileQuery(bindQuery('$filter=Friends/any(f: f/FirstName eq 'Scott')', { model, entitySet: 'People' }), { resolve });
 * ```
 */
export function dataResolver(data: Readonly<Record<string, readonly Row[]>>, storage: StorageMapping = NO_STORAGE): NavigationResolver {
  const indexes = new Map<string, Map<string, Row[]>>();
  const rowsOf = (table: string): readonly Row[] => (Object.hasOwn(data, table) ? (data[table] as readonly Row[]) : []);
  /** The composite key of `row`'s `columns`, or `undefined` when one is null. */
  const compositeKey = (row: Row, columns: readonly string[], domains: readonly Domain[]): string | undefined => {
    let key = '';
    for (let i = 0; i < columns.length; i++) {
      const part = keyPart(domains[i] as Domain, propertyGetter(columns[i] as string)(row));
      if (part === undefined) return undefined;
      key += i === 0 ? part : `\u0000${part}`;
    }
    return key;
  };
  const index = (table: string, columns: readonly string[], domains: readonly Domain[]): Map<string, Row[]> => {
    // Table and column names are identifiers: NUL never occurs in one.
    const id = `${table}\u0000${columns.join('\u0000')}`;
    let map = indexes.get(id);
    if (map === undefined) {
      map = new Map();
      for (const row of rowsOf(table)) {
        const key = compositeKey(row, columns, domains);
        if (key === undefined) continue;
        const bucket = map.get(key);
        if (bucket === undefined) map.set(key, [row]);
        else bucket.push(row);
      }
      indexes.set(id, map);
    }
    return map;
  };
  const links = new Map<NavigationProperty, StoredLink | null>();
  const linkOf = (navigation: NavigationProperty): StoredLink | null => {
    let link = links.get(navigation);
    if (link === undefined) links.set(navigation, (link = navigationLink(undefined, navigation, storage) ?? null));
    return link;
  };
  const related = (link: StoredLink, row: Row, target: EntitySet): readonly Row[] => {
    if (link.kind === 'direct') {
      const domains = link.pairs.map((p) => domainOfPair(p.source));
      const key = compositeKey(
        row,
        link.pairs.map((p) => columnOf(p.source)),
        domains,
      );
      if (key === undefined) return [];
      return (
        index(
          target.name,
          link.pairs.map((p) => columnOf(p.target)),
          domains,
        ).get(key) ?? []
      );
    }
    const sourceDomains = link.source.map((s) => domainOfPair(s.column));
    const key = compositeKey(
      row,
      link.source.map((s) => columnOf(s.column)),
      sourceDomains,
    );
    if (key === undefined) return [];
    const targetDomains = link.target.map((t) => domainOfPair(t.column));
    const targets = index(
      target.name,
      link.target.map((t) => columnOf(t.column)),
      targetDomains,
    );
    const result: Row[] = [];
    const seen = new Set<Row>();
    for (const linkRow of index(
      link.table,
      link.source.map((s) => s.link),
      sourceDomains,
    ).get(key) ?? []) {
      const targetKey = compositeKey(
        linkRow,
        link.target.map((t) => t.link),
        targetDomains,
      );
      if (targetKey === undefined) continue;
      for (const found of targets.get(targetKey) ?? []) {
        // A link stored twice relates the rows once.
        if (!seen.has(found)) result.push(found);
        seen.add(found);
      }
    }
    return result;
  };
  return (navigation: NavigationProperty, row: Row, target: EntitySet | undefined) => {
    const link = linkOf(navigation);
    const matches = link === null || target === undefined ? [] : related(link, row, target);
    return navigation.collection ? matches : (matches[0] ?? null);
  };
}
