/**
 * Every route of the service that serves a list × every query option it accepts (issue 26): the
 * collections (`/localities`, `/assets`, `/maintenance-tickets`, `/inspections`) and the navigation
 * lists (`/localities/{id}/assets`, `/assets/{id}/maintenanceTickets`, `/assets/{id}/inspections`),
 * each with `$filter`, `$orderby`, `$select`, `$expand`, `$top`, `$skip`, `$count`, `$search`,
 * `$compute`, `$format`, `$apply` (filter, identity, compute, search, groupby, aggregate, concat,
 * topcount, toppercent, orderby/top) and `$skiptoken` (server-driven paging), and options the
 * service does not take. Each answer is a 200 `{ value[, count] }` list or, for an option the route
 * refuses, a 400 error body (501 for `$index`, which the library does not implement) — never a 500.
 * A navigation list must answer what its collection answers for the same options with the
 * relation as a first `filter()` of `$apply` (or ANDed into `$filter`): `$apply` on a navigation
 * list groups, counts and ranks its own records only.
 *
 * And `$skiptoken` is bound to the list it continues: a token of `/maintenance-tickets` on `/assets`,
 * of one asset's tickets on another's, or altered, is a 400 `invalid_option_value`.
 *
 * On PGlite, and on the live PostgreSQL of ODATA_TEST_POSTGRES_URL when it is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

type Json = Record<string, unknown>;

/** What a list route's records are: the names its options use. */
interface Profile {
  /** A string property. */
  readonly text: string;
  /** A property to group by (an enum or a short string). */
  readonly group: string;
  /** A navigation property to expand and to group along (`nav/prop`). */
  readonly expand: string;
  readonly navPath: string;
  /** A lambda or path condition through a navigation property. */
  readonly navFilter: string;
  /** An `$orderby` key through a navigation property. */
  readonly navOrder: string;
  /** Whether `$search` is allowed. */
  readonly searchable: boolean;
}

const PROFILES: Readonly<Record<string, Profile>> = {
  localities: {
    text: 'name',
    group: 'country',
    expand: 'assets',
    navPath: 'assets/$count',
    navFilter: "assets/any(a: a/status eq 'active')",
    navOrder: 'assets/$count desc',
    searchable: false,
  },
  assets: {
    text: 'code',
    group: 'status',
    expand: 'locality',
    navPath: 'locality/name',
    navFilter: 'maintenanceTickets/any() or inspections/all(i: i/result ne null)',
    navOrder: 'locality/name',
    searchable: false,
  },
  maintenanceTickets: {
    text: 'code',
    group: 'priority',
    expand: 'asset',
    navPath: 'asset/code',
    navFilter: "asset/status ne 'retired'",
    navOrder: 'asset/code desc',
    searchable: false,
  },
  inspections: {
    text: 'name',
    group: 'result',
    expand: 'asset',
    navPath: 'asset/code',
    navFilter: "asset/status ne 'retired'",
    navOrder: 'asset/code desc',
    searchable: true,
  },
};

/** One query option case: its options, and how its rows are compared between two lists. */
interface Case {
  readonly name: string;
  readonly options: Record<string, string>;
  /** `ordered`: in order; `multiset`: the same rows in any order; `size`: as many rows (ties may pick others). */
  readonly compare: 'ordered' | 'multiset' | 'size';
  /** A `Prefer: odata.maxpagesize` to page with (the pages followed to the end). */
  readonly pageSize?: number;
  /** Whether the route must refuse it (400): `$search` where the set is not searchable. */
  readonly refused?: boolean;
}

