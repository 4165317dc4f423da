/**
 * `bindResourcePath`: a parsed resource path against a model (OData 4.01 URL Conventions §4). One
 * walk over the segments keeps what the path addresses so far (its shape, type, entity set and
 * property) and binds each segment in that place: a key after a collection of entities, a
 * property or navigation property after one entity or complex value, a type cast after structured
 * values, `$count` after a collection, a bound function or action after what it binds to.
 */
import { ODataError } from '../../errors/odata-error.js';
import { derivesFrom, findType, type EntitySet, type Model, type Property, type StructuredType } from '../../model/model.js';
import { navigationTarget } from '../../model/navigation.js';
import type { Expression, ResourcePath, ResourceSegment, SegmentArgument, Span } from '../../syntax/ast.js';
import { RESOURCE_PATH, type ParseOptions } from '../../syntax/parse.js';
import { parseResourcePath } from '../../syntax/resource-path.js';
import { bindQueryToSet } from '../bind-query.js';
import type { BindSettings } from '../settings.js';
import type { BoundResourcePath, BoundResourceSegment, ResourceShape } from './bound-resource-path.js';
import { bindKey, keyParts, keyPredicate, segmentLiteral, setOrStandIn, type KeyPart } from './keys.js';
import { containerElement, operationsNamed, type OperationOverload, type OperationType } from './operations.js';

/** Settings of {@link bindResourcePath}. */
export interface ResourcePathSettings {
  readonly model: Model;
  /** The query's parameter aliases (`@k=1`), for keys and parameters written as aliases. */
  readonly aliases?: Readonly<Record<string, Expression>>;
  /** Whether a segment after a collection may be a key value (`People/russellwhyte`; default `true`). */
  readonly keyAsSegment?: boolean;
  /** How the path is parsed when it is given as text. */
  readonly parse?: ParseOptions;
  /** Bind settings for the expressions of keys and `$filter(…)` segments (limits). */
  readonly bind?: Omit<Partial<BindSettings>, 'model' | 'entitySet'>;
}

/** Where the walk is: what the segments so far address. */
interface State {
  shape: ResourceShape;
  type: StructuredType | undefined;
  set: EntitySet | undefined;
  property: Property | undefined;
  /** The path from the last entity to here (`Address/City`), for navigation property bindings. */
  bindingPath: string;
  /** Only `$query` may follow (a function without parentheses), or nothing. */
  closed: 'query' | 'nothing' | undefined;
  /** The last segment was a type cast (a cast may not follow a cast). */
  cast: boolean;
  operation: boolean;
}

const COLLECTIONS: ReadonlySet<ResourceShape> = new Set(['entityCollection', 'complexCollection', 'primitiveCollection']);

function notFound(reason: string, at: Span): ODataError {
  return new ODataError({ code: 'resource_not_found', reason, status: 404, option: RESOURCE_PATH, position: at.start });
}

function invalid(reason: string, at: Span): ODataError {
  return new ODataError({ code: 'syntax_error', reason, option: RESOURCE_PATH, position: at.start });
}

/**
 * Binds a resource path (text as sent, or parsed by `parseResourcePath`) to a model. Names that
 * the model does not have there are `resource_not_found` (404); a malformed key, a wrong key
 * type, a segment where it cannot stand are 400. Functions and actions are bound (their
 * overloads found) for a service to run or refuse.
 *
 * @example
 * ```ts
 * const bound = bindResourcePath("People('russellwhyte')/Trips/$count", { model });
 * bound.shape; // 'count'
 * bound.entitySet?.name; // the contained set of Trips
 * ```
 */
export function bindResourcePath(path: ResourcePath | string, settings: ResourcePathSettings): BoundResourcePath {
  const parsed = typeof path === 'string' ? parseResourcePath(path, settings.parse) : path;
  return new ResourcePathBinder(settings).bind(parsed);
}

class ResourcePathBinder {
  private readonly model: Model;
  private readonly segments: BoundResourceSegment[] = [];
  private state: State = {
    shape: 'serviceDocument',
    type: undefined,
    set: undefined,
    property: undefined,
    bindingPath: '',
    closed: undefined,
    cast: false,
    operation: false,
  };

