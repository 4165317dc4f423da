/**
 * The geo functions (issue 28): `geo.distance`, `geo.length`, `geo.intersects` over
 * `geography'…'`/`geometry'…'` literals and spatial properties.
 *
 * - The reference (src/reference/geo.ts) against values computed here another way: great-circle
 *   distances by the haversine formula (the reference uses the atan2 form), published city
 *   distances, lengths along the equator and a meridian, planar distances and lengths, and
 *   point-in-polygon with holes, vertices, edges and the bulge of a great-circle edge.
 * - The same queries on a live PostgreSQL with PostGIS and a live MariaDB, against the reference
 *   (doubles within a relative tolerance, Booleans and rows exactly, values read back as GeoJSON).
 *   Skipped without `ODATA_TEST_POSTGRES_URL` / `ODATA_TEST_MYSQL_URL` (or without the PostGIS
 *   extension), required with `CI=true`.
 * - The refusals of the other targets, as `ODataError`s with their code.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindQuery,
  compileQuery,
  createTableSql,
  defineModel,
  DIALECTS,
  jsonRecord,
  ODataError,
  readSqlRows,
  toMongo,
  toSql,
  type BoundQuery,
  type Dialect,
  type Row,
} from '../../src/index.js';
import { sqlFunctionRefusal } from '../../src/backends/sql/functions.js';
import { EARTH_RADIUS, geoFamilyOf, parseWkt, readGeo, toWkt } from '../../src/reference/geo.js';
import { mysqlServer, type Engine } from '../fixtures/sql-engines.js';

const CI = process.env.CI === 'true';

const model = defineModel({
  namespace: 'Geo',
  entityTypes: {
    Place: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        p: 'Edm.GeographyPoint',
        zone: 'Edm.GeographyPolygon',
        route: 'Edm.GeographyLineString',
        gp: 'Edm.GeometryPoint',
        gzone: 'Edm.GeometryPolygon',
        gline: 'Edm.GeometryLineString',
        nextId: 'Edm.Int32',
      },
      navigation: { next: { type: 'Place', constraints: { nextId: 'id' } } },
    },
  },
  entitySets: { geo_places: { type: 'Place' } },
});
const SET = 'geo_places';

const point = (x: number, y: number): Row => ({ type: 'Point', coordinates: [x, y] });
const line = (...positions: number[][]): Row => ({ type: 'LineString', coordinates: positions });
const polygon = (...rings: number[][][]): Row => ({ type: 'Polygon', coordinates: rings });
const square = (x0: number, y0: number, x1: number, y1: number): number[][] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];

// Cities (longitude, latitude), as published (WGS 84, to 4 decimals).
const PARIS = [2.3522, 48.8566];
const LONDON = [-0.1278, 51.5074];
const NEW_YORK = [-74.006, 40.7128];
const TOKYO = [139.6917, 35.6895];
const SYDNEY = [151.2093, -33.8688];

/** A square of 10° with a hole of 2°, and a triangle; the same shapes as geometry. */
const ZONE = polygon(square(0, 0, 10, 10), square(4, 4, 6, 6));
const rows: Row[] = [
  {
    id: 1,
    name: 'Paris',
    p: point(PARIS[0]!, PARIS[1]!),
    zone: ZONE,
    route: line(PARIS, LONDON),
    gp: point(3, 4),
    gzone: ZONE,
    gline: line([0, 0], [3, 4], [3, 16]),
    nextId: 2,
  },
  {
    id: 2,
    name: 'London',
    p: point(LONDON[0]!, LONDON[1]!),
    zone: polygon(square(-1, 51, 0, 52)),
    route: line(LONDON, NEW_YORK, TOKYO),
    gp: point(-3, -4),
    gzone: polygon(square(-5, -5, 0, 0)),
    gline: line([1, 1], [1, 1]),
    nextId: 3,
  },
  {
    id: 3,
    name: 'New York',
    p: point(NEW_YORK[0]!, NEW_YORK[1]!),
    zone: ZONE,
    route: line([0, 0], [1, 0], [2, 0]),
    gp: point(5, 5),
    gzone: ZONE,
    gline: line([0, 0], [0, 1]),
    nextId: 1,
  },
  {
    id: 4,
    name: 'Tokyo',
    p: point(TOKYO[0]!, TOKYO[1]!),
    zone: ZONE,
    route: line([10, 0], [10, 45]),
    gp: point(0, 5),
    gzone: ZONE,
    gline: line([-2.5, 0.5], [7.25, -1.125]),
    nextId: 6,
  },
  {
    id: 5,
    name: 'Sydney',
    p: point(SYDNEY[0]!, SYDNEY[1]!),
    zone: ZONE,
    route: line(SYDNEY, TOKYO),
    gp: point(4, 5),
    gzone: ZONE,
    gline: line([0, 0], [1e6, 1e6]),
    nextId: null,
  },
  { id: 6, name: 'nothing', p: null, zone: null, route: null, gp: null, gzone: null, gline: null, nextId: null },
];

