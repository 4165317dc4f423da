/**
 * `csdlJsonFromXml` and `modelFromCsdlXml`: read an OData CSDL XML document (4.0 or 4.01, what
 * every OData v4 service's `$metadata` returns) into the equivalent CSDL JSON document, element
 * by element as the OASIS CSDL JSON specification maps them, and from there into a
 * {@link Model} through the CSDL JSON reader (one place for the model rules).
 *
 * The XML parser is saxes (namespace-aware, no Node built-ins, so it runs in browsers too).
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type { Model } from './model.js';
import { modelError } from './build-model.js';
import { modelFromCsdl } from './csdl-json.js';
import { EDM_NAMESPACE, EDMX_NAMESPACE, MAX_XML_DEPTH, type CsdlJson, type CsdlJsonObject } from './csdl-json-types.js';
import { setXmlDetail, xmlDetail, type ForeignAttribute } from './csdl-xml-details.js';

/** Options of the CSDL XML reader. */
export interface CsdlXmlOptions {
  /**
   * The longest document accepted, in characters (default {@link DEFAULT_MAX_CSDL_XML_LENGTH},
   * 32 MiB); a longer one is an `invalid_model` error before any parsing.
   */
  readonly maxLength?: number;
}

/** The default limit of {@link CsdlXmlOptions.maxLength}: 32 MiB of text (Microsoft Graph v1.0 is 3.5 MB). */
export const DEFAULT_MAX_CSDL_XML_LENGTH = 32 * 1024 * 1024;

const MAX_DEPTH = MAX_XML_DEPTH;

/** The edmx namespaces of OData v1 to v3 (CSDL 1.0 to 3.0): refused with a clear message. */
const OLD_EDMX_NAMESPACES = new Set(['http://schemas.microsoft.com/ado/2007/06/edmx', 'http://schemas.microsoft.com/ado/2009/11/edmx']);

interface XmlElement {
  readonly uri: string;
  readonly local: string;
  /** Attributes without a namespace prefix (the CSDL ones). */
  readonly attributes: ReadonlyMap<string, string>;
  /** Attributes of other XML namespaces (kept as {@link XmlDetail}s of the JSON object read from the element). */
  readonly foreign: readonly ForeignAttribute[] | undefined;
  /** Shared (and empty) until the first child: a document is mostly leaves. */
  children: readonly XmlElement[];
  text: string;
}

/** The attributes and children of the elements that have none (most have no children, many no CSDL attribute). */
const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();
const NO_CHILDREN: readonly XmlElement[] = Object.freeze([]);

