/**
 * Plan templates (issue 15): a plan (a bound query, SQL, a MongoDB query) with holes where the
 * literals of its query text went, learned by comparing the plan of a text with the plan of a
 * *probe* (the same shape with other literal values). Every place where the two differ must be
 * explained as one literal's value (as the parser reads it) through one of a few transforms:
 * unchanged, as text, as a number, as a bigint, or inside a fixed text (`%milk%`, `^A`). Spans of
 * the bound query are not compared: they move by the lengths of the literals before them. A plan
 * that differs in any other way (another structure, a value computed from a literal, a hole no
 * literal explains) gives no template, and its shape is compiled text by text. (One literal may
 * fill several holes, each through its own transform.)
 */

/** How a hole's value comes from its literal's value. */
type Transform = 'same' | 'string' | 'number' | 'bigint' | { readonly before: string; readonly after: string };

/** A plan with holes. */
export type Template =
  | { readonly t: 'const'; readonly value: unknown }
  /** A copy of `base` with the entries that have holes replaced. */
  | {
      readonly t: 'object';
      readonly base: object;
      readonly keys: readonly string[];
      readonly entries: readonly Template[];
      /** For large entries, the getter that fills them when first read (see `instantiateLazily`). */
      readonly getters: readonly (PropertyDescriptor | undefined)[];
    }
  | { readonly t: 'array'; readonly items: readonly Template[] }
  | { readonly t: 'hole'; readonly slot: number; readonly transform: Transform }
  | { readonly t: 'span'; readonly start: number; readonly end: number; readonly startSlots: readonly number[]; readonly endSlots: readonly number[] };

/** Where the literals of the learned text are: to move spans (bound queries only). */
export interface SpanLayout {
  /** The option of a key of the bound query's root (`filter` → `filter`, `orderBy` → `orderby`). */
  readonly optionOf: (rootKey: string) => string | undefined;
  /** Per literal: its option, offset and length in the learned text. */
  readonly slots: readonly { readonly option: string; readonly offset: number; readonly length: number }[];
  /** Per literal: its length in the probe's text. */
  readonly probeLengths: readonly number[];
}

/** How many nodes a template has. */
function size(template: Template): number {
  if (template.t === 'array') return template.items.reduce((sum, item) => sum + size(item), 1);
  if (template.t === 'object') return template.entries.reduce((sum, entry) => sum + size(entry), 1);
  return 1;
}

/** Entries of at most this many nodes are filled at once by `instantiateLazily`; larger ones when first read. */
const EAGER = 12;

const isPlain = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/** Deep equality of plans: plain objects and arrays by content (getters read), dates by time, numbers with `Object.is`. */
export function samePlan(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => samePlan(item, b[i]));
  if (a instanceof Date) return b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (a instanceof RegExp) return b instanceof RegExp && a.source === b.source && a.flags === b.flags;
  if (!isPlain(a) || !isPlain(b)) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  return keys.length === other.length && keys.every((key, i) => other[i] === key && samePlan(a[key], b[key]));
}

function apply(transform: Transform, value: unknown): unknown {
  switch (transform) {
    case 'same':
      return value;
    case 'string':
      return String(value);
    case 'number':
      return Number(value);
    case 'bigint':
      return BigInt(value as string | number);
    default:
      return `${transform.before}${String(value)}${transform.after}`;
  }
}

const SIMPLE: readonly Transform[] = ['same', 'string', 'number', 'bigint'];

/** The literal and transform that give `a` from `mine` and `b` from `probe`, if one does. */
function explain(a: unknown, b: unknown, mine: readonly unknown[], probe: readonly unknown[]): Template | undefined {
  for (let slot = 0; slot < mine.length; slot++) {
    for (const transform of SIMPLE) {
      try {
        if (Object.is(apply(transform, mine[slot]), a) && Object.is(apply(transform, probe[slot]), b)) return { t: 'hole', slot, transform };
      } catch {
        // (BigInt of a fraction.)
      }
    }
    if (typeof a === 'string' && typeof b === 'string') {
      const text = String(mine[slot]);
      const at = a.indexOf(text);
      if (at < 0) continue;
      const transform = { before: a.slice(0, at), after: a.slice(at + text.length) };
      if (apply(transform, probe[slot]) === b) return { t: 'hole', slot, transform };
    }
  }
  return undefined;
}

class Learner {
  constructor(
    private readonly mine: readonly unknown[],
    private readonly probe: readonly unknown[],
    private readonly layout: SpanLayout | undefined,
  ) {}

  /** The span of option `option` moved by the literals before its ends, checked against the probe's. */
  private span(a: Record<string, unknown>, b: unknown, option: string | undefined): Template | undefined {
    const layout = this.layout as SpanLayout;
    const { start, end } = a as { start: number; end: number };
    const before = (position: number): number[] =>
      layout.slots.flatMap((slot, index) => (slot.option === option && slot.offset + slot.length <= position ? [index] : []));
    const startSlots = before(start);
    const endSlots = before(end);
    const moved = (position: number, slots: readonly number[]): number =>
      slots.reduce((sum, s) => sum + (layout.probeLengths[s] as number) - (layout.slots[s] as { length: number }).length, position);
    const probe = b as { start: unknown; end: unknown };
    if (probe.start !== moved(start, startSlots) || probe.end !== moved(end, endSlots)) return undefined;
    if (startSlots.length === 0 && endSlots.length === 0) return { t: 'const', value: a };
    return { t: 'span', start, end, startSlots, endSlots };
  }

