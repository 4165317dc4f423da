/**
 * A canonical form of a CSDL XML document, to compare a document with what the writers make of
 * it. It is written for the tests, on top of saxes, and shares no code with the library's CSDL
 * reader or writers.
 *
 * It compares the XML information that CSDL gives a meaning to, and only that. Quotations are
 * from OData CSDL XML Representation 4.01, by section title:
 *
 * - XML level: comments, processing instructions and the XML declaration are dropped, and so is
 *   text that is only whitespace (indentation). Elements and attributes are named by namespace
 *   URI and local name, so namespace prefixes and where they are declared do not matter (XML
 *   Namespaces 1.0: a prefix only stands for its URI; "the prefix name is not prescriptive",
 *   "Namespace EDMX"). `xmlns` declarations are not attributes there. Attributes are sorted:
 *   "OData does not impose any ordering constraints on XML attributes within XML elements"
 *   ("XML Document Order").
 * - CSDL level: only what the specification says is equivalent. Each rule below quotes it.
 *   Everything else must be equal, including the document order of elements ("Client libraries
 *   MUST retain the document order of XML elements for CSDL XML documents", "XML Document
 *   Order").
 *
 * What is canonicalised away:
 *
 * 1. Attributes whose value is the one their absence means, and only there:
 *    - `Nullable="true"` on a single-valued `Property` or `Term` ("If no value is specified for
 *      a single-valued property, the Nullable attribute defaults to true", "Nullable"; the term
 *      refers to the same facets), `NavigationProperty`, `ReturnType` and `Parameter` ("Absence
 *      of the attribute means true", "Nullable Navigation Property", "Return Type",
 *      "Parameter"). A collection's `Nullable` is NOT dropped: "If no value is specified for a
 *      collection-valued property, the client cannot assume any default value".
 *    - `Abstract`, `OpenType`, `HasStream`, `ContainsTarget`, `IsFlags`, `IsBound`,
 *      `IsComposable` = `false` ("Absence of the attribute means false", in the sections of
 *      each).
 *    - `Unicode="true"` ("Absence of the attribute means true", "Unicode").
 *    - `UnderlyingType="Edm.Int32"` on an enumeration type ("If not explicitly specified,
 *      Edm.Int32 is used as the underlying type", "Underlying Integer Type").
 * 2. Not done: alias-qualified names could be written with the namespace instead ("An alias only
 *    provides a more convenient notation", "Alias"), but the model keeps names as the document
 *    spells them, so the comparison keeps spellings: a writer that changed `graph.user` into
 *    `microsoft.graph.user` would fail it.
 * 3. Not done: a constant or path expression "MAY be provided using element notation or attribute
 *    notation" ("Constant Expression", and each path expression), but the reader records which
 *    one the document uses and the writer keeps it, so the comparison keeps notations as they
 *    are. Their kind and text must be equal too (`Date="2020-01-01"` is not
 *    `String="2020-01-01"`, `Decimal="1.50"` is not `Decimal="1.5"`).
 * 4. The position of `Annotation` elements among their parent's other children: they are moved
 *    after them, in their order. "The combination of target model element, term, and qualifier
 *    uniquely identifies an annotation" ("Qualifier"): its position says nothing. The
 *    order-significant children the specification names are enumeration members and the items
 *    of a collection ("XML Document Order"), whose order is kept, like that of every other
 *    element.
 * 5. `Annotations` blocks: "The edm:Annotations element is used to apply a group of annotations
 *    to a single model element" ("Annotations with External Targeting"), with its `Qualifier`
 *    for all of them (its children "MUST NOT provide a value for the qualifier attribute if the
 *    parent edm:Annotations element provides a value", "Qualifier"). An annotation being
 *    identified by target, term and qualifier (rule 4), the block's qualifier is written on each
 *    of its annotations, the blocks of one target are merged into one, and the blocks are moved
 *    after the schema's other children. The grouping into blocks is also what CSDL JSON cannot
 *    say: CSDL XML "is an alternative to the CSDL JSON representation ... and neither adds nor
 *    removes features" ("XML Representation"), and CSDL JSON has one `$Annotations` object per
 *    schema, one member per target.
 * 6. The position of an action or function overload among the schema's children: overloads of
 *    one name are moved next to the first element of that name. Overloads share their name
 *    ("Action Overloads", "Function Overloads"), and CSDL JSON holds them as one array member of
 *    the schema (same argument as 5).
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';

const EDMX = 'http://docs.oasis-open.org/odata/ns/edmx';
const EDM = 'http://docs.oasis-open.org/odata/ns/edm';

/** An element of the canonical tree. */
export interface CanonicalElement {
  /** `edm:Name`, `edmx:Name`, or `{uri}Name` for other namespaces. */
  name: string;
  /** Sorted by name. */
  attributes: [string, string][];
  children: CanonicalElement[];
  /** Text content (constants), when not only whitespace. */
  text: string;
}

