/**
 * `navigationLink`: how the rows of a navigation property's source and target are related in
 * storage, by the conventions and overrides of storage-mapping.ts. The one rule the memory, SQL
 * and MongoDB backends, the schema and the data generator follow.
 */
import type { NavigationProperty, Property, StructuredType } from '../model/model.js';
import { containerOf, declaringType } from '../model/navigation.js';
import { NO_STORAGE, type NavigationStorage, type StorageMapping } from './storage-mapping.js';

/**
 * A stored column: a property of the row's type, or a column the model does not have (a foreign
 * key, a container's key), with the key property whose values it holds.
 */
export type StoredColumn =
  | { readonly property: Property; readonly column?: undefined; readonly holds?: undefined }
  | { readonly column: string; readonly holds: Property; readonly property?: undefined };

/** The source's row and the target's row are related where the columns of each pair are equal. */
export interface DirectLink {
  readonly kind: 'direct';
  readonly pairs: readonly { readonly source: StoredColumn; readonly target: StoredColumn }[];
}

/** The rows are related through the rows of a link table (many-to-many). */
export interface TableLink {
  readonly kind: 'table';
  /** The link table's logical name. */
  readonly table: string;
  /** Link column ↔ the source row's column. */
  readonly source: readonly { readonly link: string; readonly column: StoredColumn }[];
  /** Link column ↔ the target row's column. */
  readonly target: readonly { readonly link: string; readonly column: StoredColumn }[];
}

export type StoredLink = DirectLink | TableLink;

/** The hidden (non-property) column names a link needs in a table. */
const property = (p: Property): StoredColumn => ({ property: p });
const column = (name: string, holds: Property): StoredColumn => ({ column: name, holds });

/** The name of a stored column in its row (the property's, or the hidden column's). */
export const columnName = (c: StoredColumn): string => c.property?.name ?? (c.column as string);
/** The key property whose values a stored column holds. */
export const heldProperty = (c: StoredColumn): Property => c.property ?? (c.holds as Property);

function keyProperties(type: StructuredType): Property[] {
  return type.key.map((k) => type.properties.get(k) as Property);
}

/**
 * The columns that identify a row of `type` in its table: its key, after its container's stored
 * key when it is contained (TripPin's `Trip`: `Person_UserName`, `TripId`; a `PlanItem`:
 * `Trip_Person_UserName`, `Trip_TripId`, `PlanItemId`), so that a contained entity's key need only
 * be unique within its container. A type contained through several navigation properties, or
 * within itself, is identified by its own key.
 */
export function storedKey(type: StructuredType, storage: StorageMapping = NO_STORAGE, visiting: ReadonlySet<StructuredType> = new Set()): StoredColumn[] {
  const own = keyProperties(type).map(property);
  const container = containerOf(type);
  if (container === undefined || visiting.has(type)) return own;
  return [...containerColumns(container.type, container.navigation, storage, new Set([...visiting, type])), ...own];
}

/** The columns of a contained entity's table that hold its container's stored key (`Trip_Person_UserName`, `Trip_TripId`). */
function containerColumns(
  declaring: StructuredType,
  navigation: NavigationProperty,
  storage: StorageMapping,
  visiting: ReadonlySet<StructuredType>,
): StoredColumn[] {
  const own = override(storage, declaring, navigation);
  const names = own !== undefined && 'parentColumns' in own ? own.parentColumns : undefined;
  return storedKey(declaring, storage, visiting).map((c, i) => column(names?.[i] ?? `${declaring.name}_${columnName(c)}`, heldProperty(c)));
}

/** The link with the two sides exchanged. */
export function reverseLink(link: StoredLink): StoredLink {
  if (link.kind === 'direct') return { kind: 'direct', pairs: link.pairs.map(({ source, target }) => ({ source: target, target: source })) };
  return { kind: 'table', table: link.table, source: link.target, target: link.source };
}

function override(storage: StorageMapping, declaring: StructuredType, navigation: NavigationProperty): NavigationStorage | undefined {
  const byName = storage.navigation;
  if (byName === undefined) return undefined;
  const own = (key: string): NavigationStorage | undefined => (Object.hasOwn(byName, key) ? byName[key] : undefined);
  return own(`${declaring.qualifiedName}.${navigation.name}`) ?? own(`${declaring.name}.${navigation.name}`);
}

/** The partner of `navigation`, when it names one that exists and leads back. */
function partnerOf(navigation: NavigationProperty): NavigationProperty | undefined {
  if (navigation.partner === undefined) return undefined;
  const partner = navigation.target.navigation.get(navigation.partner);
  return partner !== undefined && partner.kind === 'navigation' ? partner : undefined;
}

/** `Type/navigation` of a navigation property: the order that picks the owner of a relationship stored once. */
const sortKey = (declaring: StructuredType, navigation: NavigationProperty): string => `${declaring.qualifiedName}/${navigation.name}`;

/**
 * How the rows of `navigation`, followed from a row of `from` (its declaring type or a derived
 * one), relate to its targets' rows: columns equal (`direct`), or through a link table. The
 * target's rows are those of the entity set the binder resolved (for contained targets, the
 * implicit set). `undefined` when the declaring type cannot be found (a hand-made property).
 *
 * @example
 * ```ts
 * navigationLink(person, person.navigation.get('Friends')!);
 * // { kind: 'table', table: 'Person_Friends', source: [{ link: 'Person_UserName', … }], target: [{ link: 'Friends_UserName', … }] }
 * ```
 */