  constructor(private readonly settings: ResourcePathSettings) {
    this.model = settings.model;
  }

  bind(path: ResourcePath): BoundResourcePath {
    const segments = path.segments;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as ResourceSegment;
      if (this.state.closed === 'nothing' || (this.state.closed === 'query' && !(segment.kind === 'system' && segment.name === '$query'))) {
        throw invalid(`Nothing may follow '${describe(segments[i - 1] as ResourceSegment)}'`, segment.span);
      }
      i += i === 0 ? this.first(segment) : this.next(segment, segments, i);
    }
    const { shape, type, set, property, operation } = this.state;
    return { kind: 'boundResourcePath', segments: this.segments, shape, type, entitySet: set, property, operation };
  }

  private set(shape: ResourceShape, changes: Partial<State> = {}): void {
    this.state = { ...this.state, shape, cast: false, ...changes };
  }

  // ---- the first segment ---------------------------------------------------------------------

  /** Binds the first segment; returns how many following segments it consumed. */
  private first(segment: ResourceSegment): number {
    const at = segment.span;
    switch (segment.kind) {
      case 'system': {
        const kinds = { $metadata: 'metadata', $batch: 'batch', $entity: 'entityId', $all: 'all' } as const;
        const shape = kinds[segment.name as keyof typeof kinds];
        if (shape === undefined) throw notFound(`'${segment.name}' cannot start a resource path`, at);
        this.segments.push({ kind: segment.name.slice(1) as 'metadata' | 'batch' | 'entity' | 'all', span: at });
        this.set(shape, { closed: shape === 'metadata' || shape === 'batch' ? 'nothing' : undefined });
        return 0;
      }
      case 'crossjoin': {
        const sets = segment.sets.map((name) => {
          const set = this.model.entitySets.get(name);
          if (set === undefined) throw notFound(`The model has no entity set named '${name}'`, at);
          return set;
        });
        this.segments.push({ kind: 'crossjoin', entitySets: sets, span: at });
        this.set('crossjoin', { closed: 'query' });
        return 0;
      }
      case 'filter':
        throw notFound(`'$filter(…)' must follow a collection of entities`, at);
      case 'text':
        throw notFound(`The model has no entity set, singleton or operation import named '${segment.text}'`, at);
      case 'name':
        return this.firstName(segment);
    }
  }

  private firstName(segment: Extract<ResourceSegment, { kind: 'name' }>): number {
    const at = segment.span;
    const set = this.model.entitySets.get(segment.name);
    if (set !== undefined) {
      this.segments.push({ kind: 'entitySet', entitySet: set, span: at });
      this.set('entityCollection', { type: set.type, set });
      if (segment.lists.length > 1) throw invalid(`Only one key predicate may follow '${segment.name}'`, at);
      if (segment.lists.length === 1) this.key(segment.lists[0] as SegmentArgument[], at);
      return 0;
    }
    const element = containerElement(this.model, segment.name);
    if (element === undefined) throw notFound(`The model has no entity set, singleton or operation import named '${segment.name}'`, at);
    if (element.kind === 'singleton') {
      if (segment.lists.length > 0) throw invalid(`The singleton '${segment.name}' takes no parentheses`, at);
      this.segments.push({ kind: 'singleton', name: element.name, type: element.type, span: at });
      this.set('entity', { type: element.type, set: undefined });
      return 0;
    }
    if (element.kind === 'actionImport') {
      if (segment.lists.length > 0) throw invalid(`The action import '${segment.name}' takes no parentheses: its parameters are in the request body`, at);
      this.segments.push({ kind: 'operation', operation: 'action', overloads: element.overloads, import: element.name, parameters: undefined, span: at });
      this.set('operationResult', { closed: 'nothing', operation: true });
      return 0;
    }
    this.operation(element.overloads, segment, element.name);
    return 0;
  }

  // ---- the segments after the first ----------------------------------------------------------

  /** Binds a segment after the first; returns how many following segments it consumed. */
  private next(segment: ResourceSegment, all: readonly ResourceSegment[], index: number): number {
    const at = segment.span;
    const { shape } = this.state;
    switch (segment.kind) {
      case 'system':
        this.system(segment.name, at);
        return 0;
      case 'filter': {
        if (shape !== 'entityCollection' || this.eachNext) throw invalid(`'$filter(…)' must follow a collection of entities`, at);
        const type = this.state.type as StructuredType;
        const bound = this.bindFilter(segment.predicate, setOrStandIn(this.state.set, type));
        this.segments.push({ kind: 'filter', filter: bound, span: at });
        this.set('entityCollection');
        return 0;
      }
      case 'crossjoin':
        throw invalid(`'$crossjoin(…)' must start the resource path`, at);
      case 'text':
        return this.text(segment.text, at, all, index);
      case 'name':
        return this.name(segment, all, index);
    }
  }

  private system(name: string, at: Span): void {
    const { shape, type } = this.state;
    if (this.eachNext) throw invalid(`Only a bound function or action may follow '$each'`, at);
    switch (name) {
      case '$count':
        if (!COLLECTIONS.has(shape)) throw invalid(`'$count' must follow a collection`, at);
        this.segments.push({ kind: 'count', span: at });
        this.set('count', { closed: 'nothing' });
        return;
      case '$ref':
        if (shape !== 'entityCollection' && shape !== 'entity') throw invalid(`'$ref' must follow entities`, at);
        this.segments.push({ kind: 'ref', span: at });
        this.set(shape === 'entity' ? 'reference' : 'references', { closed: 'nothing' });
        return;
      case '$value':
        if (shape === 'primitive') {
          this.segments.push({ kind: 'value', span: at });
          this.set('value', { closed: 'nothing' });
          return;
        }
        if (shape === 'entity' && type?.hasStream === true) {
          this.segments.push({ kind: 'value', span: at });
          this.set('stream', { closed: 'nothing' });
          return;
        }
        throw invalid(`'$value' must follow a primitive property or a media entity`, at);
      case '$each':
        if (shape !== 'entityCollection') throw invalid(`'$each' must follow a collection of entities`, at);
        this.segments.push({ kind: 'each', span: at });
        this.eachNext = true;
        return;
      case '$query':
        if (
          !COLLECTIONS.has(shape) &&
          shape !== 'crossjoin' &&
          shape !== 'all' &&
          shape !== 'operationResult' &&
          shape !== 'entity' &&
          shape !== 'primitive' &&
          shape !== 'complex'
        ) {
          throw invalid(`'$query' cannot follow this segment`, at);
        }
        this.segments.push({ kind: 'query', span: at });
        this.set('query', { closed: 'nothing' });
        return;
      default:
        throw notFound(`'${name}' cannot stand here in a resource path`, at);
    }
  }

  /** After `$each` only a bound operation may follow. */
  private eachNext = false;

  /** A segment that is no name: a key-as-segment value, or an ordinal index. */
  private text(text: string, at: Span, all: readonly ResourceSegment[], index: number): number {
    const { shape } = this.state;
    if (shape === 'entityCollection' && !this.eachNext) return this.keySegments(all, index);
    if ((shape === 'complexCollection' || shape === 'primitiveCollection') && /^-?\d+$/.test(text)) {
      const position = Number(text);
      if (!Number.isSafeInteger(position)) throw invalid(`The index '${text}' is too large`, at);
      this.segments.push({ kind: 'index', index: position, span: at });
      this.set(shape === 'complexCollection' ? 'complex' : 'primitive', { property: this.state.property });
      return 0;
    }
    throw notFound(`'${text}' names nothing here`, at);
  }

  /** Key-as-segment values: one segment per key property, in key order (`OrderItems/2001/1`). */
  private keySegments(all: readonly ResourceSegment[], index: number): number {
    const type = this.state.type as StructuredType;
    const first = all[index] as ResourceSegment;
    if (this.settings.keyAsSegment === false) throw notFound(`'${segmentText(first)}' is no property, type or operation of '${type.name}'`, first.span);
    const parts = keyParts(type);
    if (parts.length === 0) throw invalid(`'${type.name}' has no key`, first.span);
    const pairs = parts.map((part, k) => {
      const segment = all[index + k];
      const property = part.steps.at(-1) as Property;
      if (segment === undefined) throw invalid(`The key of '${type.name}' is ${parts.map((p) => p.name).join(',')}: one segment for each`, first.span);
      const text = segmentText(segment);
      const value = text === undefined ? undefined : segmentLiteral(property, text, segment.span);
      if (value === undefined) {
        throw notFound(`'${text ?? describe(segment)}' is no property, type, operation or key value (${typeText(property)}) of '${type.name}'`, segment.span);
      }
      return { part, value };
    });
    const last = all[index + parts.length - 1] as ResourceSegment;
    this.pushKey(pairs, { start: first.span.start, end: last.span.end });
    return parts.length - 1;
  }

  private key(args: readonly SegmentArgument[], at: Span): void {
    const type = this.state.type as StructuredType;
    this.pushKey(keyPredicate(type, args, at, this.settings.aliases), at);
  }

  private pushKey(pairs: readonly { part: KeyPart; value: Expression }[], at: Span): void {
    const type = this.state.type as StructuredType;
    const { values, filter } = bindKey(this.model, setOrStandIn(this.state.set, type), pairs, at, this.settings.aliases, this.settings.bind ?? {});
    this.segments.push({ kind: 'key', values, filter, span: at });
    this.set('entity', { bindingPath: '' });
  }

  private bindFilter(predicate: Expression, set: EntitySet) {
    try {
      const bound = bindQueryToSet(
        { kind: 'query', filter: predicate, ...(this.settings.aliases === undefined ? {} : { aliases: this.settings.aliases }) },
        { ...this.settings.bind, model: this.model, entitySet: set.name },
        set,
      );
      return bound.filter as NonNullable<typeof bound.filter>;
    } catch (error) {
      if (error instanceof ODataError) throw error.relocate(RESOURCE_PATH);
      throw error;
    }
  }

  /** A name after the first segment: a property, a navigation property, a type cast, a bound operation or a key value. */
  private name(segment: Extract<ResourceSegment, { kind: 'name' }>, all: readonly ResourceSegment[], index: number): number {
    const at = segment.span;
    const { shape, type } = this.state;
    if ((shape === 'entityId' || shape === 'all') && this.segments.length === 1) {
      // `$entity/NS.Type?$id=…`, `$all/NS.Type`: the entities of one type.
      const cast = findType(this.model, segment.name);
      if (cast === undefined || cast.kind !== 'entity' || segment.lists.length > 0) throw notFound(`'${segment.text}' is no entity type`, at);
      this.segments.push({ kind: 'typeCast', type: cast, span: at });
      this.set(shape, { type: cast, closed: shape === 'all' ? 'query' : 'nothing' });
      return 0;
    }
    const structured = type !== undefined && (shape === 'entity' || shape === 'complex');
    if (structured && !this.eachNext && !segment.name.includes('.')) {
      const navigation = type.navigation.get(segment.name);
      if (navigation !== undefined) {
        const bindingPath = this.state.bindingPath === '' ? navigation.name : `${this.state.bindingPath}/${navigation.name}`;
        const target = navigationTarget(this.model, this.state.set, navigation, bindingPath);
        this.segments.push({ kind: 'navigation', navigation, entitySet: target, span: at });
        this.set(navigation.collection ? 'entityCollection' : 'entity', { type: navigation.target, set: target, property: undefined, bindingPath: '' });
        if (segment.lists.length > 1) throw invalid(`Only one key predicate may follow '${segment.name}'`, at);
        if (segment.lists.length === 1) {
          if (!navigation.collection) throw invalid(`'${segment.name}' is a single entity: it takes no key predicate`, at);
          this.key(segment.lists[0] as SegmentArgument[], at);
        }
        return 0;
      }
      const property = type.properties.get(segment.name);
      if (property !== undefined) {
        if (segment.lists.length > 0) throw invalid(`The property '${segment.name}' takes no parentheses`, at);
        this.segments.push({ kind: 'property', property, span: at });
        this.set(propertyShape(property), {
          type: property.type.kind === 'complex' ? property.type.type : undefined,
          property,
          bindingPath: this.state.bindingPath === '' ? property.name : `${this.state.bindingPath}/${property.name}`,
        });
        return 0;
      }
    }
    // A type cast: to a type derived from the one before (entities or complex values), not twice in a row.
    const castable =
      type !== undefined && !this.eachNext && (shape === 'entity' || shape === 'complex' || shape === 'entityCollection' || shape === 'complexCollection');
    const target = castable ? castTarget(this.model, segment.name, type) : undefined;
    if (target !== undefined) {
      if (this.state.cast) throw invalid(`A type cast may not follow a type cast`, at);
      this.segments.push({ kind: 'typeCast', type: target, span: at });
      const bindingPath = this.state.bindingPath === '' ? target.qualifiedName : `${this.state.bindingPath}/${target.qualifiedName}`;
      this.state = { ...this.state, type: target, cast: true, bindingPath };
      if (segment.lists.length > 1) throw invalid(`Only one key predicate may follow a type cast`, at);
      if (segment.lists.length === 1) {
        if (shape !== 'entityCollection') throw invalid(`A key predicate must follow a collection of entities`, at);
        this.key(segment.lists[0] as SegmentArgument[], at);
      }
      return 0;
    }
    const overloads = this.boundOverloads(segment.name);
    if (overloads.length > 0) {
      this.eachNext = false;
      this.operation(overloads, segment, undefined);
      return 0;
    }
    if (shape === 'entityCollection' && segment.lists.length === 0 && !this.eachNext) return this.keySegments(all, index);
    throw notFound(this.unknownName(segment.name), at);
  }

  private unknownName(name: string): string {
    const { shape, type, property } = this.state;
    if ((shape === 'entity' || shape === 'complex') && type !== undefined)
      return `'${name}' is no property, navigation property, type or operation of '${type.name}'`;
    if (shape === 'entityCollection') return `'${name}' is no type or operation of a collection of '${type?.name ?? ''}' (address a property on one entity)`;
    return `'${name}' names nothing after ${property === undefined ? `a ${shape}` : `'${property.name}'`}`;
  }

  /** The overloads of `name` bound to what the path addresses now. */
  private boundOverloads(name: string): OperationOverload[] {
    const found = bindingType(this.state);
    if (found === undefined) return [];
    // After `$each` the operation is bound to each member of the collection.
    const binding = this.eachNext ? { ...found, collection: false } : found;
    return operationsNamed(this.model, name).filter((overload) => {
      const first = overload.parameters[0];
      return overload.bound && first !== undefined && first.collection === binding.collection && this.accepts(first.type, binding.type);
    });
  }

  /** Whether a parameter of type `parameter` takes a value of type `actual` (the same type, or a derived one). */
  private accepts(parameter: string, actual: string): boolean {
    if (parameter === actual) return true;
    const wanted = findType(this.model, parameter);
    const given = findType(this.model, actual);
    return wanted !== undefined && given !== undefined && wanted.kind !== 'enum' && given.kind !== 'enum' && derivesFrom(given, wanted);
  }

  /** A function or action segment; its result is what the path addresses next. */
  private operation(overloads: readonly OperationOverload[], segment: Extract<ResourceSegment, { kind: 'name' }>, importName: string | undefined): void {
    const at = segment.span;
    const action = overloads.every((overload) => overload.kind === 'action');
    if (action) {
      if (segment.lists.length > 0) throw invalid(`The action '${segment.name}' takes no parentheses: its parameters are in the request body`, at);
      this.segments.push({
        kind: 'operation',
        operation: 'action',
        overloads,
        ...(importName === undefined ? {} : { import: importName }),
        parameters: undefined,
        span: at,
      });
      this.set('operationResult', { closed: 'nothing', operation: true });
      return;
    }
    const functions = overloads.filter((overload) => overload.kind === 'function');
    const [parameters, keys] = segment.lists;
    if (segment.lists.length > 2) throw invalid(`Too many parentheses after '${segment.name}'`, at);
    const names = (parameters ?? []).map((arg) => {
      if (arg.name === undefined) throw invalid(`The parameters of the function '${segment.name}' must be named: name=value`, arg.span);
      return arg.name;
    });
    const offset = importName === undefined ? 1 : 0;
    const matching = functions.filter((overload) => names.every((name) => overload.parameters.slice(offset).some((p) => p.name === name)));
    if (matching.length === 0) throw notFound(`No overload of the function '${segment.name}' has the parameters ${names.join(', ') || '(none)'}`, at);
    this.segments.push({
      kind: 'operation',
      operation: 'function',
      overloads: matching,
      ...(importName === undefined ? {} : { import: importName }),
      parameters: parameters,
      span: at,
    });
    const result = (matching[0] as OperationOverload).returnType;
    const shape = resultShape(this.model, result);
    const type = result === undefined ? undefined : findType(this.model, result.type);
    this.set(shape, {
      type: type !== undefined && type.kind !== 'enum' ? type : undefined,
      set: undefined,
      property: undefined,
      bindingPath: '',
      operation: true,
      closed: parameters === undefined ? 'query' : undefined,
    });
    if (keys !== undefined) {
      if (shape !== 'entityCollection') throw invalid(`A key predicate must follow a collection of entities`, at);
      this.key(keys, at);
    }
  }
}

