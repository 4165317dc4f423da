/**
 * What the bench parent (run.ts) and its per-subject child processes (worker.ts) share: the
 * inputs, the measurement limits, the subjects and the line protocol on the child's stdout.
 */
import type { bindQuery, compileQuery, defineModel, ParseOptions, parseFilter } from '../src/index.js';
import type { lex } from '../src/syntax/lexer.js';
import type { CellOptions, Measurement } from './measure.js';

// ---------------------------------------------------------------------------------------------
// Inputs (deterministic)
// ---------------------------------------------------------------------------------------------

/** One realistic comparison per clause, cycling through three shapes. */
function clause(i: number): string {
  switch (i % 3) {
    case 0:
      return `Name eq 'n${i}'`;
    case 1:
      return `Price gt ${i}`;
    default:
      return `Id eq ${i}`;
  }
}

function orChain(n: number): string {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(clause(i));
  return parts.join(' or ');
}

export interface Input {
  readonly name: string;
  readonly text: string;
  /** Number of comparison clauses, for the per-clause columns. */
  readonly clauses: number;
}

export const inputs: readonly Input[] = [
  { name: 'short', text: `Name eq 'Milk'`, clauses: 1 },
  {
    name: 'medium (6 clauses, functions)',
    text:
      "contains(tolower(Name),'milk') and Price gt 2.5 and year(ReleaseDate) eq 2024 and " +
      "(Rating ge 3 or startswith(Category/Name,'Dairy')) and not endswith(Code,'X') and " +
      'length(Description) lt 200',
    clauses: 6,
  },
  { name: 'or-chain 100', text: orChain(100), clauses: 100 },
  { name: 'or-chain 200', text: orChain(200), clauses: 200 },
  { name: 'or-chain 1600', text: orChain(1600), clauses: 1600 },
  { name: 'nesting depth 100', text: `${'('.repeat(100)}Price gt 5${')'.repeat(100)}`, clauses: 1 },
];

// ---------------------------------------------------------------------------------------------
// Subjects and limits
// ---------------------------------------------------------------------------------------------

export const SUBJECT_KEYS = ['ours', 'lexer', 'hand', 'odataParser', 'odataV4Parser', 'oursTsx'] as const;
export type SubjectKey = (typeof SUBJECT_KEYS)[number];
export function isSubjectKey(s: string): s is SubjectKey {
  return (SUBJECT_KEYS as readonly string[]).includes(s);
}

/**
 * Where a child gets odata-engine from: `bundle` = the esbuild bundle the parent sends on stdin,
 * `tsx` = `src/` imported through tsx.
 */
export type EngineMode = 'bundle' | 'tsx';

export const OURS: ParseOptions = { maxLength: 10_000_000 };

/** Per-cell limits inside a child. */
export const LIMITS: CellOptions = { warmupMs: 100, rewarmMs: 50, maxSingleMs: 5000, samplesPerRound: 5 };
/** Measuring time of one cell in one child, in ms. */
export const CELL_BUDGET_MS = 150;

/**
 * The same for the in-memory backend bench, whose calls take milliseconds (100 000 rows each):
 * a shorter budget keeps the whole `npm run bench` within its time.
 */
export const MEMORY_LIMITS: CellOptions = { warmupMs: 80, rewarmMs: 20, maxSingleMs: 5000, samplesPerRound: 5 };
export const MEMORY_CELL_BUDGET_MS = 120;

/**
 * The odata-engine entry points the bench calls: the parser and lexer (parse bench) and the
 * in-memory backend (memory bench).
 */
export interface EngineApi {
  readonly parseFilter: typeof parseFilter;
  readonly lex: typeof lex;
  readonly bindQuery: typeof bindQuery;
  readonly compileQuery: typeof compileQuery;
  readonly defineModel: typeof defineModel;
}

/**
 * The bundle's entry module (see run.ts): every {@link EngineApi} function, from `src/`, and those
 * of the SQL bench (`SqlEngineApi` in sql-shared.ts).
 */
export const BUNDLE_ENTRY =
  "export { parseFilter, parseQuery, bindQuery, compileQuery, defineModel, toSql, createTableSql, toMongo, toMongoDocument } from './src/index.ts';\nexport { lex } from './src/syntax/lexer.ts';\n";

/**
 * Imports the bundle as a `data:` URL module (it imports nothing but Node built-ins), which also
 * keeps it out of tsx's transform.
 */
export async function importBundle(code: string): Promise<EngineApi> {
  const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as EngineApi;
  return { parseFilter: mod.parseFilter, lex: mod.lex, bindQuery: mod.bindQuery, compileQuery: mod.compileQuery, defineModel: mod.defineModel };
}

/**
 * The whole package (`src/index.ts`) bundled by esbuild as tsup builds `dist/` (ESM, Node, ES2022,
 * no `keepNames`) and imported in this process as a `data:` URL module: what the in-process
 * benches measure (plan cache, language service).
 */
export async function importSourceBundle(): Promise<typeof import('../src/index.js')> {
  const { build } = await import('esbuild');
  const root = new URL('..', import.meta.url).pathname;
  const bundled = await build({
    entryPoints: [`${root}src/index.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    logLevel: 'silent',
  });
  return (await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0]!.text).toString('base64')}`)) as typeof import('../src/index.js');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** In a child: odata-engine from the bundle on stdin, or from `src/` through tsx. */
export async function loadEngine(from: EngineMode): Promise<EngineApi> {
  if (from === 'bundle') return importBundle(await readStdin());
  const [index, lexer] = await Promise.all([import('../src/index.js'), import('../src/syntax/lexer.js')]);
  return { parseFilter: index.parseFilter, lex: lexer.lex, bindQuery: index.bindQuery, compileQuery: index.compileQuery, defineModel: index.defineModel };
}

// ---------------------------------------------------------------------------------------------
// Child -> parent protocol: one JSON message per stdout line, after a fixed prefix
// ---------------------------------------------------------------------------------------------

export const MESSAGE_PREFIX = '@@bench ';

export type ChildMessage =
  /** The subject is loaded. */
  | { readonly type: 'ready' }
  /**
   * The child starts work on a cell (if it dies now, that cell is to blame). `input` is the cell's
   * index: the input's in the parse bench, the subject's cell's in the memory bench.
   */
  | { readonly type: 'start'; readonly input: number }
  /** `check`: what the measured function returned, summarized (memory bench only). */
  | { readonly type: 'cell'; readonly input: number; readonly m: Measurement; readonly check?: string }
  | { readonly type: 'done' };

export function emit(message: ChildMessage): void {
  // Writes to a pipe are synchronous on POSIX, so a message is out before a later hang or crash.
  process.stdout.write(`${MESSAGE_PREFIX}${JSON.stringify(message)}\n`);
}
