/**
 * Spatial values and the geo functions of the reference (URL Conventions 5.1.1.11): one place for
 * the geometry code. A spatial value is a GeoJSON object (OData JSON Format §7.1), in rows, in
 * OData JSON and when read back from a database; a `geography'…'`/`geometry'…'` literal (the WKT
 * of the ABNF, with an optional `SRID=n;`) parses to the same form.
 *
 * The canonical form: `{ type, coordinates, crs }` (`{ type: 'GeometryCollection', geometries, crs }`
 * for a collection, whose members have no `crs`), keys in that order, and `crs` always present as a
 * named CRS `EPSG:<srid>`; a value without one has its family's default SRID (4326 for geography, 0
 * for geometry, as CSDL's SRID facet defaults).
 *
 * Geography is computed on a sphere of radius {@link EARTH_RADIUS} (great-circle distances and
 * lengths, polygon edges as great-circle arcs), geometry in the plane (Euclidean). Coordinates are
 * `x y` (longitude latitude for geography), as in WKT and GeoJSON.
 */

/** The two spatial families of the EDM. */
export type GeoFamily = 'geography' | 'geometry';

/** A position: x, y and optional z (and m). */
export type Position = readonly number[];

/** A GeoJSON geometry (OData JSON §7.1), the value form of every spatial value. */
export type GeoJsonGeometry =
  | { readonly type: 'Point'; readonly coordinates: Position; readonly crs?: GeoCrs }
  | { readonly type: 'LineString' | 'MultiPoint'; readonly coordinates: readonly Position[]; readonly crs?: GeoCrs }
  | { readonly type: 'Polygon' | 'MultiLineString'; readonly coordinates: readonly (readonly Position[])[]; readonly crs?: GeoCrs }
  | { readonly type: 'MultiPolygon'; readonly coordinates: readonly (readonly (readonly Position[])[])[]; readonly crs?: GeoCrs }
  | { readonly type: 'GeometryCollection'; readonly geometries: readonly GeoJsonGeometry[]; readonly crs?: GeoCrs };

/** A named CRS, the only kind OData allows: `{ type: 'name', properties: { name: 'EPSG:4326' } }`. */
export interface GeoCrs {
  readonly type: 'name';
  readonly properties: { readonly name: string };
}

/**
 * The radius of the sphere geography is computed on, in metres: the mean radius (2a + b) / 3 of
 * the WGS 84 ellipsoid (a = 6378137, b = 6356752.314245179), 6371008.7714…, which is the sphere
 * PostGIS computes geography on with `use_spheroid = false` (liblwgeom's `spheroid_init`).
 */
export const EARTH_RADIUS = (2 * 6378137 + 6356752.314245179) / 3;

/** The default SRID of a family (CSDL: 4326 for geography, 0 for geometry). */
export function defaultSrid(family: GeoFamily): number {
  return family === 'geography' ? 4326 : 0;
}

/** The family of an EDM type name (`Edm.GeographyPoint` → geography), or `undefined`. */
export function geoFamilyOf(typeName: string): GeoFamily | undefined {
  return typeName.startsWith('Edm.Geography') ? 'geography' : typeName.startsWith('Edm.Geometry') ? 'geometry' : undefined;
}

/** The kind of an EDM spatial type name: `Edm.GeographyPoint` → `Point`, `Edm.Geometry` → `''` (any). */
export function geoKindOf(typeName: string): string {
  return typeName.replace(/^Edm\.Geography|^Edm\.Geometry/, '');
}

/** A WKT literal that cannot be read (the parser checked its shape; this is for rows and drivers). */
export class GeoError extends Error {
  override readonly name = 'GeoError';
}

const crsOf = (srid: number): GeoCrs => ({ type: 'name', properties: { name: `EPSG:${srid}` } });

// ---- WKT → GeoJSON -------------------------------------------------------------------------------

class Wkt {
  private at = 0;
  constructor(private readonly text: string) {}