function propertyShape(property: Property): ResourceShape {
  const kind = property.type.kind;
  if (kind === 'complex') return property.collection ? 'complexCollection' : 'complex';
  if (kind === 'primitive' && property.type.name === 'Edm.Stream') return 'stream';
  return property.collection ? 'primitiveCollection' : 'primitive';
}

function resultShape(model: Model, result: OperationType | undefined): ResourceShape {
  if (result === undefined) return 'operationResult';
  const type = findType(model, result.type);
  if (type?.kind === 'entity') return result.collection ? 'entityCollection' : 'entity';
  if (type?.kind === 'complex') return result.collection ? 'complexCollection' : 'complex';
  return result.collection ? 'primitiveCollection' : 'primitive';
}

/** The binding parameter type an operation bound here must take. */
function bindingType(state: State): OperationType | undefined {
  const { shape, type, property } = state;
  if (shape === 'entityCollection' || shape === 'entity' || shape === 'complex' || shape === 'complexCollection') {
    return type === undefined ? undefined : { type: type.qualifiedName, collection: shape.endsWith('Collection') };
  }
  if (
    (shape === 'primitive' || shape === 'primitiveCollection') &&
    property !== undefined &&
    property.type.kind !== 'complex' &&
    property.type.kind !== 'entity'
  ) {
    const name = property.type.kind === 'enum' ? property.type.type.qualifiedName : property.type.name;
    return { type: name, collection: shape === 'primitiveCollection' };
  }
  return undefined;
}

/** The structured type a cast segment names, if it derives from `from` (qualified, or unqualified in `from`'s namespace). */
function castTarget(model: Model, name: string, from: StructuredType): StructuredType | undefined {
  const namespace = from.qualifiedName.slice(0, from.qualifiedName.length - from.name.length - 1);
  const found = findType(model, name) ?? (name.includes('.') ? undefined : findType(model, `${namespace}.${name}`));
  return found !== undefined && found.kind !== 'enum' && found.kind === from.kind && derivesFrom(found, from) ? found : undefined;
}

function segmentText(segment: ResourceSegment): string | undefined {
  if (segment.kind === 'text') return segment.text;
  if (segment.kind === 'name' && segment.lists.length === 0) return segment.text;
  return undefined;
}

function typeText(property: Property): string {
  const type = property.type;
  return type.kind === 'primitive' ? type.name : type.type.qualifiedName;
}

function describe(segment: ResourceSegment): string {
  switch (segment.kind) {
    case 'name':
      return segment.text;
    case 'text':
      return segment.text;
    case 'system':
      return segment.name;
    case 'filter':
      return '$filter(…)';
    case 'crossjoin':
      return '$crossjoin(…)';
  }
}
