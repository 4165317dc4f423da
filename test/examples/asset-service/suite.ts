/**
 * The black-box suite of the Asset Management Service, over real HTTP, run once per database
 * (PGlite always, live PostgreSQL when ODATA_TEST_POSTGRES_URL is set).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFromCsdl, modelFromCsdlXml } from 'odata-engine';
import { signJwt } from '../../../examples/asset-service/src/auth.js';
import { DEMO_COUNTS } from '../../../examples/asset-service/src/seed.js';
import { CLIENT_B, newId, rawRequest, startHarness, TENANT_B, type Harness } from './harness.js';

type Json = Record<string, unknown>;
type Asset = {
  id: string;
  code: string;
  name: string;
  localityId: string;
  status: string;
  category: string;
  serialNumber: string | null;
  commissionedAt: string | null;
  createdAt: string;
  updatedAt: string;
};
type Inspection = { id: string; name: string; inspector: string; notes: string | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function json(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

/** Percent-encodes an OData option value as a browser would (spaces, quotes), keeping `$`, `/`, `,`. */
function q(options: Record<string, string>): string {
  return `?${Object.entries(options)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&')}`;
}

/** Registers every rule of the issue as tests against one started service. */
export function serviceSuite(label: string, postgresUrl?: string): void {
  describe(`asset service on ${label}`, () => {
    let h: Harness;
    let assets: Asset[];

    beforeAll(async () => {
      h = await startHarness(postgresUrl);
      const response = await h.api(`/assets${q({ $top: '1000' })}`);
      assets = (await json(response)).value as Asset[];
    }, 120_000);
    afterAll(async () => {
      await h?.close();
    }, 60_000);

    describe('token endpoint', () => {
      it('issues a Bearer token for the client credentials grant (form-encoded)', async () => {
        const response = await h.fetch('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: `grant_type=client_credentials&client_id=${h.config.demo.clientId}&client_secret=${encodeURIComponent(h.config.demo.clientSecret)}`,
        });
        expect(response.status).toBe(200);
        const body = await json(response);
        expect(body.token_type).toBe('Bearer');
        expect(body.expires_in).toBe(3600);
        expect(String(body.access_token).split('.')).toHaveLength(3);
      });

      it('accepts the credentials through HTTP Basic authentication too', async () => {
        const basic = Buffer.from(`${h.config.demo.readOnlyClientId}:${h.config.demo.readOnlyClientSecret}`).toString('base64');
        const response = await h.fetch('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
          body: 'grant_type=client_credentials',
        });
        expect(response.status).toBe(200);
      });

      it.each([
        ['a wrong secret', (c: { clientId: string }) => `grant_type=client_credentials&client_id=${c.clientId}&client_secret=wrong`],
        ['an unknown client id', () => 'grant_type=client_credentials&client_id=nobody&client_secret=whatever'],
        ['no secret', (c: { clientId: string }) => `grant_type=client_credentials&client_id=${c.clientId}`],
      ])('answers %s with 400 invalid_client in OAuth form, not the API envelope', async (_name, body) => {
        const response = await h.fetch('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: body(h.config.demo),
        });
        expect(response.status).toBe(400);
        const error = await json(response);
        expect(error.error).toBe('invalid_client');
        expect(typeof error.error_description).toBe('string');
        expect(error).not.toHaveProperty('data');
        expect(error).not.toHaveProperty('traceId');
      });

      it('malformed HTTP Basic credentials and a client id with NUL are 400 OAuth errors, not 500s', async () => {
        const basic = await h.fetch('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('%zz:x').toString('base64')}` },
          body: 'grant_type=client_credentials',
        });
        expect(basic.status).toBe(400);
        expect((await json(basic)).error).toBe('invalid_request');
        const nul = await h.fetch('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=${h.config.demo.clientId}%00&client_secret=x`,
        });
        expect(nul.status).toBe(400);
        const body = await json(nul);
        expect(body.error).toBe('invalid_client');
        expect(body).not.toHaveProperty('traceId');
      });

      it('refuses other grant types', async () => {
        const response = await h.fetch('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=password&client_id=${h.config.demo.clientId}&client_secret=x`,
        });
        expect(response.status).toBe(400);
        expect((await json(response)).error).toBe('unsupported_grant_type');
      });

      it('stores secrets as scrypt hashes, never in clear', async () => {
        const rows = await h.service.db.query('SELECT client_id, secret_hash FROM clients');
        expect(rows.length).toBeGreaterThanOrEqual(3);
        for (const row of rows) {
          expect(String(row.secret_hash)).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
          expect(String(row.secret_hash)).not.toContain(h.config.demo.clientSecret);
        }
      });
    });

    describe('authentication (401)', () => {
      const get = (authorization?: string) =>
        h.fetch('/assets', {
          headers: { accept: 'application/json', 'service-tenant-id': h.config.demo.tenantId, ...(authorization === undefined ? {} : { authorization }) },
        });

      it('refuses a request without a token with 401 and no body', async () => {
        const response = await get();
        expect(response.status).toBe(401);
        expect(await response.text()).toBe('');
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
      });

      it('refuses garbage, a forged signature and an expired token with 401', async () => {
        const good = await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
        const [header, payload] = good.split('.');
        const now = Math.floor(Date.now() / 1000);
        const expired = signJwt(
          { iss: 'asset-service', sub: h.config.demo.clientId, scope: 'assets.read', iat: now - 7200, exp: now - 60, jti: 'x' },
          h.config.tokenSigningKey,
        );
        const forged = signJwt({ iss: 'asset-service', sub: h.config.demo.clientId, scope: 'assets.read', iat: now, exp: now + 600, jti: 'x' }, 'not-the-key');
        for (const authorization of [
          'Bearer nonsense',
          `Bearer ${header}.${payload}.AAAA`,
          `Bearer ${expired}`,
          `Bearer ${forged}`,
          `Basic ${good}`,
          'Bearer ',
        ]) {
          const response = await get(authorization);
          expect(response.status, authorization.slice(0, 30)).toBe(401);
          expect(await response.text()).toBe('');
        }
        expect((await get(`Bearer ${good}`)).status).toBe(200);
      });

      it('protects /$metadata, which serves the model as CSDL JSON', async () => {
        expect((await h.fetch('/$metadata')).status).toBe(401);
        const response = await h.api('/$metadata', { tenant: null });
        expect(response.status).toBe(200);
        const csdl = await json(response);
        expect(csdl.$Version).toBe('4.01');
        const schema = csdl.AssetManagement as Record<string, Json>;
        expect(Object.keys(schema.Service as Json)).toEqual(expect.arrayContaining(['assets', 'localities', 'maintenanceTickets', 'inspections']));
        expect(JSON.stringify(csdl)).not.toContain('tenant');
      });

      it('serves /$metadata as CSDL XML by default and for Accept: application/xml, as CSDL JSON when asked (Accept or $format)', async () => {
        const asJson = await json(await h.api('/$metadata', { tenant: null }));
        const expected = modelFromCsdl(asJson as object);
        const xmlOf = async (response: Response): Promise<string> => {
          expect(response.status).toBe(200);
          expect(response.headers.get('content-type')).toMatch(/^application\/xml/);
          expect(response.headers.get('odata-version')).toBe('4.01');
          return response.text();
        };
        for (const accept of ['*/*', 'application/xml', 'text/xml', 'application/json;q=0.5, application/xml', 'text/html']) {
          const xml = await xmlOf(await h.api('/$metadata', { tenant: null, headers: { accept } }));
          expect(xml.startsWith('<?xml'), accept).toBe(true);
          // The same model as the JSON document: sets, types and the set's $top maximum.
          const model = modelFromCsdlXml(xml);
          expect([...model.entitySets.keys()].sort()).toEqual([...expected.entitySets.keys()].sort());
          for (const [name, set] of expected.entitySets) {
            const read = model.entitySets.get(name)!;
            expect([...read.type.properties.keys()], name).toEqual([...set.type.properties.keys()]);
            expect([...read.type.navigation.keys()], name).toEqual([...set.type.navigation.keys()]);
            expect(read.capabilities, name).toEqual(set.capabilities);
          }
        }
        expect(await xmlOf(await h.api('/$metadata?$format=xml', { tenant: null, headers: { accept: 'application/json' } }))).toContain(
          '<EntitySet Name="assets"',
        );
        for (const [path, accept] of [
          ['/$metadata', 'application/json'],
          ['/$metadata', 'application/xml;q=0.4, application/json;q=0.9'],
          ['/$metadata?$format=json', 'application/xml'],
          ['/$metadata?$format=application/json;odata.metadata=minimal', '*/*'],
        ] as const) {
          const response = await h.api(path, { tenant: null, headers: { accept } });
          expect(response.headers.get('content-type'), `${path} ${accept}`).toMatch(/^application\/json/);
          expect(await json(response)).toEqual(asJson);
        }
        const bad = await h.api('/$metadata?$format=atom', { tenant: null, headers: { accept: 'application/xml' } });
        expect(bad.status).toBe(400);
        expect(((await json(bad)).error as Json).code).toBe('invalid_option_value');
      });
    });

    describe('tenant header and permissions (403)', () => {
      async function expect403(response: Response): Promise<void> {
        expect(response.status).toBe(403);
        const body = await json(response);
        expect(body.error).toBe('AuthorizationException');
        expect((body.data as Json).isAuthenticated).toBe(true);
        expect(typeof (body.data as Json).Message).toBe('string');
        expect(typeof body.traceId).toBe('string');
      }

      it('refuses a missing, malformed or unauthorized tenant with 403', async () => {
        await expect403(await h.api('/assets', { tenant: null }));
        await expect403(await h.api('/assets', { tenant: 'not-a-guid' }));
        await expect403(await h.api('/assets', { tenant: `${h.config.demo.tenantId},${TENANT_B}` }));
        await expect403(await h.api('/assets', { tenant: newId() }));
        await expect403(await h.api('/assets', { tenant: TENANT_B }));
        await expect403(await h.api('/localities', { client: 'b', tenant: h.config.demo.tenantId }));
      });

      it('refuses two Service-Tenant-Id header lines with 403, even with the same tenant twice', async () => {
        const token = await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
        for (const second of [h.config.demo.tenantId, TENANT_B]) {
          const response = await rawRequest(`${h.url}/assets?$top=1`, 'GET', [
            ['Authorization', `Bearer ${token}`],
            ['Service-Tenant-Id', h.config.demo.tenantId],
            ['Service-Tenant-Id', second],
          ]);
          expect(response.status, response.body).toBe(403);
          expect(JSON.parse(response.body).error).toBe('AuthorizationException');
        }
        const one = await rawRequest(`${h.url}/assets?$top=1`, 'GET', [
          ['Authorization', `Bearer ${token}`],
          ['Service-Tenant-Id', h.config.demo.tenantId.toUpperCase()],
        ]);
        expect(one.status).toBe(200);
      });

      it('lets the read-only client read but not write (403 before the body is even read)', async () => {
        expect((await h.api('/assets?$top=1', { client: 'ro' })).status).toBe(200);
        const asset = assets[0] as Asset;
        expect((await h.api(`/assets/${asset.id}`, { client: 'ro' })).status).toBe(200);
        await expect403(await h.api('/localities', { client: 'ro', method: 'POST', body: JSON.stringify({ id: newId(), name: 'Nope' }) }));
        await expect403(await h.api('/localities', { client: 'ro', method: 'POST', body: '{not json' }));
        await expect403(await h.api(`/assets/${asset.id}`, { client: 'ro', method: 'PUT', body: JSON.stringify(asset) }));
        await expect403(await h.api(`/assets/${asset.id}`, { client: 'ro', method: 'DELETE' }));
        expect((await h.api(`/assets/${asset.id}`)).status).toBe(200);
      });
    });

    describe('lists with OData query options', () => {
      it('returns the seeded records as camelCase JSON: UUID ids, enum strings, ISO 8601 instants', async () => {
        expect(assets).toHaveLength(DEMO_COUNTS.assets);
        for (const asset of assets) {
          expect(asset.id).toMatch(UUID);
          expect(asset.localityId).toMatch(UUID);
          expect(['active', 'inMaintenance', 'outOfService', 'retired']).toContain(asset.status);
          expect(asset.createdAt).toMatch(ISO_INSTANT);
          if (asset.commissionedAt !== null) expect(asset.commissionedAt).toMatch(ISO_INSTANT);
          expect(Object.keys(asset)).toEqual([
            'id',
            'code',
            'name',
            'localityId',
            'status',
            'category',
            'serialNumber',
            'commissionedAt',
            'createdAt',
            'updatedAt',
          ]);
        }
      });

      it('$filter, $orderby, $top, $skip and $count=true: "count" is the number matching before paging', async () => {
        const expected = assets.filter((a) => a.status === 'active' && a.category === 'pump').sort((a, b) => (a.code < b.code ? 1 : -1));
        const response = await h.api(
          `/assets${q({ $filter: "status eq 'active' and category eq 'pump'", $orderby: 'code desc', $top: '3', $skip: '1', $count: 'true' })}`,
        );
        expect(response.status).toBe(200);
        const body = await json(response);
        expect(Object.keys(body)).toEqual(['value', 'count']);
        expect(body.count).toBe(expected.length);
        expect((body.value as Asset[]).map((a) => a.code)).toEqual(expected.slice(1, 4).map((a) => a.code));
        expect(JSON.stringify(body)).not.toContain('@odata.count');
      });

      it('without $count=true there is no count', async () => {
        const body = await json(await h.api(`/localities${q({ $top: '2' })}`));
        expect(Object.keys(body)).toEqual(['value']);
      });

      it('$expand=locality with $select=id,name,locality gives exactly those, with the right locality', async () => {
        const localities = (await json(await h.api('/localities'))).value as { id: string; name: string }[];
        expect(localities).toHaveLength(DEMO_COUNTS.localities);
        const body = await json(await h.api(`/assets${q({ $select: 'id,name,locality', $expand: 'locality', $orderby: 'code', $top: '25' })}`));
        const value = body.value as { id: string; name: string; locality: { id: string; name: string; createdAt: string } }[];
        expect(value).toHaveLength(25);
        for (const item of value) {
          expect(Object.keys(item).sort()).toEqual(['id', 'locality', 'name']);
          const asset = assets.find((a) => a.id === item.id) as Asset;
          expect(item.locality.id).toBe(asset.localityId);
          expect(item.locality.name).toBe(localities.find((l) => l.id === asset.localityId)?.name);
          expect(item.locality.createdAt).toMatch(ISO_INSTANT);
        }
      });

      it('$compute: computed properties in $filter, $orderby and $select, and inside $expand, in the { value, count } list', async () => {
        const expected = assets
          .filter((a) => a.status === 'active')
          .map((a) => ({
            id: a.id,
            label: `${a.code}-${a.name}`,
            serial: a.serialNumber === null ? null : [...a.serialNumber].length,
            year: Number(a.createdAt.slice(0, 4)),
          }))
          .sort((a, b) => (a.label < b.label ? 1 : a.label > b.label ? -1 : 0));
        const response = await h.api(
          `/assets${q({ $compute: "concat(concat(code,'-'),name) as label,length(serialNumber) as serial,year(createdAt) as year", $filter: "status eq 'active' and label ne ''", $orderby: 'label desc', $select: 'id,label,serial,year', $top: '5', $count: 'true' })}`,
        );
        expect(response.status).toBe(200);
        const body = await json(response);
        expect(Object.keys(body)).toEqual(['value', 'count']);
        expect(body.count).toBe(expected.length);
        expect(body.value).toEqual(expected.slice(0, 5));
        // Inside $expand: the expanded level's own computed property.
        const nested = await json(
          await h.api(
            `/assets${q({ $select: 'id,locality', $expand: "locality($compute=concat(name,'!') as shout;$select=shout)", $top: '3', $orderby: 'code' })}`,
          ),
        );
        for (const item of nested.value as { id: string; locality: { shout: string } | null }[]) {
          const asset = assets.find((a) => a.id === item.id) as Asset;
          const locality = (await json(await h.api(`/localities/${asset.localityId}`))) as { name: string };
          expect(item.locality).toEqual({ shout: `${locality.name}!` });
        }
      });

      it('$apply: asset counts per status and per locality, in the { value, count } list, paged by offset', async () => {
        const byStatus = new Map<string, number>();
        for (const a of assets) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
        const statuses = [...byStatus.keys()].sort();
        const response = await h.api(`/assets${q({ $apply: 'groupby((status),aggregate($count as assets))', $orderby: 'status', $count: 'true' })}`);
        expect(response.status).toBe(200);
        const body = await json(response);
        expect(Object.keys(body)).toEqual(['value', 'count']);
        expect(body.count).toBe(statuses.length);
        expect((body.value as { status: string; assets: number | string }[]).map((row) => [row.status, Number(row.assets)])).toEqual(
          statuses.map((status) => [status, byStatus.get(status)]),
        );
        // Per locality (a navigation path: nested in the row), the largest first.
        const localities = (await json(await h.api(`/localities${q({ $top: '1000' })}`))).value as { id: string; name: string }[];
        const byLocality = new Map<string, number>();
        for (const a of assets.filter((x) => x.status !== 'retired')) {
          const name = localities.find((l) => l.id === a.localityId)?.name ?? null;
          byLocality.set(String(name), (byLocality.get(String(name)) ?? 0) + 1);
        }
        const perLocality = await json(
          await h.api(
            `/assets${q({ $apply: "filter(status ne 'retired')/groupby((locality/name),aggregate($count as assets))", $orderby: 'assets desc,locality/name' })}`,
          ),
        );
        const rows = perLocality.value as { locality: { name: string | null }; assets: number | string }[];
        expect(new Map(rows.map((row) => [String(row.locality.name), Number(row.assets)]))).toEqual(byLocality);
        expect(rows.map((row) => Number(row.assets))).toEqual([...rows.map((row) => Number(row.assets))].sort((a, b) => b - a));
        // Server-driven paging of aggregated rows continues by offset.
        const first = await json(
          await h.api(`/assets${q({ $apply: 'groupby((status),aggregate($count as assets))', $orderby: 'status' })}`, {
            headers: { prefer: 'odata.maxpagesize=1' },
          }),
        );
        expect((first.value as { status: string }[]).map((row) => row.status)).toEqual(statuses.slice(0, 1));
        if (statuses.length > 1) {
          const next = String(first['@odata.nextLink']);
          const second = await json(await h.api(next, { headers: { prefer: 'odata.maxpagesize=1' } }));
          expect((second.value as { status: string }[]).map((row) => row.status)).toEqual(statuses.slice(1, 2));
        }
      });

      it('navigation in $filter: locality/name', async () => {
        const localities = (await json(await h.api('/localities'))).value as { id: string; name: string }[];
        const target = localities[0] as { id: string; name: string };
        const body = await json(await h.api(`/assets${q({ $filter: `locality/name eq '${target.name.replaceAll("'", "''")}'`, $count: 'true' })}`));
        expect(body.count).toBe(assets.filter((a) => a.localityId === target.id).length);
      });

      it('reads + in the query string as a space, as ASP.NET Core and form-encoding clients do; a plus sign is %2B', async () => {
        const cutoff = '2020-01-01T00:00:00+01:00';
        const expected = assets.filter((a) => Date.parse(a.createdAt) > Date.parse(cutoff)).length;
        const body = await json(await h.api(`/assets?$filter=createdAt%20gt%20${cutoff.replace('+', '%2B')}&$count=true&$top=0`));
        expect(body.count).toBe(expected);
        // What URLSearchParams sends: spaces as '+', the plus sign as %2B.
        const form = new URLSearchParams({ $filter: `createdAt gt ${cutoff} and status eq 'active'`, $count: 'true', $top: '0' }).toString();
        expect(form).toContain('+eq+');
        const active = assets.filter((a) => Date.parse(a.createdAt) > Date.parse(cutoff) && a.status === 'active').length;
        expect((await json(await h.api(`/assets?${form}`))).count).toBe(active);
        // An unencoded plus sign is a space: a 400 whose message says how to send a plus sign.
        const plain = await h.api(`/assets?$filter=createdAt%20gt%20${cutoff}`);
        expect(plain.status).toBe(400);
        expect(JSON.stringify(await json(plain))).toContain("send a plus sign as '%2B'");
      });

      it('$search works on inspections, counted with $filter before paging', async () => {
        const all = (await json(await h.api('/inspections'))).value as Inspection[];
        expect(all).toHaveLength(DEMO_COUNTS.inspections);
        const matches = all.filter((i) => [i.name, i.inspector, i.notes].some((text) => text?.toLowerCase().includes('pressure')));
        expect(matches.length).toBeGreaterThan(0);
        const body = await json(await h.api(`/inspections${q({ $search: 'PRESSURE', $count: 'true', $top: '2' })}`));
        expect(body.count).toBe(matches.length);
        expect((body.value as unknown[]).length).toBe(Math.min(2, matches.length));
      });

      it('$search elsewhere is an unsupported option: 400 with the OData error body', async () => {
        for (const path of ['/assets', '/localities', '/maintenance-tickets']) {
          const response = await h.api(`${path}${q({ $search: 'pump' })}`);
          expect(response.status).toBe(400);
          const body = await json(response);
          expect((body.error as Json).code).toBe('query_option_not_supported');
        }
      });

      it('$top above the limits: assets allow 1000, the host 10000', async () => {
        const tooMany = await h.api(`/assets${q({ $top: '1001' })}`);
        expect(tooMany.status).toBe(400);
        expect(((await json(tooMany)).error as Json).message).toContain("The limit of '1000' for Top query has been exceeded");
        expect((await h.api(`/assets${q({ $top: '1000' })}`)).status).toBe(200);
        const hostLimit = await h.api(`/localities${q({ $top: '10001' })}`);
        expect(hostLimit.status).toBe(400);
        expect(((await json(hostLimit)).error as Json).message).toContain("The limit of '10000' for Top query has been exceeded");
        expect((await h.api(`/inspections${q({ $top: '10000' })}`)).status).toBe(200);
      });

      it.each([
        ['a malformed $filter', { $filter: 'name eq' }, 'unexpected_end'],
        ['an unknown property', { $filter: "nope eq 'x'" }, 'unknown_property'],
        ['mismatched types', { $filter: 'name eq 5' }, 'type_mismatch'],
        ['a tenant filter (tenantId is not in the model)', { $filter: `tenantId eq ${TENANT_B}` }, 'unknown_property'],
        ['an unknown $-option', { $foo: '1' }, 'unknown_option'],
        ['a custom option', { page: '2' }, 'unsupported_option'],
        ['a $compute alias that names a property', { $compute: "concat(name,'x') as code" }, 'alias_conflict'],
        ['an $apply summing text', { $apply: 'aggregate(name with sum as total)' }, 'type_mismatch'],
        ['a $filter on a property $apply aggregated away', { $apply: 'groupby((status))', $filter: "name eq 'x'" }, 'unknown_property'],
        // Issue 26: 2^16 and 2^33 times the rows from 598 and 1 229 characters (a 7.5 MB statement before, then a RangeError).
        [
          '16 chained concat() (fan-out 2^16)',
          { $apply: Array.from({ length: 16 }, () => "concat(filter(name eq 'a'),identity)").join('/') },
          'apply_fan_out_exceeded',
        ],
        [
          '33 chained concat() (fan-out 2^33)',
          { $apply: Array.from({ length: 33 }, () => "concat(filter(name eq 'a'),identity)").join('/') },
          'apply_fan_out_exceeded',
        ],
        ['a $skiptoken the service did not issue', { $skiptoken: 'abc' }, 'invalid_option_value'],
        ['$top=-1', { $top: '-1' }, 'invalid_option_value'],
        ['a duplicate option', {}, 'duplicate_option'],
      ])('answers %s with 400 and the OData error body', async (_name, options, code) => {
        const path = code === 'duplicate_option' ? '/assets?$top=1&$top=2' : `/assets${q(options as Record<string, string>)}`;
        const response = await h.api(path);
        expect(response.status).toBe(400);
        const body = await json(response);
        expect((body.error as Json).code).toBe(code);
        expect(typeof (body.error as Json).message).toBe('string');
      });

      it('$format=json is accepted; GET by id takes $select and $expand, and no other option', async () => {
        expect((await h.api(`/localities${q({ $format: 'json', $top: '1' })}`)).status).toBe(200);
        const asset = assets.find((a) => a.localityId !== null) as Asset;
        const response = await h.api(`/assets/${asset.id}${q({ $filter: "name eq 'x'" })}`);
        expect(response.status).toBe(400);
        expect(((await json(response)).error as Json).code).toBe('unsupported_option');
        const selected = await json(await h.api(`/assets/${asset.id}${q({ $select: 'id,name,locality', $expand: 'locality($select=name)' })}`));
        expect(Object.keys(selected).sort()).toEqual(['id', 'locality', 'name']);
        expect(selected.id).toBe(asset.id);
        const locality = await json(await h.api(`/localities/${asset.localityId}`));
        expect(selected.locality).toEqual({ name: locality.name });
        const bad = await h.api(`/assets/${asset.id}${q({ $select: 'nope' })}`);
        expect(bad.status).toBe(400);
        expect(((await json(bad)).error as Json).code).toBe('unknown_property');
      });

      it('OData URL conventions: keys in parentheses, entity set names as paths, /$count as text', async () => {
        const asset = assets[0] as Asset;
        const byPath = await json(await h.api(`/assets/${asset.id}`));
        for (const path of [`/assets(${asset.id})`, `/assets('${asset.id}')`, `/assets(%27${asset.id}%27)`, `/assets(id=${asset.id})`]) {
          const response = await h.api(`${path}${q({ $select: 'id,code' })}`);
          expect({ path, status: response.status }).toEqual({ path, status: 200 });
          expect(await json(response)).toEqual({ id: asset.id, code: byPath.code });
        }
        expect((await h.api(`/assets(${asset.id})`)).status).toBe(200);
        const missing = await h.api(`/assets('00000000-0000-4000-8000-000000000000')`);
        expect(missing.status).toBe(404);
        expect((await json(missing)).error).toBe('EntityNotFoundException');
        // The metadata's set name serves the same collection as the seed's path, and the metadata says so.
        const metadata = await json(await h.api('/$metadata', { tenant: null }));
        expect(JSON.stringify(metadata)).toContain('Served at /maintenance-tickets');
        const tickets = await json(await h.api(`/maintenance-tickets${q({ $count: 'true', $top: '1' })}`));
        const byName = await json(await h.api(`/maintenanceTickets${q({ $count: 'true', $top: '1' })}`));
        expect(byName).toEqual(tickets);
        // /$count: the number $filter keeps, as text; $search where the set allows it.
        const counted = await h.api(`/assets/$count${q({ $filter: "status eq 'active'" })}`);
        expect(counted.status).toBe(200);
        expect(counted.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(await counted.text()).toBe(String(assets.filter((a) => a.status === 'active').length));
        expect(await (await h.api('/assets/$count')).text()).toBe(String(assets.length));
        const searched = (await json(await h.api(`/inspections${q({ $search: 'pressure', $count: 'true', $top: '0' })}`))).count;
        expect(await (await h.api(`/inspections/$count${q({ $search: 'pressure' })}`)).text()).toBe(String(searched));
        const paged = await h.api(`/assets/$count${q({ $top: '2' })}`);
        expect(paged.status).toBe(400);
        expect(((await json(paged)).error as Json).code).toBe('unsupported_option');
      });

      it('an integer division by a computed zero in $filter is null for the row: 200, the rows do not match', async () => {
        const response = await h.api(`/localities${q({ $filter: 'length(name) div (length(name) sub length(name)) eq 1', $count: 'true' })}`);
        expect(response.status).toBe(200);
        expect(await json(response)).toEqual({ value: [], count: 0 });
      });

      it('instants of the years 1 to 99 come back as written (PGlite read 0001 as 2001)', async () => {
        const body = await json(
          await h.api(`/assets${q({ $compute: 'mindatetime() as m,0099-12-31T23:59:59.5Z as n', $select: 'id,m,n', $top: '1', $orderby: 'code' })}`),
        );
        const row = (body.value as Json[])[0] as Json;
        expect(Date.parse(row.m as string)).toBe(Date.parse('0001-01-01T00:00:00Z'));
        expect(Date.parse(row.n as string)).toBe(Date.parse('0099-12-31T23:59:59.5Z'));
        expect(row.m).toMatch(/^0001-01-01T00:00:00(\.0+)?Z$/);
      });

      it('a literal zero divisor is a 400 OData error (URL 5.1.1.2.5: the request fails)', async () => {
        for (const filter of ['length(name) div 0 eq 1', 'length(name) mod 0 eq 1', 'length(name) divby 0.0 eq 1']) {
          const response = await h.api(`/localities${q({ $filter: filter })}`);
          expect(response.status, filter).toBe(400);
          const body = await json(response);
          expect((body.error as Json).code).toBe('invalid_argument');
          expect(JSON.stringify(body)).toMatch(/must not be zero/);
        }
      });

      it('an Int32 product beyond 64 bits is computed exactly, as the reference does (once a database overflow): 200', async () => {
        const response = await h.api(`/localities${q({ $filter: 'length(name) mul 2147483647 mul 2147483647 mul 2147483647 gt 0', $count: 'true' })}`);
        expect(response.status).toBe(200);
        const all = await json(await h.api(`/localities${q({ $filter: 'length(name) gt 0', $count: 'true' })}`));
        const body = await json(response);
        expect(body.count).toBe(all.count);
        expect(body.count).toBeGreaterThan(0);
      });

      it('$skip above 2^31 - 1 is accepted (an empty page), up to the library limit of 2^53 - 1', async () => {
        for (const skip of ['2147483647', '2147483648', '99999999999999', '9007199254740991']) {
          const response = await h.api(`/localities${q({ $skip: skip, $count: 'true' })}`);
          expect(response.status, skip).toBe(200);
          const body = await json(response);
          expect(body.value).toEqual([]);
          expect(body.count).toBeGreaterThan(0);
        }
        const beyond = await h.api(`/localities${q({ $skip: '9007199254740992' })}`);
        expect(beyond.status).toBe(400);
        expect(((await json(beyond)).error as Json).code).toBe('skip_limit_exceeded');
      });
    });

    describe("one-to-many navigation: a locality's assets, an asset's tickets and inspections", () => {
      type Ticket = { id: string; code: string; assetId: string; status: string; priority: string };
      type Related = { tickets: Ticket[]; inspections: { id: string; assetId: string }[]; assets: Asset[]; localities: { id: string; name: string }[] };
      const PRIORITY = ['low', 'medium', 'high', 'critical'];
      const codeOrder = (a: { code: string }, b: { code: string }): number => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

      /** Every record of the tenant, read by plain list requests (no navigation involved). */
      async function related(client: 'rw' | 'b' = 'rw'): Promise<Related> {
        const list = async <T>(path: string): Promise<T[]> => {
          const body = await json(await h.api(`${path}${q({ $top: '1000', $count: 'true' })}`, { client }));
          expect((body.value as T[]).length).toBe(body.count);
          return body.value as T[];
        };
        const [tickets, inspections, all, localities] = await Promise.all([
          list<Ticket>('/maintenance-tickets'),
          list<{ id: string; assetId: string }>('/inspections'),
          list<Asset>('/assets'),
          list<{ id: string; name: string }>('/localities'),
        ]);
        return { tickets, inspections, assets: all, localities };
      }
      const ticketsOf = (data: Related, assetId: string): Ticket[] => data.tickets.filter((t) => t.assetId === assetId);
      /** The codes of the assets a $filter keeps, in code order. */
      async function codes(filter: string, client: 'rw' | 'b' = 'rw'): Promise<string[]> {
        const body = await json(await h.api(`/assets${q({ $filter: filter, $select: 'code', $orderby: 'code', $top: '1000', $count: 'true' })}`, { client }));
        expect((body.value as unknown[]).length).toBe(body.count);
        return (body.value as { code: string }[]).map((a) => a.code);
      }

      it('the metadata declares the collections with their partners and bindings', async () => {
        const metadata = await json(await h.api('/$metadata', { tenant: null }));
        const schema = metadata.AssetManagement as Record<string, Record<string, Json>>;
        expect(schema.Asset?.maintenanceTickets).toMatchObject({
          $Kind: 'NavigationProperty',
          $Collection: true,
          $Type: 'AssetManagement.MaintenanceTicket',
          $Partner: 'asset',
        });
        expect(schema.Asset?.inspections).toMatchObject({ $Collection: true, $Partner: 'asset' });
        expect(schema.Locality?.assets).toMatchObject({ $Collection: true, $Type: 'AssetManagement.Asset', $Partner: 'locality' });
        expect(schema.Service?.assets?.$NavigationPropertyBinding).toEqual({
          locality: 'localities',
          maintenanceTickets: 'maintenanceTickets',
          inspections: 'inspections',
        });
        expect(schema.Service?.localities?.$NavigationPropertyBinding).toEqual({ assets: 'assets' });
      });

      it('the seed makes them interesting: assets with several tickets, with one, and with none', async () => {
        const data = await related();
        const counts = data.assets.map((a) => ticketsOf(data, a.id).length);
        expect(counts.filter((n) => n === 0).length).toBeGreaterThan(0);
        expect(counts.filter((n) => n === 1).length).toBeGreaterThan(0);
        expect(counts.filter((n) => n >= 2).length).toBeGreaterThan(0);
        expect(data.assets.filter((a) => data.inspections.some((i) => i.assetId === a.id)).length).toBeGreaterThan(0);
      });

      it('any: the assets with an open ticket; any() without a lambda: those with a ticket at all', async () => {
        const data = await related();
        const open = data.assets.filter((a) => ticketsOf(data, a.id).some((t) => t.status === 'open')).sort(codeOrder);
        expect(open.length).toBeGreaterThan(0);
        expect(await codes("maintenanceTickets/any(t: t/status eq 'open')")).toEqual(open.map((a) => a.code));
        const withTickets = data.assets.filter((a) => ticketsOf(data, a.id).length > 0).sort(codeOrder);
        expect(await codes('maintenanceTickets/any()')).toEqual(withTickets.map((a) => a.code));
        // From localities: those with a retired asset.
        const retired = new Set(data.assets.filter((a) => a.status === 'retired').map((a) => a.localityId));
        expect(retired.size).toBeGreaterThan(0);
        const body = await json(await h.api(`/localities${q({ $filter: "assets/any(a: a/status eq 'retired')", $select: 'id' })}`));
        expect(new Set((body.value as { id: string }[]).map((l) => l.id))).toEqual(retired);
        // Lambdas nest one deep at most (the host's limit, as ASP.NET Core's default): a 400.
        const nested = await h.api(`/localities${q({ $filter: "assets/any(a: a/maintenanceTickets/any(t: t/priority eq 'critical'))" })}`);
        expect(nested.status).toBe(400);
        expect(((await json(nested)).error as Json).code).toBe('any_all_depth_exceeded');
      });

      it('all: every ticket resolved or closed, true for an asset without tickets', async () => {
        const data = await related();
        const done = (t: Ticket): boolean => t.status === 'resolved' || t.status === 'closed';
        const expected = data.assets.filter((a) => ticketsOf(data, a.id).every(done)).sort(codeOrder);
        expect(expected.some((a) => ticketsOf(data, a.id).length === 0)).toBe(true);
        expect(expected.some((a) => ticketsOf(data, a.id).length > 0)).toBe(true);
        expect(await codes("maintenanceTickets/all(t: t/status eq 'resolved' or t/status eq 'closed')")).toEqual(expected.map((a) => a.code));
        const notAll = await codes("not maintenanceTickets/all(t: t/status eq 'resolved' or t/status eq 'closed')");
        expect(notAll.length + expected.length).toBe(data.assets.length);
      });

      it('$count of a navigation in $filter and in $orderby', async () => {
        const data = await related();
        const several = data.assets.filter((a) => ticketsOf(data, a.id).length > 1).sort(codeOrder);
        expect(await codes('maintenanceTickets/$count gt 1')).toEqual(several.map((a) => a.code));
        expect(await codes('maintenanceTickets/$count eq 0 and inspections/$count ge 1')).toEqual(
          data.assets
            .filter((a) => ticketsOf(data, a.id).length === 0 && data.inspections.some((i) => i.assetId === a.id))
            .sort(codeOrder)
            .map((a) => a.code),
        );
        const body = await json(await h.api(`/assets${q({ $orderby: 'maintenanceTickets/$count desc,code', $select: 'code', $top: '20' })}`));
        const expected = [...data.assets].sort((a, b) => ticketsOf(data, b.id).length - ticketsOf(data, a.id).length || codeOrder(a, b)).slice(0, 20);
        expect((body.value as { code: string }[]).map((a) => a.code)).toEqual(expected.map((a) => a.code));
      });

      it('$expand of a collection with $filter, $orderby, $top and $count=true inside', async () => {
        const data = await related();
        const expand = "maintenanceTickets($select=code,priority,status;$filter=status ne 'closed';$orderby=priority desc,code;$top=2;$count=true)";
        const body = await json(await h.api(`/assets${q({ $select: 'id,code', $expand: expand, $filter: 'maintenanceTickets/$count ge 2', $top: '1000' })}`));
        // An expansion's count is `<navigation>@count` (OData 4.01 without the prefix): the service never writes `@odata.count`.
        expect(JSON.stringify(body)).not.toContain('@odata.count');
        const value = body.value as { id: string; code: string; maintenanceTickets: Json[]; 'maintenanceTickets@count': number }[];
        expect(value.length).toBe(data.assets.filter((a) => ticketsOf(data, a.id).length >= 2).length);
        for (const item of value) {
          expect(Object.keys(item)).toEqual(['id', 'code', 'maintenanceTickets', 'maintenanceTickets@count']);
          const kept = ticketsOf(data, item.id)
            .filter((t) => t.status !== 'closed')
            .sort((a, b) => PRIORITY.indexOf(b.priority) - PRIORITY.indexOf(a.priority) || codeOrder(a, b));
          // The count is the number the nested $filter keeps, before its $top.
          expect(item['maintenanceTickets@count']).toBe(kept.length);
          expect(item.maintenanceTickets).toEqual(kept.slice(0, 2).map((t) => ({ code: t.code, priority: t.priority, status: t.status })));
        }
        // /$count alone: just the number, for every asset.
        const counted = await json(await h.api(`/assets${q({ $select: 'id', $expand: 'maintenanceTickets/$count,inspections/$count', $top: '1000' })}`));
        for (const item of counted.value as Json[]) {
          expect(item['maintenanceTickets@count']).toBe(ticketsOf(data, item.id as string).length);
          expect(item['inspections@count']).toBe(data.inspections.filter((i) => i.assetId === item.id).length);
        }
      });

      it("a locality's assets, and a single asset's tickets and inspections by id", async () => {
        const data = await related();
        const body = await json(await h.api(`/localities${q({ $select: 'id', $expand: 'assets($select=id;$orderby=code)' })}`));
        const value = body.value as { id: string; assets: { id: string }[] }[];
        expect(value.length).toBe(data.localities.length);
        for (const locality of value) {
          const expected = data.assets.filter((a) => a.localityId === locality.id).sort(codeOrder);
          expect(locality.assets.map((a) => a.id)).toEqual(expected.map((a) => a.id));
        }
        const busiest = [...data.assets].sort((a, b) => ticketsOf(data, b.id).length - ticketsOf(data, a.id).length)[0] as Asset;
        const one = await json(
          await h.api(`/assets/${busiest.id}${q({ $select: 'code', $expand: 'maintenanceTickets($select=id),inspections($select=id)' })}`),
        );
        expect(one.code).toBe(busiest.code);
        expect((one.maintenanceTickets as { id: string }[]).map((t) => t.id).sort()).toEqual(
          ticketsOf(data, busiest.id)
            .map((t) => t.id)
            .sort(),
        );
        expect((one.inspections as { id: string }[]).map((t) => t.id).sort()).toEqual(
          data.inspections
            .filter((i) => i.assetId === busiest.id)
            .map((i) => i.id)
            .sort(),
        );
      });

      it('a collection navigation property cannot be written: 400 naming it', async () => {
        const asset = assets[2] as Asset;
        const response = await h.api(`/assets/${asset.id}`, { method: 'PUT', body: JSON.stringify({ ...asset, maintenanceTickets: [] }) });
        expect(response.status).toBe(400);
        const body = await json(response);
        expect(body.error).toBe('ValidationException');
        expect((body.data as Json).Errors).toEqual([
          { Field: 'maintenanceTickets', Message: "The navigation property 'maintenanceTickets' cannot be written; write the related records themselves." },
        ]);
      });

      it('tenant isolation: records of tenant B with the same ids never appear through $expand, any, all or $count in tenant A', async () => {
        const before = await related();
        // In tenant A: the asset with the most tickets, and its locality.
        const target = [...before.assets].sort((a, b) => ticketsOf(before, b.id).length - ticketsOf(before, a.id).length || codeOrder(a, b))[0] as Asset;
        const ownTickets = ticketsOf(before, target.id);
        expect(ownTickets.length).toBeGreaterThan(0);
        // Tenant B creates a locality, an asset and tickets with the very ids of tenant A's records
        // (keys are per tenant), so a join that forgot the tenant would match across tenants.
        const post = async (path: string, record: Json): Promise<void> => {
          const response = await h.api(path, { client: 'b', method: 'POST', body: JSON.stringify(record) });
          expect(response.status, await response.text()).toBe(200);
        };
        const marker = `ISO-${newId().slice(0, 8)}`;
        const localityB = (await json(await h.api(`/localities/${target.localityId}`, { client: 'b' }))).id === target.localityId;
        if (!localityB) await post('/localities', { id: target.localityId, name: `B ${marker}` });
        await post('/assets', { id: target.id, code: `${marker}-A`, name: 'B asset', localityId: target.localityId, status: 'retired', category: 'pump' });
        const ticketIds = [newId(), newId(), newId()];
        for (const [index, id] of ticketIds.entries()) {
          await post('/maintenance-tickets', { id, code: `${marker}-${index}`, name: 'B ticket', assetId: target.id, status: 'open', priority: 'critical' });
        }
        await post('/inspections', {
          id: newId(),
          name: `B ${marker}`,
          assetId: target.id,
          result: 'failed',
          inspector: 'B',
          inspectedAt: '2024-01-01T00:00:00Z',
        });

        // Tenant B sees its own: three tickets and one inspection on its asset.
        const inB = await json(
          await h.api(`/assets${q({ $filter: `id eq ${target.id}`, $expand: 'maintenanceTickets($select=code),inspections/$count' })}`, { client: 'b' }),
        );
        const bAsset = (inB.value as Json[])[0] as Json;
        expect((bAsset.maintenanceTickets as { code: string }[]).map((t) => t.code).sort()).toEqual(ticketIds.map((_, i) => `${marker}-${i}`));
        expect(bAsset['inspections@count']).toBe(1);

        // Tenant A: the same asset id has only its own tickets, in every form.
        const inA = await json(
          await h.api(
            `/assets/${target.id}${q({ $select: 'code', $expand: 'maintenanceTickets($select=id;$count=true),inspections($select=name),locality($select=name;$expand=assets($select=code))' })}`,
          ),
        );
        expect(inA.code).toBe(target.code);
        expect((inA.maintenanceTickets as { id: string }[]).map((t) => t.id).sort()).toEqual(ownTickets.map((t) => t.id).sort());
        expect(inA['maintenanceTickets@count']).toBe(ownTickets.length);
        expect(JSON.stringify(inA)).not.toContain(marker);
        const byCount = await json(
          await h.api(`/assets${q({ $filter: `id eq ${target.id}`, $select: 'id', $expand: 'maintenanceTickets/$count,inspections/$count' })}`),
        );
        expect((byCount.value as Json[])[0]).toEqual({
          id: target.id,
          'maintenanceTickets@count': ownTickets.length,
          'inspections@count': before.inspections.filter((i) => i.assetId === target.id).length,
        });
        expect(await codes(`maintenanceTickets/any(t: startswith(t/code,'${marker}'))`)).toEqual([]);
        expect(await codes(`inspections/any(i: i/name eq 'B ${marker}')`)).toEqual([]);
        expect(await codes(`id eq ${target.id} and maintenanceTickets/$count eq ${ownTickets.length}`)).toEqual([target.code]);
        const allOpen = ownTickets.every((t) => t.status === 'open' && t.priority === 'critical');
        expect(await codes(`id eq ${target.id} and maintenanceTickets/all(t: t/status eq 'open' and t/priority eq 'critical')`)).toEqual(
          allOpen ? [target.code] : [],
        );
        const localityAssets = await json(await h.api(`/localities/${target.localityId}${q({ $select: 'id', $expand: 'assets($select=code;$count=true)' })}`));
        expect(JSON.stringify(localityAssets)).not.toContain(marker);
        expect(localityAssets['assets@count']).toBe(before.assets.filter((a) => a.localityId === target.localityId).length);
        // And the other way round: tenant B's asset has none of tenant A's tickets.
        expect(await codes(`maintenanceTickets/$count eq 3 and maintenanceTickets/all(t: startswith(t/code,'${marker}'))`, 'b')).toEqual([`${marker}-A`]);
        const after = await related();
        expect(after.tickets.length).toBe(before.tickets.length);
        // Tenant B's records go again (the older isolation test counts tenant B's assets).
        const remove = async (path: string): Promise<void> => {
          expect((await h.api(path, { client: 'b', method: 'DELETE' })).status, path).toBe(200);
        };
        for (const id of ticketIds) await remove(`/maintenance-tickets/${id}`);
        for (const inspection of (await related('b')).inspections) await remove(`/inspections/${inspection.id}`);
        await remove(`/assets/${target.id}`);
        if (!localityB) await remove(`/localities/${target.localityId}`);
        expect((await related('b')).assets).toEqual([]);
      });

      it('addresses related records by navigation: /assets/{id}/maintenanceTickets (with query options), /maintenance-tickets/{id}/asset, in this tenant only', async () => {
        const data = await related();
        const busy = data.assets.find((a) => ticketsOf(data, a.id).length >= 2)!;
        const own = ticketsOf(data, busy.id);
        // The whole collection, by the seed's path and by the key-in-parentheses convention.
        for (const path of [`/assets/${busy.id}/maintenanceTickets`, `/assets(${busy.id})/maintenanceTickets`, `/assets('${busy.id}')/maintenanceTickets`]) {
          const body = await json(await h.api(`${path}${q({ $count: 'true', $top: '1000' })}`));
          expect((body.value as Ticket[]).map((t) => t.id).sort(), path).toEqual(own.map((t) => t.id).sort());
          expect(body.count, path).toBe(own.length);
        }
        // Query options apply within the related records.
        const open = own.filter((t) => t.status !== 'closed').sort(codeOrder);
        const body = await json(
          await h.api(
            `/assets/${busy.id}/maintenanceTickets${q({ $filter: "status ne 'closed'", $orderby: 'code', $select: 'code', $top: '1', $count: 'true' })}`,
          ),
        );
        expect(body).toEqual({ value: open.slice(0, 1).map((t) => ({ code: t.code })), count: open.length });
        // A locality's assets; an inspection's asset and a ticket's asset (single-valued: one record).
        const locality = data.localities.find((l) => data.assets.some((a) => a.localityId === l.id))!;
        const assetsThere = await json(await h.api(`/localities/${locality.id}/assets${q({ $select: 'id', $top: '1000' })}`));
        expect((assetsThere.value as { id: string }[]).map((a) => a.id).sort()).toEqual(
          data.assets
            .filter((a) => a.localityId === locality.id)
            .map((a) => a.id)
            .sort(),
        );
        const ticket = own[0]!;
        const asset = await h.api(`/maintenance-tickets/${ticket.id}/asset${q({ $select: 'id,code' })}`);
        expect(asset.status).toBe(200);
        expect(await json(asset)).toEqual({ id: busy.id, code: busy.code });
        const withLocality = await json(await h.api(`/maintenance-tickets/${ticket.id}/asset${q({ $expand: 'locality($select=id)', $select: 'id' })}`));
        expect(withLocality).toEqual({ id: busy.id, locality: { id: busy.localityId } });
        // A single record takes no list options; an unknown or another tenant's record is 404.
        expect((await h.api(`/maintenance-tickets/${ticket.id}/asset${q({ $top: '1' })}`)).status).toBe(400);
        const missing = await h.api(`/assets/${newId()}/maintenanceTickets`);
        expect(missing.status).toBe(404);
        expect((await json(missing)).error).toBe('EntityNotFoundException');
        const fromB = await h.api(`/assets/${busy.id}/maintenanceTickets`, { client: 'b' });
        expect(fromB.status).toBe(404);
        expect((await h.api('/assets/not-a-uuid/maintenanceTickets')).status).toBe(400);
        // OData errors of the related set's query options.
        const bad = await h.api(`/assets/${busy.id}/maintenanceTickets${q({ $filter: 'nope eq 1' })}`);
        expect(bad.status).toBe(400);
        expect(((await json(bad)).error as Json).code).toBe('unknown_property');
      });
    });

    describe('server-driven paging: Prefer odata.maxpagesize, @odata.nextLink, $skiptoken', () => {
      type Page = { status: number; applied: string | null; body: Json };
      const get = async (path: string, prefer?: string, client: 'rw' | 'b' = 'rw'): Promise<Page> => {
        const response = await h.api(path, { client, ...(prefer === undefined ? {} : { headers: { prefer } }) });
        return { status: response.status, applied: response.headers.get('preference-applied'), body: await json(response) };
      };
      /** Follows the next links from `path` to the end: every page, checked to be a 200 list. */
      async function follow(path: string, prefer: string | undefined, client: 'rw' | 'b' = 'rw'): Promise<Page[]> {
        const pages: Page[] = [];
        let next: string | undefined = path;
        while (next !== undefined) {
          const page = await get(next, prefer, client);
          expect(page.status, JSON.stringify(page.body)).toBe(200);
          pages.push(page);
          next = page.body['@odata.nextLink'] as string | undefined;
          expect(pages.length).toBeLessThan(300);
        }
        return pages;
      }
      const values = (pages: Page[]): Json[] => pages.flatMap((p) => p.body.value as Json[]);

      it('without Prefer the answer is exactly as before; a page size that holds everything changes only the header', async () => {
        // A total order (the key last): without $top the backend leaves ties in any order.
        const path = `/maintenance-tickets${q({ $filter: "priority eq 'high'", $orderby: 'dueAt desc,id', $count: 'true' })}`;
        const plain = await h.api(path);
        const text = await plain.text();
        expect(plain.headers.get('preference-applied')).toBeNull();
        expect(Object.keys(JSON.parse(text) as Json)).toEqual(['value', 'count']);
        const prefer = await h.api(path, { headers: { prefer: 'odata.maxpagesize=10000' } });
        expect(prefer.headers.get('preference-applied')).toBe('odata.maxpagesize=10000');
        expect(await prefer.text()).toBe(text);
      });

      it.each([
        ['odata.maxpagesize=7', '/maintenance-tickets', 'odata.maxpagesize=7'],
        ['maxpagesize=7 (no odata. prefix)', '/maintenance-tickets', 'odata.maxpagesize=7'],
        ['among other preferences', '/maintenance-tickets', 'odata.maxpagesize=7'],
        ['above the collection limit (assets: 1000)', '/assets', 'odata.maxpagesize=1000'],
      ])('Preference-Applied for %s', async (name, collection, applied) => {
        const prefer = name.startsWith('maxpagesize')
          ? 'maxpagesize=7'
          : name.startsWith('among')
            ? 'return=minimal, odata.maxpagesize=7; x=1, respond-async'
            : name.startsWith('above')
              ? 'odata.maxpagesize=5000'
              : 'odata.maxpagesize=7';
        const page = await get(`${collection}${q({ $count: 'true' })}`, prefer);
        expect(page.status).toBe(200);
        expect(page.applied).toBe(applied);
        const size = Number(applied.split('=')[1]);
        expect((page.body.value as Json[]).length).toBe(Math.min(size, page.body.count as number));
        expect(page.body['@odata.nextLink'] === undefined).toBe((page.body.count as number) <= size);
      });

      it('an unusable page size is ignored, as preferences may be: the plain answer', async () => {
        for (const prefer of ['odata.maxpagesize=0', 'odata.maxpagesize=-3', 'odata.maxpagesize=ten', 'odata.maxpagesizes=3']) {
          const page = await get(`/localities${q({ $count: 'true' })}`, prefer);
          expect(page.status).toBe(200);
          expect(page.applied).toBeNull();
          expect(Object.keys(page.body)).toEqual(['value', 'count']);
        }
      });

      it.each([
        ['tickets by priority and due date (nulls, duplicates), counted', '/maintenance-tickets', { $orderby: 'priority desc,dueAt', $count: 'true' }, 7],
        [
          'assets by a nullable key not selected, filtered',
          '/assets',
          { $select: 'code,name', $orderby: 'serialNumber desc', $filter: "status ne 'retired'" },
          11,
        ],
        ['inspections by the key alone, searched', '/inspections', { $search: 'inspection' }, 9],
        [
          'assets with their tickets expanded',
          '/assets',
          { $select: 'id,code', $expand: 'maintenanceTickets($select=code;$orderby=code)', $orderby: 'category,code' },
          50,
        ],
        ['assets ordered by a navigation count (continued by offset)', '/assets', { $select: 'code', $orderby: 'maintenanceTickets/$count desc,code' }, 40],
        ['localities by an expression (continued by offset)', '/localities', { $orderby: 'length(name) desc' }, 5],
      ])('following the next links through %s gives the unpaged list', async (_name, collection, options, size) => {
        const unpaged = await json(await h.api(`${collection}${q({ ...options, $top: '1000' })}`));
        const all = unpaged.value as Json[];
        expect(all.length).toBeGreaterThan(size);
        const pages = await follow(`${collection}${q(options)}`, `odata.maxpagesize=${size}`);
        expect(pages.length).toBe(Math.ceil(all.length / size));
        for (const page of pages.slice(0, -1)) expect((page.body.value as Json[]).length).toBe(size);
        for (const page of pages) {
          expect(page.applied).toBe(`odata.maxpagesize=${size}`);
          expect(Object.keys(page.body)).toEqual([
            'value',
            ...('$count' in options ? ['count'] : []),
            ...(page === pages[pages.length - 1] ? [] : ['@odata.nextLink']),
          ]);
          if ('$count' in options) expect(page.body.count).toBe(all.length);
        }
        expect(values(pages)).toEqual(all);
        // The next link keeps the request's options and adds the token; it needs no Prefer to be followed.
        const link = pages[0]?.body['@odata.nextLink'] as string;
        expect(link.startsWith(`/${collection.slice(1)}?`)).toBe(true);
        expect(link).toContain('$skiptoken=');
        const second = await get(link, undefined);
        expect(second.applied).toBeNull();
        expect(second.body.value).toEqual(pages[1]?.body.value);
      });

      it('$top and $skip apply to the whole result: pages within it', async () => {
        const options = { $orderby: 'createdAt desc', $top: '25', $skip: '5', $count: 'true' };
        const unpaged = await json(await h.api(`/maintenance-tickets${q(options)}`));
        expect((unpaged.value as Json[]).length).toBe(25);
        const pages = await follow(`/maintenance-tickets${q(options)}`, 'odata.maxpagesize=10');
        expect(pages.map((p) => (p.body.value as Json[]).length)).toEqual([10, 10, 5]);
        expect(values(pages)).toEqual(unpaged.value);
        expect(pages.every((p) => p.body.count === unpaged.count)).toBe(true);
        // A $top the page size divides: no link to an empty page.
        const exact = await follow(`/maintenance-tickets${q({ ...options, $top: '20' })}`, 'odata.maxpagesize=10');
        expect(exact.map((p) => (p.body.value as Json[]).length)).toEqual([10, 10]);
        expect(await follow(`/maintenance-tickets${q({ $top: '0' })}`, 'odata.maxpagesize=10')).toHaveLength(1);
      });

      it('a record added behind the reader is not read twice (keyset, not offset)', async () => {
        const first = await get(`/localities${q({ $orderby: 'name' })}`, 'odata.maxpagesize=4');
        const seen = (first.body.value as { name: string }[]).map((l) => l.name);
        // A locality sorting before everything read so far, then the next page.
        const id = newId();
        expect((await h.api('/localities', { method: 'POST', body: JSON.stringify({ id, name: ' Aaa first' }) })).status).toBe(200);
        try {
          const second = await get(first.body['@odata.nextLink'] as string, 'odata.maxpagesize=4');
          const names = (second.body.value as { name: string }[]).map((l) => l.name);
          expect(names.filter((n) => seen.includes(n))).toEqual([]);
          const all = ((await json(await h.api(`/localities${q({ $orderby: 'name' })}`))).value as { name: string }[]).map((l) => l.name);
          expect(names).toEqual(all.slice(all.indexOf(seen[seen.length - 1] as string) + 1).slice(0, 4));
        } finally {
          expect((await h.api(`/localities/${id}`, { method: 'DELETE' })).status).toBe(200);
        }
      });

      it('a malformed, altered or misused $skiptoken is a 400 OData error, never a 500', async () => {
        const path = `/assets${q({ $orderby: 'code', $select: 'code' })}`;
        const link = (await get(path, 'odata.maxpagesize=5')).body['@odata.nextLink'] as string;
        const token = decodeURIComponent(link.slice(link.indexOf('$skiptoken=') + '$skiptoken='.length));
        const [payload, mac] = token.split('.') as [string, string];
        const forged = Buffer.from(JSON.stringify({ after: ["x') or true or ('", '00000000-0000-4000-8000-000000000000'], pageSize: 5 })).toString('base64url');
        const flipped = `${payload.slice(0, -2)}${payload.endsWith('A') ? 'B' : 'A'}${payload.slice(-1)}`;
        const cases: [string, string, 'rw' | 'b'][] = [
          ['garbage', `${path}&$skiptoken=abc`, 'rw'],
          ['empty', `${path}&$skiptoken=`, 'rw'],
          ['a changed payload', `${path}&$skiptoken=${flipped}.${mac}`, 'rw'],
          ['a forged payload with the old signature', `${path}&$skiptoken=${forged}.${mac}`, 'rw'],
          ['no signature', `${path}&$skiptoken=${payload}`, 'rw'],
          ['other query options', `/assets${q({ $orderby: 'name', $select: 'code' })}&$skiptoken=${encodeURIComponent(token)}`, 'rw'],
          ['another collection', `/localities${q({ $orderby: 'code', $select: 'code' })}&$skiptoken=${encodeURIComponent(token)}`, 'rw'],
          ['another tenant', link, 'b'],
          ['two tokens', `${link}&$skiptoken=${encodeURIComponent(token)}`, 'rw'],
        ];
        for (const [name, url, client] of cases) {
          const response = await h.api(url, { client, headers: { prefer: 'odata.maxpagesize=5' } });
          expect({ name, status: response.status }).toEqual({ name, status: 400 });
          const body = await json(response);
          expect(typeof (body.error as Json).code, name).toBe('string');
          expect(['invalid_option_value', 'duplicate_option', 'unknown_property']).toContain((body.error as Json).code);
        }
        // The genuine link still works.
        expect((await get(link, 'odata.maxpagesize=5')).status).toBe(200);
        // $skiptoken belongs to lists: on /$count and a single record it is not supported.
        expect(((await json(await h.api(`/assets/$count?$skiptoken=${encodeURIComponent(token)}`))).error as Json).code).toBe('unsupported_option');
        expect(((await json(await h.api(`/assets/${(assets[0] as Asset).id}?$skiptoken=${encodeURIComponent(token)}`))).error as Json).code).toBe(
          'unsupported_option',
        );
      });
    });

    describe('records: create, read, replace, delete', () => {
      it('POST creates from a client-generated id, GET returns it, PUT replaces, DELETE deletes (200, empty body)', async () => {
        const id = newId();
        const locality = (assets[0] as Asset).localityId;
        const created = await h.api('/assets', {
          method: 'POST',
          body: JSON.stringify({
            id,
            code: 'TST-0001',
            name: 'Test pump',
            localityId: locality,
            status: 'active',
            category: 'pump',
            commissionedAt: '2024-03-01T10:00:00+02:00',
          }),
        });
        expect(created.status).toBe(200);
        expect(await created.text()).toBe('');
        const read = await json(await h.api(`/assets/${id}`));
        expect(read).toMatchObject({
          id,
          code: 'TST-0001',
          name: 'Test pump',
          localityId: locality,
          status: 'active',
          category: 'pump',
          serialNumber: null,
          commissionedAt: '2024-03-01T08:00:00.000Z',
        });
        expect(read.createdAt).toMatch(ISO_INSTANT);
        const replaced = await h.api(`/assets/${id.toUpperCase()}`, {
          method: 'PUT',
          body: JSON.stringify({ ...read, name: 'Renamed pump', status: 'retired', serialNumber: 'SN-1', commissionedAt: null }),
        });
        expect(replaced.status).toBe(200);
        expect(await replaced.text()).toBe('');
        const after = await json(await h.api(`/assets/${id}`));
        expect(after).toMatchObject({ name: 'Renamed pump', status: 'retired', serialNumber: 'SN-1', commissionedAt: null, createdAt: read.createdAt });
        expect(Date.parse(String(after.updatedAt))).toBeGreaterThanOrEqual(Date.parse(String(read.updatedAt)));
        const listed = await json(await h.api(`/assets${q({ $filter: `id eq ${id}`, $count: 'true' })}`));
        expect(listed.count).toBe(1);
        const deleted = await h.api(`/assets/${id}`, { method: 'DELETE' });
        expect(deleted.status).toBe(200);
        expect(await deleted.text()).toBe('');
        const gone = await h.api(`/assets/${id}`);
        expect(gone.status).toBe(404);
        const body = await json(gone);
        expect(body.error).toBe('EntityNotFoundException');
        expect(typeof body.traceId).toBe('string');
        expect((await h.api(`/assets/${id}`, { method: 'DELETE' })).status).toBe(404);
        expect((await h.api(`/assets/${id}`, { method: 'PUT', body: JSON.stringify({ ...read }) })).status).toBe(404);
      });

      it('a duplicate id on create is a 400 ValidationException, the same each time', async () => {
        const id = newId();
        const body = JSON.stringify({ id, name: 'Depot X' });
        expect((await h.api('/localities', { method: 'POST', body })).status).toBe(200);
        const first = await h.api('/localities', { method: 'POST', body });
        const second = await h.api('/localities', { method: 'POST', body });
        expect(first.status).toBe(400);
        expect(second.status).toBe(400);
        const a = await json(first);
        const b = await json(second);
        expect(a.error).toBe('ValidationException');
        expect(String((a.data as Json).Message)).toContain('already exists');
        expect({ error: b.error, data: b.data }).toEqual({ error: a.error, data: a.data });
      });

      it.each([
        ['wrong types', { name: 5, country: true }, ['country', 'name']],
        ['a missing required field', { country: 'NO' }, ['name']],
        ['a blank name', { name: '   ' }, ['name']],
        ['an unknown property', { name: 'X', tenantId: TENANT_B }, ['tenantId']],
        ['a too long value', { name: 'x'.repeat(201) }, ['name']],
        ['a NUL character', { name: 'a\u0000b' }, ['name']],
      ])('%s gives 400 ValidationException naming the fields', async (_name, fields, expected) => {
        const response = await h.api('/localities', { method: 'POST', body: JSON.stringify({ id: newId(), ...fields }) });
        expect(response.status).toBe(400);
        const body = await json(response);
        expect(body.error).toBe('ValidationException');
        expect(((body.data as Json).Errors as { Field: string }[]).map((e) => e.Field)).toEqual(expected);
        expect(typeof (body.data as Json).Message).toBe('string');
      });

      it('checks ids, enums, instants and references', async () => {
        const base = { code: 'TST-X', name: 'X', localityId: (assets[0] as Asset).localityId, status: 'active', category: 'pump' };
        const cases: [Json, string][] = [
          [{ ...base }, 'id'],
          [{ ...base, id: 'not-a-uuid' }, 'id'],
          [{ ...base, id: newId(), status: 'broken' }, 'status'],
          [{ ...base, id: newId(), status: 1 }, 'status'],
          [{ ...base, id: newId(), commissionedAt: 'yesterday' }, 'commissionedAt'],
          [{ ...base, id: newId(), commissionedAt: '2024-02-30T00:00:00Z' }, 'commissionedAt'],
          [{ ...base, id: newId(), commissionedAt: '2024-02-01T00:00:00' }, 'commissionedAt'],
          [{ ...base, id: newId(), localityId: newId() }, 'localityId'],
          [{ ...base, id: newId(), locality: { id: newId() } }, 'locality'],
        ];
        for (const [body, field] of cases) {
          const response = await h.api('/assets', { method: 'POST', body: JSON.stringify(body) });
          expect(response.status, JSON.stringify(body)).toBe(400);
          const error = await json(response);
          expect(error.error).toBe('ValidationException');
          expect(((error.data as Json).Errors as { Field: string }[]).map((e) => e.Field)).toContain(field);
        }
      });

      it('PUT with an id in the body that differs from the URL is a 400', async () => {
        const asset = assets[1] as Asset;
        const response = await h.api(`/assets/${asset.id}`, { method: 'PUT', body: JSON.stringify({ ...asset, id: newId() }) });
        expect(response.status).toBe(400);
      });

      it('a locality that assets refer to cannot be deleted (400); a non-UUID id is a 400; unknown routes 404', async () => {
        const response = await h.api(`/localities/${(assets[0] as Asset).localityId}`, { method: 'DELETE' });
        expect(response.status).toBe(400);
        expect((await json(response)).error).toBe('ValidationException');
        expect((await h.api('/assets/123')).status).toBe(400);
        const unknown = await h.api('/widgets');
        expect(unknown.status).toBe(404);
        expect((await json(unknown)).error).toBe('EntityNotFoundException');
      });

      it('malformed JSON, a wrong content type, an empty body and an oversize body are answered with the envelope', async () => {
        const malformed = await h.api('/localities', { method: 'POST', body: '{"id": "x", "name": ' });
        expect(malformed.status).toBe(400);
        expect((await json(malformed)).error).toBe('ValidationException');
        const array = await h.api('/localities', { method: 'POST', body: '[]' });
        expect(array.status).toBe(400);
        const text = await h.api('/localities', { method: 'POST', body: 'name=x', headers: { 'content-type': 'text/plain' } });
        expect(text.status).toBe(415);
        expect((await json(text)).error).toBe('ValidationException');
        const empty = await h.api('/localities', { method: 'POST', body: '' });
        expect(empty.status).toBe(400);
        const huge = await h.api('/localities', { method: 'POST', body: JSON.stringify({ id: newId(), name: 'x'.repeat(200_000) }) });
        expect(huge.status).toBe(413);
        expect((await json(huge)).error).toBe('ValidationException');
        const proto = await h.api('/localities', { method: 'POST', body: `{"id":"${newId()}","name":"p","__proto__":{"x":1}}` });
        expect(proto.status).toBe(400);
        expect((await h.api('/localities?$top=1')).status).toBe(200);
      });
    });

    describe('tenant isolation', () => {
      it('a record of tenant B is 404 in tenant A, never listed, counted, expanded or filtered there', async () => {
        const countA = (await json(await h.api(`/assets${q({ $count: 'true', $top: '0' })}`))).count as number;
        const localityB = newId();
        const assetB = newId();
        const uniqueName = `Tenant B depot ${localityB}`;
        expect((await h.api('/localities', { client: 'b', method: 'POST', body: JSON.stringify({ id: localityB, name: uniqueName }) })).status).toBe(200);
        expect(
          (
            await h.api('/assets', {
              client: 'b',
              method: 'POST',
              body: JSON.stringify({ id: assetB, code: 'B-1', name: 'B pump', localityId: localityB, status: 'active', category: 'pump' }),
            })
          ).status,
        ).toBe(200);
        // Tenant B sees its own record, with its locality expanded.
        const inB = await json(await h.api(`/assets${q({ $expand: 'locality', $count: 'true' })}`, { client: 'b' }));
        expect(inB.count).toBe(1);
        expect(((inB.value as Json[])[0]?.locality as Json).name).toBe(uniqueName);
        // Tenant A: 404 by id, absent from lists, counts, navigation filters and expansions.
        for (const [method, path] of [
          ['GET', `/assets/${assetB}`],
          ['GET', `/assets/${assetB}?$expand=locality`],
          ['GET', `/localities/${localityB}`],
          ['DELETE', `/assets/${assetB}`],
          ['PUT', `/localities/${localityB}`],
        ] as const) {
          const response = await h.api(path, { method, ...(method === 'PUT' ? { body: JSON.stringify({ name: 'stolen' }) } : {}) });
          expect(response.status, `${method} ${path}`).toBe(404);
          expect((await json(response)).error).toBe('EntityNotFoundException');
        }
        expect((await json(await h.api(`/assets${q({ $count: 'true', $top: '0' })}`))).count).toBe(countA);
        expect((await json(await h.api(`/assets${q({ $filter: `id eq ${assetB}`, $count: 'true' })}`))).count).toBe(0);
        expect((await json(await h.api(`/assets${q({ $filter: `locality/name eq '${uniqueName}'`, $count: 'true' })}`))).count).toBe(0);
        expect((await json(await h.api(`/localities${q({ $filter: `startswith(name,'Tenant B')`, $count: 'true' })}`))).count).toBe(0);
        // A tenant-A asset cannot point at tenant B's locality, and B cannot point at A's.
        const crossA = await h.api('/assets', {
          method: 'POST',
          body: JSON.stringify({ id: newId(), code: 'X', name: 'X', localityId: localityB, status: 'active', category: 'pump' }),
        });
        expect(crossA.status).toBe(400);
        const crossB = await h.api('/assets', {
          client: 'b',
          method: 'POST',
          body: JSON.stringify({ id: newId(), code: 'X', name: 'X', localityId: (assets[0] as Asset).localityId, status: 'active', category: 'pump' }),
        });
        expect(crossB.status).toBe(400);
        // The same id may exist in both tenants without either seeing the other's record.
        expect((await h.api('/localities', { method: 'POST', body: JSON.stringify({ id: localityB, name: 'Same id in A' }) })).status).toBe(200);
        expect((await json(await h.api(`/localities/${localityB}`))).name).toBe('Same id in A');
        expect((await json(await h.api(`/localities/${localityB}`, { client: 'b' }))).name).toBe(uniqueName);
        // B's asset expands to B's locality, not A's record with the same id.
        const expanded = await json(await h.api(`/assets${q({ $expand: 'locality', $filter: `id eq ${assetB}` })}`, { client: 'b' }));
        expect(((expanded.value as Json[])[0]?.locality as Json).name).toBe(uniqueName);
        expect(CLIENT_B.id).not.toBe(h.config.demo.clientId);
      });
      it('row-level security itself limits unqualified SQL to the tenant (the app role cannot bypass it)', async () => {
        const db = h.service.db;
        const countIn = async (tenant: string): Promise<number> =>
          db.withTenant(tenant, 'read', async (tx) => Number((await tx.query('SELECT count(*) AS n FROM assets'))[0]?.n));
        const totalA = (await json(await h.api(`/assets${q({ $count: 'true', $top: '0' })}`))).count as number;
        const totalB = (await json(await h.api(`/assets${q({ $count: 'true', $top: '0' })}`, { client: 'b' }))).count as number;
        expect(totalB).toBeGreaterThan(0);
        expect(await countIn(h.config.demo.tenantId)).toBe(totalA);
        expect(await countIn(TENANT_B)).toBe(totalB);
        expect(await countIn(newId())).toBe(0);
        const [role] = await db.withTenant(TENANT_B, 'read', (tx) =>
          tx.query('SELECT current_user AS name, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user'),
        );
        expect(role).toEqual({ name: 'asset_service_app', rolsuper: false, rolbypassrls: false });
        // Writing another tenant's rows is refused by the policy's WITH CHECK.
        await expect(
          db.withTenant(TENANT_B, 'write', (tx) =>
            tx.query("INSERT INTO localities (tenant_id, id, name, created_at, updated_at) VALUES ($1, $2, 'sneaky', now(), now())", [
              h.config.demo.tenantId,
              newId(),
            ]),
          ),
        ).rejects.toThrow(/row-level security/);
      });
    });

    describe('paging, concurrency and robustness', () => {
      it('pages through a whole collection with $top/$skip/$count, each record exactly once', async () => {
        const top = 37;
        const seen = new Map<string, number>();
        let total: number | undefined;
        for (let skip = 0; total === undefined || skip < total; skip += top) {
          const body = await json(
            await h.api(`/maintenance-tickets${q({ $orderby: 'priority desc,createdAt', $top: String(top), $skip: String(skip), $count: 'true' })}`),
          );
          total = body.count as number;
          const page = body.value as { id: string }[];
          expect(page.length).toBe(Math.min(top, total - skip));
          for (const { id } of page) seen.set(id, (seen.get(id) ?? 0) + 1);
        }
        expect(total).toBe(DEMO_COUNTS.maintenanceTickets);
        expect(seen.size).toBe(total);
        expect([...seen.values()].every((n) => n === 1)).toBe(true);
      });

      it('50 parallel clients writing and reading lose nothing', async () => {
        const before = (await json(await h.api(`/localities${q({ $count: 'true', $top: '0' })}`))).count as number;
        const ids = Array.from({ length: 50 }, () => newId());
        const results = await Promise.all(
          ids.map(async (id, index) => {
            const created = await h.api('/localities', { method: 'POST', body: JSON.stringify({ id, name: `Parallel depot ${index}` }) });
            const replaced = await h.api(`/localities/${id}`, {
              method: 'PUT',
              body: JSON.stringify({ name: `Parallel depot ${index} (renamed)`, country: 'NO' }),
            });
            const read = await h.api(`/localities/${id}`);
            const listed = await h.api(`/localities${q({ $filter: `id eq ${id}` })}`);
            return { created: created.status, replaced: replaced.status, read: await json(read), listed: ((await json(listed)).value as Json[]).length };
          }),
        );
        results.forEach((result, index) => {
          expect(result.created).toBe(200);
          expect(result.replaced).toBe(200);
          expect(result.read).toMatchObject({ id: ids[index], name: `Parallel depot ${index} (renamed)`, country: 'NO' });
          expect(result.listed).toBe(1);
        });
        const after = await json(await h.api(`/localities${q({ $count: 'true', $filter: "startswith(name,'Parallel depot')" })}`));
        expect(after.count).toBe(50);
        expect((await json(await h.api(`/localities${q({ $count: 'true', $top: '0' })}`))).count).toBe(before + 50);
      });

      it('a huge $filter, a deeply nested one and an oversize URL get the right error while the server keeps serving', async () => {
        // Under the 16 KiB header limit, far over the 100-node limit.
        const huge = Array.from({ length: 400 }, (_, i) => `name eq 'n${i}'`).join(' or ');
        expect(huge.length).toBeGreaterThan(7_000);
        const tooMany = await h.api(`/localities${q({ $filter: huge })}`);
        expect(tooMany.status).toBe(400);
        expect(((await json(tooMany)).error as Json).code).toBe('node_count_exceeded');
        const deep = `${'('.repeat(5000)}name eq 'x'${')'.repeat(5000)}`;
        const tooDeep = await h.api(`/localities${q({ $filter: deep })}`);
        expect(tooDeep.status).toBe(400);
        expect(((await json(tooDeep)).error as Json).code).toBe('too_deep');
        const notDeep = await h.api(`/localities${q({ $filter: `${'('.repeat(50)}name eq 'x'${')'.repeat(50)}` })}`);
        expect(notDeep.status).toBe(200);
        const enormous = await h.api(`/localities?$filter=${'x'.repeat(100_000)}`);
        expect(enormous.status).toBe(431);
        expect((await h.api(`/localities${q({ $top: '1' })}`)).status).toBe(200);
      });

      it('an unexpected failure is a 500 Exception whose traceId is in the server log', async () => {
        await h.service.db.exec('ALTER TABLE inspections RENAME TO inspections_away');
        try {
          const response = await h.api('/inspections');
          expect(response.status).toBe(500);
          const body = await json(response);
          expect(body.error).toBe('Exception');
          expect(body.data).toEqual({ Message: 'An unexpected error occurred.' });
          expect(JSON.stringify(body)).not.toContain('inspections');
          const traceId = String(body.traceId);
          expect(traceId).toMatch(/^[0-9a-f-]{36}$/);
          expect(response.headers.get('trace-id')).toBe(traceId);
          const line = h.logs.find((l) => l.includes(traceId) && JSON.parse(l).level === 50);
          expect(line).toBeDefined();
          expect(line).toContain('inspections');
        } finally {
          await h.service.db.exec('ALTER TABLE inspections_away RENAME TO inspections');
        }
        expect((await h.api(`/inspections${q({ $top: '1' })}`)).status).toBe(200);
      });
    });
  });
}
