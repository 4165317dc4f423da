/**
 * The command line: `odata-engine parse "<query string>" [--print] [--search-grammar]`
 * prints the AST as JSON (or, with `--print`, the canonical query string). On an error it
 * prints the message with a caret under the position and exits with status 2.
 * `odata-engine check "<query>" --csdl=<file> --set=<entity set> [--sql=<dialect>] [--mongo]`
 * checks a query against a CSDL model (JSON or XML, told apart by content) and prints every
 * problem underlined (exit 2), or the SQL or MongoDB query it compiles to. A set's own `$top`
 * maximum comes from the CSDL (`ODataEngine.V1.MaxTop`) or `--max-top=<n>`; the lower wins.
 * `odata-engine fuzz <service root> …` fuzzes a running service from its `$metadata` (cli-fuzz.ts);
 * `odata-engine diff <service A> <service B> …` sends the same random queries to two (cli-diff.ts).
 * `odata-engine demo` parses a handful of sample queries; `help` and `version` (also `--help`,
 * `-h`, `--version`, `-v`) print to standard output and exit 0.
 *
 * This is the only module that may use Node built-ins (cli-fuzz.ts and cli-diff.ts get their streams from here).
 */
import { readFileSync, realpathSync } from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import {
  bindQuery,
  DIALECTS,
  modelFromCsdl,
  modelFromCsdlXml,
  mongoTarget,
  ODataError,
  parseQuery,
  printQuery,
  sqlTarget,
  toMongo,
  toSql,
  validateQuery,
  type Diagnostic,
  type DialectName,
  type ODataQuery,
  type ParseQueryOptions,
} from './index.js';
import { splitQueryString } from './syntax/query-string.js';
import { fuzzCommand, runFuzzCommand, type FuzzCommand } from './cli-fuzz.js';
import { diffCommand, runDiffCommand, type DiffCommand } from './cli-diff.js';

const USAGE = `Usage:
  odata-engine parse "<query string>" [--print] [--search-grammar] [--plus-as-space]
  odata-engine check "<query string>" --csdl=<CSDL JSON or XML file> --set=<entity set> [--max-top=<n>] [--sql=postgres|mysql|sqlite|mssql|duckdb] [--mongo]
  odata-engine fuzz <service root> [--header=Name:value …] [--runs=N] [--seed=S] [--sets=a,b] [--expect-codes] [--timeout=ms] [--skip=regex] [--known=file]
  odata-engine diff <service A> <service B> [--header=Name:value …] [--header-a=…] [--header-b=…] [--name-a=…] [--name-b=…] [--runs=N] [--seed=S] [--sets=a,b] [--timeout=ms] [--skip=regex] [--known=file]
  odata-engine demo
  odata-engine help | --help | -h
  odata-engine version | --version | -v
`;

/** The package's version, from its package.json (next to src/ and dist/). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

/** JSON for an AST: bigint values (Int64 literals) are written as strings with an `n` suffix. */
export function astToJson(query: ODataQuery, { spans = true, indent = 2 }: { spans?: boolean; indent?: number } = {}): string {
  return JSON.stringify(query, (key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : !spans && key === 'span' ? undefined : value), indent);
}

/** The option value that an error points into, found again in the raw query string. */
function optionText(query: string, option: string | undefined): string | undefined {
  if (option === undefined) return undefined;
  for (const { rawName, rawValue } of splitQueryString(query)) {
    if (rawValue === undefined) continue;
    try {
      if (decodeURIComponent(rawName) === option) return decodeURIComponent(rawValue);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The error message, the option's text and a caret under the position. */
export function describeError(query: string, error: ODataError): string {
  const lines = [`error: ${error.message} [${error.code}]`];
  const text = optionText(query, error.option);
  if (text !== undefined && error.position !== undefined) {
    const prefix = `  ${error.option}=`;
    lines.push(prefix + text, ' '.repeat(prefix.length + Math.min(error.position, text.length)) + '^');
  }
  return lines.join('\n');
}

const DEMO_QUERIES = [
  "$filter=name eq 'Pump 7' and status ne 'retired'&$orderby=code desc&$top=10",
  "$filter=contains(tolower(name),'valve') or year(installedAt) ge 2020&$count=true",
  "$filter=not (status in ('retired','lost')) and locality/name eq 'Oslo'&$select=id,name,locality&$expand=locality",
  '$filter=tickets/any(t:t/priority gt 2 and t/openedAt lt 2026-01-01T00:00:00Z)&$skip=20&$top=20',
  '$expand=tickets($filter=priority ge 3;$orderby=openedAt desc;$top=5;$select=id,code)&$search=corrosion',
  '$filter=price mul 1.25 add 10 gt 100 or -delta lt 0',
  "$filter=name eq 'unterminated",
  '$top=100000&$top=5',
];

function runParse(query: string, options: ParseQueryOptions, print: boolean): number {
  try {
    const ast = parseQuery(query, options);
    process.stdout.write((print ? printQuery(ast) : astToJson(ast)) + '\n');
    return 0;
  } catch (error) {
    if (error instanceof ODataError) {
      process.stderr.write(describeError(query, error) + '\n');
      return 2;
    }
    throw error;
  }
}

/** Every diagnostic: the message, the query, and `^~~~` under the range. */
export function describeDiagnostics(query: string, diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const width = Math.max(1, d.range.end - d.range.start);
      return `error: ${d.message} [${d.code}]\n  ${query}\n  ${' '.repeat(d.range.start)}^${'~'.repeat(width - 1)}`;
    })
    .join('\n');
}

const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];

