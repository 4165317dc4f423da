/**
 * The storage mapping: how the model's relationships are stored where the CSDL does not say. Every
 * backend (memory, SQL, MongoDB) follows the same mapping, so one set of rows gives one answer.
 *
 * The conventions, for a navigation property `N` declared by type `S` with target type `T`:
 * 1. `N` has referential constraints: its properties (nothing hidden).
 * 2. Its partner has them: the partner's, reversed.
 * 3. `N` contains its targets (`ContainsTarget`): they are rows of their own table (the implicit
 *    set `S_N`, see `containedSet`), each with the stored key of its container in columns
 *    `S_{column}` (TripPin: `Person_Trips.Person_UserName`; `Trip_PlanItems.Trip_Person_UserName`
 *    and `Trip_TripId`: a contained entity's stored key is its container's, then its own; see `storedKey`).
 * 4. Its partner contains: the way back to the container, the partner's link reversed.
 * 5. Otherwise a relationship without constraints, stored by one of its two sides (the *owner*):
 *    - single-valued `N` (with no partner, or a collection partner): a foreign key in `S`'s table,
 *      one column per key property of `T`, named `N_{key}` (TripPin: `Airline_AirlineCode`);
 *    - a collection `N` whose partner is single-valued: the partner's foreign key, reversed;
 *    - a collection `N` without a partner, or with a collection partner (many-to-many): a link
 *      table `S_N` with columns `S_{key}` (the source) and `N_{key}` (the target);
 *    - when both sides are single-valued, or both are collections, the side whose
 *      `Type/navigation` sorts first is the owner, and the other side reverses its link.
 *
 * An open entity type's dynamic properties are stored in one JSON column (MongoDB: an embedded
 * document) per table, `DynamicProperties` unless `dynamicProperties` names another.
 *
 * Every generated name can be overridden per navigation property ({@link NavigationStorage}). Names
 * are logical: the SQL backend applies its naming (`snake_case`) to them like to property names,
 * and MongoDB uses them as field and collection names.
 */

/** How one navigation property is stored (an override of the conventions). */
export type NavigationStorage =
  /**
   * A foreign key in the source's table: one column per key property of the target, in key order.
   * A name of a property the source type declares is that property (a relationship the CSDL
   * leaves without a referential constraint, such as SAP's `SalesOrderItem/SalesOrder`).
   */
  | { readonly foreignKey: readonly string[] }
  /** A link table: its name, the columns that hold the source's key and the target's key (in key order). */
  | { readonly linkTable: string; readonly sourceColumns: readonly string[]; readonly targetColumns: readonly string[] }
  /**
   * Contained targets: the columns of their table that hold the container's key (in key order).
   * The table is named after the implicit set (`Person_Trips`); each backend's mapping can rename
   * it like any entity set's.
   */
  | { readonly parentColumns: readonly string[] };

/** The storage overrides shared by every backend's mapping (`SqlMapping`, `MongoMapping`, the memory backend's options). */
export interface StorageMapping {
  /**
   * Per navigation property, keyed `Type.navigation` (the simple or qualified name of the type
   * that declares it): where its relationship is stored, when not where the conventions put it.
   */
  readonly navigation?: Readonly<Record<string, NavigationStorage>>;
  /**
   * Per open entity type, keyed by its simple or qualified name: the JSON column (MongoDB: the
   * embedded document) that holds its instances' dynamic properties, when not
   * `DynamicProperties` (storage/dynamic-properties.ts). A derived type stores them where its
   * set's type does.
   */
  readonly dynamicProperties?: Readonly<Record<string, string>>;
}

/** The mapping of calls that pass none. */
export const NO_STORAGE: StorageMapping = Object.freeze({});
