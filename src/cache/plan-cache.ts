/**
 * A bounded cache of query plans. A server sees the same query texts again and again: the cache
 * keeps what `bindQuery` gives for a query text and its settings, and what `toSql`/`toMongo` give
 * for that bound query and their options, so a repeated request costs a lookup. It also sees the
 * same query *shapes* with other literal values: texts that differ only in replaceable literals
 * (see `shape.ts`) share one plan whose literals are holes (see `shape-plan.ts`).
 *
 * A plan is kept for everything that decides it, so that it never serves another request than its
 * own: the query text exactly as given; the settings and options as data (limits, entity set,
 * naming, tables, the `scope` values, and so a tenant's id), and by identity what is not plain data
 * (the model, hooks, class instances). A repeated text costs a lookup: the text's entries, then the
 * request's settings and options compared with the kept ones field by field (no key text is built
 * for a hit; shape plans are found by their shape's key under their settings). Only plans are kept,
 * never errors. Entries are bounded in number (least recently used go first, one list for all) and
 * query texts above a length are not cached.
 */
import type { BoundQuery } from '../semantic/bound-ast.js';
import type { BindSettings } from '../semantic/settings.js';
import { bindQuery } from '../semantic/bind-query.js';
import { sameShape, shapeOf, type QueryShape } from './shape.js';
import {
  deriveShaped,
  fillDerived,
  instantiateBound,
  learnShape,
  sameLiterals,
  shapedOf,
  type DerivedPlan,
  type ShapePlan,
  type ShapedBound,
} from './shape-plan.js';

/** Limits of a {@link PlanCache}. */
export interface PlanCacheOptions {
  /** Most plans kept, bound queries and compiled ones together (default 1 000). */
  readonly maxEntries?: number;
  /** Longest query text cached, in characters (default 8 192); longer ones are compiled each time. */
  readonly maxQueryLength?: number;
  /**
   * Whether texts of one shape (the same text but for replaceable literals: `name eq 'milk'` and
   * `name eq 'salt'`) share one plan (default `true`); `false` keeps plans by exact text only.
   */
  readonly shapes?: boolean;
}

/** A bounded cache of bound and compiled queries; see {@link createPlanCache}. */
export interface PlanCache {
  /**
   * `bindQuery(query, settings)`, from the cache when this text was bound with these settings
   * before, or filled from the plan of its shape (the same text but for replaceable literals,
   * see docs/plan-cache.md) when the shape has one.
   */
  bind(query: string, settings: BindSettings): BoundQuery;
  /** How many plans are kept. */
  readonly size: number;
  /** Forgets every plan (e.g. when the model changes). */
  clear(): void;
  /**
   * A plan derived from a bound query this cache gave (`toSql`, `toMongo` use it through their
   * `cache` option): `compute()`'s result, kept under the bound query's key, `kind` and `options`.
   * A bound query from elsewhere is not cached (`compute()` runs each time).
   * @internal
   */
  derive<T, O extends object>(bound: BoundQuery, kind: string, options: O, compute: (bound: BoundQuery, options: O) => T): T;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;

/** Whether a value is compared by content (plain data) rather than by identity. */
function isPlain(value: object): boolean {
  if (Array.isArray(value) || value instanceof Set) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return typeof value === 'object' && (prototype === Object.prototype || prototype === null);
}

/**
 * A text of a value, equal only for equal values: plain data by content, anything else by identity;
 * at the top level, `model` by identity (a model is not changed once built: `clear()` the cache
 * when it is replaced) and `cache` left out (the cache itself, in `toSql`'s options).
 */
function keyOf(value: unknown, top = false): string {
  switch (typeof value) {
    case 'undefined':
      return 'u';
    case 'bigint':
      return `${value}n`;
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
      // (Not JSON: it writes NaN and the infinities as null.)
      return String(value);
    case 'function':
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((item) => keyOf(item)).join(',')}]`;
      if (value instanceof Set) return `Set[${[...value].map((item) => keyOf(item)).join(',')}]`;
      if (isPlain(value)) {
        // In the object's own order: the same content in another order is another key, which
        // costs a miss and never serves a wrong plan.
        let text = '{';
        for (const key in value) {
          if (!Object.hasOwn(value, key) || (top && key === 'cache')) continue;
          const item = (value as Record<string, unknown>)[key];
          text += `${JSON.stringify(key)}:${top && key === 'model' ? identityKey(item) : keyOf(item)},`;
        }
        return `${text}}`;
      }
      // A Map, a hook, a class instance: by identity.
      return identityKey(value);
    }
    default:
      return '?';
  }
}

function identityKey(value: unknown): string {
  if (typeof value !== 'object' || value === null) return keyOf(value);
  let id = identities.get(value);
  if (id === undefined) identities.set(value, (id = nextIdentity++));
  return `#${id}`;
}