function runCheck(query: string, values: ReadonlyMap<string, string>, mongo: boolean): number {
  const csdl = values.get('csdl');
  const entitySet = values.get('set');
  const dialect = values.get('sql');
  const maxTopText = values.get('max-top');
  const maxTop = maxTopText === undefined ? undefined : Number(maxTopText);
  const badMaxTop = maxTop !== undefined && (!/^\d+$/.test(maxTopText as string) || !Number.isSafeInteger(maxTop));
  if (csdl === undefined || entitySet === undefined || badMaxTop || (dialect !== undefined && !DIALECT_NAMES.includes(dialect as DialectName))) {
    process.stderr.write(USAGE);
    return 1;
  }
  let text: string;
  try {
    text = readFileSync(csdl, 'utf8');
  } catch (error) {
    process.stderr.write(`error: cannot read the CSDL file '${csdl}': ${(error as Error).message}\n`);
    return 1;
  }
  // CSDL XML (a service's $metadata) starts with `<`; CSDL JSON with `{`.
  const model = /^\uFEFF?\s*</.test(text) ? modelFromCsdlXml(text) : modelFromCsdl(text);
  // The server's own $top maximum, where it is lower than the host-wide default.
  const limits = maxTop === undefined ? {} : { maxTop };
  // The binder's diagnostics, and what each requested backend cannot run (with its position).
  const targets = [...(dialect === undefined ? [] : [sqlTarget(dialect as DialectName)]), ...(mongo ? [mongoTarget()] : [])];
  const seen = new Set<string>();
  const diagnostics = (targets.length === 0 ? [undefined] : targets)
    .flatMap((target) => validateQuery(query, { model, entitySet, ...limits, ...(target === undefined ? {} : { target }) }))
    .filter((d) => {
      const key = `${d.code} ${d.range.start} ${d.range.end} ${d.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  if (diagnostics.length > 0) {
    process.stderr.write(describeDiagnostics(query, diagnostics) + '\n');
    return 2;
  }
  const bound = bindQuery(query, { model, entitySet, ...limits });
  if (dialect === undefined && !mongo) process.stdout.write('valid\n');
  if (dialect !== undefined) {
    const { sql, params, count } = toSql(bound, { dialect: dialect as DialectName });
    process.stdout.write(`${sql}\nparams: ${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}\n`);
    if (count !== undefined) process.stdout.write(`count: ${count.sql}\n`);
  }
  if (mongo) process.stdout.write(`${JSON.stringify(toMongo(bound), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2)}\n`);
  return 0;
}

function runDemo(): number {
  for (const query of DEMO_QUERIES) {
    process.stdout.write(`\n$ odata-engine parse "${query}"\n`);
    try {
      const ast = parseQuery(query);
      process.stdout.write(`canonical: ${printQuery(ast)}\n`);
      process.stdout.write(`ast (spans omitted): ${astToJson(ast, { spans: false, indent: 0 })}\n`);
    } catch (error) {
      if (!(error instanceof ODataError)) throw error;
      process.stdout.write(describeError(query, error) + '\n');
      process.stdout.write(`OData error body: ${JSON.stringify(error.toJSON())}\n`);
    }
  }
  return 0;
}

/** The text of `--known=<file>`, if given. */
function knownFile(values: ReadonlyMap<string, string>): string | undefined {
  const file = values.get('known');
  return file === undefined ? undefined : readFileSync(file, 'utf8');
}

export function main(argv: readonly string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  const flags = new Set(rest.filter((arg) => arg.startsWith('--')));
  const positional = rest.filter((arg) => !arg.startsWith('--'));
  // `--name=value` options.
  const values = new Map(
    rest.filter((arg) => arg.startsWith('--') && arg.includes('=')).map((arg) => [arg.slice(2, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] as const),
  );
  if (command === 'help' || command === '--help' || command === '-h' || flags.has('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'version' || command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === 'demo') return runDemo();
  if (command === 'fuzz' && positional.length === 1) {
    // (`--header` may be given more than once.)
    const headers = rest.filter((arg) => arg.startsWith('--header=')).map((arg) => arg.slice('--header='.length));
    let options: FuzzCommand;
    try {
      options = fuzzCommand(positional[0] as string, values, headers, flags, knownFile(values));
    } catch (error) {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    return runFuzzCommand(options, { progress: (line) => process.stderr.write(`${line}\n`), result: (text) => process.stdout.write(text) });
  }
  if (command === 'diff' && positional.length === 2) {
    const headers = rest
      .map((arg) => /^--(header(?:-a|-b)?)=(.*)$/s.exec(arg))
      .filter((match) => match !== null)
      .map((match) => [match[1] as string, match[2] as string] as const);
    let options: DiffCommand;
    try {
      options = diffCommand(positional[0] as string, positional[1] as string, values, headers, knownFile(values));
    } catch (error) {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    return runDiffCommand(options, { progress: (line) => process.stderr.write(`${line}\n`), result: (text) => process.stdout.write(text) });
  }
  if (command === 'check' && positional.length === 1) {
    try {
      return runCheck(positional[0] as string, values, flags.has('--mongo'));
    } catch (error) {
      if (!(error instanceof ODataError)) throw error;
      process.stderr.write(`error: ${error.message} [${error.code}]\n`);
      return 2;
    }
  }
  if (command === 'parse' && positional.length === 1) {
    const options: ParseQueryOptions = {
      ...(flags.has('--search-grammar') ? { search: 'grammar' as const } : {}),
      ...(flags.has('--plus-as-space') ? { plusAsSpace: true } : {}),
    };
    return runParse(positional[0] as string, options, flags.has('--print'));
  }
  // No command, an unknown one or missing arguments: the usage, as an error.
  process.stderr.write(USAGE);
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  void Promise.resolve(main(process.argv.slice(2))).then((code) => {
    process.exitCode = code;
  });
}