  learn(a: unknown, b: unknown, option: string | undefined, depth: number, key: string | undefined): Template | undefined {
    if (a === b) return { t: 'const', value: a };
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return undefined;
      const items: Template[] = [];
      for (let i = 0; i < a.length; i++) {
        const item = this.learn(a[i], b[i], option, depth + 1, undefined);
        if (item === undefined) return undefined;
        items.push(item);
      }
      return items.every((item) => item.t === 'const') ? { t: 'const', value: a } : { t: 'array', items };
    }
    if (isPlain(a) && isPlain(b)) {
      const keys = Object.keys(a);
      const other = Object.keys(b);
      if (keys.length !== other.length || keys.some((k, i) => other[i] !== k)) return undefined;
      if (this.layout !== undefined && key === 'span' && typeof a.start === 'number' && typeof a.end === 'number' && keys.length === 2) {
        return this.span(a, b, option);
      }
      const changed: string[] = [];
      const entries: Template[] = [];
      for (const k of keys) {
        const entry = this.learn(a[k], b[k], depth === 0 && this.layout !== undefined ? this.layout.optionOf(k) : option, depth + 1, k);
        if (entry === undefined) return undefined;
        if (entry.t !== 'const' || entry.value !== a[k]) {
          changed.push(k);
          entries.push(entry);
        }
      }
      // (An object with getters, such as a SQL query's lazy pieces, becomes plain data.)
      const accessors = keys.some((k) => Object.getOwnPropertyDescriptor(a, k)?.get !== undefined);
      const base = accessors ? Object.fromEntries(keys.map((k) => [k, a[k]])) : a;
      return changed.length === 0
        ? { t: 'const', value: a }
        : {
            t: 'object',
            base,
            keys: changed,
            entries,
            getters: entries.map((entry, i) => (size(entry) > EAGER ? lazyEntry(changed[i] as string, entry) : undefined)),
          };
    }
    if (samePlan(a, b)) return { t: 'const', value: a };
    return explain(a, b, this.mine, this.probe);
  }
}

/**
 * The template that gives `mine` from the literal values `values` and `probe` from `probeValues`,
 * or `undefined` when no template gives both. With `layout`, spans move with the literals'
 * lengths (a bound query).
 */
export function learnTemplate(
  mine: unknown,
  probe: unknown,
  values: readonly unknown[],
  probeValues: readonly unknown[],
  layout?: SpanLayout,
): Template | undefined {
  return new Learner(values, probeValues, layout).learn(mine, probe, undefined, 0, undefined);
}

/**
 * What a lazily filled plan was filled with (the literal values and the lengths they add), and what
 * its getters computed; its own fields beyond these are the caller's (see {@link fillingOf}).
 */
export interface Filling {
  readonly values: readonly unknown[];
  readonly deltas: readonly number[];
  done?: Map<string, unknown>;
}

/** The filling of each lazily filled plan (its getters, shared by all plans of a template, find it here). */
const fillings = new WeakMap<object, Filling>();

/** A getter of a large entry, one per template and key (so that plans of one template share their hidden class). */
function lazyEntry(key: string, entry: Template): PropertyDescriptor {
  return {
    enumerable: true,
    get(this: object): unknown {
      const filling = fillings.get(this) as Filling;
      filling.done ??= new Map();
      if (!filling.done.has(key)) filling.done.set(key, instantiate(entry, filling.values, filling.deltas));
      return filling.done.get(key);
    },
  };
}

/**
 * `instantiate` with `filling`'s values, except that the large entries of the top object are filled
 * when first read (own, enumerable getters, as `toSql`'s pieces are): the bound query of a text
 * whose compiled form is served from the cache is never built. The filling is kept with the plan
 * (one object: the caller's, see {@link fillingOf}).
 */
export function instantiateLazily<F extends Filling>(template: Template, filling: F): unknown {
  if (template.t !== 'object') return instantiate(template, filling.values, filling.deltas);
  const result: Record<string, unknown> = { ...template.base };
  for (let i = 0; i < template.keys.length; i++) {
    const getter = template.getters[i];
    if (getter === undefined) result[template.keys[i] as string] = instantiate(template.entries[i] as Template, filling.values, filling.deltas);
    else Object.defineProperty(result, template.keys[i] as string, getter);
  }
  fillings.set(result, filling);
  return result;
}

/** The filling a plan was made with by {@link instantiateLazily}. */
export function fillingOf(plan: object): Filling | undefined {
  return fillings.get(plan);
}

/**
 * The plan of `template` for literal values `values` whose tokens are `deltas` characters longer
 * than the learned text's. Parts without holes are shared with the learned plan (plans are read
 * only).
 */
export function instantiate(template: Template, values: readonly unknown[], deltas: readonly number[]): unknown {
  switch (template.t) {
    case 'const':
      return template.value;
    case 'hole':
      return apply(template.transform, values[template.slot]);
    case 'array':
      return template.items.map((item) => instantiate(item, values, deltas));
    case 'object': {
      const result: Record<string, unknown> = { ...template.base };
      for (let i = 0; i < template.keys.length; i++) result[template.keys[i] as string] = instantiate(template.entries[i] as Template, values, deltas);
      return result;
    }
    case 'span': {
      let start = template.start;
      for (const s of template.startSlots) start += deltas[s] as number;
      let end = template.end;
      for (const s of template.endSlots) end += deltas[s] as number;
      return { start, end };
    }
  }
}