export function navigationLink(from: StructuredType | undefined, navigation: NavigationProperty, storage: StorageMapping = NO_STORAGE): StoredLink | undefined {
  const declaring = declaringType(navigation, from);
  if (declaring === undefined) return undefined;
  // Kept per mapping object and property (compiling a statement asks for the same link often).
  let byNavigation = LINKS.get(storage);
  if (byNavigation === undefined) LINKS.set(storage, (byNavigation = new WeakMap()));
  const kept = byNavigation.get(navigation);
  if (kept !== undefined && kept.declaring === declaring) return kept.link;
  const link = linkOf(declaring, navigation, storage, 0);
  byNavigation.set(navigation, { declaring, link });
  return link;
}

/** Links by mapping and navigation property (a mapping's overrides are read once; it is not expected to change). */
const LINKS = new WeakMap<StorageMapping, WeakMap<NavigationProperty, { declaring: StructuredType; link: StoredLink | undefined }>>();

function linkOf(declaring: StructuredType, navigation: NavigationProperty, storage: StorageMapping, depth: number): StoredLink | undefined {
  const target = navigation.target;
  // 1. Referential constraints.
  if (navigation.constraints.length > 0) {
    const pairs = navigation.constraints.map((c) => {
      const local = declaring.properties.get(c.property);
      const remote = target.properties.get(c.referencedProperty);
      return local === undefined || remote === undefined ? undefined : { source: property(local), target: property(remote) };
    });
    if (pairs.every((p) => p !== undefined)) return { kind: 'direct', pairs };
  }
  const partner = partnerOf(navigation);
  // 2. The partner's constraints, reversed.
  if (partner !== undefined && partner.constraints.length > 0) {
    const pairs = partner.constraints.map((c) => {
      const local = declaring.properties.get(c.referencedProperty);
      const remote = target.properties.get(c.property);
      return local === undefined || remote === undefined ? undefined : { source: property(local), target: property(remote) };
    });
    if (pairs.every((p) => p !== undefined)) return { kind: 'direct', pairs };
  }
  const own = override(storage, declaring, navigation);
  const keys = storedKey(declaring, storage);
  const targetKeys = storedKey(target, storage);
  // 3. Containment: the targets' table holds the container's stored key.
  if (navigation.containsTarget === true) {
    const columns = containerColumns(declaring, navigation, storage, new Set());
    return { kind: 'direct', pairs: keys.map((k, i) => ({ source: k, target: columns[i] as StoredColumn })) };
  }
  const partnerDeclaring = partner === undefined ? undefined : (declaringType(partner, target) ?? target);
  // 4. The way back to the container.
  if (partner !== undefined && partner.containsTarget === true && partnerDeclaring !== undefined && depth === 0) {
    const back = linkOf(partnerDeclaring, partner, storage, depth + 1);
    return back === undefined ? undefined : reverseLink(back);
  }
  // 5. Overrides, then the owner's convention.
  if (own !== undefined && 'foreignKey' in own) {
    // A foreign key may be a property the model declares (SAP's `SalesOrder` of an item): then it is that property.
    const named = (name: string, holds: Property): StoredColumn => {
      const declared = declaring.properties.get(name);
      return declared === undefined ? column(name, holds) : property(declared);
    };
    return {
      kind: 'direct',
      pairs: targetKeys.map((k, i) => ({ source: named(own.foreignKey[i] ?? `${navigation.name}_${columnName(k)}`, heldProperty(k)), target: k })),
    };
  }
  if (own !== undefined && 'linkTable' in own) {
    return { kind: 'table', table: own.linkTable, ...linkColumns(declaring, navigation, keys, targetKeys, own.sourceColumns, own.targetColumns) };
  }
  const partnerOwns =
    partner !== undefined &&
    partnerDeclaring !== undefined &&
    depth === 0 &&
    // The partner has an override of its own, or owns by the conventions.
    (override(storage, partnerDeclaring, partner) !== undefined ||
      (navigation.collection && !partner.collection) ||
      (navigation.collection === partner.collection && sortKey(partnerDeclaring, partner) < sortKey(declaring, navigation)));
  if (partnerOwns) {
    const back = linkOf(partnerDeclaring, partner, storage, depth + 1);
    return back === undefined ? undefined : reverseLink(back);
  }
  if (!navigation.collection) {
    return { kind: 'direct', pairs: targetKeys.map((k) => ({ source: column(`${navigation.name}_${columnName(k)}`, heldProperty(k)), target: k })) };
  }
  return { kind: 'table', table: `${declaring.name}_${navigation.name}`, ...linkColumns(declaring, navigation, keys, targetKeys) };
}

/**
 * A link table's columns: the owner's key as `Type_key`, the targets' as `navigation_key` (or as
 * the mapping names them). A navigation property named as its own type (`Node/Node`, or
 * `Part/part`: MySQL/MariaDB column names ignore case, and snake_case naming lowers it) would give
 * both sides the same names: the targets' are then `navigation_target_key`.
 */
function linkColumns(
  declaring: StructuredType,
  navigation: NavigationProperty,
  keys: readonly StoredColumn[],
  targetKeys: readonly StoredColumn[],
  sourceNames: readonly string[] = [],
  targetNames: readonly string[] = [],
): Pick<Extract<StoredLink, { kind: 'table' }>, 'source' | 'target'> {
  const source = keys.map((k, i) => ({ link: sourceNames[i] ?? `${declaring.name}_${columnName(k)}`, column: k }));
  const taken = new Set(source.map((s) => s.link.toLowerCase()));
  const target = targetKeys.map((k, i) => {
    const named = targetNames[i];
    if (named !== undefined) return { link: named, column: k };
    const plain = `${navigation.name}_${columnName(k)}`;
    return { link: taken.has(plain.toLowerCase()) ? `${navigation.name}_target_${columnName(k)}` : plain, column: k };
  });
  return { source, target };
}
