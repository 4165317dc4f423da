/**
 * The SQL backend bench (see sql.ts): the models, the data, the indexes, the queries with their
 * hand-written equivalents, and what the child (sql-worker.ts) reports back. Shared by the parent
 * and the child, so that both use exactly the same definitions.
 */
import type { bindQuery, createTableSql, defineModel, parseQuery, toSql } from '../src/index.js';
import type { CellOptions } from './measure.js';
import { inputs, type EngineMode } from './shared.js';

// ---------------------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------------------

/** The odata-engine entry points the SQL bench calls. */
export interface SqlEngineApi {
  readonly parseQuery: typeof parseQuery;
  readonly bindQuery: typeof bindQuery;
  readonly toSql: typeof toSql;
  readonly createTableSql: typeof createTableSql;
  readonly defineModel: typeof defineModel;
}

function pick(mod: SqlEngineApi): SqlEngineApi {
  return { parseQuery: mod.parseQuery, bindQuery: mod.bindQuery, toSql: mod.toSql, createTableSql: mod.createTableSql, defineModel: mod.defineModel };
}

/** Imports the bench bundle (see run.ts and `BUNDLE_ENTRY` in shared.ts) from a `data:` URL. */
export async function importSqlBundle(code: string): Promise<SqlEngineApi> {
  return pick((await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as SqlEngineApi);
}

/** In the child: odata-engine from the bundle on stdin, or from `src/` through tsx. */
export async function loadSqlEngine(from: EngineMode): Promise<SqlEngineApi> {
  if (from === 'bundle') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return importSqlBundle(Buffer.concat(chunks).toString('utf8'));
  }
  return pick(await import('../src/index.js'));
}

// ---------------------------------------------------------------------------------------------
// Compile latency: the parse bench's medium filter, over a small model with its names
// ---------------------------------------------------------------------------------------------

/** Properties named as in the parse bench's medium filter (`Category/Name` is a navigation). */
export const COMPILE_MODEL = {
  namespace: 'Shop',
  entityTypes: {
    Product: {
      key: ['Id'],
      properties: {
        Id: 'Edm.Int32',
        Name: 'Edm.String',
        Price: 'Edm.Decimal',
        ReleaseDate: 'Edm.Date',
        Rating: 'Edm.Int32',
        Code: 'Edm.String',
        Description: 'Edm.String',
        CategoryId: 'Edm.Int32',
      },
      navigation: { Category: { type: 'Category', constraints: { CategoryId: 'Id' } } },
    },
    Category: { key: ['Id'], properties: { Id: 'Edm.Int32', Name: 'Edm.String' } },
  },
  entitySets: { Products: { type: 'Product' }, Categories: { type: 'Category' } },
} as const;
export const COMPILE_ENTITY_SET = 'Products';

const MEDIUM = inputs.find((i) => i.name.startsWith('medium'))!;
/**
 * The filters tried for the compile latency, in order: the first that the SQL backend compiles is
 * measured (the parent decides, see sql.ts). The medium filter itself, then the same with
 * `year(ReleaseDate) eq 2024` (should the SQL backend reject `year`) replaced by a comparison.
 */
export const COMPILE_FILTERS: readonly { readonly name: string; readonly text: string }[] = [
  { name: `the parse bench's ${MEDIUM.name} filter`, text: MEDIUM.text },
  {
    name: `the parse bench's ${MEDIUM.name} filter, \`year(ReleaseDate) eq 2024\` replaced by \`ReleaseDate lt 2025-01-01\``,
    text: MEDIUM.text.replace('year(ReleaseDate) eq 2024', 'ReleaseDate lt 2025-01-01'),
  },
];

export type CompileCellKey = 'full' | 'parse' | 'bind' | 'toSql';
export const COMPILE_CELLS: readonly { readonly key: CompileCellKey; readonly label: string }[] = [
  { key: 'full', label: 'parse + bind + toSql: `toSql(bindQuery(text, settings), options)`' },
  { key: 'parse', label: 'parse alone: `parseQuery(text)`' },
  { key: 'bind', label: 'bind alone: `bindQuery(parsed, settings)`' },
  { key: 'toSql', label: 'toSql alone: `toSql(bound, options)`' },
];
/** Limits of the compile cells (synchronous, microseconds per call). */
export const COMPILE_LIMITS: CellOptions = { warmupMs: 100, rewarmMs: 30, maxSingleMs: 5000, samplesPerRound: 5 };
/** Each compile cell is measured in this many rounds of {@link COMPILE_ROUND_MS}, in one child. */
export const COMPILE_ROUNDS = 3;
export const COMPILE_ROUND_MS = 150;

// ---------------------------------------------------------------------------------------------
// The database: model, data, indexes
// ---------------------------------------------------------------------------------------------

