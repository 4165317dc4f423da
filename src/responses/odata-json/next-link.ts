/**
 * `nextLinkUrl`: the next link of a page of results (PROT §11.2.6.7, server-driven paging;
 * JSON Format §4.5.5): the request URL with `$skiptoken` set.
 */

/** The next page. */
export interface NextLinkOptions {
  /** The continuation, written percent-encoded (a keyset token, an offset: the service's own text). */
  readonly skiptoken: string;
  /** How many items this page returned: a client's `$top` is reduced by it (no next page when it is used up). */
  readonly returned: number;
}

/** The name of a query option without `$` and in lower case (4.01: case-insensitive, `$` optional). */
function optionName(part: string): string {
  const eq = part.indexOf('=');
  let name = eq < 0 ? part : part.slice(0, eq);
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed name is no system query option; kept as sent.
  }
  return name.replace(/^\$/, '').toLowerCase();
}

/**
 * The next link of a page: the request URL with every query option as sent (same text and
 * order) except `$skiptoken`, set to `skiptoken` (replacing one sent, else appended), `$skip`,
 * left out (it applied to the first page; the token continues after the page), and `$top`,
 * reduced by the items returned, as ASP.NET Core OData does: a client's `$top` bounds the whole
 * result across pages. `undefined` when the client's `$top` is used up (no next page).
 *
 * @param requestUrl the request URL (absolute, or a path with its query; a fragment is dropped)
 * @example
 * ```ts
 * nextLinkUrl('https://host/svc/People?$top=50&$filter=Age%20gt%2030', { skiptoken: "'russellwhyte'", returned: 20 });
 * // "https://host/svc/People?$top=30&$filter=Age%20gt%2030&$skiptoken='russellwhyte'"
 * nextLinkUrl('/People?$top=20', { skiptoken: 'x', returned: 20 }); // undefined
 * ```
 */
export function nextLinkUrl(requestUrl: string | URL, options: NextLinkOptions): string | undefined {
  const text = typeof requestUrl === 'string' ? requestUrl : requestUrl.href;
  const hash = text.indexOf('#');
  const url = hash < 0 ? text : text.slice(0, hash);
  const question = url.indexOf('?');
  const base = question < 0 ? url : url.slice(0, question);
  const parts = question < 0 ? [] : url.slice(question + 1).split('&');
  const token = `$skiptoken=${encodeURIComponent(options.skiptoken)}`;
  const out: string[] = [];
  let placed = false;
  for (const part of parts) {
    if (part === '') continue;
    const name = optionName(part);
    if (name === 'skip') continue;
    if (name === 'skiptoken') {
      if (!placed) out.push(token);
      placed = true;
      continue;
    }
    if (name === 'top') {
      const value = part.slice(part.indexOf('=') + 1);
      if (/^\d+$/.test(value)) {
        const left = Number(value) - options.returned;
        if (left <= 0) return undefined;
        out.push(`${part.slice(0, part.indexOf('=') + 1)}${left}`);
        continue;
      }
    }
    out.push(part);
  }
  if (!placed) out.push(token);
  return `${base}?${out.join('&')}`;
}
