/**
 * `storedTables`: every table (or MongoDB collection) a model's rows are stored in under the
 * storage mapping: one per entity set, one per set of contained entities, one per link table;
 * with the columns the model does not declare (foreign keys, containers' keys, link columns).
 * The SQL schema (`createSchemaSql`) and the data generator are made from it.
 */
import type { EntitySet, Model, NavigationProperty, Property, StructuredType } from '../model/model.js';
import { containedSet } from '../model/navigation.js';
import { heldProperty, navigationLink, type StoredLink } from './links.js';
import { modelError } from '../model/build-model.js';
import { NO_STORAGE, type StorageMapping } from './storage-mapping.js';
import { dynamicColumn } from './dynamic-properties.js';

/** A column the model does not declare, typed as the key property it holds. */
export interface HiddenColumn {
  readonly column: string;
  /** The key property whose values it holds (its type is the column's type). */
  readonly holds: Property;
}

/** The rows of an entity set, or of the entities contained through one navigation property. */
export interface EntityTable {
  readonly kind: 'entities';
  /** The logical name: the entity set's, or the implicit set's (`Person_Trips`). */
  readonly name: string;
  readonly set: EntitySet;
  /** Foreign keys and, for contained entities, the container's key. */
  readonly hidden: readonly HiddenColumn[];
  /** The primary key: the container's key columns (contained entities), then the type's key properties' names. */
  readonly key: readonly string[];
  /** For an open type: the JSON column of its rows' dynamic properties (storage/dynamic-properties.ts). */
  readonly dynamic?: string;
}

/** A many-to-many link table: its columns hold the source's key and the target's key. */
export interface LinkTable {
  readonly kind: 'link';
  readonly name: string;
  readonly columns: readonly HiddenColumn[];
  /** The navigation property (or pair of partners) it stores, from its source type. */
  readonly navigation: NavigationProperty;
  readonly source: StructuredType;
}

export type StoredTable = EntityTable | LinkTable;

/** The navigation properties of `type` that have a stored link (declared or inherited). */
function links(type: StructuredType, storage: StorageMapping): { navigation: NavigationProperty; link: StoredLink }[] {
  const result: { navigation: NavigationProperty; link: StoredLink }[] = [];
  for (const navigation of type.navigation.values()) {
    const link = navigationLink(type, navigation, storage);
    if (link !== undefined) result.push({ navigation, link });
  }
  return result;
}

/**
 * The stored table of one entity set (or implicit set of contained entities): its foreign keys
 * and, for contained entities, its container's key columns, which lead its primary key.
 */
export function entityTable(set: EntitySet, storage: StorageMapping = NO_STORAGE): EntityTable {
  const hidden: HiddenColumn[] = [];
  if (set.container !== undefined) {
    const link = navigationLink(set.container.type, set.container.navigation, storage);
    if (link?.kind === 'direct') {
      for (const { target } of link.pairs) if (target.column !== undefined) hidden.push({ column: target.column, holds: target.holds });
    }
  }
  const container = hidden.map((h) => h.column);
  for (const { link } of links(set.type, storage)) {
    if (link.kind !== 'direct') continue;
    for (const { source } of link.pairs) {
      // A foreign key of this table (or its own container's key, already listed).
      if (source.column !== undefined && !hidden.some((h) => h.column === source.column)) hidden.push({ column: source.column, holds: source.holds });
    }
  }
  const dynamic = dynamicColumn(set.type, storage);
  return { kind: 'entities', name: set.name, set, hidden, key: [...container, ...set.type.key], ...(dynamic === undefined ? {} : { dynamic }) };
}

/**
 * The tables a model is stored in: each entity set's, then those of contained entities (found
 * from the sets, through containment at any depth), then the link tables. Throws when
 * two tables or two columns of a table would have one name (an `invalid_model` ODataError; an override resolves it).
 *
 * @example
 * ```ts
 * storedTables(tripPin).map((t) => t.name); // ['Photos', 'People', 'Person_Trips', 'Trip_PlanItems', 'Airlines', 'Airports', 'Person_Friends', 'Trip_Photos']
 * ```
 */
export function storedTables(model: Model, storage: StorageMapping = NO_STORAGE): StoredTable[] {
  const entityTables: EntityTable[] = [];
  const linkTables = new Map<string, LinkTable>();
  const seen = new Set<EntitySet>();
  const visit = (set: EntitySet): void => {
    if (seen.has(set)) return;
    seen.add(set);
    entityTables.push(entityTable(set, storage));
    const contained: EntitySet[] = [];
    for (const { navigation, link } of links(set.type, storage)) {
      if (link.kind === 'table' && !linkTables.has(link.table)) {
        linkTables.set(link.table, {
          kind: 'link',
          name: link.table,
          columns: [...link.source, ...link.target].map(({ link: name, column }) => ({ column: name, holds: heldProperty(column) })),
          navigation,
          source: set.type,
        });
      }
      if (navigation.containsTarget === true) {
        const child = containedSet(navigation, set.type);
        if (child !== undefined) contained.push(child);
      }
    }
    for (const child of contained) visit(child);
  };
  for (const set of model.entitySets.values()) visit(set);
  const tables: StoredTable[] = [...entityTables, ...linkTables.values()];
  checkNames(tables);
  return tables;
}

function checkNames(tables: readonly StoredTable[]): void {
  const names = new Set<string>();
  for (const table of tables) {
    if (names.has(table.name)) throw modelError(`Two tables would be named '${table.name}': rename one in the storage mapping`);
    names.add(table.name);
    const columns = new Set<string>(table.kind === 'entities' ? table.set.type.properties.keys() : []);
    const stored = table.kind === 'entities' ? [...table.hidden, ...(table.dynamic === undefined ? [] : [{ column: table.dynamic }])] : table.columns;
    for (const { column } of stored) {
      if (columns.has(column)) throw modelError(`Two columns of '${table.name}' would be named '${column}': name one in the storage mapping`);
      columns.add(column);
    }
  }
}