/** Sets a member whatever its name (a document's `__proto__` stays an ordinary key). */
function put(object: CsdlJsonObject, key: string, value: CsdlJson): void {
  // Plain assignment keeps objects fast; `__proto__` would set the prototype instead.
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

function own(object: CsdlJsonObject, key: string): CsdlJson | undefined {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** Parses the XML text into a small element tree (CSDL elements keep their text for constant expressions). */
function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('error', (error) => {
    throw modelError(`The CSDL XML document is not well-formed XML: ${error.message}`);
  });
  parser.on('doctype', () => {
    throw modelError('The CSDL XML document has a DOCTYPE; CSDL documents have none (entity declarations are not read)');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (stack.length >= MAX_DEPTH) throw modelError(`The CSDL XML document nests elements deeper than ${MAX_DEPTH} levels`);
    let attributes: Map<string, string> | undefined;
    let foreign: ForeignAttribute[] | undefined;
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === '') {
        if (attribute.local !== 'xmlns') (attributes ??= new Map()).set(attribute.local, attribute.value);
      } else if (attribute.prefix !== 'xmlns' && attribute.uri !== EDM_NAMESPACE && attribute.uri !== EDMX_NAMESPACE) {
        (foreign ??= []).push({ uri: attribute.uri, prefix: attribute.prefix, local: attribute.local, value: attribute.value });
      }
    }
    const element: XmlElement = {
      uri: tag.uri,
      local: tag.local,
      attributes: attributes ?? NO_ATTRIBUTES,
      foreign,
      children: NO_CHILDREN,
      text: '',
    };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = element;
    else if (parent.children === NO_CHILDREN) parent.children = [element];
    else (parent.children as XmlElement[]).push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const onText = (text: string): void => {
    const current = stack[stack.length - 1];
    if (current !== undefined) current.text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.write(xml).close();
  if (root === undefined) throw modelError('The CSDL XML document has no root element');
  return root;
}

const edm = (element: XmlElement): boolean => element.uri === EDM_NAMESPACE;
const edmChildren = (element: XmlElement, local?: string): XmlElement[] => element.children.filter((c) => edm(c) && (local === undefined || c.local === local));

function required(element: XmlElement, attribute: string): string {
  const value = element.attributes.get(attribute);
  if (value === undefined) throw modelError(`The CSDL XML element <${element.local}> needs the attribute ${attribute}`);
  return value;
}

function integer(text: string, what: string): number {
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) throw modelError(`${what} must be an integer, not '${text}'`);
  return Number(text);
}

/** A JSON number for an integer text when it is exact, else the text (Int64 beyond 2^53). */
function integerValue(text: string): CsdlJson {
  const trimmed = text.trim();
  if (!/^[-+]?\d+$/.test(trimmed)) throw modelError(`'${text}' is not an integer`);
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : trimmed;
}

/** Decimal and Float constants: a JSON number, or the text for INF, -INF, NaN and unrepresentable values. */
function decimalValue(text: string): CsdlJson {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(trimmed) && Number.isFinite(value)) return value;
  if (['INF', '-INF', 'NaN'].includes(trimmed)) return trimmed;
  throw modelError(`'${text}' is not a number`);
}

function boolValue(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  throw modelError(`'${text}' is not a Boolean (true or false)`);
}

/** `Ns.Type/A Ns.Type/B` (4.0 lists with spaces) → `A,B` (the JSON form of an enumeration value). */
function enumMemberValue(text: string): string {
  return text
    .trim()
    .split(/[\s,]+/)
    .filter((part) => part !== '')
    .map((part) => part.slice(part.lastIndexOf('/') + 1))
    .join(',');
}

const CONSTANTS: Readonly<Record<string, (text: string) => CsdlJson>> = {
  Binary: (t) => t.trim(),
  Bool: boolValue,
  Date: (t) => t.trim(),
  DateTimeOffset: (t) => t.trim(),
  Decimal: decimalValue,
  Duration: (t) => t.trim(),
  EnumMember: enumMemberValue,
  Float: decimalValue,
  Guid: (t) => t.trim(),
  Int: integerValue,
  String: (t) => t,
  TimeOfDay: (t) => t.trim(),
};

const PATHS = ['AnnotationPath', 'ModelElementPath', 'NavigationPropertyPath', 'PropertyPath', 'Path'] as const;

/** Dynamic expressions with two (or, for `If`, three) operands: `{ "$And": [a, b] }`. */
const LISTS = new Set(['And', 'Or', 'Eq', 'Ne', 'Gt', 'Ge', 'Lt', 'Le', 'Has', 'In', 'Add', 'Sub', 'Mul', 'Div', 'DivBy', 'Mod', 'If']);

/** Whether the XML writer, without a detail, writes the JSON `value` as the constant `kind` with this `text`. */
function writtenAs(value: CsdlJson, kind: string, text: string): boolean {
  switch (typeof value) {
    case 'string':
      return kind === 'String' && text === value;
    case 'boolean':
      return kind === 'Bool' && text === String(value);
    case 'number':
      return kind === (Number.isInteger(value) ? 'Int' : 'Float') && text === String(value);
    default:
      return false;
  }
}

