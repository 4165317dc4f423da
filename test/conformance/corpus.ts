/**
 * Loads the external conformance corpus from `../shared/conformance/` (never copied into the
 * project). Outside CI the conformance tests skip with a message when it is absent; with
 * `CI=true` its absence is a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared/conformance` beside the repository, or where `ODATA_CONFORMANCE_DIR` says (a git worktree elsewhere). */
export const CORPUS_DIR = process.env.ODATA_CONFORMANCE_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/conformance');
export const corpusAvailable = existsSync(CORPUS_DIR);

if (!corpusAvailable) {
  if (process.env.CI === 'true') throw new Error(`Conformance corpus missing at ${CORPUS_DIR}: CI requires it`);
  console.warn(`[conformance] ${CORPUS_DIR} not found: conformance tests are skipped (they run in CI).`);
}

export function loadCorpus<T>(file: string): T {
  return JSON.parse(readFileSync(resolve(CORPUS_DIR, file), 'utf8')) as T;
}

export interface AbnfCase {
  readonly id: string;
  readonly rule: string;
  readonly name: string;
  readonly input: string;
  readonly valid: boolean;
  readonly failAt?: number;
  readonly expression?: string;
  readonly literalContext?: 'url' | 'payload';
  readonly modelDependent?: boolean;
  readonly option?: string;
}

export interface OlingoCase {
  readonly id: string;
  readonly expression?: string;
  readonly option?: string;
  readonly context?: { readonly model: string | null };
  readonly valid: boolean;
  readonly expectedTree?: string;
}