  private skip(): void {
    while (this.text[this.at] === ' ') this.at++;
  }
  private fail(what: string): never {
    throw new GeoError(`expected ${what} at offset ${this.at} of '${this.text}'`);
  }
  private accept(char: string): boolean {
    this.skip();
    if (this.text[this.at] !== char) return false;
    this.at++;
    return true;
  }
  private expect(char: string): void {
    if (!this.accept(char)) this.fail(`'${char}'`);
  }
  srid(): number | undefined {
    const match = /^\s*SRID\s*=\s*(\d+)\s*;/i.exec(this.text);
    if (match === null) return undefined;
    this.at = match[0].length;
    return Number(match[1]);
  }
  private number(): number {
    this.skip();
    const match = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/.exec(this.text.slice(this.at));
    if (match === null) this.fail('a coordinate');
    this.at += match[0].length;
    return Number(match[0]);
  }
  private position(): number[] {
    const position = [this.number(), this.number()];
    for (;;) {
      this.skip();
      const c = this.text[this.at];
      if (c === undefined || !/[-+.\d]/.test(c)) return position;
      position.push(this.number());
    }
  }
  /** `( item, … )`, or `EMPTY` / `()` for none where allowed. */
  private list<T>(item: () => T, allowEmpty = true): T[] {
    this.skip();
    if (allowEmpty && this.text.slice(this.at, this.at + 5).toUpperCase() === 'EMPTY') {
      this.at += 5;
      return [];
    }
    this.expect('(');
    if (allowEmpty && this.accept(')')) return [];
    const items = [item()];
    while (this.accept(',')) items.push(item());
    this.expect(')');
    return items;
  }
  private positions = (): number[][] => this.list(() => this.position(), false);
  private polygon = (): number[][][] => this.list(this.positions);
  /** A MultiPoint's point: `(x y)` or bare `x y`. */
  private multiPoint = (): number[] => {
    this.skip();
    if (this.text[this.at] !== '(') return this.position();
    const [position] = this.list(() => this.position(), false);
    return position as number[];
  };
  geometry(): GeoJsonGeometry {
    this.skip();
    const match = /^[A-Za-z]+/.exec(this.text.slice(this.at));
    if (match === null) this.fail('a geometry type');
    this.at += match[0].length;
    switch (match[0].toLowerCase()) {
      case 'point': {
        const [position] = this.list(() => this.position(), false);
        return { type: 'Point', coordinates: position as number[] };
      }
      case 'linestring':
        return { type: 'LineString', coordinates: this.list(() => this.position()) };
      case 'polygon':
        return { type: 'Polygon', coordinates: this.polygon() };
      case 'multipoint':
        return { type: 'MultiPoint', coordinates: this.list(this.multiPoint) };
      case 'multilinestring':
        return { type: 'MultiLineString', coordinates: this.list(this.positions) };
      case 'multipolygon':
        return { type: 'MultiPolygon', coordinates: this.list(this.polygon) };
      case 'collection':
      case 'geometrycollection':
        return { type: 'GeometryCollection', geometries: this.list(() => this.geometry()) };
      default:
        return this.fail('Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon or Collection');
    }
  }
  end(): void {
    this.skip();
    if (this.at !== this.text.length) this.fail('the end');
  }
}

/** With `crs` last (OData JSON §7.1: type first, then coordinates, then any other keys). */
function withCrs(geometry: GeoJsonGeometry, srid: number): GeoJsonGeometry {
  return geometry.type === 'GeometryCollection'
    ? { type: geometry.type, geometries: geometry.geometries, crs: crsOf(srid) }
    : ({ type: geometry.type, coordinates: geometry.coordinates, crs: crsOf(srid) } as GeoJsonGeometry);
}

/**
 * The GeoJSON value of a WKT literal's text (`SRID=4326;Point(1 2)`, `Collection(…)`, also
 * `GEOMETRYCOLLECTION`, `EMPTY` and bare MultiPoint positions as databases write them).
 *
 * @throws {GeoError} when the text is not WKT
 */
export function parseWkt(text: string, family: GeoFamily): GeoJsonGeometry {
  const reader = new Wkt(text);
  const srid = reader.srid() ?? defaultSrid(family);
  const geometry = reader.geometry();
  reader.end();
  return withCrs(geometry, srid);
}

// ---- WKB → GeoJSON -------------------------------------------------------------------------------

/**
 * A (E)WKB geometry (OGC and PostGIS: ISO `1001` codes or the Z, M and SRID flag bits) as GeoJSON
 * and its SRID, if it names one. `bytes` starts at `view`'s offset 0.
 */
