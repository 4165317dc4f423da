/** The capability tables of docs/backends.md are what the backends compute today (grammar/capabilities.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END, FUNCTIONS_END, FUNCTIONS_START, START, capabilityTable, functionTable } from '../../grammar/capabilities.js';

const readme = readFileSync(new URL('../../docs/backends.md', import.meta.url), 'utf8');
const block = (start: string, end: string): string => readme.slice(readme.indexOf(start) + start.length, readme.indexOf(end)).trim();

describe('the capability tables of docs/backends.md', () => {
  it('holds what compiling each probe for each target gives (run npm run capabilities after a change)', () => {
    expect(block(START, END)).toBe(capabilityTable());
  });

  it("holds each backend's table of canonical functions (run npm run capabilities after a change)", () => {
    expect(block(FUNCTIONS_START, FUNCTIONS_END)).toBe(functionTable());
  });
});