/** A copy of a plain object's content (see {@link snapshotOf}). */
class PlainSnapshot {
  constructor(
    readonly keys: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}
/** A copy of an array's or a set's items, in order. */
class ItemsSnapshot {
  constructor(
    readonly set: boolean,
    readonly items: readonly unknown[],
  ) {}
}

/**
 * A copy of settings or options to compare later requests' with ({@link sameAs}), without building
 * a text: what {@link keyOf} compares by content is copied, the rest kept by identity.
 */
function snapshotOf(value: unknown, top = false): unknown {
  if (typeof value !== 'object' || value === null || !isPlain(value)) return value;
  if (Array.isArray(value))
    return new ItemsSnapshot(
      false,
      value.map((item) => snapshotOf(item)),
    );
  if (value instanceof Set)
    return new ItemsSnapshot(
      true,
      [...value].map((item) => snapshotOf(item)),
    );
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const key in value) {
    if (!Object.hasOwn(value, key) || (top && key === 'cache')) continue;
    const item = (value as Record<string, unknown>)[key];
    keys.push(key);
    values.push(top && key === 'model' ? item : snapshotOf(item));
  }
  return new PlainSnapshot(keys, values);
}

/** Whether a value has the content (or is the object) a {@link snapshotOf} copied. */
function sameAs(value: unknown, snapshot: unknown, top = false): boolean {
  if (snapshot instanceof PlainSnapshot) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Set || !isPlain(value)) return false;
    const { keys, values } = snapshot;
    let i = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key) || (top && key === 'cache')) continue;
      if (keys[i] !== key) return false;
      const item = (value as Record<string, unknown>)[key];
      if (top && key === 'model' ? item !== values[i] : !sameAs(item, values[i])) return false;
      i++;
    }
    return i === keys.length;
  }
  if (snapshot instanceof ItemsSnapshot) {
    const { items } = snapshot;
    if (snapshot.set) {
      if (!(value instanceof Set) || value.size !== items.length) return false;
      let i = 0;
      for (const item of value) if (!sameAs(item, items[i++])) return false;
      return true;
    }
    if (!Array.isArray(value) || value.length !== items.length) return false;
    for (let i = 0; i < items.length; i++) if (!sameAs(value[i], items[i])) return false;
    return true;
  }
  // (NaN is NaN, as in its key; 0 and -0 are one key.)
  return value === snapshot || (value !== value && snapshot !== snapshot);
}

const mix = (h: number, v: number): number => Math.imul(h ^ v, 16777619);

/**
 * A number equal for values {@link sameAs} finds equal (their snapshot's content), told apart
 * enough to bucket the compiled forms of one bound query (by tenant, for example) without
 * building a key text.
 */
function hashOf(value: unknown, top = false): number {
  switch (typeof value) {
    case 'string': {
      // The length and up to 16 characters spread over the text (equal texts hash alike; a hash
      // shared by different texts costs only a comparison).
      let h = mix(0x811c9dc5, value.length);
      const step = value.length <= 16 ? 1 : value.length >>> 4;
      for (let i = value.length - 1; i >= 0; i -= step) h = mix(h, value.charCodeAt(i));
      return h;
    }
    case 'number':
      // (NaN and ±0 hash alike, as they compare alike.)
      return Number.isInteger(value) ? value | 0 : (value * 1e6) | 0;
    case 'boolean':
      return value ? 1 : 2;
    case 'bigint':
      return Number(BigInt.asIntN(32, value));
    case 'undefined':
      return 3;
    case 'object':
    case 'function': {
      if (value === null) return 4;
      if (!isPlain(value)) return identityHash(value);
      let h = Array.isArray(value) ? 6 : value instanceof Set ? 7 : 8;
      if (Array.isArray(value) || value instanceof Set) {
        for (const item of value) h = mix(h, hashOf(item));
        return h;
      }
      for (const key in value) {
        if (!Object.hasOwn(value, key) || (top && key === 'cache')) continue;
        const item = (value as Record<string, unknown>)[key];
        h = mix(mix(h, hashOf(key)), top && key === 'model' && typeof item === 'object' && item !== null ? identityHash(item) : hashOf(item));
      }
      return h;
    }
    default:
      return 9;
  }
}

