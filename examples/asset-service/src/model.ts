/**
 * The Asset Management Service's data model, as a CSDL JSON document (served at `/$metadata`)
 * and as the library's {@link Model} built from that same document, plus how each entity set
 * is exposed over HTTP and stored in SQL.
 *
 * The tenant is deliberately not part of the model: clients can neither see nor filter it.
 * Relationships go both ways: a locality's `assets`, an asset's `locality`, `maintenanceTickets`
 * and `inspections`, each ticket's and inspection's `asset` (partners of each other); the
 * collection sides have no foreign key of their own, so they join through their partner's constraint.
 */
import { modelFromCsdl, type Model } from 'odata-engine';

const CAPABILITIES = 'Org.OData.Capabilities.V1';

/** The key: a client-generated UUID. */
const key = { id: { $Type: 'Edm.Guid' } } as const;

/** The two server-managed timestamps every record has. */
const timestamps = {
  createdAt: { $Type: 'Edm.DateTimeOffset', $Precision: 3 },
  updatedAt: { $Type: 'Edm.DateTimeOffset', $Precision: 3 },
} as const;

const notSearchable = { [`@${CAPABILITIES}.SearchRestrictions`]: { Searchable: false } };

/** The assets' own `$top` maximum, lower than the host's: in the metadata (`ODataEngine.V1.MaxTop`) and in {@link resources}. */
const ASSETS_MAX_TOP = 1000;

/** The CSDL JSON (4.01) document of the service. */
export const csdl = {
  $Version: '4.01',
  $EntityContainer: 'AssetManagement.Service',
  $Reference: {
    'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json': {
      $Include: [{ $Namespace: CAPABILITIES, $Alias: 'Capabilities' }],
    },
  },
  AssetManagement: {
    AssetStatus: { $Kind: 'EnumType', active: 0, inMaintenance: 1, outOfService: 2, retired: 3 },
    AssetCategory: { $Kind: 'EnumType', pump: 0, generator: 1, vehicle: 2, hvac: 3, conveyor: 4, compressor: 5 },
    TicketStatus: { $Kind: 'EnumType', open: 0, inProgress: 1, resolved: 2, closed: 3 },
    TicketPriority: { $Kind: 'EnumType', low: 0, medium: 1, high: 2, critical: 3 },
    InspectionResult: { $Kind: 'EnumType', passed: 0, passedWithRemarks: 1, failed: 2 },
    Locality: {
      $Kind: 'EntityType',
      $Key: ['id'],
      ...key,
      name: { $Type: 'Edm.String', $MaxLength: 200 },
      country: { $Type: 'Edm.String', $Nullable: true, $MaxLength: 2 },
      ...timestamps,
      assets: { $Kind: 'NavigationProperty', $Collection: true, $Type: 'AssetManagement.Asset', $Partner: 'locality' },
    },
    Asset: {
      $Kind: 'EntityType',
      $Key: ['id'],
      ...key,
      code: { $Type: 'Edm.String', $MaxLength: 50 },
      name: { $Type: 'Edm.String', $MaxLength: 200 },
      localityId: { $Type: 'Edm.Guid' },
      status: { $Type: 'AssetManagement.AssetStatus' },
      category: { $Type: 'AssetManagement.AssetCategory' },
      serialNumber: { $Type: 'Edm.String', $Nullable: true, $MaxLength: 100 },
      commissionedAt: { $Type: 'Edm.DateTimeOffset', $Nullable: true, $Precision: 3 },
      ...timestamps,
      locality: { $Kind: 'NavigationProperty', $Type: 'AssetManagement.Locality', $Partner: 'assets', $ReferentialConstraint: { localityId: 'id' } },
      maintenanceTickets: { $Kind: 'NavigationProperty', $Collection: true, $Type: 'AssetManagement.MaintenanceTicket', $Partner: 'asset' },
      inspections: { $Kind: 'NavigationProperty', $Collection: true, $Type: 'AssetManagement.Inspection', $Partner: 'asset' },
    },
    MaintenanceTicket: {
      $Kind: 'EntityType',
      $Key: ['id'],
      ...key,
      code: { $Type: 'Edm.String', $MaxLength: 50 },
      name: { $Type: 'Edm.String', $MaxLength: 200 },
      assetId: { $Type: 'Edm.Guid' },
      status: { $Type: 'AssetManagement.TicketStatus' },
      priority: { $Type: 'AssetManagement.TicketPriority' },
      description: { $Type: 'Edm.String', $Nullable: true, $MaxLength: 4000 },
      dueAt: { $Type: 'Edm.DateTimeOffset', $Nullable: true, $Precision: 3 },
      ...timestamps,
      asset: { $Kind: 'NavigationProperty', $Type: 'AssetManagement.Asset', $Partner: 'maintenanceTickets', $ReferentialConstraint: { assetId: 'id' } },
    },
    Inspection: {
      $Kind: 'EntityType',
      $Key: ['id'],
      ...key,
      name: { $Type: 'Edm.String', $MaxLength: 200 },
      assetId: { $Type: 'Edm.Guid' },
      result: { $Type: 'AssetManagement.InspectionResult' },
      inspector: { $Type: 'Edm.String', $MaxLength: 200 },
      notes: { $Type: 'Edm.String', $Nullable: true, $MaxLength: 4000 },
      inspectedAt: { $Type: 'Edm.DateTimeOffset', $Precision: 3 },
      ...timestamps,
      asset: { $Kind: 'NavigationProperty', $Type: 'AssetManagement.Asset', $Partner: 'inspections', $ReferentialConstraint: { assetId: 'id' } },
    },
    Service: {
      $Kind: 'EntityContainer',
      localities: { $Collection: true, $Type: 'AssetManagement.Locality', $NavigationPropertyBinding: { assets: 'assets' }, ...notSearchable },
      assets: {
        $Collection: true,
        $Type: 'AssetManagement.Asset',
        $NavigationPropertyBinding: { locality: 'localities', maintenanceTickets: 'maintenanceTickets', inspections: 'inspections' },
        ...notSearchable,
        // This project's vocabulary term: clients (and `odata-engine check`) see the set's $top maximum.
        '@ODataEngine.V1.MaxTop': ASSETS_MAX_TOP,
      },
      maintenanceTickets: {
        $Collection: true,
        $Type: 'AssetManagement.MaintenanceTicket',
        $NavigationPropertyBinding: { asset: 'assets' },
        ...notSearchable,
        // Which URL is which: the seed's path and the set's name serve the same collection.
        '@Org.OData.Core.V1.Description': "Served at /maintenance-tickets (the service's own path) and at /maintenanceTickets (this set's name)",
      },
      inspections: {
        $Collection: true,
        $Type: 'AssetManagement.Inspection',
        $NavigationPropertyBinding: { asset: 'assets' },
        [`@${CAPABILITIES}.SearchRestrictions`]: { Searchable: true },
      },
    },
  },
} as const;

