/** The README's capability table is what the backends compute today (grammar/capabilities.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END, START, capabilityTable } from '../../grammar/capabilities.js';

describe('the README capability table', () => {
  it('holds what compiling each probe for each target gives (run npm run capabilities after a change)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const block = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END)).trim();
    expect(block).toBe(capabilityTable());
  });
});