function identityHash(value: object): number {
  let id = identities.get(value);
  if (id === undefined) identities.set(value, (id = nextIdentity++));
  return mix(5, id);
}

/**
 * An entry of the cache, in its least-recently-used list (most recent at the head). Exact texts'
 * bound queries and their compiled forms are found by identity and comparison (no key is built
 * for a hit); shape plans by their keys.
 */
interface Entry {
  prev: Entry | undefined;
  next: Entry | undefined;
  readonly value: unknown;
  /** Takes the entry out of its index (when evicted). */
  forget(): void;
}

/** A bound query kept under its exact text, for settings like {@link snapshot}. */
interface TextEntry extends Entry {
  readonly snapshot: unknown;
  readonly value: BoundQuery;
  sibling: TextEntry | undefined;
}

/**
 * A compiled form of a bound query (or a compiled form's template of a shape plan), for a kind
 * (`sql`, `mongo`) and options like {@link snapshot}.
 */
interface FormEntry extends Entry {
  readonly kind: string;
  readonly snapshot: unknown;
  sibling: FormEntry | undefined;
}

/** A shape's plan (or `false`: the shape has none), under the hash of its shape. */
interface ShapeEntry extends Entry {
  readonly shape: QueryShape;
  sibling: ShapeEntry | undefined;
}

/** The shape plans learned under settings like {@link snapshot}, by the hash of their shape (then compared). */
interface SettingsGroup {
  readonly snapshot: unknown;
  /** The settings' entity set (the group's key in its index). */
  readonly set: string;
  /** The group's key in the keys of texts served from shapes (unique to the group). */
  readonly key: string;
  readonly shapes: Map<number, ShapeEntry>;
  sibling: SettingsGroup | undefined;
}

/**
 * A bounded cache of query plans (see the module's description). Pass it to `toSql` and `toMongo`
 * as their `cache` option to keep their output too.
 *
 * @example
 * ```ts
 * const plans = createPlanCache({ maxEntries: 500 });
 * const bound = plans.bind(url.search, { model, entitySet: 'assets' });
 * const { sql, params } = toSql(bound, { dialect: 'postgres', scope: { tenant_id: tenant }, cache: plans });
 * ```
 */