const R = EARTH_RADIUS;
const RAD = Math.PI / 180;

/** Great-circle distance by the haversine formula: another code path than the reference's atan2 form. */
function haversine([lon1, lat1]: number[], [lon2, lat2]: number[], radius = R): number {
  const h = Math.sin(((lat2! - lat1!) * RAD) / 2) ** 2 + Math.cos(lat1! * RAD) * Math.cos(lat2! * RAD) * Math.sin(((lon2! - lon1!) * RAD) / 2) ** 2;
  return 2 * radius * Math.asin(Math.min(1, Math.sqrt(h)));
}

const bind = (query: string): BoundQuery => bindQuery(query, { model, entitySet: SET });

/** The reference's OData JSON records of a query. */
function reference(query: string): Record<string, unknown>[] {
  const bound = bind(query);
  return compileQuery(bound, { data: { [SET]: rows } })
    .apply(rows)
    .value.map((row) => jsonRecord(bound, row as Record<string, unknown>));
}

/** The reference's value of one call on the row `id` (as `$compute`). */
function valueOf(call: string, id = 1): unknown {
  return reference(`$filter=id eq ${id}&$compute=${call} as v&$select=v`)[0]?.v;
}

const close = (actual: unknown, expected: number, relative = 1e-12): void => {
  expect(typeof actual).toBe('number');
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(relative * Math.max(1, Math.abs(expected)));
};