export const SQL_MODEL = {
  namespace: 'Bench',
  entityTypes: {
    Product: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double', categoryId: 'Edm.Int32', active: 'Edm.Boolean', createdAt: 'Edm.DateTimeOffset' },
      navigation: { category: { type: 'Category', constraints: { categoryId: 'id' }, partner: 'products' } },
    },
    Category: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String' },
      navigation: { products: { type: 'Collection(Product)', partner: 'category' } },
    },
  },
  entitySets: { products: { type: 'Product' }, categories: { type: 'Category' } },
} as const;

export const PRODUCT_COUNT = 100_000;
export const CATEGORY_COUNT = 50;

/**
 * Deterministic rows, generated by the database. Product i: name `name-<i>` (unique), price
 * `((i * 7919) mod 10000) / 100` (0 to 99.99, every value on exactly 10 rows, spread over the ids),
 * categoryId `((i * 37) mod 50) + 1` (2 000 products per category), active for every third,
 * createdAt 5 minutes apart from 2024-01-01. Category c: name `category-<c>`.
 */
export const LOAD_SQL = `INSERT INTO categories (id, name) SELECT c, 'category-' || c FROM generate_series(1, ${CATEGORY_COUNT}) c;
INSERT INTO products (id, name, price, "categoryId", active, "createdAt")
  SELECT i, 'name-' || i, ((i * 7919) % 10000) / 100.0, ((i * 37) % ${CATEGORY_COUNT}) + 1, i % 3 = 0,
         timestamptz '2024-01-01 00:00:00+00' + i * interval '5 minutes'
  FROM generate_series(1, ${PRODUCT_COUNT}) i;`;
export const LOAD_DESCRIPTION =
  'product i (1 to 100 000): name `name-<i>`, price `((i * 7919) mod 10000) / 100` (0 to 99.99, each value on 10 rows), categoryId `((i * 37) mod 50) + 1`, active for every third, createdAt 5 minutes apart; category c (1 to 50): name `category-<c>`; no nulls';

/** An index: its name and the statement that creates it. */
export interface IndexSpec {
  readonly name: string;
  readonly sql: string;
}

/** The indexes of the brief, with the database's default collation (besides the primary keys). */
export const DEFAULT_INDEXES: readonly IndexSpec[] = [
  { name: 'products_name_idx', sql: 'CREATE INDEX products_name_idx ON products (name)' },
  { name: 'products_price_idx', sql: 'CREATE INDEX products_price_idx ON products (price)' },
  { name: 'products_categoryid_idx', sql: 'CREATE INDEX products_categoryid_idx ON products ("categoryId")' },
  { name: 'categories_name_idx', sql: 'CREATE INDEX categories_name_idx ON categories (name)' },
];
/** Added for the second variant: the string columns indexed again with `COLLATE "C"`. */
export const C_INDEXES: readonly IndexSpec[] = [
  { name: 'products_name_c_idx', sql: 'CREATE INDEX products_name_c_idx ON products (name COLLATE "C")' },
  { name: 'categories_name_c_idx', sql: 'CREATE INDEX categories_name_c_idx ON categories (name COLLATE "C")' },
];

export type VariantKey = 'default' | 'collateC';
export interface Variant {
  readonly key: VariantKey;
  readonly label: string;
  /** Indexes created before this variant runs (on top of the previous variants'). */
  readonly adds: readonly IndexSpec[];
}
export const VARIANTS: readonly Variant[] = [
  { key: 'default', label: 'A: default-collation indexes', adds: DEFAULT_INDEXES },
  { key: 'collateC', label: 'B: A + `COLLATE "C"` indexes on the names', adds: C_INDEXES },
];

// ---------------------------------------------------------------------------------------------
// The queries
// ---------------------------------------------------------------------------------------------

export interface HandStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export interface SqlCase {
  readonly key: string;
  readonly label: string;
  /** The OData query on `products`. */
  readonly query: string;
  /** What a developer would write for the same result. */
  readonly hand: HandStatement;
  /** The hand-written count statement, when the query has `$count=true`. */
  readonly handCount?: HandStatement;
  /** Indexes that serve this query (the "relevant" ones for the index check). */
  readonly relevant: readonly string[];
}

const COLUMNS = 'id, name, price, "categoryId", active, "createdAt"';
const NAME_INDEXES = ['products_name_idx', 'products_name_c_idx'];