function readWkb(view: DataView): { readonly geometry: GeoJsonGeometry; readonly srid: number | undefined } {
  let at = 0;
  const geometry = (): { geometry: GeoJsonGeometry; srid: number | undefined } => {
    const little = view.getUint8(at) === 1;
    at += 1;
    const word = (): number => {
      const value = view.getUint32(at, little);
      at += 4;
      return value;
    };
    const raw = word();
    const iso = raw & 0x0fffffff;
    const kind = iso % 1000;
    const isoDims = Math.floor(iso / 1000);
    const dims = 2 + ((raw & 0x80000000) !== 0 || isoDims === 1 || isoDims === 3 ? 1 : 0) + ((raw & 0x40000000) !== 0 || isoDims >= 2 ? 1 : 0);
    const srid = (raw & 0x20000000) !== 0 ? word() : undefined;
    const position = (): number[] => {
      const p: number[] = [];
      for (let i = 0; i < dims; i++, at += 8) p.push(view.getFloat64(at, little));
      return p;
    };
    const positions = (): number[][] => Array.from({ length: word() }, position);
    const rings = (): number[][][] => Array.from({ length: word() }, positions);
    const members = (): GeoJsonGeometry[] => Array.from({ length: word() }, () => geometry().geometry);
    const coordinatesOf = (items: GeoJsonGeometry[]): never[] => items.map((g) => (g as { coordinates: unknown }).coordinates) as never[];
    switch (kind) {
      case 1:
        return { geometry: { type: 'Point', coordinates: position() }, srid };
      case 2:
        return { geometry: { type: 'LineString', coordinates: positions() }, srid };
      case 3:
        return { geometry: { type: 'Polygon', coordinates: rings() }, srid };
      case 4:
        return { geometry: { type: 'MultiPoint', coordinates: coordinatesOf(members()) }, srid };
      case 5:
        return { geometry: { type: 'MultiLineString', coordinates: coordinatesOf(members()) }, srid };
      case 6:
        return { geometry: { type: 'MultiPolygon', coordinates: coordinatesOf(members()) }, srid };
      case 7:
        return { geometry: { type: 'GeometryCollection', geometries: members() }, srid };
      default:
        throw new GeoError(`unknown WKB geometry type ${raw}`);
    }
  };
  const read = geometry();
  if (at !== view.byteLength) throw new GeoError('trailing bytes after the WKB geometry');
  return read;
}

const HEX = /^(?:[0-9A-Fa-f]{2})+$/;

/** Hex EWKB text (PostGIS's output of a geometry or geography, inside JSON too) as GeoJSON with its CRS. */
function fromHexWkb(text: string, family: GeoFamily): GeoJsonGeometry | null {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  try {
    const { geometry, srid } = readWkb(new DataView(bytes.buffer));
    return withCrs(geometry, srid ?? defaultSrid(family));
  } catch {
    return null;
  }
}

/** MySQL's and MariaDB's internal value (what their drivers give for a spatial column): a 4-byte SRID, then WKB. */
function fromInternalBytes(bytes: Uint8Array): GeoJsonGeometry | null {
  if (bytes.byteLength < 9) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const { geometry } = readWkb(new DataView(bytes.buffer, bytes.byteOffset + 4, bytes.byteLength - 4));
    return withCrs(geometry, view.getUint32(0, true));
  } catch {
    return null;
  }
}

// ---- reading any form ----------------------------------------------------------------------------

const TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection']);
const DEPTH: Readonly<Record<string, number>> = { Point: 0, LineString: 1, MultiPoint: 1, Polygon: 2, MultiLineString: 2, MultiPolygon: 3 };

/** Coordinates of nesting `depth` (0: a position), as numbers; `undefined` when they are not. */
function coordinates(value: unknown, depth: number): unknown {
  if (!Array.isArray(value)) return undefined;
  if (depth === 0) {
    if (value.length < 2) return undefined;
    const position = value.map((n) => (typeof n === 'number' ? n : typeof n === 'string' && n.trim() !== '' ? Number(n) : NaN));
    return position.every(Number.isFinite) ? position : undefined;
  }
  const items = value.map((item) => coordinates(item, depth - 1));
  return items.every((item) => item !== undefined) ? items : undefined;
}

