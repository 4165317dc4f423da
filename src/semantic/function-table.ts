/**
 * The shape every backend's table of canonical functions takes: for each name of the registry
 * (src/semantic/functions.ts), an implementation or a declared refusal with its reason. A mapped
 * type over the names, so a table that lacks a function does not compile; the refusals are what the
 * capability table of docs/backends.md shows (grammar/capabilities.ts).
 */
import type { CanonicalFunctionName } from '../syntax/ast.js';

/** A backend's declared refusal of a canonical function, with the reason the capability table shows. */
export interface Refusal {
  readonly refused: string;
  /**
   * Set for `now()`, `mindatetime()` and `maxdatetime()` in SQL and MongoDB: constant folding
   * (src/reference/constant-folding.ts) computes them before a backend compiles, so the backend
   * never compiles one and the capability table shows them as run.
   */
  readonly folded?: true;
}

/** A declared refusal. */
export function refuse(reason: string): Refusal {
  return { refused: reason };
}

/** The entry of a function that constant folding computes before the backend compiles (refused if it ever reached it). */
export const FOLDED: Refusal = { refused: 'computed once before compiling (constant folding)', folded: true };

/** Whether a table entry is a declared refusal. */
export function isRefusal(entry: object): entry is Refusal {
  return 'refused' in entry;
}

/** A backend's complete table: every canonical function, implemented or refused. */
export type FunctionTable<Implementation> = { readonly [N in CanonicalFunctionName]: Implementation | Refusal };
