/**
 * What a CSDL XML document says that its CSDL JSON form cannot: the XML reader records it here,
 * beside the CSDL JSON objects it builds, and the XML writer reads it back, so that XML read into
 * a model and written again says the same. CSDL JSON carries no such details (a JSON reader sets
 * none), and a JSON writer ignores them.
 *
 * The details are kept on the JSON object (or array) that holds the value they describe, by the
 * member name (an array index as a string) in it; `'$'` stands for the object itself. They are
 * a non-enumerable symbol-keyed property, so they do not appear in the JSON: `JSON.stringify`,
 * `Object.keys` and deep equality do not see them, and a copy of a JSON object does not have them
 * unless {@link copyXmlDetails} copies them. (A property rather than a `WeakMap`: asking a
 * `WeakMap` about each of the many objects without details costs more than reading the rest of
 * the document.)
 */
import type { CsdlJson } from './csdl-json-types.js';

/** An attribute of another XML namespace than CSDL's (an SAP `sap:` or EF `p5:StoreGeneratedPattern` attribute). */
export interface ForeignAttribute {
  readonly uri: string;
  readonly prefix: string;
  readonly local: string;
  readonly value: string;
}

/** How CSDL XML wrote a value or an element, where CSDL JSON cannot tell. */
export interface XmlDetail {
  /**
   * A constant expression as written: its element name (`Date`, `EnumMember`, `Decimal`, …) and
   * its text. CSDL JSON writes such constants as bare strings and numbers, typed only by the
   * term's definition; `value` is the JSON value read from them (the detail holds while the
   * value is unchanged).
   */
  readonly constant?: { readonly kind: string; readonly text: string; readonly value: CsdlJson };
  /**
   * A constant or path value written as a child element (`<String>x</String>`) rather than as an
   * attribute (`String="x"`): both notations are CSDL, and the writer keeps the document's.
   */
  readonly elementNotation?: true;
  /** `MaxLength="max"` (CSDL XML 4.0), which CSDL JSON writes by omitting `$MaxLength`. */
  readonly maxLength?: 'max';
  /** `Nullable="true"` written on a collection-typed element (where its absence means "unknown", not `true`). */
  readonly nullableTrue?: true;
  /** An enumeration type whose members have no `Value` (the values count up from 0). */
  readonly implicitValues?: true;
  /** Attributes of other XML namespaces. */
  readonly foreign?: readonly ForeignAttribute[];
  /**
   * Actions or functions of a schema that have the name of another of its elements (Microsoft
   * Graph has a complex type and a function both named `image`): CSDL JSON cannot hold them.
   */
  readonly operations?: readonly CsdlJson[];
  /**
   * Earlier values, with their own detail, of a record's property or of an annotation that the
   * document gives more than once (SAP's `Communication.Contact` records repeat `additional`,
   * and two `Annotations` blocks of one target may apply the same term): a JSON object keeps
   * only the last.
   */
  readonly duplicates?: readonly { readonly value: CsdlJson; readonly detail: XmlDetail | undefined }[];
}

const DETAILS: unique symbol = Symbol('CSDL XML details');

type WithDetails = { [DETAILS]?: Map<string, XmlDetail> };

function detailsOf(holder: object): Map<string, XmlDetail> | undefined {
  return (holder as WithDetails)[DETAILS];
}

/** The detail recorded for `key` of `holder` (`'$'`: the object itself). */
export function xmlDetail(holder: object, key: string): XmlDetail | undefined {
  return detailsOf(holder)?.get(key);
}

/** Records (adds to) the detail of `key` of `holder`. */
export function setXmlDetail(holder: object, key: string, detail: XmlDetail): void {
  let details = detailsOf(holder);
  if (details === undefined) {
    details = new Map();
    Object.defineProperty(holder, DETAILS, { value: details, enumerable: false, writable: false, configurable: true });
  }
  details.set(key, { ...details.get(key), ...detail });
}

/** Whether any detail is recorded for `holder`. */
export function hasXmlDetails(holder: object): boolean {
  return detailsOf(holder) !== undefined;
}

/** Copies the details recorded for `from` to `to` (for every key, or only `keys`). */
export function copyXmlDetails(from: object, to: object, keys?: readonly string[]): void {
  const details = detailsOf(from);
  if (details === undefined) return;
  for (const [key, detail] of details) if (keys === undefined || keys.includes(key)) setXmlDetail(to, key, detail);
}