describe('spatial values', () => {
  it('parse every WKT form of the ABNF to GeoJSON with its CRS, and back to OGC WKT', () => {
    const crs = (srid: number) => ({ type: 'name', properties: { name: `EPSG:${srid}` } });
    expect(parseWkt('SRID=0;Point(142.1 64.1)', 'geometry')).toEqual({ type: 'Point', coordinates: [142.1, 64.1], crs: crs(0) });
    expect(parseWkt('Point(1 2 3 4)', 'geography')).toEqual({ type: 'Point', coordinates: [1, 2, 3, 4], crs: crs(4326) });
    expect(parseWkt('SRID=4326;LineString(1 2,3 4)', 'geography')).toEqual({
      type: 'LineString',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
      crs: crs(4326),
    });
    expect(parseWkt('SRID=0;Polygon((0 0,1 0,1 1,0 0),(0.1 0.1,0.2 0.1,0.2 0.2,0.1 0.1))', 'geometry').type).toBe('Polygon');
    expect(parseWkt('SRID=4326;MultiPoint((1 2),(3 4))', 'geography')).toEqual({
      type: 'MultiPoint',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
      crs: crs(4326),
    });
    expect(parseWkt('SRID=4326;MultiPoint()', 'geography')).toEqual({ type: 'MultiPoint', coordinates: [], crs: crs(4326) });
    expect(parseWkt('SRID=4326;MultiLineString((1 2,3 4),(5 6,7 8))', 'geography')).toMatchObject({
      type: 'MultiLineString',
      coordinates: [
        [
          [1, 2],
          [3, 4],
        ],
        [
          [5, 6],
          [7, 8],
        ],
      ],
    });
    expect(parseWkt('SRID=4326;MultiPolygon(((0 0,1 0,1 1,0 0)),((2 2,3 2,3 3,2 2)))', 'geography')).toMatchObject({ type: 'MultiPolygon' });
    const collection = parseWkt('SRID=3857;Collection(Point(1 2),LineString(1 2,3 4),Collection())', 'geometry');
    expect(collection).toEqual({
      type: 'GeometryCollection',
      geometries: [
        { type: 'Point', coordinates: [1, 2] },
        {
          type: 'LineString',
          coordinates: [
            [1, 2],
            [3, 4],
          ],
        },
        { type: 'GeometryCollection', geometries: [] },
      ],
      crs: crs(3857),
    });
    expect(toWkt(collection, 'geometry')).toEqual({ wkt: 'GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(1 2,3 4),GEOMETRYCOLLECTION EMPTY)', srid: 3857 });
    expect(toWkt(parseWkt('MultiPoint((1 2),(3 4))', 'geography'), 'geography')).toEqual({ wkt: 'MULTIPOINT(1 2,3 4)', srid: 4326 });
    // Rows and drivers: GeoJSON objects or text, with or without a CRS.
    expect(readGeo('{"type":"Point","coordinates":[1,2]}', 'geometry')).toEqual({ type: 'Point', coordinates: [1, 2], crs: crs(0) });
    expect(readGeo({ type: 'Point', coordinates: [1, 2], crs: crs(3857) }, 'geometry')).toEqual({ type: 'Point', coordinates: [1, 2], crs: crs(3857) });
    expect(readGeo({ type: 'Point', coordinates: ['x', 2] }, 'geometry')).toBeNull();
    expect(geoFamilyOf('Edm.GeometryMultiPolygon')).toBe('geometry');
    // PostGIS's own output (hex EWKB, what a geography becomes inside json_build_object) and MariaDB's internal bytes.
    const holed =
      '0103000020E610000002000000050000000000000000000000000000000000000000000000000024400000000000000000000000000000244000000000000024400000000000000000000000000000244000000000000000000000000000000000050000000000000000001040000000000000104000000000000018400000000000001040000000000000184000000000000018400000000000001040000000000000184000000000000010400000000000001040';
    expect(readGeo(holed, 'geography')).toEqual({ ...readGeo(ZONE, 'geography'), crs: crs(4326) });
    const collection3857 =
      '0107000020110F0000030000000101000000000000000000F03F00000000000000400104000000020000000101000000000000000000F03F000000000000004001010000000000000000000840000000000000104001020000000200000000000000000000000000000000000000000000000000F03F000000000000F03F';
    expect(readGeo(collection3857, 'geometry')).toEqual(parseWkt('SRID=3857;Collection(Point(1 2),MultiPoint((1 2),(3 4)),LineString(0 0,1 1))', 'geometry'));
    expect(readGeo('0101000080000000000000F03F00000000000000400000000000000840', 'geometry')).toEqual(parseWkt('Point(1 2 3)', 'geometry'));
    expect(readGeo(Uint8Array.from(Buffer.from('E61000000101000000000000000000F03F0000000000000040', 'hex')), 'geography')).toEqual(
      parseWkt('Point(1 2)', 'geography'),
    );
    expect(readGeo('0101', 'geometry')).toBeNull();
  });

  it('are written as GeoJSON in OData JSON, a literal as the same form as a row', () => {
    expect(reference('$filter=id eq 1&$select=p')).toEqual([
      { p: { type: 'Point', coordinates: PARIS, crs: { type: 'name', properties: { name: 'EPSG:4326' } } } },
    ]);
    expect(reference("$filter=id eq 1&$compute=geography'SRID=4326;Point(2.3522 48.8566)' as q&$select=p,q")).toEqual([
      { p: reference('$filter=id eq 1&$select=p')[0]?.p, q: reference('$filter=id eq 1&$select=p')[0]?.p },
    ]);
    expect(bind("$filter=geo.intersects(geography'Point(1 2)',zone)").filter).toMatchObject({ args: [{ type: { name: 'Edm.GeographyPoint' } }, {}] });
  });
});

