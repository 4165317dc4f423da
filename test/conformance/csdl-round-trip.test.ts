/**
 * A lossless CSDL (issue 28): every published metadata document of the conformance corpus (read
 * from `../shared/`, never copied into the project) read into a model and written again says
 * the same thing, in both formats.
 *
 * - XML → model → XML: the written XML equals the input after canonicalisation by
 *   `test/helpers/csdl-canonical.ts`, which shares no code with the library and normalises only
 *   what the CSDL XML specification says is equivalent (default attribute values, where
 *   `Annotation` elements and `Annotations` blocks stand, and overloads next to the first element
 *   of their name; its module comment quotes the sections). Element order, names as spelled
 *   (alias or namespace), constant kinds (`Date`, `EnumMember`, `Decimal`), their text and
 *   notation (attribute or element), foreign attributes (`p5:StoreGeneratedPattern`) and
 *   `MaxLength="max"` must come back as they were.
 * - JSON → model → JSON: the CSDL JSON of the document (as `csdlJsonFromXml` reads it, then
 *   serialised, so that no reader detail is left) read into a model and written again is equal.
 * - A census: the same `Annotation` elements, by term and qualifier, in the input and the written
 *   XML, and the same annotation members in the JSON.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csdlJsonFromModel, csdlJsonFromXml, csdlXmlFromModel, modelFromCsdl, modelFromCsdlXml } from '../../src/index.js';
import { canonicalLines, censusOf, parseXmlTree } from '../helpers/csdl-canonical.js';
import { CORPUS_DIR, corpusAvailable } from './corpus.js';

const METADATA = resolve(CORPUS_DIR, 'metadata');
const DOCUMENTS = corpusAvailable ? readdirSync(METADATA).filter((file) => file.endsWith('.xml')) : [];
const read = (file: string): string => readFileSync(resolve(METADATA, file), 'utf8');
/** A JSON document as it would come over the wire: plain data, without anything the reader kept beside it. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** Annotation members (`@Term`, `Member@Term`, `@Term@Other`) in a CSDL JSON document; `@type` of a record is its type, not an annotation. */
function jsonAnnotations(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + jsonAnnotations(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  for (const [key, member] of Object.entries(value)) count += (key.includes('@') && key !== '@type' ? 1 : 0) + jsonAnnotations(member);
  return count;
}

const sum = (census: Map<string, number>): number => [...census.values()].reduce((a, b) => a + b, 0);

/** Annotation elements counted in the documents, for the census of the corpus. */
let counted = 0;

describe.skipIf(!corpusAvailable)('a lossless CSDL on every published metadata document', () => {
  it('the corpus has its 11 documents', () => {
    expect(DOCUMENTS.length).toBe(11);
  });

  it.each(DOCUMENTS)(
    '%s: XML → model → XML and JSON → model → JSON give the same document; no annotation is lost',
    (file) => {
      const xml = read(file);
      const model = modelFromCsdlXml(xml);
      const input = parseXmlTree(xml);
      const written = parseXmlTree(csdlXmlFromModel(model));
      const census = censusOf(input);
      expect(censusOf(written)).toEqual(census);
      counted += sum(census);
      // Compared whole (a failure shows the differing lines).
      expect(canonicalLines(written)).toEqual(canonicalLines(input));

      const json = plain(csdlJsonFromXml(xml));
      const again = plain(csdlJsonFromModel(modelFromCsdl(json as object)));
      expect(again).toEqual(json);
      expect(jsonAnnotations(again)).toBe(jsonAnnotations(json));
      // The model read from XML writes the same JSON.
      expect(plain(csdlJsonFromModel(model))).toEqual(json);
    },
    60_000,
  );

  it('the census counted every Annotation element of the corpus (10,294)', () => {
    // Microsoft Graph 6,147, SAP S/4HANA 3,497, the Capabilities vocabulary 309, Core 138, …
    expect(counted).toBe(10_294);
  });
});
