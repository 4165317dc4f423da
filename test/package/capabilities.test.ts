/** The capability table of docs/backends.md is what the backends compute today (grammar/capabilities.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END, START, capabilityTable } from '../../grammar/capabilities.js';

describe('the capability table of docs/backends.md', () => {
  it('holds what compiling each probe for each target gives (run npm run capabilities after a change)', () => {
    const readme = readFileSync(new URL('../../docs/backends.md', import.meta.url), 'utf8');
    const block = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END)).trim();
    expect(block).toBe(capabilityTable());
  });
});
