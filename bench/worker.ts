/**
 * One bench child: measures ONE subject on every input, in a fresh process, and reports on stdout
 * (see the protocol in shared.ts). Started by run.ts as
 *
 *   node --import tsx bench/worker.ts <subject> <engine mode> <skipped input indices>
 *
 * With engine mode `bundle`, the odata-engine bundle's code arrives on stdin.
 */
import { createRequire } from 'node:module';
import { Cell } from './measure.js';
import { CELL_BUDGET_MS, emit, inputs, isSubjectKey, LIMITS, loadEngine, OURS, type EngineMode, type SubjectKey } from './shared.js';

const [keyArg = '', modeArg = '', skipArg = ''] = process.argv.slice(2);
if (!isSubjectKey(keyArg) || (modeArg !== 'bundle' && modeArg !== 'tsx')) {
  process.stderr.write(`usage: worker.ts <subject> <bundle|tsx> [skipped input indices]; got ${process.argv.slice(2).join(' ')}\n`);
  process.exit(2);
}
const mode: EngineMode = modeArg;
const skipped = new Set(skipArg.split(',').filter(Boolean).map(Number));

/** The peers are CommonJS; loaded with require and given minimal local types. */
const require = createRequire(import.meta.url);

/** Returns a function that parses `text` and throws unless the whole input was accepted. */
async function loadSubject(key: SubjectKey): Promise<(text: string) => unknown> {
  switch (key) {
    case 'ours': {
      const engine = await loadEngine(mode);
      return (text) => engine.parseFilter(text, OURS);
    }
    case 'oursTsx': {
      const engine = await loadEngine('tsx');
      return (text) => engine.parseFilter(text, OURS);
    }
    case 'lexer': {
      const engine = await loadEngine(mode);
      return (text) => {
        const result = engine.lex(text, 'expression');
        if (result.errors.length > 0) throw new Error(`lexing error: ${result.errors[0]!.message}`);
        return result;
      };
    }
    case 'hand': {
      // The baseline of issue 31: a hand-written parser building the same tree (bench/hand-parser.ts).
      const { handParseFilter } = await import('./hand-parser.js');
      return handParseFilter;
    }
    case 'odataParser': {
      // `defaultParser.filter(text)` runs the `boolCommonExpr` rule over the whole text (it throws
      // unless the whole input is consumed). The top-level `filter` export is NOT a parser: it is
      // the `ODataFilter` query builder.
      const peer = require('@odata/parser') as { defaultParser: { filter(source: string): unknown } };
      return (text) => peer.defaultParser.filter(text);
    }
    case 'odataV4Parser': {
      // Top-level `filter(text)`: same `boolCommonExpr` rule and whole-input check.
      const peer = require('odata-v4-parser') as { filter(source: string): unknown };
      return (text) => peer.filter(text);
    }
  }
}

const run = await loadSubject(keyArg);
emit({ type: 'ready' });

const cells = inputs.map((input, i) => (skipped.has(i) ? undefined : new Cell(() => run(input.text), LIMITS)));

// Cold call and warm-up on every input first, so that each input is measured with JIT state that
// has seen all inputs (rather than only those before it). No forced GC: a full GC throws away
// optimized code, so the figures are those of a steady state, as a server sees them.
cells.forEach((cell, i) => {
  if (!cell) return;
  emit({ type: 'start', input: i });
  cell.prepare();
});
cells.forEach((cell, i) => {
  if (!cell) return;
  emit({ type: 'start', input: i });
  cell.round(CELL_BUDGET_MS);
  emit({ type: 'cell', input: i, m: cell.result() });
});
emit({ type: 'done' });