/** The SRID a GeoJSON `crs` names (`EPSG:4326`, `urn:ogc:def:crs:EPSG::4326`), or `undefined`. */
function sridOf(crs: unknown): number | undefined {
  if (typeof crs !== 'object' || crs === null) return undefined;
  const name = (crs as { properties?: { name?: unknown } }).properties?.name;
  const match = typeof name === 'string' ? /EPSG:+(\d+)$/i.exec(name) : null;
  return match === null ? undefined : Number(match[1]);
}

function geometryOf(value: Record<string, unknown>): GeoJsonGeometry | undefined {
  const type = value.type;
  if (typeof type !== 'string' || !TYPES.has(type)) return undefined;
  if (type === 'GeometryCollection') {
    if (!Array.isArray(value.geometries)) return undefined;
    const geometries = value.geometries.map((g) => (typeof g === 'object' && g !== null ? geometryOf(g as Record<string, unknown>) : undefined));
    return geometries.every((g) => g !== undefined) ? { type, geometries: geometries as GeoJsonGeometry[] } : undefined;
  }
  const coords = coordinates(value.coordinates, DEPTH[type] as number);
  return coords === undefined ? undefined : ({ type, coordinates: coords } as GeoJsonGeometry);
}

/**
 * A spatial value of `family` in its canonical GeoJSON form, from any form it may come in: a
 * GeoJSON object (rows, OData JSON), GeoJSON text (what `ST_AsGeoJSON` gives), WKT text (a
 * literal's, with an optional `SRID=n;`), hex EWKB text (PostGIS's own output, as a geography
 * inside `json_build_object`), or bytes of MySQL's and MariaDB's internal form (a 4-byte SRID and
 * WKB). `null` for anything else.
 */
