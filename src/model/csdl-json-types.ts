/**
 * The shape of a CSDL JSON document as the CSDL readers and writers exchange it, and the XML
 * namespaces of CSDL XML 4.0/4.01.
 */

/** A JSON value of a CSDL JSON document. */
export type CsdlJson = null | boolean | number | string | CsdlJson[] | CsdlJsonObject;

/** A JSON object of a CSDL JSON document (the document itself, a schema, a type, an annotation record, …). */
export interface CsdlJsonObject {
  [key: string]: CsdlJson;
}

/** The XML namespace of the `edmx:` elements of CSDL XML 4.0 and 4.01. */
export const EDMX_NAMESPACE = 'http://docs.oasis-open.org/odata/ns/edmx';

/** The XML namespace of the schema elements of CSDL XML 4.0 and 4.01. */
export const EDM_NAMESPACE = 'http://docs.oasis-open.org/odata/ns/edm';

/**
 * Element nesting deeper than this is refused: by the XML reader, and by the XML writer (whose
 * output the reader could not read back). Annotation expressions nest; real documents stay far below.
 */
export const MAX_XML_DEPTH = 100;
