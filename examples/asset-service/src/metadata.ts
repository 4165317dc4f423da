/**
 * `GET /$metadata`: the service's model as CSDL XML (the default, what every OData v4 client
 * reads) or as CSDL JSON, negotiated as OData says (Protocol 8.2.1, 11.2.11): `$format`
 * (`xml`/`application/xml`, `json`/`application/json`) decides when it is given, else the `Accept`
 * header's preferred type (quality values respected; `*` ranges and types the service cannot give
 * leave the default, XML). An unknown `$format` is a 400 OData error.
 */
import { csdlXmlFromJson, ODataError, parseQuery } from 'odata-engine';
import { csdl } from './model.js';

export type MetadataFormat = 'xml' | 'json';

/** The two representations, written once. */
export const METADATA: Readonly<Record<MetadataFormat, { readonly contentType: string; readonly body: string }>> = {
  xml: { contentType: 'application/xml; charset=utf-8', body: csdlXmlFromJson(csdl) },
  json: { contentType: 'application/json; charset=utf-8', body: JSON.stringify(csdl) },
};

const MEDIA_TYPES: Readonly<Record<string, MetadataFormat>> = {
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/json': 'json',
};

/** The format a `$format` value names; an ODataError for any other value. */
function fromFormatOption(value: string): MetadataFormat {
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  const format = type === 'xml' || type === 'json' ? type : MEDIA_TYPES[type];
  if (format === undefined) {
    throw new ODataError({
      code: 'invalid_option_value',
      reason: `The metadata document is available as 'xml' or 'json', not '${value}'`,
      option: '$format',
      appendLocation: false,
    });
  }
  return format;
}

/** The format the `Accept` header prefers: the listed type with the highest quality (XML on ties). */
function fromAccept(accept: string | undefined): MetadataFormat {
  let best: { format: MetadataFormat; quality: number } = { format: 'xml', quality: 0 };
  for (const range of (accept ?? '').split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const format = MEDIA_TYPES[type];
    if (format === undefined) continue;
    const q = parameters.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!(quality > 0)) continue;
    if (quality > best.quality || (quality === best.quality && format === 'xml')) best = { format, quality };
  }
  return best.format;
}

/** The representation a request asks for (see the module's comment). */
export function metadataFormat(rawQuery: string, accept: string | undefined): MetadataFormat {
  const query = parseQuery(rawQuery, { plusAsSpace: true });
  const format = Object.entries(query.passthrough ?? {}).find(([name]) => name.replace(/^\$/, '').toLowerCase() === 'format')?.[1];
  return format === undefined ? fromAccept(accept) : fromFormatOption(format);
}
