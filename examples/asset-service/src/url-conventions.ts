/**
 * The OData URL conventions real clients build (`odata-query`'s `key`, `@odata/client`'s
 * `retrieve()`, clients that read the metadata), rewritten onto the service's own paths before
 * routing: the entity set's name (`/maintenanceTickets`) for its path (`/maintenance-tickets`), and
 * a key in parentheses (`/assets(<id>)`, `/assets('<id>')`, `/assets(id=<id>)`) for `/assets/<id>`.
 * Anything else is left as it is, so the router answers it as before.
 */
import type { Resource } from './model.js';

/** A key in parentheses: the value, optionally quoted (`'` or `%27`), optionally named `id=`. */
const KEY = /^\((?:id=)?(?:'|%27)?([^'()/%]*(?:%(?!27)[0-9A-Fa-f]{2}[^'()/%]*)*)(?:'|%27)?\)(\/.*)?$/;

/** `url` with the entity set's name and a key in parentheses written as the service's paths. */
export function conventionalUrl(url: string, resources: readonly Resource[]): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const rest = query < 0 ? '' : url.slice(query);
  for (const resource of resources) {
    for (const name of new Set([resource.path, resource.entitySet])) {
      const prefix = `/${name}`;
      if (!path.startsWith(prefix)) continue;
      const tail = path.slice(prefix.length);
      if (tail === '' || tail.startsWith('/')) return name === resource.path ? url : `/${resource.path}${tail}${rest}`;
      const key = KEY.exec(tail);
      if (key !== null) return `/${resource.path}/${key[1] ?? ''}${key[2] ?? ''}${rest}`;
    }
  }
  return url;
}
