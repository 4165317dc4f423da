/**
 * A bounded cache of query plans. A server sees the same query texts again and again: the cache
 * keeps what `bindQuery` gives for a query text and its settings, and what `toSql`/`toMongo` give
 * for that bound query and their options, so a repeated request costs a lookup. It also sees the
 * same query *shapes* with other literal values: texts that differ only in replaceable literals
 * (see `shape.ts`) share one plan whose literals are holes (see `shape-plan.ts`).
 *
 * A key holds everything that decides a plan, so a plan never serves another request than its
 * own: the query text exactly as given; the settings and options as data (limits, entity set,
 * naming, tables, the `scope` values, and so a tenant's id), and by identity what is not plain data
 * (the model's maps of types and sets, hooks, class instances). Only plans are kept, never errors. Entries are bounded in
 * number (least recently used go first) and query texts above a length are not cached.
 */
import type { BoundQuery } from '../semantic/bound-ast.js';
import type { BindSettings } from '../semantic/settings.js';
import { bindQuery } from '../semantic/bind-query.js';
import { shapeOf } from './shape.js';
import { deriveShaped, instantiateBound, learnShape, sameLiterals, shapedOf, type ShapePlan, type ShapedBound } from './shape-plan.js';

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
  derive<T>(bound: BoundQuery, kind: string, options: object, compute: (bound: BoundQuery) => T): T;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;

/** A text of a value, equal only for equal values: plain data by content, anything else by identity. */
function keyOf(value: unknown): string {
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
      if (Array.isArray(value)) return `[${value.map(keyOf).join(',')}]`;
      if (value instanceof Set) return `Set[${[...value].map(keyOf).join(',')}]`;
      const prototype = Object.getPrototypeOf(value) as unknown;
      if (typeof value === 'object' && (prototype === Object.prototype || prototype === null)) {
        // In the object's own order: the same content in another order is another key, which
        // costs a miss and never serves a wrong plan.
        let text = '{';
        for (const key in value) {
          if (Object.hasOwn(value, key)) text += `${JSON.stringify(key)}:${keyOf((value as Record<string, unknown>)[key])},`;
        }
        return `${text}}`;
      }
      // A Map, a hook, a class instance: by identity.
      let id = identities.get(value);
      if (id === undefined) identities.set(value, (id = nextIdentity++));
      return `#${id}`;
    }
    default:
      return '?';
  }
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
  const entries = new Map<string, unknown>();
  const keys = new WeakMap<BoundQuery, string>();
  /** The shape plans and literals of the first texts of their shapes (later ones carry theirs, see `shapedOf`). */
  const shaped = new WeakMap<BoundQuery, ShapedBound>();

  const remember = (key: string, value: unknown): void => {
    entries.set(key, value);
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };
  const recall = (key: string): unknown => {
    const value = entries.get(key);
    if (value !== undefined) {
      // Most recently used last.
      entries.delete(key);
      entries.set(key, value);
    }
    return value;
  };

  return {
    bind(query, settings) {
      if (query.length > maxQueryLength || maxEntries <= 0) return bindQuery(query, settings);
      // (A model is plain data whose maps of types and sets are told apart by identity.)
      const settingsKey = keyOf(settings);
      // The exact text first: a repeated text costs a lookup, not a scan for its shape.
      const key = `bind ${settingsKey} ${query}`;
      let bound = recall(key) as BoundQuery | undefined;
      if (bound !== undefined) return bound;
      const shape = shapes ? shapeOf(query, settings.parse?.plusAsSpace ?? false) : undefined;
      const shapeKey = shape === undefined ? undefined : `shape ${settingsKey} ${shape.key}`;
      const plan = shapeKey === undefined ? undefined : (recall(shapeKey) as ShapePlan | false | undefined);
      if (shape !== undefined && plan !== undefined && plan !== false) {
        // A text of a known shape: its plan with this text's literals (the learned text, or another
        // spelling of it, such as its percent-encoded form: its own bound query).
        return query === plan.text || sameLiterals(plan, shape) ? plan.bound : instantiateBound(plan, shape, query, settingsKey);
      }
      bound = Object.freeze(bindQuery(query, settings));
      keys.set(bound, key);
      remember(key, bound);
      if (shape !== undefined && shapeKey !== undefined && plan === undefined) {
        // The first text of its shape: learn the shape's plan (or that it has none).
        const learned = learnShape(shapeKey, query, shape, bound, settings);
        remember(shapeKey, learned ?? false);
        if (learned !== undefined) shaped.set(bound, { plan: learned, query, settingsKey, values: learned.values, deltas: learned.values.map(() => 0) });
      }
      return bound;
    },
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
    },
    derive(bound, kind, derivedOptions, compute) {
      const instance = shapedOf(bound) ?? shaped.get(bound);
      const exact = keys.get(bound);
      if (instance === undefined && exact === undefined) return compute(bound);
      const optionsKey = keyOf(derivedOptions);
      // A bound query kept by its exact text: its compiled form by that text first (a lookup).
      const exactKey = exact === undefined ? undefined : `${kind} ${optionsKey} ${exact}`;
      const known = exactKey === undefined ? undefined : recall(exactKey);
      if (known !== undefined) return known as ReturnType<typeof compute>;
      if (instance !== undefined) {
        const derived = deriveShaped(bound, instance, `${kind} ${optionsKey} ${instance.plan.key}`, { recall, remember }, compute);
        if (derived !== undefined) {
          if (exactKey !== undefined) remember(exactKey, derived.value);
          return derived.value;
        }
      }
      // (A text served from its shape's plan, whose compiled form is not: by its exact text.)
      const key = exactKey ?? `${kind} ${optionsKey} bind ${instance?.settingsKey} ${instance?.query}`;
      let value = recall(key);
      if (value === undefined) {
        value = compute(bound);
        remember(key, value);
      }
      return value as ReturnType<typeof compute>;
    },
  };
}
