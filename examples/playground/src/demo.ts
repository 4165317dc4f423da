/**
 * The playground's standalone model (the Asset Management Service's resources) and deterministic
 * demo rows for any model, so the in-memory backend has something to run on without a server.
 */
import { defineModel, type Model, type Property, type Row } from 'odata-engine';

/** Used when the page is not served by the example server (no `/$metadata`). */
export const standaloneModel: Model = defineModel({
  namespace: 'AssetManagement',
  enumTypes: { AssetStatus: ['active', 'maintenance', 'retired'], TicketPriority: { members: { low: 1, normal: 2, high: 3, critical: 4 } } },
  entityTypes: {
    Locality: { key: ['id'], properties: { id: 'Edm.Guid', name: 'Edm.String' }, navigation: { assets: { type: 'Collection(Asset)', partner: 'locality' } } },
    Asset: {
      key: ['id'],
      properties: {
        id: 'Edm.Guid',
        code: 'Edm.String',
        name: 'Edm.String',
        localityId: 'Edm.Guid',
        status: 'AssetStatus',
        purchasePrice: 'Edm.Double',
        createdAt: 'Edm.DateTimeOffset',
      },
      navigation: {
        locality: { type: 'Locality', constraints: { localityId: 'id' }, partner: 'assets' },
        tickets: { type: 'Collection(MaintenanceTicket)', partner: 'asset' },
      },
    },
    MaintenanceTicket: {
      key: ['id'],
      properties: {
        id: 'Edm.Guid',
        code: 'Edm.String',
        name: 'Edm.String',
        assetId: 'Edm.Guid',
        priority: 'TicketPriority',
        estimatedHours: 'Edm.Int32',
        openedAt: 'Edm.DateTimeOffset',
      },
      navigation: { asset: { type: 'Asset', constraints: { assetId: 'id' }, partner: 'tickets' } },
    },
    Inspection: {
      key: ['id'],
      properties: { id: 'Edm.Guid', name: 'Edm.String', findings: 'Edm.String', score: 'Edm.Int32', inspectedAt: 'Edm.DateTimeOffset' },
    },
  },
  entitySets: {
    assets: { type: 'Asset', maxTop: 1000 },
    localities: { type: 'Locality' },
    'maintenance-tickets': { type: 'MaintenanceTicket' },
    inspections: { type: 'Inspection', searchable: true },
  },
});

const WORDS = ['Pump', 'Valve', 'Boiler', 'Chiller', 'Fan', 'Compressor', 'Elevator', 'Generator', 'Heater', 'Conveyor'];
const PLACES = ['Oslo', 'Bergen', 'Trondheim', 'Stavanger', 'Tromsø'];

/** A small deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function guid(set: number, i: number): string {
  return `${String(set).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

/**
 * Rows for every entity set of `model`: 40 per set (10 for sets named like localities), keys as
 * GUIDs or integers, foreign keys pointing at rows of the related set, readable names.
 */
export function demoData(model: Model): Record<string, Row[]> {
  const sets = [...model.entitySets.values()];
  const counts = new Map(sets.map((s) => [s.name, /localit/i.test(s.name) ? PLACES.length : 40]));
  const keyOf = (setIndex: number, i: number, property: Property | undefined): unknown =>
    property?.type.kind === 'primitive' && property.type.name === 'Edm.Guid' ? guid(setIndex + 1, i + 1) : i + 1;
  const data: Record<string, Row[]> = {};
  sets.forEach((set, setIndex) => {
    const next = random(setIndex + 7);
    const rows: Row[] = [];
    const count = counts.get(set.name) ?? 40;
    // Foreign key property → the set it points at (through a navigation's constraints).
    const foreign = new Map<string, { index: number; count: number; key: Property | undefined }>();
    for (const navigation of set.type.navigation.values()) {
      for (const c of navigation.constraints) {
        const targetIndex = sets.findIndex((s) => s.type === navigation.target);
        if (targetIndex >= 0)
          foreign.set(c.property, {
            index: targetIndex,
            count: counts.get(sets[targetIndex]!.name) ?? 40,
            key: navigation.target.properties.get(c.referencedProperty),
          });
      }
    }
    for (let i = 0; i < count; i++) {
      const row: Record<string, unknown> = {};
      for (const property of set.type.properties.values()) {
        const type = property.type;
        if (set.type.key.includes(property.name)) row[property.name] = keyOf(setIndex, i, property);
        else if (foreign.has(property.name)) {
          const target = foreign.get(property.name)!;
          row[property.name] = next() < 0.1 ? null : keyOf(target.index, Math.floor(next() * target.count), target.key);
        } else if (property.collection) row[property.name] = [];
        else if (type.kind === 'enum') row[property.name] = [...type.type.members.keys()][Math.floor(next() * type.type.members.size)] ?? null;
        else if (type.kind !== 'primitive') row[property.name] = null;
        else if (type.name === 'Edm.String')
          row[property.name] = /name/i.test(property.name)
            ? /localit/i.test(set.name)
              ? PLACES[i % PLACES.length]
              : `${WORDS[i % WORDS.length]} ${i + 1}`
            : /code/i.test(property.name)
              ? `${set.name.slice(0, 1).toUpperCase()}-${String(i + 1).padStart(4, '0')}`
              : next() < 0.2
                ? null
                : `note ${i + 1}`;
        else if (type.name === 'Edm.Int32' || type.name === 'Edm.Int16' || type.name === 'Edm.Byte')
          row[property.name] = next() < 0.1 ? null : Math.floor(next() * 100);
        else if (type.name === 'Edm.Double' || type.name === 'Edm.Decimal') row[property.name] = Math.round(next() * 1000000) / 100;
        else if (type.name === 'Edm.Boolean') row[property.name] = next() < 0.5;
        else if (type.name === 'Edm.DateTimeOffset')
          row[property.name] = new Date(Date.UTC(2024, 0, 1) + Math.floor(next() * 365 * 86400) * 1000).toISOString().replace('.000Z', 'Z');
        else if (type.name === 'Edm.Date') row[property.name] = new Date(Date.UTC(2024, 0, 1) + Math.floor(next() * 365) * 86400000).toISOString().slice(0, 10);
        else if (type.name === 'Edm.Guid') row[property.name] = guid(99, i + 1);
        else row[property.name] = null;
      }
      rows.push(row);
    }
    data[set.name] = rows;
  });
  return data;
}
