/**
 * `join` and `outerjoin` of `$apply` in SQL (Data Aggregation 3.5.1): the input rows `JOIN` (or
 * `LEFT JOIN`) the related entities of a collection-valued navigation property, the related
 * entity's columns flattened under the alias (`c_id`, `c_name`, as `complexLeaves` names the
 * columns of a structured value; its collections of complex values a JSON column each, where the
 * dialect stores them), so that later transformations and options read `c/name` like a
 * path into a complex value; with them the related table's foreign keys that the model does not
 * declare (`c_Product_ID`, the relation's `stored` columns), so that navigation from the alias
 * follows a relationship without a referential constraint (example 92). Nested transformations that keep rows apart (`filter`, `compute`,
 * `search`, `identity`) run on the related table first, a derived table under the join's alias;
 * an `aggregate` (after filters) is a scalar subquery per aggregate; others (`groupby`,
 * `topcount`…, an `aggregate` after `compute`) would need the row's own related entities
 * (a lateral join) and are refused, as are collections of complex values and link tables with
 * nested transformations.
 */
import type { Property, StructuredType } from '../../model/model.js';
import type { BoundTransformation } from '../../semantic/bound-ast.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { Scope, SqlCompiler } from './compiler.js';
import { navigationLink } from '../../storage/links.js';
import { columnName, complexLeaves } from './mapping.js';

/** The transformations a join runs on the related table before joining it. */
const ROW_WISE: ReadonlySet<BoundTransformation['kind']> = new Set(['filter', 'compute', 'search', 'identity']);

type Join = Extract<BoundTransformation, { kind: 'join' }>;

/** What the join needs of the apply compiler: the related rows after the nested transformations. */
export interface JoinContext {
  readonly compiler: SqlCompiler;
  /** `FROM` text of the related rows after `apply` (a table or a parenthesized SELECT), read under a fresh alias. */
  readonly nested: (apply: readonly BoundTransformation[], table: string, set: NonNullable<Scope['set']>) => string;
}

/**
 * The SELECT of a join over the input rows (`from`, read under `scope`): the input's columns, then
 * the related entity's under the alias.
 */
export function joinSelect(node: Join, scope: Scope, from: () => string, context: JoinContext): { from: string; stored?: ReadonlySet<string> } {
  const { compiler } = context;
  const refuse = (what: string): never => {
    throw unsupportedFeature('SQL', what, { node, option: '$apply' });
  };
  const name = node.outer ? 'outerjoin()' : 'join()';
  const last = node.apply.at(-1);
  const before = node.apply.slice(0, -1);
  if (last?.kind === 'aggregate' && before.every((t) => t.kind === 'filter' || t.kind === 'search' || t.kind === 'identity'))
    return { from: aggregatedJoin(node, last, before, scope, from, compiler) };
  const other = node.apply.find((t) => !ROW_WISE.has(t.kind));
  if (other !== undefined)
    refuse(
      `${other.kind === 'rank' ? 'topcount() and its kin' : `${other.kind}()`} inside ${name} (not compiled yet: it needs each row's own related entities)`,
    );
  const steps = node.path.steps.filter((step) => step.kind !== 'typeCast');
  const step = steps[0];
  if (steps.length !== 1 || step?.kind !== 'navigation' || node.path.steps.length !== 1)
    return refuse(`${name} of a collection of complex values or a path through complex values (not compiled yet)`);
  const set = step.entitySet ?? refuse(`${name} of '${step.navigation.name}', whose entity set the model does not say`);
  const related = compiler.related({ navigation: step.navigation, entitySet: set }, scope);
  let rows = related.from;
  if (node.apply.length > 0) {
    const table = `${compiler.table(set)} ${related.scope.alias}`;
    if (rows !== table) refuse(`transformations inside ${name} over a link table (not compiled yet)`);
    rows = `${context.nested(node.apply, compiler.table(set), set)} ${related.scope.alias}`;
  }
  // The alias's columns: each leaf of its type from the related rows' column of the same path.
  const alias = node.output.properties.get(node.alias) as Property;
  const rowType = (alias.type as { type: StructuredType }).type;
  // (With the entity's collections of complex values, where the dialect stores them: a JSON column each.)
  const prefix = compiler.leaves(node.output, alias).map((leaf) => leaf.column);
  const json = compiler.dialect.complexCollections !== undefined;
  const inner = [...rowType.properties.values()]
    .filter((p) => json || !(p.collection && p.type.kind === 'complex'))
    .flatMap((p) => compiler.leaves(rowType, p));
  const quote = compiler.dialect.quote.bind(compiler.dialect);
  const columns = inner.map((leaf, i) => `${related.scope.alias}.${quote(leaf.column)} AS ${quote(prefix[i] as string)}`);
  // The related table's foreign keys the model does not declare, under the alias's prefix: navigation from the alias reads them.
  const own = `${columnName(node.output, alias, compiler.mapping)}_`;
  const hidden = foreignKeys(step.navigation.target, compiler);
  const stored = new Set([...(scope.stored ?? []), ...hidden.map((column) => own + column)]);
  columns.push(...hidden.map((column) => `${related.scope.alias}.${quote(column)} AS ${quote(own + column)}`));
  const join = node.outer ? 'LEFT JOIN' : 'INNER JOIN';
  return { from: `(SELECT ${scope.alias}.*, ${columns.join(', ')} FROM ${from()} ${join} ${rows} ON ${related.join})`, stored };
}

/**
 * The stored names of the columns of `type`'s table that its navigation properties read and the
 * model does not declare (foreign keys of relationships without a referential constraint, as the
 * storage mapping places them: storage/links.ts), each once.
 */
function foreignKeys(type: StructuredType, compiler: SqlCompiler): string[] {
  const names = new Set<string>();
  for (const navigation of type.navigation.values()) {
    const link = navigationLink(type, navigation, compiler.mapping);
    const sources = link === undefined ? [] : link.kind === 'direct' ? link.pairs.map((pair) => pair.source) : link.source.map((entry) => entry.column);
    for (const source of sources) if (source.column !== undefined) names.add(compiler.storedName(source.column));
  }
  return [...names];
}

/**
 * `join(Nav as A,aggregate(…))`, also after `filter`/`search`: one row per input row (an aggregate
 * of no related entities is still a row, 3.5.1 step 2), each aggregate the aggregate function over
 * the row's related entities that pass the filters (`Nav/aggregate(…)`, a scalar subquery), a
 * column under the alias.
 */
function aggregatedJoin(
  node: Join,
  last: Extract<BoundTransformation, { kind: 'aggregate' }>,
  before: readonly BoundTransformation[],
  scope: Scope,
  from: () => string,
  compiler: SqlCompiler,
): string {
  const alias = node.output.properties.get(node.alias) as Property;
  const quote = compiler.dialect.quote.bind(compiler.dialect);
  const conditions = (related: Scope): string[] =>
    before.flatMap((t) => (t.kind === 'filter' ? [compiler.condition(t.predicate, related)] : t.kind === 'search' ? [compiler.search(t.search, related)] : []));
  const keep = before.some((t) => t.kind !== 'identity') ? (related: Scope): string => conditions(related).join(' AND ') : undefined;
  const columns = last.aggregates.map((aggregate) => {
    const leaf = complexLeaves(node.output, alias, compiler.mapping).find((l) => l.path[1]?.name === aggregate.alias);
    const value = compiler.relatedAggregate(node.path, aggregate, scope, aggregate.span, keep);
    return `${value} AS ${quote((leaf as { column: string }).column)}`;
  });
  return `(SELECT ${scope.alias}.*, ${columns.join(', ')} FROM ${from()})`;
}
