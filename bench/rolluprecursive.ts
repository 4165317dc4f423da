/**
 * The rolluprecursive bench (issue 30): `groupby((rolluprecursive($root/nodes,Tree,id)),
 * aggregate($count as n,amount with sum as total))` in memory (`compileQuery(...).apply(nodes)`,
 * the nodes given as the set's `data`) over a tree of NODES nodes (each node's parent
 * `(id - 2) div 4 + 1`: four children per node, nine levels; each node in its own portion and
 * its ancestors', about 8 portions a node), against the code a developer would write for it: each
 * node's subtree totals by walking every node up to the root, adding to each ancestor's totals.
 * Both sides give the same totals (checked). Steady state: warm-up, then SAMPLES interleaved
 * samples; median and min–max. Run alone with `tsx bench/rolluprecursive.ts`, or by `npm run
 * bench`; writes the `rolluprecursive` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, compileQuery, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { writeSection } from './results-file.js';
import { treeModel } from './tree-model.js';

const NODES = 100_000;
const SAMPLES = 9;
const QUERY = '$apply=groupby((rolluprecursive($root/nodes,Tree,id)),aggregate($count as n,amount with sum as total))';

const model = treeModel({ amount: { $Type: 'Edm.Int32' } });

const nodes: Row[] = Array.from({ length: NODES }, (_, i) => ({ id: i + 1, amount: i % 100, parentId: i === 0 ? null : Math.floor((i - 1) / 4) + 1 }));

/** Each node's subtree count and sum: every node walked up to its root, adding to each ancestor (itself first). */
function handWritten(rows: readonly Row[]): Map<number, { n: number; total: number }> {
  const byId = new Map<number, Row>();
  for (const row of rows) byId.set(row.id as number, row);
  const totals = new Map<number, { n: number; total: number }>();
  for (const row of rows) totals.set(row.id as number, { n: 0, total: 0 });
  for (const row of rows) {
    let at: Row | undefined = row;
    while (at !== undefined) {
      const t = totals.get(at.id as number)!;
      t.n++;
      t.total += row.amount as number;
      at = at.parentId === null ? undefined : byId.get(at.parentId as number);
    }
  }
  return totals;
}

const ms = msRange;

export async function runRolluprecursiveBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const compiled = compileQuery(bindQuery(QUERY, { model, entitySet: 'nodes' }), { data: { nodes } });
  const ours = compiled.apply(nodes).value;
  const hand = handWritten(nodes);
  if (ours.length !== NODES) throw new Error(`the engine gave ${ours.length} rows`);
  for (const row of ours) {
    const t = hand.get(row.id as number);
    if (t === undefined || Number(row.n) !== t.n || Number(row.total) !== t.total)
      throw new Error(`node ${String(row.id)} differs: ${JSON.stringify(row)} vs ${JSON.stringify(t)}`);
  }
  const portions = [...hand.values()].reduce((sum, t) => sum + t.n, 0);
  const times = await interleavedSamples({ ours: () => compiled.apply(nodes), hand: () => handWritten(nodes) }, SAMPLES);
  const ratio = median(times.ours!) / median(times.hand!);
  const section = `# \`$apply\`: rolluprecursive in memory over a tree of ${NODES.toLocaleString('en-US')} nodes (issue 30)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Query: \`${QUERY}\` over the nodes themselves (${NODES.toLocaleString('en-US')} rows, ${portions.toLocaleString('en-US')} portion rows in all); the hand-written side walks each node up to the root, adding to each ancestor's count and sum.
- Method: both sides give the same totals (checked); 3 warm-up calls, then ${SAMPLES} interleaved samples; median (min–max).

${markdownTable(
  ['subject', 'odata-engine', 'hand-written', 'ratio'],
  [['rolluprecursive, count and sum', ms(times.ours!), ms(times.hand!), `${fmtNum(ratio)}x`]],
  ['l', 'l', 'l', 'r'],
)}
The engine makes each node's portion (a slice of the rows laid out in preorder) and runs the
nested \`aggregate\` on it, as it would any nested transformations; the hand-written code only
adds two numbers per ancestor.
`;
  writeSection('rolluprecursive', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runRolluprecursiveBench());
}