describe('the reference', () => {
  it('gives great-circle distances on the sphere of radius (2a + b) / 3 of WGS 84, as the haversine formula does', () => {
    expect(R).toBeCloseTo(6371008.7714, 4);
    const cities = [PARIS, LONDON, NEW_YORK, TOKYO, SYDNEY];
    for (const a of cities)
      for (const b of cities) {
        const d = valueOf(`geo.distance(geography'SRID=4326;Point(${a[0]} ${a[1]})',geography'SRID=4326;Point(${b[0]} ${b[1]})')`);
        close(d, haversine(a, b), 1e-11);
      }
    // A property and a literal; the published great-circle distances (km, to 1%).
    close(valueOf(`geo.distance(p,geography'Point(${LONDON[0]} ${LONDON[1]})')`, 1), haversine(PARIS, LONDON), 1e-11);
    const km = (a: number[], b: number[]) => (valueOf(`geo.distance(geography'Point(${a[0]} ${a[1]})',geography'Point(${b[0]} ${b[1]})')`) as number) / 1000;
    expect(km(PARIS, LONDON)).toBeCloseTo(344, -1);
    expect(Math.abs(km(LONDON, NEW_YORK) - 5570) / 5570).toBeLessThan(0.01);
    expect(Math.abs(km(TOKYO, SYDNEY) - 7820) / 7820).toBeLessThan(0.01);
    // One degree along the equator and a meridian: R·π/180; antipodes: R·π.
    close(valueOf("geo.distance(geography'Point(0 0)',geography'Point(1 0)')"), (R * Math.PI) / 180);
    close(valueOf("geo.distance(geography'Point(30 10)',geography'Point(30 11)')"), (R * Math.PI) / 180);
    close(valueOf("geo.distance(geography'Point(0 0)',geography'Point(180 0)')"), R * Math.PI);
    expect(valueOf("geo.distance(geography'Point(7 7)',geography'Point(7 7)')")).toBe(0);
  });

  it('gives planar distances for geometry', () => {
    expect(valueOf("geo.distance(gp,geometry'SRID=0;Point(0 0)')", 1)).toBe(5);
    expect(valueOf("geo.distance(gp,geometry'Point(3 4)')", 2)).toBe(10);
    expect(valueOf("geo.distance(geometry'Point(-1.5 2)',geometry'Point(1.5 6)')")).toBe(5);
  });

  it('gives lengths: the sum of the segments, great-circle for geography, planar for geometry', () => {
    close(valueOf('geo.length(route)', 3), (2 * R * Math.PI) / 180);
    close(valueOf('geo.length(route)', 4), (45 * R * Math.PI) / 180);
    close(valueOf('geo.length(route)', 2), haversine(LONDON, NEW_YORK) + haversine(NEW_YORK, TOKYO), 1e-11);
    expect(valueOf('geo.length(gline)', 1)).toBe(17);
    expect(valueOf('geo.length(gline)', 2)).toBe(0);
    expect(valueOf('geo.length(gline)', 4)).toBe(Math.sqrt(9.75 ** 2 + 1.625 ** 2));
    expect(valueOf("geo.length(geometry'LineString(0 0,3 4,6 0)')")).toBe(10);
    expect(valueOf('geo.length(route)', 6)).toBeNull();
    expect(valueOf('geo.distance(p,p)', 6)).toBeNull();
  });

  /** Which points of `points` are in the zone of row 1 (a square with a hole) by geo.intersects. */
  function inZone(family: 'geography' | 'geometry', points: readonly (readonly [number, number])[]): boolean[] {
    const zone = family === 'geography' ? 'zone' : 'gzone';
    return points.map(([x, y]) => valueOf(`geo.intersects(${family}'Point(${x} ${y})',${zone})`, 1) as boolean);
  }

  it("intersects a point and a polygon with a hole: the interior and the boundary (vertices, edges, the hole's ring), not the hole", () => {
    const points = [
      [2, 2], // interior
      [5, 5], // in the hole
      [4.5, 5.5], // in the hole
      [11, 5], // outside
      [-0.5, 5], // outside
      [0, 5], // on an edge
      [10, 10], // a vertex
      [4, 5], // on the hole's ring
      [6, 6], // a vertex of the hole
      [3.999, 5], // just outside the hole
    ] as const;
    const expected = [true, false, false, false, false, true, true, true, true, true];
    expect(inZone('geometry', points)).toEqual(expected);
    expect(inZone('geography', points)).toEqual(expected);
  });

  it('has great-circle edges for geography: the edge from (10 10) to (0 10) passes north of the parallel', () => {
    // At longitude 5, the great circle through both ends is at atan(tan 10° / cos 5°) = 10.0374° north.
    const bulge = Math.atan(Math.tan(10 * RAD) / Math.cos(5 * RAD)) / RAD;
    expect(bulge).toBeCloseTo(10.0374, 4);
    expect(inZone('geography', [[5, 10.02]])).toEqual([true]);
    expect(inZone('geometry', [[5, 10.02]])).toEqual([false]);
    expect(inZone('geography', [[5, 10.05]])).toEqual([false]);
    // Edges on meridians and the equator are great circles: boundary as in the plane.
    expect(
      inZone('geography', [
        [5, 0],
        [10, 3],
        [5, -1e-9],
      ]),
    ).toEqual([true, true, false]);
  });

  it('filters and orders by the geo functions, null for null', () => {
    const ids = (query: string) => reference(query).map((row) => row.id);
    expect(ids("$filter=geo.distance(p,geography'Point(2.3522 48.8566)') lt 1000000&$select=id")).toEqual([1, 2]);
    expect(ids("$orderby=geo.distance(p,geography'Point(0 0)') desc,id&$select=id")).toEqual([5, 4, 3, 2, 1, 6]);
    expect(ids('$filter=geo.intersects(gp,gzone)&$select=id')).toEqual([1, 2, 4, 5]);
    expect(ids('$filter=not geo.intersects(gp,gzone)&$select=id')).toEqual([3]);
    expect(ids("$filter=geo.intersects(geography'Point(-0.5 51.5)',zone)&$select=id")).toEqual([2]);
    expect(ids('$filter=geo.length(route) gt 10000000&$select=id')).toEqual([2]);
  });
});

