/**
 * The testing kit's server tools (issue 33): what judging an answer costs next to answering it,
 * and how fast `fuzzODataServer` and `diffODataServers` go against real servers.
 *
 * 1. In one process: for QUERIES random valid queries on the CAP fixture's model (test/fixtures/cap,
 *    its $metadata as CAP writes it) over the suite's rows, the time `createODataHandler` takes to
 *    answer each (a web `Request` to the body's text), and the time the fuzzer takes to judge the
 *    answer (`parseJsonText` of the body, then `rowsProblem`: the reference over the returned rows
 *    by `$filter` and `$orderby`). Each call timed on its own after a warm-up; p50 and p90.
 * 2. Over loopback HTTP: `fuzzODataServer` (RUNS valid and RUNS invalid queries per set) against
 *    SAP CAP 9.9 (a child process, as test/testing/cap-server.test.ts starts it) and against
 *    `createODataHandler` (in this process), and `diffODataServers` between the two: requests per
 *    second, one request at a time, as the tools send them.
 *
 * Run alone with `tsx bench/server-tools.ts`; `npm run bench` runs it too. Writes the
 * `server-tools` section of bench/RESULTS.md.
 */
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { modelFromCsdlXml } from '../src/model/csdl-xml.js';
import { createODataHandler, memorySource } from '../src/server/index.js';
import { toNodeListener } from '../src/server/adapters/node.js';
import { modelQueryArbitrary } from '../src/testing/model-arbitraries.js';
import { rowsProblem } from '../src/testing/answer-rows.js';
import { fuzzODataServer } from '../src/testing/fuzz-server.js';
import { diffODataServers } from '../src/testing/diff-servers.js';
import { parseJsonText } from '../src/util/json-text.js';
import { CAP_CRASH, CAP_PATH, capKnown, capRows, startCap } from '../test/helpers/cap-server.js';
import { fmtNum, markdownTable } from './measure.js';
import { writeSection } from './results-file.js';

const QUERIES = 2000;
const RUNS = 300;
const SETS = ['Categories', 'Products', 'Suppliers'];

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

export async function runServerToolsBench(): Promise<void> {
  const load = os.loadavg()[0]!;
  const rows = capRows();
  const cap = await startCap(rows);
  try {
    const model = modelFromCsdlXml(await (await fetch(`${cap.root}/$metadata`)).text());
    const handler = createODataHandler({ model, source: memorySource(rows), basePath: CAP_PATH });

    // 1. Answering against judging, in one process.
    const judged: string[][] = [];
    for (const set of SETS) {
      const queries = fc.sample(modelQueryArbitrary(model, set), { numRuns: QUERIES, seed: 33 });
      const answer: number[] = [];
      const judge: number[] = [];
      for (let round = 0; round < 2; round++) {
        for (const query of queries) {
          let started = performance.now();
          const response = await handler(new Request(`http://localhost${CAP_PATH}/${set}?${query}`));
          const text = await response.text();
          const answered = performance.now() - started;
          started = performance.now();
          const value = (parseJsonText(text) as { value?: unknown[] }).value;
          if (Array.isArray(value)) rowsProblem(model, set, query, value);
          const judgedMs = performance.now() - started;
          // The first round warms up.
          if (round === 1) {
            answer.push(answered);
            judge.push(judgedMs);
          }
        }
      }
      const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
      judged.push([
        set,
        fmtNum(percentile(answer, 50) * 1000),
        fmtNum(percentile(answer, 90) * 1000),
        fmtNum(percentile(judge, 50) * 1000),
        fmtNum(percentile(judge, 90) * 1000),
        `${fmtNum((sum(judge) / sum(answer)) * 100)} %`,
      ]);
    }

    // 2. The tools over loopback HTTP.
    const server = http.createServer(toNodeListener(handler));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const ours = `http://127.0.0.1:${(server.address() as { port: number }).port}${CAP_PATH}`;
    const speed: string[][] = [];
    try {
      for (const [name, root] of [
        ['SAP CAP 9.9 (known deviations counted, crash skipped)', cap.root],
        ['createODataHandler', ours],
      ] as const) {
        let requests = 0;
        const started = performance.now();
        for (const [i, set] of SETS.entries()) {
          const result = await fuzzODataServer({
            url: `${root}/${set}`,
            model,
            entitySet: set,
            numRuns: RUNS,
            seed: 40 + i,
            known: capKnown('fuzz'),
            skip: CAP_CRASH,
          });
          requests += result.requests;
        }
        const seconds = (performance.now() - started) / 1000;
        speed.push([`fuzzODataServer → ${name}`, String(requests), fmtNum(seconds), fmtNum(requests / seconds)]);
      }
      let queries = 0;
      const started = performance.now();
      for (const [i, set] of SETS.entries()) {
        const result = await diffODataServers({
          a: { url: `${cap.root}/${set}`, name: 'CAP' },
          b: { url: `${ours}/${set}`, name: 'createODataHandler' },
          model,
          entitySet: set,
          numRuns: RUNS,
          seed: 50 + i,
          known: capKnown('diff'),
          skip: CAP_CRASH,
        });
        queries += result.queries;
      }
      const seconds = (performance.now() - started) / 1000;
      speed.push(['diffODataServers CAP ↔ createODataHandler (queries to both)', String(queries), fmtNum(seconds), fmtNum(queries / seconds)]);
    } finally {
      await new Promise((done) => server.close(done));
    }

    const section = `## The testing kit against running servers (issue 33)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Model: test/fixtures/cap (three sets; $metadata as SAP CAP 9.9.3 writes it), rows of test/helpers/cap-server.ts (8, 60 and 10).

Answering against judging, in one process (${QUERIES} random valid queries per set, each timed; µs): what \`fuzzODataServer\` adds to each valid query's request to read the answer back and judge its rows by \`$filter\` and \`$orderby\` (the reference over the returned rows).

${markdownTable(['set', 'answer p50', 'answer p90', 'judge p50', 'judge p90', 'judge / answer (sums)'], judged, ['l', 'r', 'r', 'r', 'r', 'r'])}

Over loopback HTTP, one request at a time (${RUNS} runs of each kind per set):

${markdownTable(['tool → server', 'requests', 's', 'requests/s'], speed, ['l', 'r', 'r', 'r'])}
`;
    writeSection('server-tools', section);
    process.stdout.write(section);
  } finally {
    await cap.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await runServerToolsBench();