function qualifiedName(uri: string, local: string): string {
  if (uri === EDM) return `edm:${local}`;
  if (uri === EDMX) return `edmx:${local}`;
  return uri === '' ? local : `{${uri}}${local}`;
}

/** Parses XML into a tree of elements (XML level only: prefixes resolved, comments and indentation dropped). */
export function parseXmlTree(xml: string): CanonicalElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: CanonicalElement[] = [];
  let root: CanonicalElement | undefined;
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attributes: [string, string][] = [];
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === 'xmlns' || (attribute.prefix === '' && attribute.local === 'xmlns')) continue;
      attributes.push([qualifiedName(attribute.uri, attribute.local), attribute.value]);
    }
    const element: CanonicalElement = { name: qualifiedName(tag.uri, tag.local), attributes, children: [], text: '' };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = element;
    else parent.children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    const element = stack.pop() as CanonicalElement;
    if (element.text.trim() === '') element.text = '';
  });
  const onText = (text: string): void => {
    const current = stack[stack.length - 1];
    if (current !== undefined) current.text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.write(xml.replace(/^\uFEFF/, '')).close();
  if (root === undefined) throw new Error('no root element');
  return root;
}

const get = (element: CanonicalElement, name: string): string | undefined => element.attributes.find(([n]) => n === name)?.[1];
const remove = (element: CanonicalElement, name: string): void => {
  element.attributes = element.attributes.filter(([n]) => n !== name);
};
const local = (element: CanonicalElement): string => element.name.slice(element.name.indexOf(':') + 1);
const isEdm = (element: CanonicalElement, name?: string): boolean => element.name.startsWith('edm:') && (name === undefined || local(element) === name);

/** Rule 1: attributes whose value CSDL defines as the default. */
const FALSE_BY_DEFAULT: Readonly<Record<string, readonly string[]>> = {
  EntityType: ['Abstract', 'OpenType', 'HasStream'],
  ComplexType: ['Abstract', 'OpenType'],
  NavigationProperty: ['ContainsTarget'],
  EnumType: ['IsFlags'],
  Action: ['IsBound'],
  Function: ['IsBound', 'IsComposable'],
};
const NULLABLE_BY_DEFAULT = new Set(['Property', 'NavigationProperty', 'ReturnType', 'Parameter', 'Term']);
const FACETED = new Set(['Property', 'ReturnType', 'Parameter', 'Term', 'TypeDefinition']);

function aliasesOf(root: CanonicalElement): Map<string, string> {
  const aliases = new Map<string, string>();
  const visit = (element: CanonicalElement): void => {
    const alias = get(element, 'Alias');
    const namespace = get(element, 'Namespace');
    if (alias !== undefined && namespace !== undefined && (element.name === 'edmx:Include' || element.name === 'edm:Schema')) aliases.set(alias, namespace);
    for (const child of element.children) if (['edmx:Reference', 'edmx:Include', 'edmx:DataServices', 'edm:Schema'].includes(child.name)) visit(child);
  };
  visit(root);
  return aliases;
}

/** Every dotted name in `text` whose namespace part is an alias, written with the namespace (for the census of terms). */
function unalias(text: string, aliases: ReadonlyMap<string, string>): string {
  return text.replace(/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+/g, (name) => {
    const dot = name.lastIndexOf('.');
    const namespace = aliases.get(name.slice(0, dot));
    return namespace === undefined ? name : `${namespace}${name.slice(dot)}`;
  });
}

