/**
 * `csdlXmlFromJson` and `csdlXmlFromModel`: write a CSDL JSON document (or a {@link Model}) as
 * CSDL XML 4.01, element by element the inverse of `csdlJsonFromXml`, which reads the result
 * back into the same CSDL JSON document.
 */
import type { Model } from './model.js';
import { modelError } from './build-model.js';
import type { ODataError } from '../errors/odata-error.js';
import { csdlJsonFromModel, type CsdlWriteOptions } from './csdl-json-write.js';
import { EDM_NAMESPACE, EDMX_NAMESPACE, MAX_XML_DEPTH, type CsdlJson, type CsdlJsonObject } from './csdl-json-types.js';
import { setXmlDetail, xmlDetail, type XmlDetail } from './csdl-xml-details.js';

/** Terms whose values are enumeration members, and their enumeration types (JSON writes the bare member name). */
const ENUM_TERMS: ReadonlyMap<string, string> = new Map([['Org.OData.Core.V1.Permissions', 'Org.OData.Core.V1.Permission']]);

const PATHS = ['$AnnotationPath', '$ModelElementPath', '$NavigationPropertyPath', '$PropertyPath', '$Path'] as const;
const LISTS = ['$And', '$Or', '$Eq', '$Ne', '$Gt', '$Ge', '$Lt', '$Le', '$Has', '$In', '$Add', '$Sub', '$Mul', '$Div', '$DivBy', '$Mod', '$If'] as const;

function isObject(value: CsdlJson | undefined): value is CsdlJsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entries(object: CsdlJsonObject): [string, CsdlJson][] {
  return Object.keys(object).map((key) => [key, object[key] as CsdlJson]);
}

