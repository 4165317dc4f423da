/**
 * The layers of src/ import downwards only: no file reaches itself through its imports (type
 * imports included, as a reader follows them too). A circle is reported as the files it runs through.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The files of src/ that `file` imports or re-exports (relative specifiers only). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)) {
    found.push(resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
  }
  return found;
}

/** Every circle of the import graph, each as the files it runs through (found by depth-first search). */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') circles.push(stack.slice(stack.indexOf(target)));
      else if (state.get(target) === undefined) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (state.get(file) === undefined) visit(file);
  return circles;
}

function importCircles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
  return circlesOf(graph).map((circle) => circle.map((file) => relative(SRC, file)));
}

describe('imports of src/', () => {
  it('form no circle', () => {
    expect(importCircles(sources(SRC))).toEqual([]);
  });

  it('reads multi-line and type imports, and finds a circle where there is one', () => {
    const evaluator = join(SRC, 'reference/evaluator.ts');
    expect(importsOf(evaluator)).toContain(join(SRC, 'reference/rows.ts'));
    expect(importsOf(join(SRC, 'backends/sql/compiler.ts'))).toContain(join(SRC, 'backends/sql/dialect.ts'));
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(circlesOf(graph)).toEqual([['a', 'b', 'c']]);
  });
});
