/**
 * The in-memory backend bench (see memory.ts): the generated rows, the queries, the subjects and
 * their measured functions. Shared by the parent (which runs every function once to check that
 * all subjects agree, before measuring anything) and the children (memory-worker.ts), so that both
 * run exactly the same code.
 */
import { createRequire } from 'node:module';
import type { EngineApi } from './shared.js';

// ---------------------------------------------------------------------------------------------
// Rows (deterministic)
// ---------------------------------------------------------------------------------------------

export const SEED = 20_261_122;
export const ROW_COUNT = 100_000;

/** A type alias rather than an interface, so that it is a `Row` (a record) for odata-engine. */
export type Product = {
  readonly id: number;
  readonly name: string;
  readonly price: number;
  readonly active: boolean;
  readonly category: string;
};

/** mulberry32: a small, fast, seeded PRNG with uniform output in [0, 1). */
function prng(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CATEGORIES = ['dairy', 'bakery', 'produce', 'frozen', 'pantry'] as const;

/**
 * `count` products with ids 1..count; names are 3 to 10 random lowercase letters (so about 1/26
 * start with 'a'), prices 0 to 100 with two decimals, `active` true for about half.
 */
export function generateRows(seed = SEED, count = ROW_COUNT): Product[] {
  const random = prng(seed);
  const rows: Product[] = [];
  for (let i = 0; i < count; i++) {
    const length = 3 + Math.floor(random() * 8);
    let name = '';
    for (let k = 0; k < length; k++) name += String.fromCharCode(97 + Math.floor(random() * 26));
    rows.push({
      id: i + 1,
      name,
      price: Math.round(random() * 10_000) / 100,
      active: random() < 0.5,
      category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!,
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

export const MODEL_DEFINITION = {
  namespace: 'Bench',
  entityTypes: {
    Product: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double', active: 'Edm.Boolean', category: 'Edm.String' },
    },
  },
  entitySets: { products: { type: 'Product' } },
} as const;

export const FILTER = "price gt 50 and startswith(name,'a') and active eq true";
export const SKIP = 100;
export const TOP = 50;
export const FILTER_QUERY = `$filter=${FILTER}`;
export const SORT_PAGE_QUERY = `$filter=${FILTER}&$orderby=price desc,name&$skip=${SKIP}&$top=${TOP}`;
export const MINGO_CRITERIA = { price: { $gt: 50 }, name: { $regex: '^a' }, active: true };
export const MINGO_SORT = { price: -1, name: 1 } as const;

// ---------------------------------------------------------------------------------------------
// Subjects and their cells
// ---------------------------------------------------------------------------------------------

export const MEMORY_SUBJECT_KEYS = ['ours', 'closure', 'odataV4Inmemory', 'mingo'] as const;
export type MemorySubjectKey = (typeof MEMORY_SUBJECT_KEYS)[number];
export function isMemorySubjectKey(s: string): s is MemorySubjectKey {
  return (MEMORY_SUBJECT_KEYS as readonly string[]).includes(s);
}

/** `filter`: the 3-clause filter alone; `sortPage`: the filter, `$orderby=price desc,name`, `$skip`, `$top`. */
export type MemoryCase = 'filter' | 'sortPage';

export interface MemoryCellSpec {
  readonly case: MemoryCase;
  /** How the subject is called, for the tables. */
  readonly form: string;
}

/** The cells of each subject, in the order of the functions {@link loadMemorySubject} returns. */
export const MEMORY_CELLS: Readonly<Record<MemorySubjectKey, readonly MemoryCellSpec[]>> = {
  ours: [
    { case: 'filter', form: '`q.predicate(row)` loop' },
    { case: 'filter', form: '`q.apply(rows)`' },
    { case: 'sortPage', form: '`q.apply(rows)`' },
  ],
  closure: [
    { case: 'filter', form: '`rows.filter(closure)`' },
    { case: 'sortPage', form: 'filter, `sort(comparator)`, `slice`' },
  ],
  odataV4Inmemory: [{ case: 'filter', form: '`createFilter(text)` loop' }],
  mingo: [
    { case: 'filter', form: '`query.test(row)` loop' },
    { case: 'sortPage', form: '`query.find(rows).sort().skip().limit().all()`' },
  ],
};

/**
 * What a call returned, in a form every subject shares: the number of matching rows (filter), or
 * the ids of the page in order (sort + page).
 */
export function summarize(kind: MemoryCase, result: unknown): string {
  if (kind === 'filter') return typeof result === 'number' ? `count ${result}` : `not a count: ${typeof result}`;
  if (!Array.isArray(result)) return `not a page: ${typeof result}`;
  return `ids ${result.map((row: unknown) => (typeof row === 'object' && row !== null ? String((row as { id?: unknown }).id) : '?')).join(',')}`;
}

/** Counts the rows for which `test` is true: the loop form of the predicate subjects. */
function countMatches(rows: readonly Product[], test: (row: Product) => boolean): number {
  let count = 0;
  for (let i = 0; i < rows.length; i++) if (test(rows[i]!)) count++;
  return count;
}

/** Minimal local types of the CommonJS peers. */
interface OdataV4Inmemory {
  createFilter(filter: string): (row: Product) => boolean;
}
interface MingoCursor {
  sort(modifier: Record<string, 1 | -1>): MingoCursor;
  skip(n: number): MingoCursor;
  limit(n: number): MingoCursor;
  all(): Product[];
}
interface Mingo {
  Query: new (criteria: Record<string, unknown>) => { test(row: Product): boolean; find(rows: readonly Product[]): MingoCursor };
}

const require = createRequire(import.meta.url);

export function peerVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

/**
 * The measured functions of one subject over `rows`, one per cell of {@link MEMORY_CELLS}.
 * Everything a subject compiles or builds (bound queries, filter functions, mingo queries, the
 * comparator) is made once, here; the functions only run it.
 */
export function loadMemorySubject(key: MemorySubjectKey, rows: readonly Product[], engine: EngineApi | undefined): (() => unknown)[] {
  switch (key) {
    case 'ours': {
      if (engine === undefined) throw new Error('odata-engine is not loaded');
      const model = engine.defineModel(MODEL_DEFINITION);
      const settings = { model, entitySet: 'products' };
      const filter = engine.compileQuery(engine.bindQuery(FILTER_QUERY, settings));
      const sortPage = engine.compileQuery(engine.bindQuery(SORT_PAGE_QUERY, settings));
      const predicate = filter.predicate;
      return [() => countMatches(rows, predicate), () => filter.apply(rows).value.length, () => sortPage.apply(rows).value];
    }
    case 'closure': {
      // As a developer would write it by hand.
      const compare = (a: Product, b: Product): number => {
        if (a.price !== b.price) {
          if (a.price == null) return 1;
          if (b.price == null) return -1;
          return b.price - a.price;
        }
        if (a.name === b.name) return 0;
        if (a.name == null) return -1;
        if (b.name == null) return 1;
        return a.name < b.name ? -1 : 1;
      };
      return [
        () => rows.filter((r) => r.price > 50 && typeof r.name === 'string' && r.name.startsWith('a') && r.active === true).length,
        () =>
          rows
            .filter((r) => r.price > 50 && typeof r.name === 'string' && r.name.startsWith('a') && r.active === true)
            .sort(compare)
            .slice(SKIP, SKIP + TOP),
      ];
    }
    case 'odataV4Inmemory': {
      const peer = require('odata-v4-inmemory') as OdataV4Inmemory;
      const test = peer.createFilter(FILTER);
      return [() => countMatches(rows, test)];
    }
    case 'mingo': {
      const { Query } = require('mingo') as Mingo;
      const query = new Query(MINGO_CRITERIA);
      // Its filter is only measured in the loop form: `query.find(rows).all()` costs the same
      // (within a few %) and a mingo call takes over 100 ms, so the bench's time goes elsewhere.
      return [() => countMatches(rows, (row) => query.test(row)), () => query.find(rows).sort(MINGO_SORT).skip(SKIP).limit(TOP).all()];
    }
  }
}
