/**
 * SAP CAP 9 (`@sap/cds` with `@cap-js/sqlite` on sql.js) serving test/fixtures/cap's model over
 * rows of our own, started on loopback in a child process, and the same rows for this library's
 * `memorySource`: the two servers `fuzzODataServer` and `diffODataServers` are pointed at.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seededRandom } from '../../src/testing/seeded-random.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/cap');
const SERVE = resolve(import.meta.dirname, '../../node_modules/@sap/cds/bin/serve.js');
/** Where CAP serves the `Catalog` service (its `@path`). */
export const CAP_PATH = '/odata/v4/catalog';

type Rows = Record<string, unknown>[];

/** Strings that tell collations, LIKE escaping and case mapping apart. */
const NAMES = [
  'Apple',
  'apple',
  'APPLE',
  'Äpfel',
  'banana',
  'Zebra',
  'zebra',
  "O'Neil",
  'a b',
  '100%',
  'a_b',
  'ß',
  'İstanbul',
  '日本',
  'x\\y',
  'Ωmega',
  'émile',
  'Emile',
];

/** The rows of the three sets, in the forms this library's rows store values in (docs/memory.md). */
export function capRows(seed = 1): { Categories: Rows; Products: Rows; Suppliers: Rows } {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const maybe = <T>(value: T): T | null => (random() < 0.15 ? null : value);
  const Categories = Array.from({ length: 8 }, (_, i) => ({ ID: i + 1, name: maybe(pick(NAMES)), description: maybe(`${pick(NAMES)} ${pick(NAMES)}`) }));
  const guid = (i: number): string => `${(0x1000_0000 + i * 7919).toString(16)}-0000-4000-8000-${(i * 104729).toString(16).padStart(12, '0')}`;
  const Suppliers = Array.from({ length: 10 }, (_, i) => ({
    ID: guid(i),
    name: maybe(pick(NAMES)),
    city: maybe(pick(['Berlin', 'berlin', 'Zürich', 'Paris', 'São Paulo'])),
    score: maybe(pick([0, -1.5, 2.5, 1e300, -0.1, 1 / 3, 100])),
    founded: maybe(pick(['1970-01-01', '2024-02-29', '1999-12-31', '2000-06-15'])),
  }));
  const Products = Array.from({ length: 60 }, (_, i) => ({
    ID: i + 1,
    name: maybe(pick(NAMES)),
    price: maybe(pick(['0', '-12.5', '99999999.99', '3.14', '10', '0.01', '42.42'])),
    rating: maybe(pick([0, -1.5, 2.5, 1e300, 0.1, 1 / 3, 5])),
    stock: maybe(pick([-2147483648, 2147483647, 0, 7, 12, -3])),
    sold: maybe(pick([0n, -5n, 9007199254740991n, 123456789n, 42n])),
    released: maybe(pick(['1970-01-01', '2024-02-29', '1999-12-31', '2000-06-15', '2024-12-31'])),
    updated: maybe(pick(['2024-01-01T10:00:00.123Z', '1999-12-31T23:59:59Z', '2024-02-29T00:00:00Z', '2000-06-15T12:30:45.5Z'])),
    opens: maybe(pick(['00:00:00', '23:59:59', '12:30:15', '08:00:00'])),
    active: maybe(random() < 0.5),
    tags: random() < 0.2 ? [] : Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(['red', 'Red', 'blue', 'sale', '%off', 'a_b'])),
    category_ID: maybe(1 + Math.floor(random() * 8)),
    supplier_ID: maybe(guid(Math.floor(random() * 10))),
  }));
  return { Categories, Products, Suppliers };
}

/** A value as a cell of CAP's CSV (`;`-separated; an empty cell is null). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Booleans and numbers bare: CAP's CSV reader keeps a quoted "true" as text, which reads back as null.
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  const text = Array.isArray(value) ? JSON.stringify(value) : String(value);
  return `"${text.replaceAll('"', '""')}"`;
}

function csv(rows: Rows): string {
  const names = Object.keys(rows[0]!);
  return [names.join(';'), ...rows.map((row) => names.map((name) => cell(row[name])).join(';'))].join('\n');
}

/** A running CAP server: its service root and how to stop it. */
export interface CapServer {
  readonly root: string;
  /** Settles when the process exits, with its exit code (or signal). */
  readonly exited: Promise<number | string>;
  stop(): Promise<void>;
}