/** The queries run on every live engine and compared with the reference. */
const DIFFERENTIAL = [
  "$compute=geo.distance(p,geography'SRID=4326;Point(2.3522 48.8566)') as d&$select=id,d",
  "$compute=geo.distance(p,geography'Point(-73.5 -41.25)') as d&$select=id,d",
  "$compute=geo.distance(geography'Point(139.6917 35.6895)',p) as d&$select=id,d",
  '$compute=geo.length(route) as len&$select=id,len',
  "$compute=geo.distance(gp,geometry'Point(1.5 -2.25)') as d,geo.length(gline) as len&$select=id,d,len",
  "$filter=geo.distance(p,geography'Point(2.3522 48.8566)') lt 1000000&$select=id",
  "$orderby=geo.distance(p,geography'Point(0 0)') desc,id&$select=id",
  "$filter=geo.intersects(geography'Point(2 2)',zone)&$select=id",
  "$filter=geo.intersects(geography'Point(5 5)',zone)&$select=id",
  "$filter=geo.intersects(geography'Point(-0.5 51.5)',zone)&$select=id",
  '$filter=geo.intersects(gp,gzone)&$select=id',
  '$filter=not geo.intersects(gp,gzone)&$select=id',
  "$filter=geo.intersects(gp,geometry'Polygon((0 0,10 0,10 10,0 10,0 0),(4 4,6 4,6 6,4 6,4 4))')&$select=id",
  '$compute=geo.intersects(gp,gzone) as inside&$select=id,inside',
  '$filter=geo.length(route) gt 10000000&$select=id',
  '$select=id,p,zone,route,gp,gzone,gline',
  "$filter=id eq 6&$compute=geo.distance(p,geography'Point(0 0)') as d,geo.length(route) as len&$select=id,d,len",
  '$compute=geo.distance(p,null) as d,geo.intersects(null,zone) as i&$select=id,d,i',
  '$filter=not geo.intersects(gp,null)&$select=id',
];

