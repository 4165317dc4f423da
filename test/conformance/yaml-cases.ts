/**
 * A reader for the OASIS ABNF test-case YAML files, for exactly their layout (there is no YAML
 * library in the project): after `TestCases:`, each case starts with `  - Name: …` and has keys
 * indented by four spaces (`Rule`, `FailAt`, `Input`, `Expect`). A value may continue on more
 * indented lines (a plain multi-line scalar: folded to single spaces). `#` starts a comment at
 * the start of a line or after white space. `Expect` lists are skipped.
 */
import type { AbnfCase } from './corpus.js';

interface RawCase {
  Name?: string;
  Rule?: string;
  FailAt?: string;
  Input?: string;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/** The cases of an ABNF test-case YAML file, with ids `${prefix}-${index}` (inputs are not unique). */
export function readAbnfTestCases(text: string, prefix: string): AbnfCase[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trimEnd() === 'TestCases:');
  if (start < 0) throw new Error('No TestCases: section');
  const cases: RawCase[] = [];
  let current: RawCase | undefined;
  let key: keyof RawCase | 'Expect' | undefined;
  for (const raw of lines.slice(start + 1)) {
    if (/^\s*(#|$)/.test(raw)) continue;
    const line = raw.replace(/\s+#.*$/, '');
    const first = /^ {2}- (\w+):\s*(.*)$/.exec(line);
    const next = first === null ? /^ {4}(\w+):\s*(.*)$/.exec(line) : null;
    const match = first ?? next;
    if (match !== null) {
      if (first !== null) cases.push((current = {}));
      if (current === undefined) throw new Error(`A key before the first case: ${raw}`);
      key = match[1] as keyof RawCase | 'Expect';
      if (key !== 'Expect') current[key] = match[2] as string;
      continue;
    }
    if (!/^ {5,}\S/.test(line) || current === undefined || key === undefined) throw new Error(`Unexpected line: ${raw}`);
    if (key === 'Expect') continue;
    const previous = current[key] ?? '';
    current[key] = previous === '' ? line.trim() : `${previous} ${line.trim()}`;
  }
  return cases.map((c, index) => {
    if (c.Rule === undefined || c.Input === undefined) throw new Error(`Case ${index} lacks Rule or Input`);
    return {
      id: `${prefix}-${index}`,
      rule: c.Rule,
      name: unquote(c.Name ?? ''),
      input: unquote(c.Input),
      valid: c.FailAt === undefined,
      ...(c.FailAt === undefined ? {} : { failAt: Number(c.FailAt) }),
    };
  });
}