/** Records how a constant was written, when the XML writer would not write it so from its JSON value. */
function constant(holder: object, key: string, kind: string, text: string, value: CsdlJson): CsdlJson {
  if (!writtenAs(value, kind, text)) setXmlDetail(holder, key, { constant: { kind, text, value } });
  return value;
}

/** The attributes of other XML namespaces of `element`, kept as a detail of the JSON object read from it. */
function keepForeign(target: CsdlJsonObject, element: XmlElement): void {
  if (element.foreign !== undefined) setXmlDetail(target, '$', { foreign: element.foreign });
}

/** The value of an `Annotation` or `PropertyValue` (member `key` of `holder`): its attribute form, its child expression, or `true` (a tag). */
function valueOf(element: XmlElement, holder: object, key: string): CsdlJson {
  for (const [name, convert] of Object.entries(CONSTANTS)) {
    const text = element.attributes.get(name);
    if (text !== undefined) return constant(holder, key, name, text, convert(text));
  }
  for (const name of PATHS) {
    const text = element.attributes.get(name);
    if (text !== undefined) return { [`$${name}`]: text };
  }
  const urlRef = element.attributes.get('UrlRef');
  if (urlRef !== undefined) return { $UrlRef: urlRef };
  const expression = edmChildren(element).find((c) => c.local !== 'Annotation');
  // An annotation without a value applies a Boolean term (a tag such as Core.Computed): true.
  if (expression === undefined) {
    setXmlDetail(holder, key, { constant: { kind: '', text: '', value: true } });
    return true;
  }
  const value = expressionOf(expression, holder, key);
  // A constant or a path in element notation, which the writer would write as an attribute.
  if (Object.prototype.hasOwnProperty.call(CONSTANTS, expression.local) || (PATHS as readonly string[]).includes(expression.local))
    setXmlDetail(holder, key, { elementNotation: true });
  return value;
}

/** Before a member is set again (a repeated annotation or record property): its value, kept as a detail. */
function keepDuplicate(holder: CsdlJsonObject, key: string): void {
  const earlier = own(holder, key);
  if (earlier === undefined) return;
  const detail = xmlDetail(holder, key);
  setXmlDetail(holder, key, { duplicates: [...(detail?.duplicates ?? []), { value: earlier, detail: { ...detail, duplicates: undefined } }] });
}

/** Inline annotations of an element onto a JSON object: `@Term#Qualifier`, and annotations of annotations. */
function annotate(target: CsdlJsonObject, element: XmlElement, prefix = '', qualifier?: string): void {
  for (const annotation of edmChildren(element, 'Annotation')) {
    const ownQualifier = annotation.attributes.get('Qualifier') ?? qualifier;
    const key = `${prefix}@${required(annotation, 'Term')}${ownQualifier === undefined ? '' : `#${ownQualifier}`}`;
    keepDuplicate(target, key);
    put(target, key, valueOf(annotation, target, key));
    annotate(target, annotation, key);
  }
}

