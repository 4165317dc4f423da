/**
 * Provisioning (tenants, clients and their access) and the demo data: a few hundred realistic
 * localities, assets, maintenance tickets and inspections, generated from a fixed seed so every
 * fresh demo database holds the same records.
 */
import { hashSecret } from './auth.js';
import type { Database, Queryable } from './db.js';

/** Creates a tenant unless it exists. */
export async function ensureTenant(db: Queryable, tenantId: string, name: string): Promise<void> {
  await db.query('INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [tenantId, name]);
}

/** A client to create or update. */
export interface ClientSpec {
  readonly clientId: string;
  readonly secret: string;
  readonly name: string;
  readonly canWrite: boolean;
  /** Tenants the client may use (added to those it already has). */
  readonly tenants: readonly string[];
}

/** Creates or updates a client (secret stored as a scrypt hash) and grants it its tenants. */
export async function ensureClient(db: Database, spec: ClientSpec): Promise<void> {
  const hash = await hashSecret(spec.secret);
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO clients (client_id, name, secret_hash, can_write) VALUES ($1, $2, $3, $4)
       ON CONFLICT (client_id) DO UPDATE SET name = EXCLUDED.name, secret_hash = EXCLUDED.secret_hash, can_write = EXCLUDED.can_write`,
      [spec.clientId, spec.name, hash, spec.canWrite],
    );
    for (const tenantId of spec.tenants) {
      await tx.query('INSERT INTO client_tenants (client_id, tenant_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [spec.clientId, tenantId]);
    }
  });
}

/** A small deterministic generator (mulberry32), so the demo data is the same on every machine. */
function generator(seed: number): { next(): number; int(max: number): number; pick<T>(items: readonly T[]): T; uuid(): string } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number): number => Math.floor(next() * max);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)] as T,
    uuid: () => {
      const hex = Array.from({ length: 32 }, () => int(16).toString(16));
      hex[12] = '4';
      hex[16] = (8 + int(4)).toString(16);
      const s = hex.join('');
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    },
  };
}

const LOCALITIES: readonly [string, string][] = [
  ['Oslo Harbour Depot', 'NO'],
  ['Bergen Pumping Station', 'NO'],
  ['Trondheim Service Centre', 'NO'],
  ['Stavanger Compressor Plant', 'NO'],
  ['Gothenburg Logistics Hub', 'SE'],
  ['Stockholm North Substation', 'SE'],
  ['Copenhagen Water Works', 'DK'],
  ['Aarhus Distribution Centre', 'DK'],
  ['Helsinki East Depot', 'FI'],
  ['Tampere Plant 2', 'FI'],
  ['Hamburg Port Terminal', 'DE'],
  ['Rotterdam Warehouse 7', 'NL'],
];

const CATEGORIES = [
  { category: 'pump', prefix: 'PMP', names: ['Centrifugal Pump', 'Booster Pump', 'Submersible Pump', 'Dosing Pump'] },
  { category: 'generator', prefix: 'GEN', names: ['Diesel Generator', 'Standby Generator', 'Gas Turbine Generator'] },
  { category: 'vehicle', prefix: 'VEH', names: ['Forklift', 'Service Van', 'Reach Truck', 'Utility Truck'] },
  { category: 'hvac', prefix: 'HVA', names: ['Air Handling Unit', 'Rooftop Chiller', 'Heat Pump', 'Cooling Tower'] },
  { category: 'conveyor', prefix: 'CNV', names: ['Belt Conveyor', 'Roller Conveyor', 'Screw Conveyor'] },
  { category: 'compressor', prefix: 'CMP', names: ['Screw Compressor', 'Piston Compressor', 'Air Dryer Skid'] },
] as const;

const TICKET_TOPICS = [
  'Bearing noise',
  'Oil leak at seal',
  'Vibration above threshold',
  'Filter replacement',
  'Annual service',
  'Overheating alarm',
  'Belt alignment',
  'Battery check',
  'Pressure drop',
  'Firmware update',
  'Corrosion on housing',
  'Calibration due',
];

const INSPECTORS = ['Ingrid Solberg', 'Lars Nilsen', 'Maja Lindqvist', 'Jonas Berg', 'Aino Virtanen', 'Pieter de Vries', 'Freja Holm'];
const INSPECTION_KINDS = [
  'Safety inspection',
  'Pressure vessel inspection',
  'Electrical inspection',
  'Quarterly walkdown',
  'Lifting equipment check',
  'Emissions check',
];
const NOTES = [
  'All guards in place; no findings.',
  'Minor corrosion on bolts, scheduled for treatment.',
  'Emergency stop tested and working.',
  'Hydraulic hose shows wear; replace within 30 days.',
  'Lubrication log incomplete.',
  'Noise level within limits.',
  null,
];

/** How many demo records {@link seedDemoData} writes. */
export const DEMO_COUNTS = { localities: LOCALITIES.length, assets: 240, maintenanceTickets: 160, inspections: 130 } as const;

type Value = string | null;

async function insertAll(tx: Queryable, table: string, columns: readonly string[], rows: readonly Value[][]): Promise<void> {
  const chunk = 100;
  for (let start = 0; start < rows.length; start += chunk) {
    const part = rows.slice(start, start + chunk);
    const params: Value[] = [];
    const tuples = part.map((row) => `(${row.map((value) => (params.push(value), `$${params.length}`)).join(', ')})`);
    await tx.query(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`, params);
  }
}