function cases(p: Profile): Case[] {
  const groupPath = p.navPath.endsWith('/$count') ? p.group : p.navPath;
  const list: Case[] = [
    { name: '$filter', options: { $filter: `${p.text} ne 'zz' and id ne null` }, compare: 'multiset' },
    { name: '$orderby', options: { $orderby: `${p.text} desc,id` }, compare: 'ordered' },
    { name: '$select', options: { $select: `id,${p.text}` }, compare: 'multiset' },
    { name: '$expand', options: { $expand: p.expand, $select: 'id' }, compare: 'multiset' },
    { name: '$top', options: { $top: '3', $orderby: 'id' }, compare: 'ordered' },
    { name: '$skip', options: { $skip: '2', $orderby: 'id' }, compare: 'ordered' },
    { name: '$count', options: { $count: 'true', $top: '0' }, compare: 'ordered' },
    { name: '$search', options: { $search: 'a' }, compare: 'multiset', refused: !p.searchable },
    { name: '$filter through a navigation', options: { $filter: p.navFilter }, compare: 'multiset' },
    { name: '$orderby through a navigation', options: { $orderby: `${p.navOrder},id`, $top: '5' }, compare: 'ordered' },
    { name: '$expand with nested options', options: { $expand: `${p.expand}($select=id)`, $select: `id,${p.text}` }, compare: 'multiset' },
    { name: '$format=json', options: { $format: 'json', $top: '1', $orderby: 'id' }, compare: 'ordered' },
    { name: 'a custom option', options: { page: '2' }, compare: 'ordered', refused: true },
    { name: '$index', options: { $index: '1' }, compare: 'ordered', refused: true },
    { name: '$compute', options: { $compute: `length(${p.text}) as len`, $select: 'id,len', $filter: 'len gt 0' }, compare: 'multiset' },
    { name: '$apply=filter', options: { $apply: `filter(${p.text} ne 'zz')`, $count: 'true' }, compare: 'multiset' },
    { name: '$apply=identity', options: { $apply: 'identity' }, compare: 'multiset' },
    { name: '$apply=compute', options: { $apply: `compute(length(${p.text}) as len)`, $select: 'id,len' }, compare: 'multiset' },
    { name: '$apply=aggregate', options: { $apply: 'aggregate($count as n)' }, compare: 'ordered' },
    {
      name: '$apply=aggregate of a navigation',
      options: { $apply: p.navPath.endsWith('/$count') ? `aggregate(${p.navPath} as n)` : `aggregate(${p.expand}/$count as n)` },
      compare: 'ordered',
    },
    { name: '$apply=groupby', options: { $apply: `groupby((${p.group}))` }, compare: 'multiset' },
    { name: '$apply=groupby along a navigation', options: { $apply: `groupby((${groupPath}),aggregate($count as n))` }, compare: 'multiset' },
    {
      name: '$apply=groupby/aggregate with the request options after it',
      options: { $apply: `groupby((${p.group}),aggregate($count as n))`, $filter: 'n ge 1', $orderby: `n desc,${p.group}`, $top: '2', $count: 'true' },
      compare: 'ordered',
    },
    { name: '$apply=concat', options: { $apply: `concat(aggregate($count as n),groupby((${p.group}),aggregate($count as n)))` }, compare: 'multiset' },
    { name: '$apply=topcount', options: { $apply: `topcount(2,length(${p.text}))` }, compare: 'size' },
    { name: '$apply=toppercent', options: { $apply: `toppercent(50,length(${p.text}))` }, compare: 'size' },
    { name: '$apply=search', options: { $apply: 'search(a)' }, compare: 'multiset', refused: !p.searchable },
    { name: '$apply with $expand after a filter', options: { $apply: `filter(${p.text} ne 'zz')`, $expand: p.expand, $select: 'id' }, compare: 'multiset' },
    { name: '$skiptoken with $search', options: { $search: 'a', $orderby: 'id' }, compare: 'ordered', pageSize: 2, refused: !p.searchable },
    { name: '$apply=orderby/top', options: { $apply: 'orderby(id desc)/top(2)' }, compare: 'ordered' },
    { name: '$skiptoken (keyset)', options: { $orderby: `${p.text},id`, $select: `id,${p.text}`, $count: 'true' }, compare: 'ordered', pageSize: 2 },
    { name: '$skiptoken (offset)', options: { $orderby: `length(${p.text}) desc,id` }, compare: 'ordered', pageSize: 3 },
    {
      name: '$skiptoken with $apply',
      options: { $apply: `groupby((${p.group}),aggregate($count as n))`, $orderby: p.group, $count: 'true' },
      compare: 'ordered',
      pageSize: 1,
    },
    { name: '$skiptoken with $top and $skip', options: { $orderby: 'id', $top: '3', $skip: '1' }, compare: 'ordered', pageSize: 2 },
  ];
  return list;
}

