/**
 * `addnested` and `nest` of `$apply` in SQL (Data Aggregation 3.4.3, 3.5.2): each item's rows a
 * JSON array column, as `$expand` builds one (the dialect's `expandMany`), so that `readSqlRows`
 * reads it as a collection of structured values.
 *
 * - `addnested(Nav, T as A)` is `$expand=Nav($apply=T)` written into the row as `A`: the pipeline
 *   over the row's related entities (a correlated SELECT; where a derived table cannot read the
 *   outer row, MySQL/MariaDB and SQL Server, the pipeline over every related row with the row's
 *   picked in the WHERE, or an aggregate's scalar subqueries: other pipelines are refused).
 * - `nest(T as A, …)` is one row: each item's pipeline over the input rows (a common table
 *   expression when several read them), its rows a JSON array in their kept order.
 */
import type { Property } from '../../model/model.js';
import type { BoundExpandItem, BoundQueryOptions, BoundTransformation } from '../../semantic/bound-ast.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { NestingCompiler } from './apply.js';
import type { Scope, SqlCompiler } from './compiler.js';
import { expansion, jsonEntries, notDecorrelated } from './expansion.js';
import { complexLeaves } from './mapping.js';

type Addnested = Extract<BoundTransformation, { kind: 'addnested' }>;

const ALL = { all: true, properties: [], navigation: [] } as const;

/** The SELECT of `addnested` over the input rows (read under `scope`): their columns and one JSON array per item. */
export function addnestedSelect(node: Addnested, scope: Scope, from: () => string, compiler: SqlCompiler): string {
  const refuse = (what: string): never => {
    throw unsupportedFeature('SQL', what, { node, option: '$apply' });
  };
  const steps = node.path.steps.filter((step) => step.kind !== 'typeCast');
  const step = steps[0];
  if (steps.length !== 1 || step?.kind !== 'navigation' || node.path.steps.length !== 1)
    return refuse(`addnested() of a collection of complex values (not compiled yet)`);
  const quote = compiler.dialect.quote.bind(compiler.dialect);
  // Where a derived table cannot read the row (MariaDB): row-wise steps over every related row, or an aggregate's scalar subqueries (expansion.ts).
  const other =
    compiler.dialect.correlatedDerivedTables === false ? node.items.map((item) => notDecorrelated(item.apply)).find((t) => t !== undefined) : undefined;
  if (other !== undefined)
    throw unsupportedFeature(
      'SQL',
      `${other.kind === 'rank' ? 'topcount() and its kin' : `${other.kind}()`} inside addnested() on ${compiler.dialect.displayName} (a derived table cannot read the outer row: only filter, search, compute, orderby, or filters then an aggregate())`,
      { node: other, option: '$apply' },
    );
  const columns = node.items.map((item) => {
    const entity = item.type === step.navigation.target;
    const options: BoundQueryOptions = {
      entityType: step.navigation.target,
      ...(item.apply.length === 0 ? {} : { apply: { transformations: item.apply, output: item.type, entity } }),
      select: ALL,
      expand: [],
    };
    const expand: BoundExpandItem = { navigation: step.navigation, entitySet: step.entitySet, form: 'entities', options };
    const [[, sql] = ['', (): string => '']] = expansion(compiler, expand, scope);
    const property = node.output.properties.get(item.alias) as Property;
    const [leaf] = complexLeaves(node.output, property, compiler.mapping);
    return `${sql()} AS ${quote((leaf as { column: string }).column)}`;
  });
  return `(SELECT ${scope.alias}.*, ${columns.join(', ')} FROM ${from()})`;
}

/** The JSON array of the rows `from` gives (read under `scope`), in `order`. */
export function jsonArray(compiler: SqlCompiler, scope: Scope, from: string, order: () => string): string {
  const expandMany =
    compiler.dialect.expandMany ??
    ((): never => {
      throw unsupportedFeature('SQL', `nest() on ${compiler.dialect.displayName} (no JSON arrays)`);
    })();
  const entries = jsonEntries(compiler, { entityType: scope.type, select: ALL, expand: [] }, scope, false, true);
  return expandMany({ entries, from, where: '1 = 1', order, paging: '' }, (text) => compiler.value(text, 'string'));
}

/** The JSON array of the rows of `scope` in a GROUP BY group, in `order` (the dialect's `groupArray`, an aggregate). */
export function groupArray(compiler: SqlCompiler, scope: Scope, order: string): string {
  const hook =
    compiler.dialect.groupArray ??
    ((): never => {
      throw unsupportedFeature('SQL', `nest() inside groupby() on ${compiler.dialect.displayName} (no JSON array aggregate)`);
    })();
  const entries = jsonEntries(compiler, { entityType: scope.type, select: ALL, expand: [] }, scope, false, true);
  return hook.array(entries, order, (text) => compiler.value(text, 'string'));
}

/** What the apply compiler calls for `addnested` and `nest` (registered by to-sql.ts). */
export const NESTING: NestingCompiler = { addnested: addnestedSelect, jsonArray, groupArray };