/** A deterministic sequence in [0, 1) (mulberry32), for the sampled points. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Sampled points: 40 anywhere on the Earth (and in the plane), and the near-antipodes of the cities,
 * where the haversine formula (MariaDB's) is least well conditioned.
 */
const SAMPLED = (() => {
  const next = random(28);
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  const points = Array.from({ length: 40 }, () => [round(next() * 360 - 180), round(next() * 178 - 89)]);
  for (const [lon, lat] of [PARIS, LONDON, NEW_YORK, TOKYO, SYDNEY]) points.push([round(lon! > 0 ? lon! - 179.99 : lon! + 179.99), round(-lat! + 0.01)]);
  return points.map(
    ([x, y]) =>
      `$compute=geo.distance(p,geography'Point(${x} ${y})') as d,geo.distance(gp,geometry'Point(${round(x! * 7)} ${round(y! * 11)})') as e&$select=id,d,e`,
  );
})();

/** Largest relative difference of two JSON values (doubles compared relatively, everything else exactly), or Infinity. */
function difference(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length ? Math.max(0, ...a.map((x, i) => difference(x, b[i]))) : Infinity;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    if (keys.join() !== Object.keys(b).join()) return Infinity;
    return Math.max(0, ...keys.map((k) => difference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])));
  }
  return a === b ? 0 : Infinity;
}

/** Relative tolerance for doubles: both engines compute with other formulas (haversine, PostGIS's own) in doubles. */
const TOLERANCE = 1e-9;

interface Live {
  readonly name: string;
  readonly engine: Engine;
  readonly dialect: Dialect;
}