/** An annotation expression, the member `key` of `holder` (an array index as a string). */
function expressionOf(element: XmlElement, holder: object, key: string): CsdlJson {
  const name = element.local;
  if (!edm(element)) throw modelError(`Unknown annotation expression <${name}> in namespace '${element.uri}'`);
  const convert = CONSTANTS[name];
  if (convert !== undefined && Object.prototype.hasOwnProperty.call(CONSTANTS, name)) {
    const text = name === 'String' ? element.text : element.text.trim();
    return constant(holder, key, name, text, convert(element.text));
  }
  if ((PATHS as readonly string[]).includes(name)) return { [`$${name}`]: element.text.trim() };
  const operands = (): CsdlJson[] => {
    const list: CsdlJson[] = [];
    for (const child of edmChildren(element)) if (child.local !== 'Annotation') list.push(expressionOf(child, list, String(list.length)));
    return list;
  };
  const result: CsdlJsonObject = {};
  switch (name) {
    case 'Null':
      // An annotated null is an object in CSDL JSON: `{ "$Null": null, "@Term": … }`.
      if (edmChildren(element, 'Annotation').length === 0) return null;
      put(result, '$Null', null);
      break;
    case 'Collection':
      return operands();
    case 'Record': {
      const type = element.attributes.get('Type');
      if (type !== undefined) put(result, '@type', `#${type}`);
      for (const child of edmChildren(element)) {
        if (child.local === 'PropertyValue') {
          const property = required(child, 'Property');
          keepDuplicate(result, property);
          put(result, property, valueOf(child, result, property));
          annotate(result, child, property);
        } else if (child.local !== 'Annotation') {
          throw modelError(`A <Record> holds <PropertyValue> and <Annotation> elements, not <${child.local}>`);
        }
      }
      break;
    }
    case 'Apply':
      put(result, '$Apply', operands());
      put(result, '$Function', required(element, 'Function'));
      break;
    case 'Cast':
    case 'IsOf': {
      const operand = edmChildren(element).find((c) => c.local !== 'Annotation');
      put(result, `$${name}`, operand === undefined ? null : expressionOf(operand, result, `$${name}`));
      typeMembers(result, element, required(element, 'Type'));
      break;
    }
    case 'Not':
    case 'Neg': {
      const operand = edmChildren(element).find((c) => c.local !== 'Annotation');
      put(result, `$${name}`, operand === undefined ? null : expressionOf(operand, result, `$${name}`));
      break;
    }
    case 'LabeledElement':
      put(result, '$LabeledElement', valueOf(element, result, '$LabeledElement'));
      put(result, '$Name', required(element, 'Name'));
      break;
    case 'LabeledElementReference':
      return { $LabeledElementReference: element.text.trim() };
    case 'UrlRef':
      put(result, '$UrlRef', valueOf(element, result, '$UrlRef'));
      break;
    default:
      if (!LISTS.has(name)) throw modelError(`Unknown annotation expression <${name}>`);
      put(result, `$${name}`, operands());
  }
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

const COLLECTION = /^Collection\((.+)\)$/;

/** `$Type` (omitted for Edm.String), `$Collection`, and the facets of a typed element. */
function typeMembers(target: CsdlJsonObject, element: XmlElement, typeText: string | undefined): void {
  if (typeText !== undefined) {
    const match = COLLECTION.exec(typeText);
    const type = match ? (match[1] as string) : typeText;
    if (type !== 'Edm.String') put(target, '$Type', type);
    if (match) put(target, '$Collection', true);
  }
  facets(target, element, typeText);
}

function facets(target: CsdlJsonObject, element: XmlElement, typeText: string | undefined): void {
  const a = element.attributes;
  const maxLength = a.get('MaxLength');
  // `max` (4.0 only) is written by omitting $MaxLength (kept as a detail for the XML writer).
  if (maxLength === 'max') setXmlDetail(target, '$', { maxLength: 'max' });
  else if (maxLength !== undefined) put(target, '$MaxLength', integer(maxLength, 'MaxLength'));
  const precision = a.get('Precision');
  if (precision !== undefined) put(target, '$Precision', integer(precision, 'Precision'));
  const scale = a.get('Scale');
  if (scale !== undefined) put(target, '$Scale', scale === 'variable' || scale === 'floating' ? scale : integer(scale, 'Scale'));
  const srid = a.get('SRID');
  if (srid !== undefined) put(target, '$SRID', srid === 'variable' ? srid : integer(srid, 'SRID'));
  if (a.get('Unicode') === 'false') put(target, '$Unicode', false);
  const defaultValue = a.get('DefaultValue');
  if (defaultValue !== undefined) put(target, '$DefaultValue', defaultValueOf(defaultValue, typeText));
}

const NUMERIC = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Single']);

/** A default value in its JSON representation: Boolean and numeric types as JSON values, the rest as strings. */
function defaultValueOf(text: string, typeText: string | undefined): CsdlJson {
  if (typeText === 'Edm.Boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (typeText !== undefined && NUMERIC.has(typeText) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text) && Number.isFinite(Number(text))) {
    const value = Number(text);
    return Number.isSafeInteger(value) || !/^-?\d+$/.test(text) ? value : text;
  }
  return text;
}

/** Nullable: absent means true in XML (properties, parameters, return types, terms); `$Nullable: true` in JSON. */
function nullable(target: CsdlJsonObject, element: XmlElement, byDefault: boolean): void {
  const text = element.attributes.get('Nullable');
  const value = text === undefined ? byDefault : boolValue(text);
  if (value) put(target, '$Nullable', true);
  // On a collection, an absent Nullable is not `true` (CSDL XML 7.2.1): the XML writer omits
  // Nullable="true" unless the document wrote it.
  if (value && text !== undefined && target.$Collection === true) setXmlDetail(target, '$', { nullableTrue: true });
}

function flag(target: CsdlJsonObject, element: XmlElement, attribute: string, member = `$${attribute}`): void {
  const text = element.attributes.get(attribute);
  if (text !== undefined && boolValue(text)) put(target, member, true);
}

function propertyOf(element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = {};
  typeMembers(result, element, required(element, 'Type'));
  nullable(result, element, true);
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function navigationOf(element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'NavigationProperty' };
  const type = required(element, 'Type');
  typeMembers(result, element, type);
  // Single-valued navigation is nullable unless stated; a collection has no $Nullable.
  if (!COLLECTION.test(type)) nullable(result, element, true);
  const partner = element.attributes.get('Partner');
  if (partner !== undefined) put(result, '$Partner', partner);
  flag(result, element, 'ContainsTarget');
  const constraints = edmChildren(element, 'ReferentialConstraint');
  if (constraints.length > 0) {
    const map: CsdlJsonObject = {};
    for (const constraint of constraints) {
      const property = required(constraint, 'Property');
      put(map, property, required(constraint, 'ReferencedProperty'));
      annotate(map, constraint, property);
    }
    put(result, '$ReferentialConstraint', map);
  }
  const onDelete = edmChildren(element, 'OnDelete')[0];
  if (onDelete !== undefined) {
    put(result, '$OnDelete', required(onDelete, 'Action'));
    annotate(result, onDelete, '$OnDelete');
  }
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function structuredOf(kind: 'EntityType' | 'ComplexType', element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: kind };
  const base = element.attributes.get('BaseType');
  if (base !== undefined) put(result, '$BaseType', base);
  flag(result, element, 'Abstract');
  flag(result, element, 'OpenType');
  flag(result, element, 'HasStream');
  const key = edmChildren(element, 'Key')[0];
  if (key !== undefined) {
    put(
      result,
      '$Key',
      edmChildren(key, 'PropertyRef').map((ref) => {
        const name = required(ref, 'Name');
        const alias = ref.attributes.get('Alias');
        return alias === undefined ? name : { [alias]: name };
      }),
    );
  }
  for (const child of edmChildren(element)) {
    if (child.local === 'Property') put(result, required(child, 'Name'), propertyOf(child));
    else if (child.local === 'NavigationProperty') put(result, required(child, 'Name'), navigationOf(child));
  }
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function enumOf(element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'EnumType' };
  const underlying = element.attributes.get('UnderlyingType');
  if (underlying !== undefined && underlying !== 'Edm.Int32') put(result, '$UnderlyingType', underlying);
  flag(result, element, 'IsFlags');
  // Members without a Value count on from the previous one (from 0).
  let next = 0n;
  let implicit = true;
  for (const member of edmChildren(element, 'Member')) {
    const name = required(member, 'Name');
    const text = member.attributes.get('Value');
    if (text !== undefined) implicit = false;
    const value = text === undefined ? next : BigInt(integer(text, `The value of enumeration member '${name}'`));
    next = value + 1n;
    put(result, name, Number.isSafeInteger(Number(value)) ? Number(value) : String(value));
    annotate(result, member, name);
  }
  if (implicit) setXmlDetail(result, '$', { implicitValues: true });
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function typeDefinitionOf(element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'TypeDefinition' };
  const underlying = required(element, 'UnderlyingType');
  put(result, '$UnderlyingType', underlying);
  facets(result, element, underlying);
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function termOf(element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'Term' };
  typeMembers(result, element, required(element, 'Type'));
  nullable(result, element, true);
  const base = element.attributes.get('BaseTerm');
  if (base !== undefined) put(result, '$BaseTerm', base);
  const appliesTo = element.attributes.get('AppliesTo');
  if (appliesTo !== undefined)
    put(
      result,
      '$AppliesTo',
      appliesTo.split(/\s+/).filter((s) => s !== ''),
    );
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function operationOf(kind: 'Action' | 'Function', element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: kind };
  flag(result, element, 'IsBound');
  flag(result, element, 'IsComposable');
  const entitySetPath = element.attributes.get('EntitySetPath');
  if (entitySetPath !== undefined) put(result, '$EntitySetPath', entitySetPath);
  const parameters = edmChildren(element, 'Parameter').map((parameter) => {
    const p: CsdlJsonObject = { $Name: required(parameter, 'Name') };
    typeMembers(p, parameter, required(parameter, 'Type'));
    nullable(p, parameter, true);
    annotate(p, parameter);
    keepForeign(p, parameter);
    return p;
  });
  if (parameters.length > 0) put(result, '$Parameter', parameters);
  const returnType = edmChildren(element, 'ReturnType')[0];
  if (returnType !== undefined) {
    const r: CsdlJsonObject = {};
    typeMembers(r, returnType, required(returnType, 'Type'));
    nullable(r, returnType, true);
    annotate(r, returnType);
    keepForeign(r, returnType);
    put(result, '$ReturnType', r);
  }
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function bindingsOf(target: CsdlJsonObject, element: XmlElement): void {
  const bindings = edmChildren(element, 'NavigationPropertyBinding');
  if (bindings.length === 0) return;
  const map: CsdlJsonObject = {};
  for (const binding of bindings) put(map, required(binding, 'Path'), required(binding, 'Target'));
  put(target, '$NavigationPropertyBinding', map);
}

function containerOf(element: XmlElement): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'EntityContainer' };
  const extendsName = element.attributes.get('Extends');
  if (extendsName !== undefined) put(result, '$Extends', extendsName);
  for (const child of edmChildren(element)) {
    const member: CsdlJsonObject = {};
    switch (child.local) {
      case 'EntitySet':
        put(member, '$Collection', true);
        put(member, '$Type', required(child, 'EntityType'));
        if (child.attributes.get('IncludeInServiceDocument') === 'false') put(member, '$IncludeInServiceDocument', false);
        bindingsOf(member, child);
        break;
      case 'Singleton':
        put(member, '$Type', required(child, 'Type'));
        nullable(member, child, false);
        bindingsOf(member, child);
        break;
      case 'ActionImport':
      case 'FunctionImport': {
        const operation = child.local === 'ActionImport' ? 'Action' : 'Function';
        put(member, `$${operation}`, required(child, operation));
        const entitySet = child.attributes.get('EntitySet');
        if (entitySet !== undefined) put(member, '$EntitySet', entitySet);
        if (operation === 'Function') flag(member, child, 'IncludeInServiceDocument');
        break;
      }
      default:
        continue;
    }
    annotate(member, child);
    keepForeign(member, child);
    put(result, required(child, 'Name'), member);
  }
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function schemaOf(element: XmlElement, document: CsdlJsonObject): CsdlJsonObject {
  const namespace = required(element, 'Namespace');
  const result: CsdlJsonObject = {};
  const alias = element.attributes.get('Alias');
  if (alias !== undefined) put(result, '$Alias', alias);
  const annotations: CsdlJsonObject = {};
  // One member per name. Operation overloads share theirs (an array). CSDL JSON cannot hold an
  // operation and another element of the same name (Microsoft Graph has a complex type and a
  // function both named `image`): the other element is kept, the operation is a detail for the
  // XML writer (not in the JSON).
  const clash = (name: string, operations: readonly CsdlJson[]): void => {
    setXmlDetail(result, name, { operations: [...(xmlDetail(result, name)?.operations ?? []), ...operations] });
  };
  const declare = (name: string, value: CsdlJsonObject): void => {
    const existing = own(result, name);
    if (existing !== undefined && !Array.isArray(existing)) throw modelError(`The schema '${namespace}' declares '${name}' twice`);
    // Operations declared before an element of the same name: kept as a detail for the XML writer.
    if (Array.isArray(existing)) clash(name, existing);
    put(result, name, value);
  };
  for (const child of edmChildren(element)) {
    const name = child.local === 'Annotations' || child.local === 'Annotation' ? '' : required(child, 'Name');
    switch (child.local) {
      case 'EntityType':
      case 'ComplexType':
        declare(name, structuredOf(child.local, child));
        break;
      case 'EnumType':
        declare(name, enumOf(child));
        break;
      case 'TypeDefinition':
        declare(name, typeDefinitionOf(child));
        break;
      case 'Term':
        declare(name, termOf(child));
        break;
      case 'Action':
      case 'Function': {
        const existing = own(result, name);
        const operation = operationOf(child.local, child);
        if (Array.isArray(existing)) existing.push(operation);
        else if (existing === undefined) put(result, name, [operation]);
        else clash(name, [operation]);
        break;
      }
      case 'EntityContainer':
        declare(name, containerOf(child));
        if (own(document, '$EntityContainer') === undefined) put(document, '$EntityContainer', `${namespace}.${name}`);
        break;
      case 'Annotations': {
        const target = required(child, 'Target');
        const existing = own(annotations, target);
        const block = typeof existing === 'object' && existing !== null && !Array.isArray(existing) ? existing : {};
        annotate(block, child, '', child.attributes.get('Qualifier'));
        put(annotations, target, block);
        break;
      }
      default:
        break;
    }
  }
  if (Object.keys(annotations).length > 0) put(result, '$Annotations', annotations);
  annotate(result, element);
  keepForeign(result, element);
  return result;
}

function referencesOf(root: XmlElement): CsdlJsonObject | undefined {
  const references = root.children.filter((c) => c.uri === EDMX_NAMESPACE && c.local === 'Reference');
  if (references.length === 0) return undefined;
  const result: CsdlJsonObject = {};
  for (const reference of references) {
    const entry: CsdlJsonObject = {};
    const includes = reference.children.filter((c) => c.uri === EDMX_NAMESPACE && c.local === 'Include');
    if (includes.length > 0) {
      put(
        entry,
        '$Include',
        includes.map((include) => {
          const item: CsdlJsonObject = { $Namespace: required(include, 'Namespace') };
          const alias = include.attributes.get('Alias');
          if (alias !== undefined) put(item, '$Alias', alias);
          annotate(item, include);
          return item;
        }),
      );
    }
    const includeAnnotations = reference.children.filter((c) => c.uri === EDMX_NAMESPACE && c.local === 'IncludeAnnotations');
    if (includeAnnotations.length > 0) {
      put(
        entry,
        '$IncludeAnnotations',
        includeAnnotations.map((include) => {
          const item: CsdlJsonObject = { $TermNamespace: required(include, 'TermNamespace') };
          const qualifier = include.attributes.get('Qualifier');
          if (qualifier !== undefined) put(item, '$Qualifier', qualifier);
          const targetNamespace = include.attributes.get('TargetNamespace');
          if (targetNamespace !== undefined) put(item, '$TargetNamespace', targetNamespace);
          return item;
        }),
      );
    }
    annotate(entry, reference);
    put(result, required(reference, 'Uri'), entry);
  }
  return result;
}

/**
 * Reads a CSDL XML document (4.0 or 4.01) into the equivalent CSDL JSON document (4.01), as the
 * OASIS CSDL JSON specification maps each element: `$Kind`, `$Type` (omitted for `Edm.String`),
 * `$Collection`, `$Nullable` (XML's default `true` written out), `$Key`, references with
 * aliases, inline annotations `@Term#Qualifier`, `<Annotations Target>` blocks as
 * `$Annotations`, and annotation expressions (constants, paths, `Collection`, `Record`, and the
 * dynamic expressions). What CSDL JSON cannot say is recorded beside the JSON objects, for
 * `csdlXmlFromJson` to write the same XML (see `csdl-xml-details.ts`): the kinds and text of
 * constants, `MaxLength="max"`, attributes of other XML namespaces, and the like. Child
 * elements of other XML namespaces are left out.
 *
 * @throws {ODataError} `invalid_model` (status 500) for a document longer than the limit, XML
 *   that is not well-formed, a DOCTYPE, a root other than `edmx:Edmx` 4.0/4.01 (OData v2/v3
 *   metadata is named as such), or a CSDL element without a required attribute
 */
export function csdlJsonFromXml(xml: string, options: CsdlXmlOptions = {}): CsdlJsonObject {
  if (typeof xml !== 'string') throw modelError('The CSDL XML document must be a string');
  const maxLength = options.maxLength ?? DEFAULT_MAX_CSDL_XML_LENGTH;
  if (xml.length > maxLength)
    throw modelError(`The CSDL XML document is ${xml.length} characters long, more than the limit of ${maxLength} (option maxLength)`);
  const root = parseXml(xml.startsWith('\uFEFF') ? xml.slice(1) : xml);
  if (OLD_EDMX_NAMESPACES.has(root.uri)) {
    throw modelError(`The document is OData v2/v3 metadata (edmx namespace '${root.uri}'); only CSDL 4.0 and 4.01 (namespace '${EDMX_NAMESPACE}') are read`);
  }
  if (root.uri !== EDMX_NAMESPACE || root.local !== 'Edmx') {
    throw modelError(
      `The root element of a CSDL XML document is edmx:Edmx in namespace '${EDMX_NAMESPACE}', not <${root.local}>${root.uri === '' ? '' : ` in namespace '${root.uri}'`}`,
    );
  }
  const version = required(root, 'Version');
  if (version !== '4.0' && version !== '4.01') throw modelError(`The CSDL XML document has Version '${version}'; only 4.0 and 4.01 are read`);
  const document: CsdlJsonObject = { $Version: version };
  const references = referencesOf(root);
  if (references !== undefined) put(document, '$Reference', references);
  for (const dataServices of root.children.filter((c) => c.uri === EDMX_NAMESPACE && c.local === 'DataServices')) {
    for (const schema of edmChildren(dataServices, 'Schema')) {
      const namespace = required(schema, 'Namespace');
      if (own(document, namespace) !== undefined) throw modelError(`The CSDL XML document has the schema '${namespace}' twice`);
      put(document, namespace, schemaOf(schema, document));
    }
  }
  return document;
}

/**
 * Reads a CSDL XML document (4.0 or 4.01, a service's `$metadata`) into a {@link Model}: the
 * document is read into CSDL JSON by {@link csdlJsonFromXml}, which `modelFromCsdl` turns into
 * the model, with the same Capabilities annotations.
 *
 * @throws {ODataError} `invalid_model` (status 500) for a document that is not a usable model
 */
export function modelFromCsdlXml(xml: string, options: CsdlXmlOptions = {}): Model {
  return modelFromCsdl(csdlJsonFromXml(xml, options));
}