/** Starts CAP on a free loopback port over `rows` (CSV files in a temporary folder beside a model that includes the fixture's). */
export async function startCap(rows: Record<string, Rows>): Promise<CapServer> {
  const folder = mkdtempSync(join(tmpdir(), 'odata-engine-cap-'));
  mkdirSync(join(folder, 'data'));
  writeFileSync(join(folder, 'index.cds'), `using from '${join(FIXTURE, 'srv/catalog').replaceAll('\\', '/')}';\n`);
  for (const [set, setRows] of Object.entries(rows)) writeFileSync(join(folder, 'data', `fuzz-${set}.csv`), csv(setRows));
  const child: ChildProcess = spawn(process.execPath, [SERVE, join(folder, 'index.cds'), '--in-memory', '--port', '0'], {
    cwd: FIXTURE,
    env: { ...process.env, NODE_ENV: 'test', CDS_LOG_LEVELS_CDS: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const root = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`CAP did not start in 60 s:\n${output}`)), 60_000);
    let started = false;
    const read = (chunk: Buffer): void => {
      // Once it listens, only the end of its log is kept (for a crash's report): CAP logs every request.
      output = started ? (output + chunk.toString()).slice(-8000) : output + chunk.toString();
      if (started) return;
      const listening = /server listening on \{ url: '(http:\/\/localhost:\d+)' \}/.exec(output);
      if (listening !== null) {
        started = true;
        clearTimeout(timer);
        done(`${listening[1]!.replace('localhost', '127.0.0.1')}${CAP_PATH}`);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`CAP exited with ${code}:\n${output}`));
    });
  });
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`CAP exited (${code ?? signal}) while serving:\n${output.slice(-4000)}`);
  });
  let stopping = false;
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')));
  return {
    root,
    exited,
    stop: async () => {
      stopping = true;
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill();
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * A lambda over a collection of primitives with any predicate but `v eq '…'` (all(), contains(v,…),
 * v ne …, v in …, tolower(v) …): CAP 9.9's OData parser throws outside the request (afterburner
 * `_validateXpr`: "Cannot read properties of undefined (reading 'id')") and the process exits. The
 * fuzz run does not send these, so that the server outlives it.
 */
export const CAP_CRASH = /%2Fall\(|%2Fany\(\w+%3A(?!\w+%20eq%20'[^']*'\))/;

/** A deviation of CAP 9.9 from OData 4.01, found by fuzzing it: how fuzz and diff reports show it, and a query that shows it. */
export interface CapDeviation {
  readonly why: string;
  /** The pattern of `fuzzODataServer`'s reports it gives. */
  readonly fuzz: RegExp;
  /** The pattern of `diffODataServers`' reports (CAP as A, createODataHandler as B) it gives; none for an invalid query (diff sends valid ones). */
  readonly diff?: RegExp;
  readonly set: string;
  /** A query that shows it (spaces as spaces). */
  readonly example: string;
}

/** The start of a diff report where CAP refused what createODataHandler answered. */
const REFUSED = String.raw`^CAP answered 400, createODataHandler 200\n  query: +[^\n]*`;
/** The start of a diff report where the rows differ. */
const ROWS = String.raw`^(?:counts differ: \d+ from CAP, \d+ from createODataHandler|\d+ rows from CAP, \d+ from createODataHandler|CAP's row \d+ .* is not among createODataHandler's|row \d+ differs: .*)\n  query: +[^\n]*`;

/**
 * CAP 9.9's deviations from OData 4.01 that fuzzing its service found (docs/testing.md lists them
 * with the spec's rule): each with the patterns of its reports and a query that shows it, which
 * createODataHandler answers as the spec says (test/testing/cap-server.test.ts checks both).
 */
export const CAP_DEVIATIONS: readonly CapDeviation[] = [
  {
    why: 'arithmetic operators (add, sub, mul, div, divby, mod) in $filter: 400 "Parsing URL failed"',
    fuzz: /query: +[^\n]*(?:%20| )(add|sub|mul|divby|div|mod)(?:%20| )[\s\S]*status: +400/,
    diff: new RegExp(`${REFUSED}(?:%20| )(add|sub|mul|divby|div|mod)(?:%20| )`),
    set: 'Products',
    example: '$filter=stock add 1 gt 7',
  },
  {
    why: 'a Double literal with a signed exponent (5e+0, 1.5e-3), INF and NaN: 400',
    fuzz: /query: +[^\n]*(?:\d[eE](?:%2B|-)\d|\bINF\b|\bNaN\b)[\s\S]*status: +400/,
    diff: new RegExp(String.raw`${REFUSED}(?:\d[eE](?:%2B|-)\d|\bINF\b|\bNaN\b)`),
    set: 'Products',
    example: '$filter=rating eq 5e-0',
  },
  {
    why: 'negation (-expression) of anything but a number literal: 400',
    fuzz: /query: +[^\n]*(?:[=( ]|%20)-[A-Za-z_(][\s\S]*status: +400/,
    diff: new RegExp(`${REFUSED}(?:[=( ]|%20)-[A-Za-z_(]`),
    set: 'Products',
    example: '$filter=-stock gt 0',
  },
  {
    why: 'any() without a predicate over a collection of primitives: 400 "Invalid use of lambda any / all on a non-association"',
    fuzz: /status: +400[\s\S]*on a non-association/,
    diff: new RegExp(`${REFUSED}[\\s\\S]*on a non-association`),
    set: 'Products',
    example: '$filter=tags/any()',
  },
  {
    why: 'canonical functions CAP does not implement (cast, …): 501 "Function … is not supported"',
    fuzz: /status: +501[\s\S]*Function \\"\w+\\" is not supported/,
    diff: /^CAP answered 501[\s\S]*Function \\"\w+\\" is not supported/,
    set: 'Products',
    example: "$filter=cast(stock,Edm.String) eq '7'",
  },
  {
    why: "v eq 'a' in a lambda over a collection of strings matches items that only contain 'a' ('a_b')",
    fuzz: /does not satisfy \$filter=[^\n]*tags\/any\(\w+:\w+ eq '/,
    diff: new RegExp(`${ROWS}tags%2Fany\\(`),
    set: 'Products',
    example: "$filter=tags/any(t:t eq 'a')",
  },
  {
    why: "null in comparisons and functions as SQL's unknown: not(p eq v) leaves out rows whose p is null (OData: null eq v is false, so not(…) is true), and not(contains(p,'a')) keeps them (OData: contains(null,'a') is null, and so is not(null))",
    fuzz: /does not satisfy \$filter=[^\n]*\bnot\b[^\n]*: \{[^\n]*null/,
    diff: new RegExp(`${ROWS}not%20`),
    set: 'Categories',
    example: '$filter=not (length(name) eq 0)',
  },
  {
    why: "toupper and tolower change ASCII letters only (SQLite): toupper(name) eq 'ÉMILE' misses émile",
    fuzz: /does not satisfy \$filter=[^\n]*(?:toupper|tolower)\(/,
    diff: new RegExp(`${ROWS}(?:toupper|tolower)\\(`),
    set: 'Products',
    example: "$filter=toupper(name) eq 'ÉMILE'",
  },
  {
    why: 'a negative $top: 200 with every row, where the value is invalid (400)',
    fuzz: /\(negative \$top\) answered 200/,
    set: 'Categories',
    example: '$top=-1',
  },
  {
    why: 'a system query option given twice: 200, the last one used, where OData forbids the repetition (400)',
    fuzz: /\(duplicate option\) answered 200/,
    set: 'Categories',
    example: '$top=1&$top=2',
  },
];

/** The deviations as `fuzzODataServer`'s or `diffODataServers`' `known`. */
export const capKnown = (kind: 'fuzz' | 'diff'): { why: string; match: RegExp }[] =>
  CAP_DEVIATIONS.flatMap((deviation) => (deviation[kind] === undefined ? [] : [{ why: deviation.why, match: deviation[kind] }]));
