/**
 * The MongoDB backend bench (see mongo.ts): the model, the query, the generated documents, the
 * hand-written baseline and the cells of the child (mongo-worker.ts). Shared by parent and child.
 */
import type { bindQuery, compileQuery, defineModel, parseQuery, Row, toMongo, toMongoDocument } from '../src/index.js';
import type { CellOptions } from './measure.js';
import type { EngineMode } from './shared.js';

/** The odata-engine entry points the MongoDB bench calls. */
export interface MongoEngineApi {
  readonly parseQuery: typeof parseQuery;
  readonly bindQuery: typeof bindQuery;
  readonly compileQuery: typeof compileQuery;
  readonly defineModel: typeof defineModel;
  readonly toMongo: typeof toMongo;
  readonly toMongoDocument: typeof toMongoDocument;
}

function pick(mod: MongoEngineApi): MongoEngineApi {
  return {
    parseQuery: mod.parseQuery,
    bindQuery: mod.bindQuery,
    compileQuery: mod.compileQuery,
    defineModel: mod.defineModel,
    toMongo: mod.toMongo,
    toMongoDocument: mod.toMongoDocument,
  };
}

/** In the child: odata-engine from the bundle on stdin, or from `src/` through tsx. */
export async function loadMongoEngine(from: EngineMode): Promise<MongoEngineApi> {
  if (from === 'bundle') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const code = Buffer.concat(chunks).toString('utf8');
    return pick((await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as MongoEngineApi);
  }
  return pick(await import('../src/index.js'));
}

export const MONGO_MODEL = {
  namespace: 'Bench',
  entityTypes: {
    Item: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', code: 'Edm.String', qty: 'Edm.Int32', price: 'Edm.Double', active: 'Edm.Boolean' },
    },
  },
  entitySets: { items: { type: 'Item' } },
} as const;
export const MONGO_ENTITY_SET = 'items';

/** The medium filter of the brief (inside the `find` subset). */
export const MONGO_FILTER =
  "contains(tolower(name),'milk') and price gt 2.5 and (qty ge 3 or startswith(code,'A')) and not endswith(code,'X') and active eq true";
/** The compile-latency query: the filter alone. */
export const COMPILE_QUERY = `$filter=${MONGO_FILTER}`;
/** The pipeline compile-latency query: functions and arithmetic in `$expr`, ordering by an expression. */
export const PIPELINE_QUERY = '$filter=length(name) gt 8 and qty add 1 gt 3 and not contains(tolower(name),code)&$orderby=tolower(name),id&$top=20';
/**
 * A filter odata-v4-mongodb compiles (it has no `tolower` and mangles `contains`): comparisons,
 * `or`, `not`, `ne`, for a like-for-like compile-latency comparison.
 */
export const PEER_FILTER = "price gt 2.5 and (qty ge 3 or code eq 'A-1') and not (active eq false) and name ne 'Milk 7'";
/** The scale query: the filter, an order with a tie-breaker, and a page. */
export const SCALE_QUERY = `$filter=${MONGO_FILTER}&$orderby=price desc,id&$skip=10&$top=50`;

export const DOCUMENT_COUNT = 100_000;
const NAMES = ['Milk', 'Bread', 'Oat MILK', 'Cheese', 'Butter', 'milkshake', 'Apples'];
const CODE_LETTERS = 'ABCDE';
/** Deterministic rows, no nulls. */
export function generateRows(): Row[] {
  const rows: Row[] = [];
  for (let i = 1; i <= DOCUMENT_COUNT; i++) {
    rows.push({
      id: i,
      name: `${NAMES[i % NAMES.length]} ${i}`,
      code: `${CODE_LETTERS[(i * 3) % 5]}-${i}${i % 11 === 0 ? 'X' : ''}`,
      qty: i % 7,
      price: ((i * 7919) % 10000) / 100,
      active: i % 3 !== 0,
    });
  }
  return rows;
}
export const DATA_DESCRIPTION =
  'item i (1 to 100 000): name `<one of Milk, Bread, Oat MILK, Cheese, Butter, milkshake, Apples> <i>`, code `<A to E>-<i>` (with a trailing `X` for every 11th), qty `i mod 7`, price `((i * 7919) mod 10000) / 100`, active unless i is a multiple of 3; no nulls';