function has(object: CsdlJsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function escapeAttribute(text: string): string {
  return text.replace(
    /[&<>"\t\n\r]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' })[c] as string,
  );
}

function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' })[c] as string);
}

/** An XML element under construction: name, attributes, children (elements or text). */
interface Element {
  readonly name: string;
  readonly attributes: [string, string][];
  readonly children: (Element | string)[];
}

function element(name: string, attributes: [string, string | undefined][] = [], children: (Element | string)[] = []): Element {
  return { name, attributes: attributes.filter((a): a is [string, string] => a[1] !== undefined), children };
}

/** `element` with the attributes of other XML namespaces that the reader kept for `object` (each prefix declared on it). */
function withForeign(target: Element, object: CsdlJsonObject): Element {
  const foreign = xmlDetail(object, '$')?.foreign;
  if (foreign === undefined) return target;
  // Idempotent: an element's attributes are written once, whoever adds them.
  const present = new Set(target.attributes.map(([name]) => name));
  for (const attribute of foreign) {
    const declaration = `xmlns:${attribute.prefix}`;
    if (!present.has(declaration)) {
      present.add(declaration);
      target.attributes.push([declaration, attribute.uri]);
    }
    const name = `${attribute.prefix}:${attribute.local}`;
    if (!present.has(name)) {
      present.add(name);
      target.attributes.push([name, attribute.value]);
    }
  }
  return target;
}

/** A constant as the XML reader found it (its element name and text), while its JSON value is unchanged. */
function constantDetail(holder: object | undefined, key: string | undefined, value: CsdlJson): { kind: string; text: string } | undefined {
  if (holder === undefined || key === undefined) return undefined;
  const constant = xmlDetail(holder, key)?.constant;
  return constant !== undefined && constant.value === value ? constant : undefined;
}

/** A holder of one value with its detail (a repeated member's earlier value, which its JSON object does not hold). */
function detailHolder(key: string, duplicate: { readonly value: CsdlJson; readonly detail: XmlDetail | undefined }): object {
  const holder = {};
  if (duplicate.detail !== undefined) setXmlDetail(holder, key, duplicate.detail);
  return holder;
}

const tooDeep = (): ODataError => modelError(`The CSDL XML document would nest elements deeper than ${MAX_XML_DEPTH} levels, which the reader refuses`);

/** Lines are indented by two spaces a level, up to this many levels (deeper annotation expressions stay at that column). */
const MAX_INDENT_LEVELS = 20;

const INDENTS = Array.from({ length: MAX_INDENT_LEVELS }, (_, level) => '  '.repeat(level));

/** The longest text a JavaScript engine is sure to hold (V8's limit on 64-bit platforms, 2^29 − 24 characters). */
const MAX_TEXT_LENGTH = 2 ** 29 - 24;

/** The lines written so far, and their length with the line breaks. */
interface Output {
  readonly lines: string[];
  length: number;
}

function line(out: Output, text: string): void {
  out.length += text.length + 1;
  if (out.length > MAX_TEXT_LENGTH) throw modelError(`The CSDL XML document would be longer than ${MAX_TEXT_LENGTH} characters, more than a string can hold`);
  out.lines.push(text);
}

/** Writes `node` at nesting level `level` (the root is level 1). */
function serialize(node: Element, level: number, out: Output): void {
  if (level > MAX_XML_DEPTH) throw tooDeep();
  const indent = INDENTS[Math.min(level, MAX_INDENT_LEVELS) - 1] as string;
  const attributes = node.attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  if (node.children.length === 0) {
    line(out, `${indent}<${node.name}${attributes}/>`);
  } else if (node.children.every((c) => typeof c === 'string')) {
    line(out, `${indent}<${node.name}${attributes}>${escapeText(node.children.join(''))}</${node.name}>`);
  } else {
    line(out, `${indent}<${node.name}${attributes}>`);
    for (const child of node.children) {
      if (typeof child === 'string') throw modelError('Mixed content cannot be written');
      serialize(child, level + 1, out);
    }
    // Written: the elements can go before the rest is written (the tree and the lines are not all held at once).
    node.children.length = 0;
    line(out, `${indent}</${node.name}>`);
  }
}

/** Objects with at most this many members are not grouped by {@link Writer.annotationKeys} (reading them again costs little). */
const SMALL_OBJECT = 16;

/** Writes JSON values as CSDL XML; resolves term aliases through the document's references and schemas. */
class Writer {
  private readonly aliases = new Map<string, string>();
  /** Expressions and annotations being written, one inside the other (bounded: no deep recursion). */
  private nesting = 0;

  /** `build()`, one level deeper; refused past the XML nesting limit before the stack runs out. */
  private nested<T>(build: () => T): T {
    if (++this.nesting > MAX_XML_DEPTH) throw tooDeep();
    try {
      return build();
    } finally {
      this.nesting--;
    }
  }

  constructor(document: CsdlJsonObject) {
    const references = document.$Reference;
    if (isObject(references)) {
      for (const [, reference] of entries(references)) {
        if (!isObject(reference) || !Array.isArray(reference.$Include)) continue;
        for (const include of reference.$Include) {
          if (isObject(include) && typeof include.$Namespace === 'string' && typeof include.$Alias === 'string')
            this.aliases.set(include.$Alias, include.$Namespace);
        }
      }
    }
    for (const [namespace, schema] of entries(document)) {
      if (!namespace.startsWith('$') && isObject(schema) && typeof schema.$Alias === 'string') this.aliases.set(schema.$Alias, namespace);
    }
  }

  /** The annotation members of each large object, by what they annotate (the text before their last `@`). */
  private readonly keysByPrefix = new Map<CsdlJsonObject, Map<string, string[]>>();

  /**
   * The members `<prefix>@Term#Qualifier` of `object`. A large object (an enumeration, a record, a
   * schema, a target with many annotations) is grouped by prefix in one pass and kept, so that it is
   * read once, not once per member; a small one is read each time (a cache of every object
   * would cost more than it saves).
   */
  private annotationKeys(object: CsdlJsonObject, prefix: string): readonly string[] {
    const cached = this.keysByPrefix.get(object);
    if (cached !== undefined) return cached.get(prefix) ?? [];
    const keys = Object.keys(object);
    if (keys.length <= SMALL_OBJECT) return keys.filter((key) => key.lastIndexOf('@') === prefix.length && key.startsWith(prefix));
    const groups = new Map<string, string[]>();
    for (const key of keys) {
      const at = key.lastIndexOf('@');
      if (at < 0) continue;
      const group = groups.get(key.slice(0, at));
      if (group === undefined) groups.set(key.slice(0, at), [key]);
      else group.push(key);
    }
    this.keysByPrefix.set(object, groups);
    return groups.get(prefix) ?? [];
  }

  private fullTerm(term: string): string {
    const dot = term.lastIndexOf('.');
    const namespace = term.slice(0, dot);
    return `${this.aliases.get(namespace) ?? namespace}.${term.slice(dot + 1)}`;
  }

  /**
   * `<Annotation>` elements for the members `<prefix>@Term#Qualifier` of `object`, each with
   * its own annotations (`<prefix>@Term@Other`).
   */
  annotations(object: CsdlJsonObject, prefix = ''): Element[] {
    const result: Element[] = [];
    for (const key of this.annotationKeys(object, prefix)) {
      const value = object[key] as CsdlJson;
      // `@type` is a record's type, not an annotation.
      if (key === '@type') continue;
      const [term, qualifier] = key.slice(prefix.length + 1).split('#') as [string, string | undefined];
      for (const duplicate of xmlDetail(object, key)?.duplicates ?? []) {
        const earlier = element('Annotation', [
          ['Term', term],
          ['Qualifier', qualifier],
        ]);
        this.value(earlier, duplicate.value, detailHolder(key, duplicate), key);
        result.push(earlier);
      }
      const enumType = ENUM_TERMS.get(this.fullTerm(term));
      const annotation = element('Annotation', [
        ['Term', term],
        ['Qualifier', qualifier],
      ]);
      if (enumType !== undefined && typeof value === 'string' && constantDetail(object, key, value) === undefined) {
        annotation.attributes.push([
          'EnumMember',
          value
            .split(',')
            .map((member) => `${enumType}/${member}`)
            .join(' '),
        ]);
      } else {
        this.value(annotation, value, object, key);
      }
      annotation.children.push(...this.nested(() => this.annotations(object, key)));
      result.push(annotation);
    }
    return result;
  }

  /** The value of an `Annotation` or `PropertyValue`: an attribute for a constant or path, else a child expression. */
  value(target: Element, value: CsdlJson, holder?: object, key?: string): void {
    const constant = constantDetail(holder, key, value);
    // A tag: an annotation of a Boolean term without a value.
    if (constant !== undefined && constant.kind === '') return;
    if (holder !== undefined && key !== undefined && xmlDetail(holder, key)?.elementNotation === true) {
      target.children.push(this.expression(value, holder, key));
      return;
    }
    if (constant !== undefined) target.attributes.push([constant.kind, constant.text]);
    else if (typeof value === 'string') target.attributes.push(['String', value]);
    else if (typeof value === 'boolean') target.attributes.push(['Bool', String(value)]);
    else if (typeof value === 'number') target.attributes.push([Number.isInteger(value) ? 'Int' : 'Float', String(value)]);
    else {
      const path = isObject(value) && Object.keys(value).length === 1 ? PATHS.find((p) => typeof value[p] === 'string') : undefined;
      if (path !== undefined) target.attributes.push([path.slice(1), (value as CsdlJsonObject)[path] as string]);
      else target.children.push(this.expression(value, holder, key));
    }
  }

  /** The expression element of `value`, the member `key` of `holder` (for the reader's details). */
  expression(value: CsdlJson, holder?: object, key?: string): Element {
    return this.nested(() => this.expressionElement(value, holder, key));
  }

  private expressionElement(value: CsdlJson, holder?: object, key?: string): Element {
    const constant = constantDetail(holder, key, value);
    if (constant !== undefined && constant.kind !== '') return element(constant.kind, [], constant.text === '' ? [] : [constant.text]);
    if (value === null) return element('Null');
    if (typeof value === 'string') return element('String', [], [value]);
    if (typeof value === 'boolean') return element('Bool', [], [String(value)]);
    if (typeof value === 'number') return element(Number.isInteger(value) ? 'Int' : 'Float', [], [String(value)]);
    if (Array.isArray(value))
      return element(
        'Collection',
        [],
        value.map((item, index) => this.expression(item, value, String(index))),
      );
    const own = this.annotations(value);
    if (has(value, '$Null')) return element('Null', [], own);
    for (const path of PATHS) if (typeof value[path] === 'string') return element(path.slice(1), [], [value[path] as string]);
    const list = LISTS.find((name) => Array.isArray(value[name]));
    if (list !== undefined) {
      const operands = value[list] as CsdlJson[];
      return element(list.slice(1), [], [...operands.map((v, index) => this.expression(v, operands, String(index))), ...own]);
    }
    for (const name of ['$Not', '$Neg'] as const)
      if (has(value, name)) return element(name.slice(1), [], [this.expression(value[name] as CsdlJson, value, name), ...own]);
    if (Array.isArray(value.$Apply)) {
      const operands = value.$Apply;
      return element('Apply', [['Function', String(value.$Function)]], [...operands.map((v, index) => this.expression(v, operands, String(index))), ...own]);
    }
    for (const name of ['$Cast', '$IsOf'] as const) {
      if (has(value, name))
        return element(name.slice(1), [...typeAttributes(value), ...facetAttributes(value)], [this.expression(value[name] as CsdlJson, value, name), ...own]);
    }
    if (has(value, '$LabeledElement')) {
      const labeled = element('LabeledElement', [['Name', String(value.$Name)]]);
      this.value(labeled, value.$LabeledElement as CsdlJson, value, '$LabeledElement');
      labeled.children.push(...own);
      return labeled;
    }
    if (typeof value.$LabeledElementReference === 'string') return element('LabeledElementReference', [], [value.$LabeledElementReference]);
    if (has(value, '$UrlRef')) {
      const urlRef = element('UrlRef');
      // A child expression, unless the reader found the value as an attribute (which it also takes).
      if (xmlDetail(value, '$UrlRef') === undefined) urlRef.children.push(this.expression(value.$UrlRef as CsdlJson, value, '$UrlRef'));
      else this.value(urlRef, value.$UrlRef as CsdlJson, value, '$UrlRef');
      urlRef.children.push(...own);
      return urlRef;
    }
    // A record: `@type`, property values (with their annotations `Property@Term`), annotations.
    const type = typeof value['@type'] === 'string' ? value['@type'].slice(value['@type'].lastIndexOf('#') + 1) : undefined;
    const record = element('Record', [['Type', type]]);
    for (const [property, propertyValue] of entries(value)) {
      if (property.includes('@')) continue;
      for (const duplicate of xmlDetail(value, property)?.duplicates ?? []) {
        const earlier = element('PropertyValue', [['Property', property]]);
        this.value(earlier, duplicate.value, detailHolder(property, duplicate), property);
        record.children.push(earlier);
      }
      const propertyElement = element('PropertyValue', [['Property', property]]);
      this.value(propertyElement, propertyValue, value, property);
      propertyElement.children.push(...this.annotations(value, property));
      record.children.push(propertyElement);
    }
    record.children.push(...own);
    return record;
  }
}

function typeAttributes(object: CsdlJsonObject): [string, string | undefined][] {
  const type = typeof object.$Type === 'string' ? object.$Type : 'Edm.String';
  return [['Type', object.$Collection === true ? `Collection(${type})` : type]];
}

function facetAttributes(object: CsdlJsonObject): [string, string | undefined][] {
  const text = (key: string): string | undefined => (object[key] === undefined || object[key] === null ? undefined : String(object[key]));
  return [
    ['MaxLength', xmlDetail(object, '$')?.maxLength ?? text('$MaxLength')],
    ['Precision', text('$Precision')],
    ['Scale', text('$Scale')],
    ['SRID', text('$SRID')],
    ['Unicode', object.$Unicode === false ? 'false' : undefined],
    ['DefaultValue', text('$DefaultValue')],
  ];
}

/** `Nullable`: written where it differs from XML's default. */
function nullableAttribute(object: CsdlJsonObject, xmlDefault: boolean): [string, string | undefined] {
  const value = object.$Nullable === true;
  if (value && xmlDetail(object, '$')?.nullableTrue === true) return ['Nullable', 'true'];
  return ['Nullable', value === xmlDefault ? undefined : String(value)];
}

const trueAttribute = (object: CsdlJsonObject, key: string): [string, string | undefined] => [key.slice(1), object[key] === true ? 'true' : undefined];

function memberElements(writer: Writer, kind: string, name: string, value: CsdlJsonObject): Element {
  switch (kind) {
    case 'NavigationProperty': {
      const constraints = isObject(value.$ReferentialConstraint)
        ? entries(value.$ReferentialConstraint)
            .filter(([property]) => !property.includes('@'))
            .map(([property, referenced]) =>
              element(
                'ReferentialConstraint',
                [
                  ['Property', property],
                  ['ReferencedProperty', String(referenced)],
                ],
                writer.annotations(value.$ReferentialConstraint as CsdlJsonObject, property),
              ),
            )
        : [];
      const onDelete = typeof value.$OnDelete === 'string' ? [element('OnDelete', [['Action', value.$OnDelete]], writer.annotations(value, '$OnDelete'))] : [];
      return withForeign(
        element(
          'NavigationProperty',
          [
            ['Name', name],
            ...typeAttributes(value),
            value.$Collection === true ? ['Nullable', undefined] : nullableAttribute(value, true),
            ['Partner', typeof value.$Partner === 'string' ? value.$Partner : undefined],
            trueAttribute(value, '$ContainsTarget'),
          ],
          [...constraints, ...onDelete, ...writer.annotations(value)],
        ),
        value,
      );
    }
    default:
      return withForeign(
        element('Property', [['Name', name], ...typeAttributes(value), nullableAttribute(value, true), ...facetAttributes(value)], writer.annotations(value)),
        value,
      );
  }
}

function structuredElement(writer: Writer, name: string, value: CsdlJsonObject): Element {
  const children: Element[] = [];
  if (Array.isArray(value.$Key)) {
    children.push(
      element(
        'Key',
        [],
        value.$Key.map((ref) => {
          if (isObject(ref)) {
            const [alias, path] = entries(ref)[0] ?? ['', ''];
            return element('PropertyRef', [
              ['Name', String(path)],
              ['Alias', alias],
            ]);
          }
          return element('PropertyRef', [['Name', String(ref)]]);
        }),
      ),
    );
  }
  for (const [member, memberValue] of entries(value)) {
    if (member.startsWith('$') || member.includes('@') || !isObject(memberValue)) continue;
    children.push(memberElements(writer, memberValue.$Kind === 'NavigationProperty' ? 'NavigationProperty' : 'Property', member, memberValue));
  }
  return withForeign(
    element(
      String(value.$Kind),
      [
        ['Name', name],
        ['BaseType', typeof value.$BaseType === 'string' ? value.$BaseType : undefined],
        trueAttribute(value, '$Abstract'),
        trueAttribute(value, '$OpenType'),
        trueAttribute(value, '$HasStream'),
      ],
      [...children, ...writer.annotations(value)],
    ),
    value,
  );
}

function operationElement(writer: Writer, name: string, value: CsdlJsonObject): Element {
  const parameters = Array.isArray(value.$Parameter)
    ? value.$Parameter
        .filter(isObject)
        .map((p) =>
          withForeign(
            element('Parameter', [['Name', String(p.$Name)], ...typeAttributes(p), nullableAttribute(p, true), ...facetAttributes(p)], writer.annotations(p)),
            p,
          ),
        )
    : [];
  const returnType = isObject(value.$ReturnType)
    ? [
        withForeign(
          element(
            'ReturnType',
            [...typeAttributes(value.$ReturnType), nullableAttribute(value.$ReturnType, true), ...facetAttributes(value.$ReturnType)],
            writer.annotations(value.$ReturnType),
          ),
          value.$ReturnType,
        ),
      ]
    : [];
  return withForeign(
    element(
      String(value.$Kind),
      [
        ['Name', name],
        trueAttribute(value, '$IsBound'),
        trueAttribute(value, '$IsComposable'),
        ['EntitySetPath', typeof value.$EntitySetPath === 'string' ? value.$EntitySetPath : undefined],
      ],
      [...parameters, ...returnType, ...writer.annotations(value)],
    ),
    value,
  );
}

function bindingElements(value: CsdlJsonObject): Element[] {
  return isObject(value.$NavigationPropertyBinding)
    ? entries(value.$NavigationPropertyBinding).map(([path, target]) =>
        element('NavigationPropertyBinding', [
          ['Path', path],
          ['Target', String(target)],
        ]),
      )
    : [];
}

function containerElement(writer: Writer, name: string, value: CsdlJsonObject): Element {
  const children: Element[] = [];
  for (const [member, m] of entries(value)) {
    if (member.startsWith('$') || member.includes('@') || !isObject(m)) continue;
    const own = writer.annotations(m);
    const count = children.length;
    if (m.$Collection === true) {
      children.push(
        element(
          'EntitySet',
          [
            ['Name', member],
            ['EntityType', String(m.$Type)],
            ['IncludeInServiceDocument', m.$IncludeInServiceDocument === false ? 'false' : undefined],
          ],
          [...bindingElements(m), ...own],
        ),
      );
    } else if (typeof m.$Action === 'string') {
      children.push(
        element(
          'ActionImport',
          [
            ['Name', member],
            ['Action', m.$Action],
            ['EntitySet', typeof m.$EntitySet === 'string' ? m.$EntitySet : undefined],
          ],
          own,
        ),
      );
    } else if (typeof m.$Function === 'string') {
      children.push(
        element(
          'FunctionImport',
          [
            ['Name', member],
            ['Function', m.$Function],
            ['EntitySet', typeof m.$EntitySet === 'string' ? m.$EntitySet : undefined],
            trueAttribute(m, '$IncludeInServiceDocument'),
          ],
          own,
        ),
      );
    } else {
      children.push(element('Singleton', [['Name', member], ['Type', String(m.$Type)], nullableAttribute(m, false)], [...bindingElements(m), ...own]));
    }
    if (children.length > count) withForeign(children[children.length - 1] as Element, m);
  }
  return withForeign(
    element(
      'EntityContainer',
      [
        ['Name', name],
        ['Extends', typeof value.$Extends === 'string' ? value.$Extends : undefined],
      ],
      [...children, ...writer.annotations(value)],
    ),
    value,
  );
}

function schemaElement(writer: Writer, namespace: string, schema: CsdlJsonObject): Element {
  const children: Element[] = [];
  for (const [name, value] of entries(schema)) {
    if (name.startsWith('$') || name.includes('@')) continue;
    if (Array.isArray(value)) {
      for (const overload of value) if (isObject(overload)) children.push(operationElement(writer, name, overload));
      continue;
    }
    if (!isObject(value)) continue;
    const count = children.length;
    switch (value.$Kind) {
      case 'EntityType':
      case 'ComplexType':
        children.push(structuredElement(writer, name, value));
        break;
      case 'EnumType': {
        const implicit = xmlDetail(value, '$')?.implicitValues === true;
        const members = entries(value)
          .filter(([member]) => !member.startsWith('$') && !member.includes('@'))
          .map(([member, memberValue]) =>
            element(
              'Member',
              [
                ['Name', member],
                ['Value', implicit ? undefined : String(memberValue)],
              ],
              writer.annotations(value, member),
            ),
          );
        children.push(
          element(
            'EnumType',
            [
              ['Name', name],
              ['UnderlyingType', typeof value.$UnderlyingType === 'string' ? value.$UnderlyingType : undefined],
              trueAttribute(value, '$IsFlags'),
            ],
            [...members, ...writer.annotations(value)],
          ),
        );
        break;
      }
      case 'TypeDefinition':
        children.push(
          element('TypeDefinition', [['Name', name], ['UnderlyingType', String(value.$UnderlyingType)], ...facetAttributes(value)], writer.annotations(value)),
        );
        break;
      case 'Term':
        children.push(
          element(
            'Term',
            [
              ['Name', name],
              ...typeAttributes(value),
              nullableAttribute(value, true),
              ['BaseTerm', typeof value.$BaseTerm === 'string' ? value.$BaseTerm : undefined],
              ['AppliesTo', Array.isArray(value.$AppliesTo) ? value.$AppliesTo.join(' ') : undefined],
              ...facetAttributes(value),
            ],
            writer.annotations(value),
          ),
        );
        break;
      case 'EntityContainer':
        children.push(containerElement(writer, name, value));
        break;
      default:
        break;
    }
    if (children.length > count && value.$Kind !== 'EntityContainer') withForeign(children[children.length - 1] as Element, value);
    // Operations that CSDL JSON could not hold beside this element of the same name.
    for (const operation of xmlDetail(schema, name)?.operations ?? []) if (isObject(operation)) children.push(operationElement(writer, name, operation));
  }
  if (isObject(schema.$Annotations)) {
    for (const [target, annotations] of entries(schema.$Annotations)) {
      if (isObject(annotations)) children.push(element('Annotations', [['Target', target]], writer.annotations(annotations)));
    }
  }
  children.push(...writer.annotations(schema));
  return withForeign(
    element(
      'Schema',
      [
        ['Namespace', namespace],
        ['Alias', typeof schema.$Alias === 'string' ? schema.$Alias : undefined],
      ],
      children,
    ),
    schema,
  );
}

/**
 * Writes a CSDL JSON document as CSDL XML (`edmx:Edmx`, Version 4.01, or 4.0 when the document
 * says so): references with their includes, schemas with their types, terms, operations, entity
 * container and `Annotations` blocks, and every annotation as an `Annotation` element.
 * `csdlJsonFromXml` reads the result back into the same JSON document.
 *
 * Annotation values in JSON do not say their type. Where the CSDL XML reader recorded how the
 * document wrote a constant (its kind and text), or other details CSDL JSON cannot hold
 * (`MaxLength="max"`, attributes of other XML namespaces, repeated annotations, …), they are
 * written as read; otherwise a string is written as `String` (as `EnumMember` for
 * `Core.Permissions`), a number as `Int` or `Float`.
 *
 * @throws {ODataError} `invalid_model` (status 500) when `document` is not a JSON object
 */
export function csdlXmlFromJson(document: object): string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw modelError('The CSDL JSON document must be a JSON object');
  const json = document as CsdlJsonObject;
  const writer = new Writer(json);
  const children: Element[] = [];
  if (isObject(json.$Reference)) {
    for (const [uri, reference] of entries(json.$Reference)) {
      if (!isObject(reference)) continue;
      const includes = Array.isArray(reference.$Include)
        ? reference.$Include.filter(isObject).map((include) =>
            element(
              'edmx:Include',
              [
                ['Namespace', String(include.$Namespace)],
                ['Alias', typeof include.$Alias === 'string' ? include.$Alias : undefined],
              ],
              writer.annotations(include),
            ),
          )
        : [];
      const includeAnnotations = Array.isArray(reference.$IncludeAnnotations)
        ? reference.$IncludeAnnotations.filter(isObject).map((include) =>
            element('edmx:IncludeAnnotations', [
              ['TermNamespace', String(include.$TermNamespace)],
              ['Qualifier', typeof include.$Qualifier === 'string' ? include.$Qualifier : undefined],
              ['TargetNamespace', typeof include.$TargetNamespace === 'string' ? include.$TargetNamespace : undefined],
            ]),
          )
        : [];
      children.push(element('edmx:Reference', [['Uri', uri]], [...includes, ...includeAnnotations, ...writer.annotations(reference)]));
    }
  }
  const schemas = entries(json)
    .filter(([namespace, schema]) => !namespace.startsWith('$') && isObject(schema))
    .map(([namespace, schema]) => schemaElement(writer, namespace, schema as CsdlJsonObject));
  children.push(element('edmx:DataServices', [], schemas));
  const version = json.$Version === '4.0' ? '4.0' : '4.01';
  const out: Output = { lines: [], length: 0 };
  line(out, '<?xml version="1.0" encoding="utf-8"?>');
  serialize(
    element(
      'edmx:Edmx',
      [
        ['Version', version],
        ['xmlns:edmx', EDMX_NAMESPACE],
        ['xmlns', EDM_NAMESPACE],
      ],
      children,
    ),
    1,
    out,
  );
  return `${out.lines.join('\n')}\n`;
}

/**
 * Writes a model as CSDL XML 4.01: {@link csdlJsonFromModel}'s document, written by
 * {@link csdlXmlFromJson}. `modelFromCsdlXml` reads it back into an equal model.
 */
export function csdlXmlFromModel(model: Model, options: CsdlWriteOptions = {}): string {
  return csdlXmlFromJson(csdlJsonFromModel(model, options));
}