export const SQL_CASES: readonly SqlCase[] = [
  {
    key: 'eq',
    label: 'equality on an indexed column',
    query: "$filter=name eq 'name-12345'",
    hand: { sql: `SELECT ${COLUMNS} FROM products WHERE name = $1`, params: ['name-12345'] },
    relevant: NAME_INDEXES,
  },
  {
    key: 'range',
    label: 'range, order and page',
    query: '$filter=price gt 50 and price lt 60&$orderby=price desc&$top=20&$skip=40',
    // `, id`: prices repeat (10 rows each), and a page needs a total order to be the same page.
    hand: { sql: `SELECT ${COLUMNS} FROM products WHERE price > $1 AND price < $2 ORDER BY price DESC, id LIMIT $3 OFFSET $4`, params: [50, 60, 20, 40] },
    relevant: ['products_price_idx'],
  },
  {
    key: 'startswith',
    label: 'startswith',
    query: "$filter=startswith(name,'name-123')&$top=50&$orderby=id",
    hand: { sql: `SELECT ${COLUMNS} FROM products WHERE name LIKE $1 ORDER BY id LIMIT $2`, params: ['name-123%', 50] },
    relevant: NAME_INDEXES,
  },
  {
    key: 'navigation',
    label: 'navigation filter',
    query: "$filter=category/name eq 'category-7'&$top=50&$orderby=id",
    hand: {
      sql: 'SELECT p.id, p.name, p.price, p."categoryId", p.active, p."createdAt" FROM products p JOIN categories c ON c.id = p."categoryId" WHERE c.name = $1 ORDER BY p.id LIMIT $2',
      params: ['category-7', 50],
    },
    relevant: ['products_pkey', 'products_categoryid_idx', 'categories_name_idx', 'categories_name_c_idx'],
  },
  {
    key: 'count',
    label: 'count',
    query: '$filter=price gt 90&$count=true&$top=10',
    hand: { sql: `SELECT ${COLUMNS} FROM products WHERE price > $1 ORDER BY id LIMIT $2`, params: [90, 10] },
    handCount: { sql: 'SELECT count(*) AS count FROM products WHERE price > $1', params: [90] },
    relevant: ['products_pkey', 'products_price_idx'],
  },
];

// ---------------------------------------------------------------------------------------------
// Measurement limits of the query cells
// ---------------------------------------------------------------------------------------------

/** Warm-up of each side of a query (at least {@link QUERY_MIN_WARMUP} executions), in ms. */
export const QUERY_WARMUP_MS = 120;
export const QUERY_MIN_WARMUP = 2;
/** Samples per side, alternating ours and hand-written. */
export const QUERY_SAMPLES = 7;
/** Measuring time of one side of one query, in ms (split into the samples; at least one execution per sample). */
export const QUERY_BUDGET_MS = 560;

// ---------------------------------------------------------------------------------------------
// Cells and what the child reports
// ---------------------------------------------------------------------------------------------

/** Cell indices: the compile cells, then per variant and case: ours, hand-written. */
export function queryCell(variant: number, kase: number, side: 'ours' | 'hand'): number {
  return COMPILE_CELLS.length + (variant * SQL_CASES.length + kase) * 2 + (side === 'ours' ? 0 : 1);
}
export const SQL_CELL_COUNT = COMPILE_CELLS.length + VARIANTS.length * SQL_CASES.length * 2;

/** One statement's EXPLAIN (COSTS OFF) lines and the indexes it scans. */
export interface PlanReport {
  readonly statement: 'list' | 'count';
  readonly lines: readonly string[];
  /** Index scan nodes, e.g. `Index Scan using products_name_idx`. */
  readonly indexNodes: readonly string[];
  readonly indexes: readonly string[];
}

/** The `check` of a query's `ours` cell (JSON). */
export interface QueryCheck {
  readonly ours: { readonly sql: string; readonly params: readonly unknown[]; readonly count?: { readonly sql: string; readonly params: readonly unknown[] } };
  readonly oursIds: readonly number[];
  readonly handIds: readonly number[];
  readonly oursCount?: number;
  readonly handCount?: number;
  readonly idsEqual: boolean;
  /** Every column of every row equal (ours read back through its column aliases). */
  readonly rowsEqual: boolean;
  readonly countEqual?: boolean;
  readonly oursPlans: readonly PlanReport[];
  readonly handPlans: readonly PlanReport[];
  /** Per sample pair (ours then hand-written, adjacent in time): ours' time over hand-written's. */
  readonly pairRatios: readonly number[];
  readonly oursExecutions: number;
  readonly handExecutions: number;
  /** PGlite start, tables and rows (before any index), in ms. */
  readonly setupMs: number;
}

/** The `check` of the first compile cell (JSON). */
export interface CompileCheck {
  readonly filter: string;
  readonly sql: string;
}

const INDEX_NODE = /\b(Index Only Scan|Index Scan|Bitmap Index Scan)( Backward)? (?:using|on) "?([\w$]+)"?/g;

export function indexNodesOf(lines: readonly string[]): { nodes: string[]; indexes: string[] } {
  const nodes: string[] = [];
  const indexes: string[] = [];
  for (const line of lines) {
    for (const m of line.matchAll(INDEX_NODE)) {
      nodes.push(`${m[1]}${m[2] ?? ''} ${m[1] === 'Bitmap Index Scan' ? 'on' : 'using'} ${m[3]}`);
      if (!indexes.includes(m[3]!)) indexes.push(m[3]!);
    }
  }
  return { nodes, indexes };
}