/**
 * Writes the demo records into a tenant that has no localities yet (so restarts do not add
 * more). Returns whether it wrote anything.
 */
export async function seedDemoData(db: Database, tenantId: string, now = new Date()): Promise<boolean> {
  return db.withTenant(tenantId, 'write', async (tx) => {
    const existing = await tx.query('SELECT 1 FROM localities LIMIT 1');
    if (existing.length > 0) return false;
    const random = generator(20240501);
    const day = 86_400_000;
    const at = (daysAgo: number): string => new Date(now.getTime() - daysAgo * day - random.int(day)).toISOString();
    const localities = LOCALITIES.map(([name, country]) => {
      const created = at(900 + random.int(200));
      return [tenantId, random.uuid(), name, country, created, created];
    });
    await insertAll(tx, 'localities', ['tenant_id', 'id', 'name', 'country', 'created_at', 'updated_at'], localities);

    const statuses = ['active', 'active', 'active', 'active', 'inMaintenance', 'outOfService', 'retired'];
    const perPrefix = new Map<string, number>();
    const assets = Array.from({ length: DEMO_COUNTS.assets }, () => {
      const kind = random.pick(CATEGORIES);
      const number = (perPrefix.get(kind.prefix) ?? 0) + 1;
      perPrefix.set(kind.prefix, number);
      const locality = random.pick(localities);
      const created = at(30 + random.int(800));
      const commissioned = random.next() < 0.9 ? new Date(Math.min(now.getTime(), Date.parse(created) + random.int(20) * day)).toISOString() : null;
      const serial = random.next() < 0.85 ? `SN-${(100000 + random.int(900000)).toString()}` : null;
      const updated = new Date(Math.min(now.getTime(), Date.parse(created) + random.int(200) * day)).toISOString();
      const name = `${random.pick(kind.names)} ${String.fromCharCode(65 + random.int(8))}${1 + random.int(20)}`;
      return [
        tenantId,
        random.uuid(),
        `${kind.prefix}-${String(number).padStart(4, '0')}`,
        name,
        locality[1] as string,
        random.pick(statuses),
        kind.category,
        serial,
        commissioned,
        created,
        updated,
      ];
    });
    await insertAll(
      tx,
      'assets',
      ['tenant_id', 'id', 'code', 'name', 'locality_id', 'status', 'category', 'serial_number', 'commissioned_at', 'created_at', 'updated_at'],
      assets,
    );

    const tickets = Array.from({ length: DEMO_COUNTS.maintenanceTickets }, (_, index) => {
      const asset = random.pick(assets);
      const created = at(random.int(365));
      const status = random.pick(['open', 'open', 'inProgress', 'resolved', 'closed', 'closed']);
      const priority = random.pick(['low', 'medium', 'medium', 'high', 'critical']);
      const topic = random.pick(TICKET_TOPICS);
      const due = random.next() < 0.8 ? new Date(Date.parse(created) + (3 + random.int(40)) * day).toISOString() : null;
      const description = random.next() < 0.7 ? `${topic} reported on ${asset[3] as string} (${asset[2] as string}).` : null;
      return [
        tenantId,
        random.uuid(),
        `MT-${String(1001 + index)}`,
        `${topic}: ${asset[2] as string}`,
        asset[1] as string,
        status,
        priority,
        description,
        due,
        created,
        created,
      ];
    });
    await insertAll(
      tx,
      'maintenance_tickets',
      ['tenant_id', 'id', 'code', 'name', 'asset_id', 'status', 'priority', 'description', 'due_at', 'created_at', 'updated_at'],
      tickets,
    );

    const inspections = Array.from({ length: DEMO_COUNTS.inspections }, () => {
      const asset = random.pick(assets);
      const inspected = at(random.int(540));
      const result = random.pick(['passed', 'passed', 'passed', 'passedWithRemarks', 'failed']);
      return [
        tenantId,
        random.uuid(),
        `${random.pick(INSPECTION_KINDS)} – ${asset[2] as string}`,
        asset[1] as string,
        result,
        random.pick(INSPECTORS),
        random.pick(NOTES),
        inspected,
        inspected,
        inspected,
      ];
    });
    await insertAll(
      tx,
      'inspections',
      ['tenant_id', 'id', 'name', 'asset_id', 'result', 'inspector', 'notes', 'inspected_at', 'created_at', 'updated_at'],
      inspections,
    );
    return true;
  });
}
