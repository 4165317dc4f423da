/**
 * Parts of an untyped null: `year(case(flag:null,true:null))` and its kin are null whatever the
 * row, for every backend (the engines find EXTRACT of an untyped NULL ambiguous: PostgreSQL
 * 42725, DuckDB's binder; MongoDB has no type to take a part of).
 */
import type { BoundExpression } from '../semantic/bound-ast.js';

/** Functions of one temporal value whose result is null for a null argument. */
const TEMPORAL_PARTS: ReadonlySet<string> = new Set([
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'fractionalseconds',
  'totalseconds',
  'date',
  'time',
  'totaloffsetminutes',
]);

/** Whether `node` is a temporal part of an untyped null: always null (and an `$orderby` key that orders nothing). */
export function partOfNull(node: BoundExpression): boolean {
  return node.kind === 'call' && TEMPORAL_PARTS.has(node.name) && node.args[0]?.type.kind === 'null';
}
