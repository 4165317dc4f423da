/**
 * The read handler against SAP CAP 9 (issue 29): requests per second of `createODataHandler` over
 * `memorySource` and of CAP (`@sap/cds` 9 with `@cap-js/sqlite` on an in-memory SQLite database)
 * serving the same model and rows, each server in a process of its own on loopback HTTP with
 * keep-alive, driven by this process with `fetch`. CAP is installed on demand into bench/cap/
 * (`npm install`, then `npm rebuild better-sqlite3`, which compiles it where no prebuilt binary
 * downloads); where it does not install, the section says why.
 *
 * Load: CONCURRENCY requests in flight per subject; ROUNDS rounds of SECONDS per subject, subjects
 * interleaved, after a warm-up; median over the rounds, with min–max. Run alone with
 * `tsx bench/cap.ts`, or by `npm run bench`; writes the `handler-cap` section of bench/RESULTS.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { capRows, CAP_ROWS } from './cap-shared.js';
import { fmtNum, markdownTable, median, throughput } from './measure.js';
import { writeSection } from './results-file.js';

const ROUNDS = 5;
const SECONDS = 3;
const CONCURRENCY = 8;
const CAP_DIR = fileURLToPath(new URL('./cap/', import.meta.url));
const PATHS = [
  'Products?$filter=price gt 10&$orderby=name&$top=20&$select=id,name,price&$count=true',
  'Products(42)',
  'Products?$filter=contains(name,%270042%27) or stock eq 3&$orderby=price desc,id&$skip=100&$top=50',
];

/** CAP installed in bench/cap/ (once), or why not. */
function installCap(): { ok: true; version: string } | { ok: false; reason: string } {
  const cds = `${CAP_DIR}node_modules/@sap/cds/package.json`;
  const sqlite = `${CAP_DIR}node_modules/better-sqlite3/build/Release/better_sqlite3.node`;
  try {
    if (!existsSync(cds)) execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: CAP_DIR, stdio: 'pipe', timeout: 600_000 });
    if (!existsSync(sqlite)) execFileSync('npm', ['rebuild', 'better-sqlite3', '--loglevel=error'], { cwd: CAP_DIR, stdio: 'pipe', timeout: 600_000 });
    const version =
      (JSON.parse(execFileSync('node', ['-p', 'JSON.stringify(require("@sap/cds/package.json").version)'], { cwd: CAP_DIR, encoding: 'utf8' })) as string) ??
      '?';
    return { ok: true, version };
  } catch (error) {
    const text = error instanceof Error ? (((error as { stderr?: unknown }).stderr as string | undefined)?.toString() ?? error.message) : String(error);
    return {
      ok: false,
      reason: text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .slice(-3)
        .join(' '),
    };
  }
}

/** CAP's initial data: the rows as CSV (`db/data/<namespace>-<entity>.csv`). */
function writeCapData(): void {
  mkdirSync(`${CAP_DIR}db/data`, { recursive: true });
  const lines = ['id;name;price;stock', ...capRows().map((row) => `${row.id};${row.name};${row.price};${row.stock}`)];
  writeFileSync(`${CAP_DIR}db/data/store-Products.csv`, `${lines.join('\n')}\n`);
}

/** Starts a server and waits until it answers: ours prints `listening <port>`; CAP (quiet, logs at `error`) is polled on `port`. */
function start(
  command: string,
  args: readonly string[],
  cwd: string,
  port: number | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env });
    let output = '';
    let settled = false;
    const finish = (error: Error | undefined, found?: number): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined) resolve({ child, port: found as number });
      else {
        child.kill();
        reject(error);
      }
    };
    const timer = setTimeout(() => finish(new Error(`${args.join(' ')} did not start: ${output.slice(-500)}`)), 60_000);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const ours = /listening (\d+)/.exec(output);
      if (ours !== null) finish(undefined, Number(ours[1]));
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => finish(new Error(`${args.join(' ')} exited (${code}): ${output.slice(-500)}`)));
    if (port !== undefined) {
      const poll = async (): Promise<void> => {
        while (!settled) {
          try {
            if ((await fetch(`http://127.0.0.1:${port}/odata/$metadata`)).ok) return finish(undefined, port);
          } catch {
            // not yet listening
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      void poll();
    }
  });
}