export function readGeo(value: unknown, family: GeoFamily): GeoJsonGeometry | null {
  if (value instanceof Uint8Array) return fromInternalBytes(value);
  if (typeof value === 'string') {
    const text = value.trim();
    if (HEX.test(text) && (text.startsWith('00') || text.startsWith('01'))) return fromHexWkb(text, family);
    if (text.startsWith('{')) {
      try {
        return readGeo(JSON.parse(text) as unknown, family);
      } catch {
        return null;
      }
    }
    try {
      return parseWkt(text, family);
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const geometry = geometryOf(value as Record<string, unknown>);
  if (geometry === undefined) return null;
  return withCrs(geometry, sridOf((value as { crs?: unknown }).crs) ?? defaultSrid(family));
}

/** The SRID of a canonical value. */
export function geoSrid(value: GeoJsonGeometry, family: GeoFamily): number {
  return sridOf(value.crs) ?? defaultSrid(family);
}

// ---- GeoJSON → WKT -------------------------------------------------------------------------------

const positionText = (p: Position): string => p.map((n) => String(n)).join(' ');
const listText = (items: readonly string[]): string => (items.length === 0 ? ' EMPTY' : `(${items.join(',')})`);
const ringsText = (rings: readonly (readonly Position[])[]): string => listText(rings.map((ring) => listText(ring.map(positionText))));

function geometryText(g: GeoJsonGeometry): string {
  switch (g.type) {
    case 'Point':
      return `POINT(${positionText(g.coordinates)})`;
    case 'LineString':
      return `LINESTRING${listText(g.coordinates.map(positionText))}`;
    // Bare positions: MariaDB reads `MULTIPOINT(1 2,3 4)` only, PostGIS both forms.
    case 'MultiPoint':
      return `MULTIPOINT${listText(g.coordinates.map(positionText))}`;
    case 'Polygon':
      return `POLYGON${ringsText(g.coordinates)}`;
    case 'MultiLineString':
      return `MULTILINESTRING${ringsText(g.coordinates)}`;
    case 'MultiPolygon':
      return `MULTIPOLYGON${listText(g.coordinates.map((polygon) => ringsText(polygon).trim()))}`;
    case 'GeometryCollection':
      return `GEOMETRYCOLLECTION${listText(g.geometries.map(geometryText))}`;
  }
}

/**
 * The OGC WKT of a value (`POINT(1 2)`, `GEOMETRYCOLLECTION(…)`, shortest round-trip numbers) and
 * its SRID: what a database's `ST_GeomFromText` reads (the SQL backend passes both as parameters).
 */
export function toWkt(value: GeoJsonGeometry, family: GeoFamily): { readonly wkt: string; readonly srid: number } {
  return { wkt: geometryText(value), srid: geoSrid(value, family) };
}

// ---- the functions -------------------------------------------------------------------------------

const RADIANS = Math.PI / 180;

/**
 * The central angle (radians) between two positions given in degrees (longitude, latitude), by
 * the Vincenty form of the great-circle formula (atan2, well conditioned at every distance).
 */
function centralAngle(a: Position, b: Position): number {
  const [lon1 = 0, lat1 = 0] = a;
  const [lon2 = 0, lat2 = 0] = b;
  const φ1 = lat1 * RADIANS;
  const φ2 = lat2 * RADIANS;
  const Δλ = (lon2 - lon1) * RADIANS;
  const sinΔλ = Math.sin(Δλ);
  const cosΔλ = Math.cos(Δλ);
  const x = Math.cos(φ2) * sinΔλ;
  const y = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * cosΔλ;
  const z = Math.sin(φ1) * Math.sin(φ2) + Math.cos(φ1) * Math.cos(φ2) * cosΔλ;
  return Math.atan2(Math.sqrt(x * x + y * y), z);
}

/** The distance of two positions: great-circle metres on the sphere (geography), Euclidean (geometry). */
function positionDistance(a: Position, b: Position, family: GeoFamily): number {
  if (family === 'geography') return EARTH_RADIUS * centralAngle(a, b);
  const dx = (b[0] ?? 0) - (a[0] ?? 0);
  const dy = (b[1] ?? 0) - (a[1] ?? 0);
  return Math.sqrt(dx * dx + dy * dy);
}

/**
 * `geo.distance(point, point)`: the shortest distance of two points, in metres on the sphere for
 * geography, in the coordinates' unit for geometry. `null` when a value is not a point.
 */
export function geoDistance(a: GeoJsonGeometry, b: GeoJsonGeometry, family: GeoFamily): number | null {
  if (a.type !== 'Point' || b.type !== 'Point') return null;
  return positionDistance(a.coordinates, b.coordinates, family);
}

/**
 * `geo.length(lineString)`: the sum of its segments' lengths (great-circle metres for geography),
 * 0 for fewer than two positions; a MultiLineString's lines summed. `null` for any other value.
 */
export function geoLength(line: GeoJsonGeometry, family: GeoFamily): number | null {
  const lines = line.type === 'LineString' ? [line.coordinates] : line.type === 'MultiLineString' ? line.coordinates : undefined;
  if (lines === undefined) return null;
  let total = 0;
  for (const positions of lines) for (let i = 1; i < positions.length; i++) total += positionDistance(positions[i - 1]!, positions[i]!, family);
  return total;
}

// Planar: a point on a segment exactly (collinear and inside its box), and the crossing rule.
function onPlanarSegment(p: Position, a: Position, b: Position): boolean {
  const [px = 0, py = 0] = p;
  const [ax = 0, ay = 0] = a;
  const [bx = 0, by = 0] = b;
  if ((bx - ax) * (py - ay) - (by - ay) * (px - ax) !== 0) return false;
  return Math.min(ax, bx) <= px && px <= Math.max(ax, bx) && Math.min(ay, by) <= py && py <= Math.max(ay, by);
}

/** Whether a ring (closed, as GeoJSON's) holds `p` in its interior (even-odd crossings), or `'boundary'`. */
function planarRing(p: Position, ring: readonly Position[]): boolean | 'boundary' {
  const [px = 0, py = 0] = p;
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[j]!;
    const b = ring[i]!;
    if (onPlanarSegment(p, a, b)) return 'boundary';
    const [ax = 0, ay = 0] = a;
    const [bx = 0, by = 0] = b;
    if (ay > py !== by > py && px < ((bx - ax) * (py - ay)) / (by - ay) + ax) inside = !inside;
  }
  return inside;
}

type Vector = readonly [number, number, number];
const unit = (p: Position): Vector => {
  const λ = (p[0] ?? 0) * RADIANS;
  const φ = (p[1] ?? 0) * RADIANS;
  return [Math.cos(φ) * Math.cos(λ), Math.cos(φ) * Math.sin(λ), Math.sin(φ)];
};
const dot = (a: Vector, b: Vector): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vector, b: Vector): Vector => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/**
 * How close (radians of arc, about 6 µm on the Earth) a point must be to a great-circle edge to be
 * on the boundary of a geography polygon: spherical coordinates are never exact.
 */
