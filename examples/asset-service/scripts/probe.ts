import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '/work/wt-svcdb/examples/asset-service/src/config.js';
import { startService } from '/work/wt-svcdb/examples/asset-service/src/server.js';
const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'probe-')), PORT: '0', LOG_LEVEL: 'warn', STATEMENT_TIMEOUT_MS: '60000', ...(process.env.PGURL ? { DATABASE_URL: process.env.PGURL, DATABASE_SCHEMA: 'probe' } : {}) });
const s = await startService(config);
const tickets = Number(process.env.TICKETS ?? 0);
if (tickets > 0) {
  const t0 = performance.now();
  await s.db.query(`INSERT INTO maintenance_tickets (tenant_id, id, code, name, asset_id, status, priority, description, due_at, created_at, updated_at)
    SELECT tenant_id, gen_random_uuid(), code || '-' || g, name, asset_id, status, priority, repeat('abcdefghij', 400), due_at, created_at, updated_at
    FROM maintenance_tickets, generate_series(1, ${tickets}) g WHERE tenant_id = $1`, [config.demo.tenantId]);
  console.log('seeded tickets', Math.round(performance.now() - t0), 'ms');
}
const bulk = Number(process.env.BULK ?? 0);
if (bulk > 0) {
  const t0 = performance.now();
  await s.db.query(`INSERT INTO assets (tenant_id, id, code, name, locality_id, status, category, serial_number, commissioned_at, created_at, updated_at)
    SELECT tenant_id, gen_random_uuid(), code || '-' || g, name || ' ' || g, locality_id, status, category, serial_number, commissioned_at, created_at, updated_at
    FROM assets, generate_series(1, ${bulk}) g WHERE tenant_id = $1`, [config.demo.tenantId]);
  console.log('seeded', Math.round(performance.now() - t0), 'ms');
}
const t = await (await fetch(`${s.url}/directory/connect/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: config.demo.clientId, client_secret: config.demo.clientSecret }) })).json() as any;
const h = { authorization: `Bearer ${t.access_token}`, 'service-tenant-id': config.demo.tenantId };
for (const q of process.argv.slice(2)) {
  const t0 = performance.now();
  const r = await fetch(`${s.url}${q}`, { headers: h });
  const body = await r.text();
  console.log(r.status, Math.round(performance.now() - t0), 'ms', q.length, body.slice(0, 200));
}
await s.close();
