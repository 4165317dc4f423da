/**
 * Ordering rows in memory: sort keys (an evaluator, the value domain it compares in, the
 * direction), nulls first ascending, ties kept in input order. `$orderby` and `$apply`'s
 * `orderby()` and `topcount()`… share it.
 */
import type { Evaluator, Row } from '../../reference/rows.js';
import type { Domain } from '../../reference/values.js';

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);

export interface SortKey {
  readonly evaluate: Evaluator;
  readonly domain: Domain;
  readonly descending: boolean;
}

/** The order of two rows' key values (normalized, null for null). */
export function compareKeys(keys: readonly SortKey[], a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as SortKey;
    const x = a[i];
    const y = b[i];
    let order: number;
    if (x === null || y === null) order = x === null ? (y === null ? 0 : -1) : 1;
    else order = key.domain.compare(x, y);
    if (order !== 0) return key.descending ? -order : order;
  }
  return 0;
}

/** A row's key values, normalized (null for null and for values the domain cannot read). */
export function keyValues(keys: readonly SortKey[], row: Row): unknown[] {
  const values = new Array<unknown>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as SortKey;
    const value = key.evaluate(row, NO_VARIABLES);
    values[i] = value === null || value === undefined ? null : key.domain.normalize(value);
  }
  return values;
}

/** `rows` sorted by `keys` (decorate, sort, undecorate: each key computed once per row; stable). */
export function sortRows(keys: readonly SortKey[], rows: readonly Row[]): Row[] {
  const decorated = rows.map((row, index) => ({ row, index, key: keyValues(keys, row) }));
  decorated.sort((a, b) => compareKeys(keys, a.key, b.key) || a.index - b.index);
  return decorated.map((entry) => entry.row);
}