/** A list route: its path, the entity set of its records, and (for a navigation list) the relation as a filter of its collection. */
interface Route {
  readonly path: string;
  readonly set: string;
  readonly collection: string;
  readonly relation?: string;
}

/** Percent-encodes each option value. */
function q(options: Record<string, string>): string {
  const entries = Object.entries(options);
  return entries.length === 0 ? '' : `?${entries.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')}`;
}

/** The collection's options that give a navigation list's answer: the relation first. */
function onCollection(options: Record<string, string>, relation: string): Record<string, string> {
  if (options.$apply !== undefined) return { ...options, $apply: `filter(${relation})/${options.$apply}` };
  return { ...options, $filter: options.$filter === undefined ? relation : `(${options.$filter}) and ${relation}` };
}

const sortKey = (row: unknown): string => JSON.stringify(row);

function listSuite(label: string, postgresUrl?: string): void {
  describe(`every list route × every query option on ${label}`, () => {
    let h: Harness;
    let routes: Route[] = [];
    const asJson = async (response: Response): Promise<Json> => (await response.json()) as Json;

    beforeAll(async () => {
      h = await startHarness(postgresUrl);
      // Parents that have related records: an asset with tickets, one with inspections, a locality.
      const ticket = ((await asJson(await h.api('/maintenance-tickets?$top=1&$orderby=code'))).value as Json[])[0] as Json;
      const inspection = ((await asJson(await h.api('/inspections?$top=1&$orderby=name'))).value as Json[])[0] as Json;
      const asset = ((await asJson(await h.api('/assets?$top=1&$orderby=code'))).value as Json[])[0] as Json;
      routes = [
        { path: '/localities', set: 'localities', collection: '/localities' },
        { path: '/assets', set: 'assets', collection: '/assets' },
        { path: '/maintenance-tickets', set: 'maintenanceTickets', collection: '/maintenance-tickets' },
        { path: '/inspections', set: 'inspections', collection: '/inspections' },
        { path: `/localities/${String(asset.localityId)}/assets`, set: 'assets', collection: '/assets', relation: `localityId eq ${String(asset.localityId)}` },
        {
          path: `/assets/${String(ticket.assetId)}/maintenanceTickets`,
          set: 'maintenanceTickets',
          collection: '/maintenance-tickets',
          relation: `assetId eq ${String(ticket.assetId)}`,
        },
        {
          path: `/assets/${String(inspection.assetId)}/inspections`,
          set: 'inspections',
          collection: '/inspections',
          relation: `assetId eq ${String(inspection.assetId)}`,
        },
      ];
    }, 120_000);
    afterAll(async () => {
      await h?.close();
    }, 60_000);

    /** The rows (every page followed) and count of a list, or its error; 500s and other statuses fail. */
    async function read(path: string, pageSize?: number): Promise<{ status: number; value?: unknown[]; count?: number; code?: string; pages: number }> {
      const headers = pageSize === undefined ? undefined : { prefer: `odata.maxpagesize=${pageSize}` };
      let next: string | undefined = path;
      const value: unknown[] = [];
      let count: number | undefined;
      let pages = 0;
      while (next !== undefined) {
        const response = await h.api(next, headers === undefined ? {} : { headers });
        const body = await asJson(response);
        if (response.status === 400 || (response.status === 501 && path.includes('$index'))) {
          // An OData query error ({ error: { code } }) or the application envelope (ValidationException);
          // 501 for a system query option the library does not implement ($index; docs/frameworks.md).
          const code = typeof body.error === 'string' ? body.error : ((body.error as Json | undefined)?.code as string | undefined);
          expect(code, `${path}: ${JSON.stringify(body)}`).toEqual(expect.any(String));
          return { status: response.status, code, pages };
        }
        expect(response.status, `${next}: ${JSON.stringify(body).slice(0, 400)}`).toBe(200);
        expect(
          Object.keys(body).filter((k) => !['value', 'count', '@odata.nextLink'].includes(k)),
          next,
        ).toEqual([]);
        expect(Array.isArray(body.value), next).toBe(true);
        value.push(...(body.value as unknown[]));
        if (body.count !== undefined) count = body.count as number;
        next = body['@odata.nextLink'] as string | undefined;
        pages++;
        expect(pages, next).toBeLessThan(400);
      }
      return { status: 200, value, ...(count === undefined ? {} : { count }), pages };
    }

    it('answers each option on each list route with a list or a 400, and a navigation list as its collection with the relation first', async () => {
      const problems: string[] = [];
      let lists = 0;
      for (const route of routes) {
        const profile = PROFILES[route.set] as Profile;
        for (const c of cases(profile)) {
          const path = `${route.path}${q(c.options)}`;
          let got: Awaited<ReturnType<typeof read>>;
          try {
            got = await read(path, c.pageSize);
          } catch (error) {
            problems.push(`${path}: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}`);
            continue;
          }
          // Refused: $search where the set is not searchable, options the service does not implement.
          if ((c.refused === true) !== (got.status !== 200)) {
            problems.push(`${path}: ${got.status} ${got.code ?? ''}`);
            continue;
          }
          if (got.status !== 200) continue;
          lists++;
          if (c.options.$count === 'true' && got.count === undefined) problems.push(`${path}: no count`);
          if (c.pageSize !== undefined && (got.value?.length ?? 0) > c.pageSize && got.pages < 2) problems.push(`${path}: not paged`);
          if (route.relation === undefined) continue;
          const expected = await read(`${route.collection}${q(onCollection(c.options, route.relation))}`, c.pageSize);
          const actual = got.value ?? [];
          const wanted = expected.value ?? [];
          const same =
            c.compare === 'size'
              ? actual.length === wanted.length
              : c.compare === 'ordered'
                ? sortKey(actual) === sortKey(wanted)
                : sortKey(actual.map(sortKey).sort()) === sortKey(wanted.map(sortKey).sort());
          if (!same || got.count !== expected.count)
            problems.push(
              `${path}: ${JSON.stringify({ count: got.count, value: actual }).slice(0, 300)}\n    expected ${JSON.stringify({ count: expected.count, value: wanted }).slice(0, 300)}`,
            );
        }
      }
      expect(problems.join('\n')).toBe('');
      // Every case is a list but those refused: 2 on each route, 3 more on each but those of inspections.
      expect(lists).toBe(routes.length * (cases(PROFILES.assets as Profile).length - 2) - 3 * 5);
    }, 300_000);

    it('a navigation list with $apply counts, groups and ranks its own records only', async () => {
      const route = routes[5] as Route;
      const related = (await read(`${route.path}?$select=id,priority`)).value as Json[];
      expect(related.length).toBeGreaterThan(0);
      const counted = await read(`${route.path}${q({ $apply: 'aggregate($count as n)' })}`);
      expect(counted.value).toEqual([{ n: related.length }]);
      const grouped = (await read(`${route.path}${q({ $apply: 'groupby((priority),aggregate($count as n))' })}`)).value as Json[];
      const byPriority = new Map<unknown, number>();
      for (const row of related) byPriority.set(row.priority, (byPriority.get(row.priority) ?? 0) + 1);
      expect(new Map(grouped.map((g) => [g.priority, g.n]))).toEqual(byPriority);
      const top = (await read(`${route.path}${q({ $apply: 'topcount(1,length(code))', $select: 'id' })}`)).value as Json[];
      expect(top).toHaveLength(1);
      expect(related.map((r) => r.id)).toContain(top[0]?.id);
    }, 60_000);

    it('a single record, a single-valued navigation and /$count refuse $apply as they refuse the other list options', async () => {
      const ticket = ((await read('/maintenance-tickets?$top=1&$orderby=id')).value as Json[])[0] as Json;
      for (const path of [`/assets/${String(ticket.assetId)}`, `/maintenance-tickets/${String(ticket.id)}/asset`, '/assets/$count']) {
        for (const apply of ['aggregate($count as n)', 'identity', 'topcount(1,length(code))']) {
          const response = await h.api(`${path}${q({ $apply: apply })}`);
          const body = await asJson(response).catch(() => ({}) as Json);
          const code = (body.error as Json | undefined)?.code ?? body.error;
          expect({ path, apply, status: response.status, code }).toEqual({ path, apply, status: 400, code: 'unsupported_option' });
        }
      }
    });

    describe('$skiptoken is bound to the list it continues', () => {
      const tokenOf = (link: string): string => decodeURIComponent(link.slice(link.indexOf('$skiptoken=') + '$skiptoken='.length));
      const firstLink = async (path: string): Promise<string> => {
        const body = await asJson(await h.api(path, { headers: { prefer: 'odata.maxpagesize=1' } }));
        expect(typeof body['@odata.nextLink'], path).toBe('string');
        return body['@odata.nextLink'] as string;
      };
      const expectRefused = async (path: string): Promise<void> => {
        const response = await h.api(path, { headers: { prefer: 'odata.maxpagesize=1' } });
        const body = await asJson(response);
        expect({ path, status: response.status, code: (body.error as Json | undefined)?.code }).toEqual({ path, status: 400, code: 'invalid_option_value' });
        expect((body.error as Json).target).toBe('$skiptoken');
      };

      it('a token of another collection with the same options is a 400', async () => {
        const token = tokenOf(await firstLink('/maintenance-tickets?$orderby=code'));
        await expectRefused(`/assets?$orderby=code&$skiptoken=${encodeURIComponent(token)}`);
        // The same collection under its entity set's name is the same list.
        expect((await h.api(`/maintenanceTickets?$orderby=code&$skiptoken=${encodeURIComponent(token)}`)).status).toBe(200);
        expect((await h.api(`/maintenance-tickets?$orderby=code&$skiptoken=${encodeURIComponent(token)}`)).status).toBe(200);
      });

      it("a token of one record's navigation list on another record's, or on the collection, is a 400", async () => {
        const tickets = (await read('/maintenance-tickets?$select=assetId&$orderby=id')).value as Json[];
        const perAsset = new Map<string, number>();
        for (const t of tickets) perAsset.set(t.assetId as string, (perAsset.get(t.assetId as string) ?? 0) + 1);
        const [a, b] = [...perAsset.entries()].filter(([, n]) => n >= 2).map(([id]) => id);
        expect(b).toBeDefined();
        const link = await firstLink(`/assets/${a}/maintenanceTickets?$orderby=code`);
        expect(link.startsWith(`/assets/${a}/maintenanceTickets?`)).toBe(true);
        const token = encodeURIComponent(tokenOf(link));
        await expectRefused(`/assets/${b}/maintenanceTickets?$orderby=code&$skiptoken=${token}`);
        await expectRefused(`/maintenance-tickets?$orderby=code&$skiptoken=${token}`);
        await expectRefused(`/assets/${a}/inspections?$orderby=name&$skiptoken=${token}`);
        // The genuine continuation, also as the conventional URL (`/assets(<id>)/…`).
        const next = await h.api(link, { headers: { prefer: 'odata.maxpagesize=1' } });
        expect(next.status).toBe(200);
        const second = ((await asJson(next)).value as Json[])[0] as Json;
        expect(second.assetId).toBe(a);
        expect((await h.api(`/assets(${a as string})/maintenanceTickets?$orderby=code&$skiptoken=${token}`)).status).toBe(200);
        // A collection's token on a navigation list.
        const collection = encodeURIComponent(tokenOf(await firstLink('/maintenance-tickets?$orderby=code')));
        await expectRefused(`/assets/${a}/maintenanceTickets?$orderby=code&$skiptoken=${collection}`);
        // Another tenant's request with the genuine link.
        const other = await h.api(link, { client: 'b' });
        expect(other.status).toBeGreaterThanOrEqual(400);
        expect(other.status).toBeLessThan(500);
      });
    });
  });
}

listSuite('PGlite');
const url = process.env.ODATA_TEST_POSTGRES_URL;
if (url !== undefined && url !== '') listSuite('live PostgreSQL', url);