/** Runs the bench, writes its section, returns it. */
export async function runCapBench(): Promise<string> {
  const load = os.loadavg()[0] as number;
  const installed = installCap();
  const header = `# Read handler against SAP CAP 9 (in memory, loopback HTTP)\n\n- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}`;
  if (!installed.ok) {
    const section = `${header}\n\nCAP did not install here: ${installed.reason}\n`;
    writeSection('handler-cap', section);
    return section;
  }
  writeCapData();
  const capPort = 4300 + Math.floor(Math.random() * 600);
  const servers: ChildProcess[] = [];
  try {
    // CAP's development profile: its production profile wants XSUAA and deploys nothing in memory.
    const { NODE_ENV: _nodeEnv, ...development } = process.env;
    const cap = await start(
      process.execPath,
      [`${CAP_DIR}node_modules/@sap/cds/bin/serve.js`, 'all', '--in-memory', '--port', String(capPort)],
      CAP_DIR,
      capPort,
      development,
    );
    servers.push(cap.child);
    const ours = await start(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./cap-ours.ts', import.meta.url))],
      process.cwd(),
      undefined,
      process.env,
    );
    servers.push(ours.child);
    const urls = { ours: `http://127.0.0.1:${ours.port}/odata/`, cap: `http://127.0.0.1:${cap.port}/odata/` };
    const rows: string[][] = [];
    for (const path of PATHS) {
      const encoded = path.replaceAll(' ', '%20');
      // The same entities from both (CAP writes Decimals as numbers, as the handler does without IEEE754Compatible).
      const answers = await Promise.all(
        Object.values(urls).map(async (root) => {
          const body = (await (await fetch(`${root}${encoded}`)).json()) as Record<string, unknown>;
          const entities = (Array.isArray(body.value) ? body.value : [body]) as Record<string, unknown>[];
          return JSON.stringify(entities.map((entity) => Object.fromEntries(Object.entries(entity).filter(([key]) => !key.startsWith('@')))));
        }),
      );
      if (answers[0] !== answers[1]) throw new Error(`CAP and the handler answer ${path} differently:\n${answers.join('\n')}`);
      const subjects: Record<string, () => Promise<Response>> = {
        'createODataHandler over memorySource (node:http)': () => fetch(`${urls.ours}${encoded}`),
        [`SAP CAP ${installed.version} (@cap-js/sqlite in memory, Express)`]: () => fetch(`${urls.cap}${encoded}`),
      };
      for (const send of Object.values(subjects)) await throughput(send, SECONDS, CONCURRENCY); // warm-up
      const rates: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((key) => [key, []]));
      const keys = Object.keys(subjects);
      for (let round = 0; round < ROUNDS; round++) {
        for (const key of round % 2 === 0 ? keys : [...keys].reverse()) {
          (rates[key] as number[]).push(await throughput(subjects[key] as () => Promise<Response>, SECONDS, CONCURRENCY));
        }
      }
      const capRates = rates[keys[1] as string] as number[];
      for (const key of keys) {
        const r = rates[key] as number[];
        rows.push([
          `\`${path}\``,
          key,
          `${fmtNum(median(r))} req/s (${fmtNum(Math.min(...r))}–${fmtNum(Math.max(...r))})`,
          `${fmtNum(median(r) / median(capRates))}x`,
        ]);
      }
    }
    const section = `${header}, at end ${fmtNum(os.loadavg()[0] as number)}
- Model and data: one entity set of ${CAP_ROWS} products (\`id\`, \`name\`, \`price\` Decimal, \`stock\`), the same rows in both (CAP reads them as CSV into SQLite \`:memory:\`; the handler from an array). The entities of each request are checked equal before it is timed.
- Method: each server in its own Node process (CAP by \`cds-serve all --in-memory\` in its development profile, authentication \`dummy\` and its logs at \`error\`; the handler by \`toNodeListener\` on \`node:http\`), both on loopback with keep-alive; this process sends ${CONCURRENCY} requests at a time with \`fetch\`; a warm-up of ${SECONDS} s each, then ${ROUNDS} rounds of ${SECONDS} s per subject, interleaved; median over the rounds (min–max). The client shares the machine's ${os.cpus().length} cores with the server it drives.

${markdownTable(['request', 'server', 'throughput', 'vs CAP'], rows, ['l', 'l', 'r', 'r'])}
`;
    writeSection('handler-cap', section);
    return section;
  } finally {
    for (const child of servers) child.kill();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runCapBench());
  process.exit(0);
}