/** The library model built from {@link csdl}. */
export const model: Model = modelFromCsdl(csdl);

/** How one entity set is served and stored. */
export interface Resource {
  /** The URL segment: `/maintenance-tickets`. */
  readonly path: string;
  /** The entity set name in the model. */
  readonly entitySet: string;
  /** The SQL table. */
  readonly table: string;
  /** A lower `$top` maximum than the host-wide one, for this operation. */
  readonly maxTop?: number;
  /** Human name in error messages. */
  readonly label: string;
}

/** The four collections, in dependency order (a table's foreign keys point to earlier ones). Assets have a lower `$top` maximum (1000) than the host (10 000). */
export const resources: readonly Resource[] = [
  { path: 'localities', entitySet: 'localities', table: 'localities', label: 'Locality' },
  { path: 'assets', entitySet: 'assets', table: 'assets', maxTop: ASSETS_MAX_TOP, label: 'Asset' },
  { path: 'maintenance-tickets', entitySet: 'maintenanceTickets', table: 'maintenance_tickets', label: 'MaintenanceTicket' },
  { path: 'inspections', entitySet: 'inspections', table: 'inspections', label: 'Inspection' },
];

/** Table per entity set, for `toSql`. */
export const tables: Readonly<Record<string, string>> = Object.fromEntries(resources.map((r) => [r.entitySet, r.table]));

/** Properties the server sets itself; clients may send them (a GET body round-trips) but they are ignored. */
export const SERVER_MANAGED: ReadonlySet<string> = new Set(['createdAt', 'updatedAt']);

/** The host-wide maximum `$top`. */
export const HOST_MAX_TOP = 10_000;