const SPHERICAL_BOUNDARY = 1e-12;

/** The angular distance of `p` from the great-circle arc `a`–`b` (all unit vectors), when it is within the arc's span; else that to the nearer end. */
function arcDistance(p: Vector, a: Vector, b: Vector): number {
  const n = cross(a, b);
  const length = Math.sqrt(dot(n, n));
  const ends = Math.min(Math.atan2(Math.sqrt(dot(cross(p, a), cross(p, a))), dot(p, a)), Math.atan2(Math.sqrt(dot(cross(p, b), cross(p, b))), dot(p, b)));
  if (length === 0) return ends;
  const normal: Vector = [n[0] / length, n[1] / length, n[2] / length];
  // Within the span: on the side of a's and b's great circles through the pole of the arc.
  if (dot(cross(a, p), normal) >= 0 && dot(cross(p, b), normal) >= 0) return Math.abs(Math.asin(Math.max(-1, Math.min(1, dot(p, normal)))));
  return ends;
}

/**
 * Whether a ring holds `p` (as unit vectors) with edges as great-circle arcs, or `'boundary'`: the
 * winding number of the ring's directions seen from `p` in its tangent plane (each edge the
 * smaller turn, exact for rings within the hemisphere around `p`; see docs/sql.md).
 */
function sphericalRing(p: Vector, ring: readonly Position[]): boolean | 'boundary' {
  const vertices = ring.map(unit);
  let turn = 0;
  // Each edge, the closing one included (a ring read from a row need not repeat its first position).
  for (let i = 0, j = vertices.length - 1; i < vertices.length; j = i++) {
    const a = vertices[j]!;
    const b = vertices[i]!;
    if (arcDistance(p, a, b) <= SPHERICAL_BOUNDARY) return 'boundary';
    // Directions from p to a and b in its tangent plane; the signed angle between them.
    const da = cross(p, a);
    const db = cross(p, b);
    turn += Math.atan2(dot(cross(da, db), p), dot(da, db));
  }
  return Math.abs(turn) > Math.PI;
}

/** A polygon's rings (outer first, then holes) hold `p`: in the outer ring and in no hole, or on any ring. */
function polygonHolds(rings: readonly (readonly Position[])[], test: (ring: readonly Position[]) => boolean | 'boundary'): boolean {
  const [outer, ...holes] = rings;
  if (outer === undefined) return false;
  const inOuter = test(outer);
  if (inOuter === 'boundary') return true;
  if (!inOuter) return false;
  for (const hole of holes) {
    const inHole = test(hole);
    if (inHole === 'boundary') return true;
    if (inHole) return false;
  }
  return true;
}

/**
 * `geo.intersects(point, polygon)`: whether the point lies in the interior or on the boundary of
 * the polygon (URL Conventions 5.1.1.11.3); a point in a hole is outside, a point on a hole's ring
 * on the boundary. Geometry: in the plane, the boundary exact. Geography: edges are great-circle
 * arcs, the boundary within {@link SPHERICAL_BOUNDARY}. A MultiPolygon holds what one of its
 * polygons holds; `null` when the values are not a point and a (multi)polygon.
 */
export function geoIntersects(point: GeoJsonGeometry, polygon: GeoJsonGeometry, family: GeoFamily): boolean | null {
  if (point.type !== 'Point') return null;
  const polygons = polygon.type === 'Polygon' ? [polygon.coordinates] : polygon.type === 'MultiPolygon' ? polygon.coordinates : undefined;
  if (polygons === undefined) return null;
  const p = point.coordinates;
  const v = family === 'geography' ? unit(p) : undefined;
  const test = (ring: readonly Position[]): boolean | 'boundary' => (v === undefined ? planarRing(p, ring) : sphericalRing(v, ring));
  return polygons.some((rings) => polygonHolds(rings, test));
}