interface Item {
  readonly id: number;
  readonly name: string;
  readonly code: string;
  readonly qty: number;
  readonly price: number;
  readonly active: boolean;
}
/** The hand-written baseline of {@link SCALE_QUERY}: a plain filter, sort and slice. */
export function handWritten(rows: readonly Item[]): Item[] {
  return rows
    .filter(
      (r) => r.name.toLowerCase().includes('milk') && r.price > 2.5 && (r.qty >= 3 || r.code.startsWith('A')) && !r.code.endsWith('X') && r.active === true,
    )
    .sort((a, b) => b.price - a.price || a.id - b.id)
    .slice(10, 60);
}
export const HAND_DESCRIPTION =
  "`rows.filter(r => r.name.toLowerCase().includes('milk') && r.price > 2.5 && (r.qty >= 3 || r.code.startsWith('A')) && !r.code.endsWith('X') && r.active === true).sort((a, b) => b.price - a.price || a.id - b.id).slice(10, 60)`";

export type MongoCellKey = 'full' | 'parse' | 'bind' | 'toMongo' | 'pipeline' | 'peerOurs' | 'peer' | 'mingo' | 'memory' | 'hand';
export const MONGO_CELLS: readonly { readonly key: MongoCellKey; readonly label: string }[] = [
  { key: 'full', label: 'parse + bind + toMongo: `toMongo(bindQuery(text, settings))`' },
  { key: 'parse', label: 'parse alone: `parseQuery(text)`' },
  { key: 'bind', label: 'bind alone: `bindQuery(parsed, settings)`' },
  { key: 'toMongo', label: 'toMongo alone: `toMongo(bound)`' },
  { key: 'pipeline', label: 'toMongo alone, an `$expr` pipeline query (functions, arithmetic, computed sort key; see below)' },
  { key: 'peerOurs', label: 'odata-engine on the filter the peer supports (see below): `toMongo(bindQuery(text, settings))`' },
  { key: 'peer', label: 'odata-v4-mongodb 0.1.12 (peer) on the same filter: `createFilter(filter)`' },
  { key: 'mingo', label: 'mingo 6 running the generated find (filter, sort, skip, limit)' },
  { key: 'memory', label: 'in-memory backend: `compileQuery(bound).apply(rows)`' },
  { key: 'hand', label: 'hand-written closure (filter, sort, slice)' },
];
export const COMPILE_CELL_COUNT = 7;

/** Limits of the compile cells (as the SQL bench's). */
export const COMPILE_LIMITS: CellOptions = { warmupMs: 100, rewarmMs: 30, maxSingleMs: 5000, samplesPerRound: 5 };
export const COMPILE_ROUNDS = 3;
export const COMPILE_ROUND_MS = 150;
/** Limits of the scale cells: a short warm-up, then {@link SCALE_ROUNDS} rounds interleaved across the three. */
export const SCALE_LIMITS: CellOptions = { warmupMs: 100, rewarmMs: 0, maxSingleMs: 10_000, samplesPerRound: 3 };
export const SCALE_ROUNDS = 5;
export const SCALE_ROUND_MS = 200;

/** The `check` of the `full` cell and of the `mingo` cell (JSON). */
export interface MongoCheck {
  readonly find?: unknown;
  readonly mingoIds?: readonly number[];
  readonly memoryIds?: readonly number[];
  readonly handIds?: readonly number[];
  readonly idsEqual?: boolean;
  readonly setupMs?: number;
  readonly mingoVersion?: string;
}