/** A live PostgreSQL with PostGIS, in a schema of its own (PostGIS itself in `public`); `undefined` where PostGIS is not installed. */
async function postgis(url: string): Promise<Engine | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS postgis');
  } catch (error) {
    await client.end();
    if (CI) throw error;
    console.warn(`[geo] PostGIS is not available: ${(error as Error).message}`);
    return undefined;
  }
  const schema = `geo_test_${process.pid}_${Date.now()}`;
  await client.query(`CREATE SCHEMA "${schema}"`);
  await client.query(`SET search_path TO "${schema}", public`);
  return {
    dialect: 'postgres',
    exec: async (sql) => void (await client.query(sql)),
    query: async (sql, params) => (await client.query(sql, params as unknown[])).rows as Record<string, unknown>[],
    close: async () => {
      await client.query(`DROP SCHEMA "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** The table of the rows, spatial values inserted through the dialect's `fromText` from their WKT and SRID (parameters). */
async function loadRows(engine: Engine, dialect: Dialect): Promise<void> {
  const set = model.entitySets.get(SET)!;
  await engine.exec(createTableSql(set, dialect));
  const properties = [...set.type.properties.values()];
  for (const row of rows) {
    const params: unknown[] = [];
    const values = properties.map((property) => {
      const family = property.type.kind === 'primitive' ? geoFamilyOf(property.type.name) : undefined;
      const value = row[property.name] ?? null;
      if (family === undefined) {
        params.push(value);
        return dialect.placeholder(params.length);
      }
      const geo = value === null ? null : toWkt(readGeo(value, family)!, family);
      params.push(geo?.wkt ?? null);
      const wkt = dialect.placeholder(params.length);
      params.push(geo?.srid ?? 0);
      return dialect.spatial!.fromText(family, `CAST(${wkt} AS ${dialect.name === 'postgres' ? 'text' : 'CHAR'})`, dialect.placeholder(params.length));
    });
    const columns = properties.map((p) => dialect.quote(p.name)).join(', ');
    await engine.query(`INSERT INTO ${dialect.quote(SET)} (${columns}) VALUES (${values.join(', ')})`, params);
  }
}

const live: Live[] = [];
/** The largest relative difference of each live engine from the reference over DIFFERENTIAL (bench/RESULTS.md). */
const worst = new Map<string, number>();

beforeAll(async () => {
  const postgresUrl = process.env.ODATA_TEST_POSTGRES_URL;
  const mysqlUrl = process.env.ODATA_TEST_MYSQL_URL;
  if (CI && (postgresUrl === undefined || mysqlUrl === undefined)) throw new Error('CI=true needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL');
  if (postgresUrl !== undefined) {
    const engine = await postgis(postgresUrl);
    if (engine !== undefined) live.push({ name: 'PostgreSQL + PostGIS', engine, dialect: DIALECTS.postgres });
  }
  if (mysqlUrl !== undefined) live.push({ name: 'MariaDB', engine: await mysqlServer(mysqlUrl), dialect: DIALECTS.mysql });
  for (const { engine, dialect } of live) await loadRows(engine, dialect);
}, 60_000);
afterAll(async () => {
  for (const { engine } of live) await engine.close();
  if (worst.size > 0)
    console.log(`[geo] largest relative difference from the reference: ${[...worst].map(([n, d]) => `${n} ${d.toExponential(2)}`).join(', ')}`);
});

/** A query's OData JSON records on a live engine. */
async function runLive({ engine, dialect }: Live, query: string): Promise<Record<string, unknown>[]> {
  const bound = bind(query);
  const compiled = toSql(bound, { dialect });
  return readSqlRows(bound, compiled, await engine.query(compiled.sql, compiled.params));
}

describe('on the live databases', () => {
  it("PostgreSQL with PostGIS and MariaDB give the reference's answers (doubles within 1e-9)", async () => {
    if (live.length === 0) {
      console.warn('[geo] no live database: set ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL');
      return;
    }
    const problems: string[] = [];
    for (const target of live) {
      let largest = 0;
      for (const query of [...DIFFERENTIAL, ...SAMPLED]) {
        const expected = reference(query);
        const actual = await runLive(target, query);
        const d = difference(actual, expected);
        largest = Math.max(largest, d);
        if (!(d <= TOLERANCE)) problems.push(`[${target.name}] ${query}\n  got      ${JSON.stringify(actual)}\n  expected ${JSON.stringify(expected)}`);
      }
      worst.set(target.name, largest);
    }
    expect(problems.join('\n')).toBe('');
  }, 20_000);

  it('computes the boundary and the holes as the reference; MariaDB has planar edges for geography (DEVIATIONS)', async () => {
    const points = ['2 2', '5 5', '11 5', '0 5', '10 10', '4 5', '6 6', '5 0', '5 10.02', '5 10.05'];
    const query = (family: 'geography' | 'geometry') =>
      `$compute=${points.map((p, i) => `geo.intersects(${family}'Point(${p})',${family === 'geography' ? 'zone' : 'gzone'}) as i${i}`).join(',')}&$filter=id eq 1&$select=${points.map((_, i) => `i${i}`).join(',')}`;
    for (const target of live) {
      expect(await runLive(target, query('geometry')), target.name).toEqual(reference(query('geometry')));
      const geography = (await runLive(target, query('geography')))[0]!;
      const expected = reference(query('geography'))[0]!;
      // MariaDB's ST_Intersects is planar: the point inside the great-circle bulge of the edge at latitude 10 is outside there.
      expect(geography, target.name).toEqual(target.dialect.name === 'mysql' ? { ...expected, i8: false } : expected);
    }
  }, 20_000);
});

describe('spatial properties inside $expand and $compute', () => {
  const QUERIES = ['$expand=next($select=id,p,zone,gp,gzone)&$select=id', '$compute=p as q,gzone as z&$select=id,q,z'];

  it('are read back as the reference on PostGIS (hex EWKB and GeoJSON) and inside $expand on MariaDB (GeoJSON); $compute refused as unreadable on MariaDB (bytes)', async () => {
    for (const target of live)
      for (const query of QUERIES) {
        if (target.dialect.name === 'postgres' || query.startsWith('$expand')) {
          expect(difference(await runLive(target, query), reference(query)), `${target.name}: ${query}`).toBeLessThanOrEqual(TOLERANCE);
          continue;
        }
        // MariaDB: the value is bytes (JSON_OBJECT's text of them, or mysql2's reading of them), not GeoJSON (DEVIATIONS).
        const error = await runLive(target, query).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, `${target.name}: ${query}`).toBeInstanceOf(ODataError);
        expect((error as ODataError).code).toBe('invalid_result');
      }
  }, 20_000);
});

describe('the targets without spatial functions refuse them', () => {
  const QUERIES = [
    '$filter=geo.distance(p,p) lt 1',
    '$orderby=geo.length(route)',
    '$filter=geo.intersects(p,zone)',
    "$compute=geo.distance(gp,geometry'Point(0 0)') as d",
  ];
  /** The error of compiling `query` with `compile`, or undefined. */
  const errorOf = (compile: () => unknown): unknown => {
    try {
      compile();
    } catch (error) {
      return error;
    }
    return undefined;
  };
  const PGLITE: Dialect = { ...DIALECTS.postgres, displayName: 'PGlite', spatial: undefined, noSpatial: 'no PostGIS' };

  it('say why in the capability table', () => {
    expect(sqlFunctionRefusal('geo.distance', DIALECTS.postgres)).toBeUndefined();
    expect(sqlFunctionRefusal('geo.intersects', DIALECTS.mysql)).toBeUndefined();
    expect(sqlFunctionRefusal('geo.length', DIALECTS.duckdb)).toBe('its spatial extension is a download, not loaded');
    expect(sqlFunctionRefusal('geo.length', { ...DIALECTS.mysql, spatial: undefined })).toBe('no spatial types');
  });

  it.each([
    ['SQLite', DIALECTS.sqlite],
    ['DuckDB', DIALECTS.duckdb],
    ['SQL Server', DIALECTS.mssql],
    ['PGlite (postgres without PostGIS)', PGLITE],
  ] as const)('%s: unsupported_feature', (_, dialect) => {
    for (const query of QUERIES) {
      const error = errorOf(() => toSql(bind(query), { dialect }));
      expect(error, query).toBeInstanceOf(ODataError);
      expect((error as ODataError).code, query).toBe('unsupported_feature');
      expect((error as ODataError).message).toContain(`does not support '${query.match(/geo\.\w+/)![0]}' on ${dialect.displayName} (${dialect.noSpatial})`);
    }
  });

  it('MongoDB (no spatial aggregation expressions): unsupported_feature', () => {
    for (const query of QUERIES) {
      const error = errorOf(() => toMongo(bind(query)));
      expect(error, query).toBeInstanceOf(ODataError);
      expect((error as ODataError).code, query).toBe('unsupported_feature');
    }
  });

  it('constant calls are folded before any backend sees them, so they run everywhere', () => {
    const query = "$compute=geo.distance(geography'Point(0 0)',geography'Point(1 0)') as d&$select=id";
    for (const dialect of [DIALECTS.sqlite, DIALECTS.duckdb, DIALECTS.mssql, PGLITE]) expect(() => toSql(bind(query), { dialect })).not.toThrow();
    expect(() => toMongo(bind(query))).not.toThrow();
  });

  it('createTableSql has spatial column types only where the dialect has the spatial hook (GeoJSON text elsewhere)', () => {
    const set = model.entitySets.get(SET)!;
    expect(createTableSql(set, 'postgres')).toContain('"p" geography(Point, 4326), "zone" geography(Polygon, 4326)');
    expect(createTableSql(set, 'postgres')).toContain('"gp" geometry(Point, 0)');
    expect(createTableSql(set, 'mysql')).toContain('`p` POINT, `zone` POLYGON, `route` LINESTRING');
    // A published model with spatial properties still gets a schema there; geo functions are refused.
    expect(createTableSql(set, 'sqlite')).toContain('"p" TEXT');
    expect(createTableSql(set, PGLITE)).toContain('"p" text');
  });
});