export function createPlanCache(options: PlanCacheOptions = {}): PlanCache {
  const maxEntries = options.maxEntries ?? 1000;
  const maxQueryLength = options.maxQueryLength ?? 8192;
  const shapes = options.shapes ?? true;
  /** Bound queries by exact text (one entry per text and settings). */
  let texts = new Map<string, TextEntry>();
  /**
   * Compiled forms of the bound queries this cache gave, and compiled forms' templates of shape
   * plans, by the hash of their kind and options (one bucket per tenant, say), then compared.
   */
  let forms = new WeakMap<object, Map<number, FormEntry>>();
  /** Shape plans, by entity set, then settings (compared), then shape key. */
  let groups = new Map<string, SettingsGroup>();
  let nextGroup = 0;
  /** Compiled forms of texts served from shapes whose forms do not follow the literals, by key. */
  let named = new Map<string, Entry>();
  /** The bound queries kept by exact text. */
  let exact = new WeakSet<BoundQuery>();
  /** The shape plans and literals of the first texts of their shapes (later ones carry theirs, see `shapedOf`). */
  let shaped = new WeakMap<BoundQuery, ShapedBound>();
  let head: Entry | undefined;
  let tail: Entry | undefined;
  let size = 0;

  const unlink = (entry: Entry): void => {
    if (entry.prev === undefined) head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = entry.next = undefined;
  };
  const toHead = (entry: Entry): void => {
    entry.next = head;
    if (head !== undefined) head.prev = entry;
    head = entry;
    if (tail === undefined) tail = entry;
  };
  /** Most recently used first. */
  const touch = (entry: Entry): void => {
    if (entry === head) return;
    unlink(entry);
    toHead(entry);
  };
  const add = (entry: Entry): void => {
    toHead(entry);
    size++;
    while (size > maxEntries && tail !== undefined) {
      const last = tail;
      unlink(last);
      last.forget();
      size--;
    }
  };
  const replace = (old: Entry | undefined): void => {
    if (old === undefined) return;
    unlink(old);
    size--;
  };

  /** A chain of entries under a key of a map: takes `entry` out of it. */
  const unchain = <K, E extends { sibling: E | undefined }>(
    index: { get(key: K): E | undefined; set(key: K, value: E): unknown; delete(key: K): unknown },
    key: K,
    entry: E,
  ): void => {
    let previous: E | undefined;
    for (let item = index.get(key); item !== undefined; previous = item, item = item.sibling) {
      if (item !== entry) continue;
      if (previous !== undefined) previous.sibling = item.sibling;
      else if (item.sibling !== undefined) index.set(key, item.sibling);
      else index.delete(key);
      return;
    }
  };

  const keepText = (query: string, settings: BindSettings, bound: BoundQuery): void => {
    const index = texts;
    const entry: TextEntry = {
      prev: undefined,
      next: undefined,
      value: bound,
      snapshot: snapshotOf(settings, true),
      sibling: index.get(query),
      forget: () => unchain(index, query, entry),
    };
    texts.set(query, entry);
    exact.add(bound);
    add(entry);
  };
  const formOf = (owner: object, kind: string, derivedOptions: object, hash = mix(hashOf(kind), hashOf(derivedOptions, true))): FormEntry | undefined => {
    for (let entry = forms.get(owner)?.get(hash); entry !== undefined; entry = entry.sibling) {
      if (entry.kind === kind && sameAs(derivedOptions, entry.snapshot, true)) {
        touch(entry);
        return entry;
      }
    }
    return undefined;
  };
  const keepForm = (owner: object, kind: string, derivedOptions: object, value: unknown): void => {
    const hash = mix(hashOf(kind), hashOf(derivedOptions, true));
    const old = formOf(owner, kind, derivedOptions, hash);
    if (old !== undefined) {
      replace(old);
      old.forget();
    }
    let index = forms.get(owner);
    if (index === undefined) forms.set(owner, (index = new Map()));
    const bucket = index;
    const entry: FormEntry = {
      prev: undefined,
      next: undefined,
      value,
      kind,
      snapshot: snapshotOf(derivedOptions, true),
      sibling: bucket.get(hash),
      forget: () => unchain(bucket, hash, entry),
    };
    bucket.set(hash, entry);
    add(entry);
  };
  /** The group of settings like these (made when `create`). */
  const groupOf = (settings: BindSettings, create: boolean): SettingsGroup | undefined => {
    for (let group = groups.get(settings.entitySet); group !== undefined; group = group.sibling) {
      if (sameAs(settings, group.snapshot, true)) return group;
    }
    if (!create) return undefined;
    const group: SettingsGroup = {
      snapshot: snapshotOf(settings, true),
      set: settings.entitySet,
      key: `g${nextGroup++}`,
      shapes: new Map(),
      sibling: groups.get(settings.entitySet),
    };
    groups.set(settings.entitySet, group);
    return group;
  };
  /** The entry of `shape` in `group`, if any. */
  const shapeEntry = (group: SettingsGroup, shape: QueryShape): ShapeEntry | undefined => {
    for (let entry = group.shapes.get(shape.hash); entry !== undefined; entry = entry.sibling) if (sameShape(entry.shape, shape)) return entry;
    return undefined;
  };
  const keepShape = (group: SettingsGroup, shape: QueryShape, value: unknown): void => {
    const index = groups;
    const hash = shape.hash;
    const old = shapeEntry(group, shape);
    if (old !== undefined) {
      // (Out of the list and of the index, the group kept: the new entry goes into it.)
      replace(old);
      unchain(group.shapes, hash, old);
    }
    const entry: ShapeEntry = {
      prev: undefined,
      next: undefined,
      value,
      shape,
      sibling: group.shapes.get(hash),
      forget() {
        unchain(group.shapes, hash, entry);
        // (A group without plans goes too: groups are bounded by the entries.)
        if (group.shapes.size === 0) unchain(index, group.set, group);
      },
    };
    group.shapes.set(hash, entry);
    add(entry);
  };

  return {
    bind(query, settings) {
      if (query.length > maxQueryLength || maxEntries <= 0) return bindQuery(query, settings);
      // The exact text first, found by comparing the settings with the kept ones: a repeated text
      // costs a lookup, no key and no scan for its shape.
      for (let entry = texts.get(query); entry !== undefined; entry = entry.sibling) {
        if (sameAs(settings, entry.snapshot, true)) {
          touch(entry);
          return entry.value;
        }
      }
      const shape = shapes && typeof settings.entitySet === 'string' ? shapeOf(query, settings.parse?.plusAsSpace ?? false) : undefined;
      const group = shape === undefined ? undefined : groupOf(settings, false);
      const known = shape === undefined || group === undefined ? undefined : shapeEntry(group, shape);
      if (known !== undefined) touch(known);
      const plan = known?.value as ShapePlan | false | undefined;
      if (shape !== undefined && group !== undefined && plan !== undefined && plan !== false) {
        // A text of a known shape: its plan with this text's literals (the learned text, or another
        // spelling of it, such as its percent-encoded form: its own bound query).
        return query === plan.text || sameLiterals(plan, shape) ? plan.bound : instantiateBound(plan, shape, query, group.key);
      }
      const bound = Object.freeze(bindQuery(query, settings));
      keepText(query, settings, bound);
      if (shape !== undefined && plan === undefined) {
        // The first text of its shape: learn the shape's plan (or that it has none).
        const into = groupOf(settings, true) as SettingsGroup;
        const learned = learnShape(shape.key, query, shape, bound, settings);
        keepShape(into, shape, learned ?? false);
        if (learned !== undefined)
          shaped.set(bound, { shaped: true, plan: learned, query, settingsKey: into.key, values: learned.values, deltas: learned.values.map(() => 0) });
      }
      return bound;
    },
    get size() {
      return size;
    },
    clear() {
      texts = new Map();
      forms = new WeakMap();
      groups = new Map();
      named = new Map();
      exact = new WeakSet();
      shaped = new WeakMap();
      head = tail = undefined;
      size = 0;
    },
    derive(bound, kind, derivedOptions, compute) {
      // A bound query kept by its exact text: its compiled form found by comparing the options.
      const hash = mix(hashOf(kind), hashOf(derivedOptions, true));
      const form = formOf(bound, kind, derivedOptions, hash);
      if (form !== undefined) return form.value as ReturnType<typeof compute>;
      // A text served from its shape's plan whose compiled form's template is known: filled, nothing kept.
      const served = shapedOf(bound);
      if (served !== undefined && !exact.has(bound)) {
        const known = formOf(served.plan, kind, derivedOptions, hash)?.value as DerivedPlan | undefined;
        if (known !== undefined && known !== false) return fillDerived<ReturnType<typeof compute>>(known, served);
      }
      // (A miss: the compile with these options, made here so that a hit allocates nothing.)
      const compileOne = (one: BoundQuery): ReturnType<typeof compute> => compute(one, derivedOptions);
      const kept = exact.has(bound);
      const instance = shapedOf(bound) ?? shaped.get(bound);
      if (instance === undefined && !kept) return compileOne(bound);
      if (instance !== undefined) {
        const { plan } = instance;
        const derived = deriveShaped(
          bound,
          instance,
          {
            get: () => formOf(plan, kind, derivedOptions, hash)?.value as DerivedPlan | undefined,
            set: (value) => keepForm(plan, kind, derivedOptions, value),
          },
          compileOne,
        );
        if (derived !== undefined) {
          if (kept) keepForm(bound, kind, derivedOptions, derived.value);
          return derived.value;
        }
      }
      if (kept) {
        const value = compileOne(bound);
        keepForm(bound, kind, derivedOptions, value);
        return value;
      }
      // (A text served from its shape's plan, whose compiled form is not: by its exact text.)
      const key = `${kind} ${keyOf(derivedOptions, true)} bind ${instance?.settingsKey} ${instance?.query}`;
      const known = named.get(key);
      if (known !== undefined) {
        touch(known);
        return known.value as ReturnType<typeof compute>;
      }
      const value = compileOne(bound);
      const index = named;
      const entry: Entry = { prev: undefined, next: undefined, value, forget: () => index.get(key) === entry && index.delete(key) };
      named.set(key, entry);
      add(entry);
      return value;
    },
  };
}
