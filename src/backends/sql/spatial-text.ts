/**
 * Spatial values leave the database as GeoJSON text where the dialect has spatial types (its
 * `spatial.asGeoJson`): in the select list, inside an expanded row's JSON and as computed
 * properties, so that readSqlRows reads one form (src/reference/geo.ts `readGeo`) wherever the
 * value is. Without spatial types the column holds the text already.
 */
import { geoFamilyOf } from '../../reference/geo.js';
import type { Dialect } from './dialect.js';

/** `sql`, a single spatial value of the primitive type `typeName`, as GeoJSON text; any other value as it is. */
export function spatialText(dialect: Dialect, typeName: string | undefined, collection: boolean, sql: string): string {
  if (dialect.spatial === undefined || typeName === undefined || collection) return sql;
  const family = geoFamilyOf(typeName);
  return family === undefined ? sql : dialect.spatial.asGeoJson(family, sql);
}
