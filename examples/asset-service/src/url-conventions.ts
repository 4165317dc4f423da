/**
 * The OData URL conventions real clients build (`odata-query`'s `key`, `@odata/client`'s
 * `retrieve()`, clients that read the metadata), rewritten onto the service's own paths before
 * routing: the entity set's name (`/maintenanceTickets`) for its path (`/maintenance-tickets`), and
 * a key in parentheses (`/assets(<id>)`, `/assets('<id>')`, `/assets(id=<id>)`) for `/assets/<id>`.
 * The first segment is read by the library's resource-path parser (`parseResourcePath`: the
 * segment decoded once, the key a literal), not by a pattern of this service. Anything else is
 * left as it is, so the router answers it as before.
 */
import { parseResourcePath, type ResourceSegment } from 'odata-engine';
import type { Resource } from './model.js';

/** The first segment of a path, parsed; undefined when it is not OData's (the service's own `maintenance-tickets`). */
function firstSegment(raw: string): ResourceSegment | undefined {
  try {
    return parseResourcePath(raw).segments[0];
  } catch {
    return undefined;
  }
}

/** `url` with the entity set's name and a key in parentheses written as the service's paths. */
export function conventionalUrl(url: string, resources: readonly Resource[]): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const rest = query < 0 ? '' : url.slice(query);
  const slash = path.indexOf('/', 1);
  const first = slash < 0 ? path.slice(1) : path.slice(1, slash);
  const tail = slash < 0 ? '' : path.slice(slash);
  const segment = firstSegment(first);
  if (segment?.kind !== 'name') return url;
  const resource = resources.find((r) => r.entitySet === segment.name || r.path === segment.name);
  if (resource === undefined) return url;
  const [key, ...more] = segment.lists;
  if (key === undefined) return segment.name === resource.path ? url : `/${resource.path}${tail}${rest}`;
  // One key value, positional or named `id`, a literal (a GUID, or a quoted string).
  const [value, ...others] = key;
  if (more.length > 0 || others.length > 0 || value === undefined || (value.name !== undefined && value.name !== 'id') || value.value.kind !== 'literal')
    return url;
  return `/${resource.path}/${encodeURIComponent(String(value.value.value))}${tail}${rest}`;
}