function canonicalize(element: CanonicalElement): void {
  if (isEdm(element)) {
    const name = local(element);
    // Rule 1.
    for (const attribute of FALSE_BY_DEFAULT[name] ?? []) if (get(element, attribute) === 'false') remove(element, attribute);
    const type = get(element, 'Type');
    if (NULLABLE_BY_DEFAULT.has(name) && get(element, 'Nullable') === 'true' && type !== undefined && !type.startsWith('Collection('))
      remove(element, 'Nullable');
    if (FACETED.has(name) && get(element, 'Unicode') === 'true') remove(element, 'Unicode');
    if (name === 'EnumType' && get(element, 'UnderlyingType') === 'Edm.Int32') remove(element, 'UnderlyingType');
  }
  for (const child of element.children) canonicalize(child);
  // Rule 4.
  const annotations = element.children.filter((c) => isEdm(c, 'Annotation'));
  if (annotations.length > 0) element.children = [...element.children.filter((c) => !isEdm(c, 'Annotation')), ...annotations];
  if (isEdm(element, 'Schema')) canonicalSchema(element);
  element.attributes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Rules 5 and 6 on a schema's children. */
function canonicalSchema(schema: CanonicalElement): void {
  const blocks = new Map<string, CanonicalElement>();
  /** The schema's other children in groups: an element, and the overloads that join it. */
  const groups: CanonicalElement[][] = [];
  const groupOf = new Map<string, CanonicalElement[]>();
  for (const child of schema.children) {
    if (isEdm(child, 'Annotations')) {
      const target = get(child, 'Target') as string;
      const qualifier = get(child, 'Qualifier');
      for (const annotation of child.children) {
        if (qualifier !== undefined && isEdm(annotation, 'Annotation') && get(annotation, 'Qualifier') === undefined) {
          annotation.attributes.push(['Qualifier', qualifier]);
          annotation.attributes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        }
      }
      const block = blocks.get(target);
      if (block === undefined) blocks.set(target, { name: child.name, attributes: [['Target', target]], children: [...child.children], text: '' });
      else block.children.push(...child.children);
      continue;
    }
    const name = get(child, 'Name');
    const group = name === undefined ? undefined : groupOf.get(name);
    if (group !== undefined && (isEdm(child, 'Action') || isEdm(child, 'Function'))) group.push(child);
    else {
      const own = [child];
      groups.push(own);
      if (name !== undefined && group === undefined) groupOf.set(name, own);
    }
  }
  schema.children = [...groups.flat(), ...blocks.values()];
}

/**
 * The canonical form of a CSDL XML document (see the module comment for what it makes equal), as
 * lines of text: one line per element with its sorted attributes, indented by depth, and a line
 * per text content. Two documents are equal for CSDL when their canonical lines are equal.
 */
export function canonicalCsdlXml(xml: string): string[] {
  return canonicalLines(parseXmlTree(xml));
}

/** {@link canonicalCsdlXml} of a parsed document (whose tree it canonicalises in place). */
export function canonicalLines(root: CanonicalElement): string[] {
  canonicalize(root);
  const lines: string[] = [];
  const write = (element: CanonicalElement, depth: number): void => {
    const indent = ' '.repeat(depth);
    lines.push(`${indent}<${element.name}${element.attributes.map(([n, v]) => ` ${n}=${JSON.stringify(v)}`).join('')}>`);
    if (element.text !== '') lines.push(`${indent} text ${JSON.stringify(element.text)}`);
    for (const child of element.children) write(child, depth + 1);
  };
  write(root, 0);
  return lines;
}

/** The `Annotation` elements of a CSDL XML document, by term (namespace-qualified) and qualifier: a census. */
export function annotationCensus(xml: string): Map<string, number> {
  return censusOf(parseXmlTree(xml));
}

/** {@link annotationCensus} of a parsed document (before {@link canonicalLines}, which changes it). */
export function censusOf(root: CanonicalElement): Map<string, number> {
  const aliases = aliasesOf(root);
  const census = new Map<string, number>();
  const visit = (element: CanonicalElement, blockQualifier: string | undefined): void => {
    for (const child of element.children) {
      if (isEdm(child, 'Annotation')) {
        const key = `${unalias(get(child, 'Term') ?? '', aliases)}#${get(child, 'Qualifier') ?? blockQualifier ?? ''}`;
        census.set(key, (census.get(key) ?? 0) + 1);
      }
      visit(child, isEdm(child, 'Annotations') ? get(child, 'Qualifier') : isEdm(child, 'Annotation') ? undefined : blockQualifier);
    }
  };
  visit(root, undefined);
  return census;
}
