/**
 * `$apply` in SQL (OData Data Aggregation 4.0): each transformation a derived table over the rows
 * of the previous one, so that the request's `$filter`, `$orderby`, `$top`, `$skip`, `$count` and
 * `$select` read the last one as they read a table (to-sql.ts names it `t0`).
 *
 * - The columns of every derived table are named as the flattening of complex values names them
 *   (`complexLeaves` of the rows' type): an entity keeps its table's columns (`a.*`), a computed
 *   or aggregated alias is a column of its name, a grouping path `product/name` the column
 *   `product_name` of the nested complex value, so the base compiler reads paths of the output
 *   type unchanged and `readSqlRows` nests them again.
 * - `filter` and `search` are a WHERE, `compute` extra select expressions, `orderby` is kept and
 *   serves the next `top`/`skip` (ORDER BY … LIMIT in the derived table) or the result when it is
 *   last; `aggregate` one row of aggregate functions, `groupby` a GROUP BY (strings compared by
 *   code point through the dialect's `binary`, nulls one group), without nested transformations
 *   its keys only, with `rollup` the dialect's GROUPING SETS or a GROUP BY per set (UNION ALL),
 *   the presence column saying which grouping properties a row has; `concat` a UNION ALL;
 *   `topcount`/`bottomcount` an ORDER BY … LIMIT.
 * - Rows read more than once (the input of `concat`'s branches, the rows of a `groupby` with
 *   aggregates along navigation paths) are a common table expression of the statement
 *   (`WITH "~w1" AS (…)`, see {@link ApplyRelation.with}) that each reader names, never a copy of
 *   their SELECT: the statement grows with the query's text, not with 2^k for k `concat`s.
 * - Nested transformations of `groupby` before its `aggregate` may be `filter`, `search`,
 *   `compute` and `identity`: a group whose rows are all filtered out is still a group (its count
 *   0, its sums null), as in the reference, so filters become conditions inside the aggregates.
 * - An aggregate along a navigation path (`product/price with sum`) aggregates the related
 *   entities reached from the group's rows, each once: a scalar subquery over the related table
 *   with `EXISTS` over the group's rows.
 * - The aggregation methods keep the reference's semantics on every dialect: null values left out,
 *   `sum`/`average`/`min`/`max` of nothing null, counts 0; integer sums computed one size wider and
 *   null beyond Int64; the average of integers the exact quotient rounded to a double (SQL Server's AVG(int) would truncate),
 *   of Decimals an exact quotient (the dialect's `decimalDivide`); min/max of strings by code point,
 *   of enums by member value, of Doubles with NaN lowest (PostgreSQL sorts it highest).
 *
 * `toppercent`, `bottompercent`, `topsum`, `bottomsum` keep the rows while the running sum (a
 * window function) of the rows before them is below the limit.
 * A `groupby` ending in `nest` is apply-group-nest.ts's.
 * Refused with `unsupported_feature` and the transformation's position: nested transformations of `groupby` other than the
 * above; min/max of Guid, Duration and flag enum values.
 */
import type { EntitySet, Property, StructuredType } from '../../model/model.js';
import type {
  BoundAggregate,
  BoundApply,
  BoundExpression,
  BoundFromStep,
  BoundGroupKey,
  BoundOrderByItem,
  BoundPath,
  BoundSearch,
  BoundTransformation,
} from '../../semantic/bound-ast.js';
import { BOOLEAN, INT64, fromReference, isIntegerType, isPrimitive, isUntyped, type ExpressionType } from '../../semantic/types.js';
import { memberOrdinals } from '../../passes/enums.js';
import { someExpression } from '../../semantic/walk/index.js';
import { extendedType, outputProperty, outputType, referenceOf } from '../../semantic/apply/output-type.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import { joinSelect } from './apply-join.js';
import { customSqlAggregate } from './custom-methods.js';
import { registerAggregateCompiler, type Scope, type SqlCompiler } from './compiler.js';
import { columnType } from './ddl.js';
import { columnName, isJsonLeaf } from './mapping.js';
import { joinedKeys } from '../../semantic/apply/output-order.js';
import { orderByItems } from './ordering.js';
import { parameterKind } from './parameters.js';

/** The rows a transformation gives: a FROM item (a table or a parenthesized SELECT) and their type. */
export interface ApplyRelation {
  readonly from: string;
  readonly type: StructuredType;
  /** Whether the rows are still entities of the set (their table's columns). */
  readonly entity: boolean;
  /** The order an `orderby` (or `topcount`…) gave, as ORDER BY items over a scope of these rows. */
  readonly order?: (scope: Scope) => string;
  /**
   * Present when rows of `concat` branches have different properties (Data Aggregation, examples
   * 74 and 75: each row has only its own branch's): `column` holds, per row, the index into `sets`
   * of the names of the top-level properties the row has; the others are columns of null that
   * `readSqlRows` leaves out. Later row-wise transformations keep it (`compute` adds its aliases to
   * every set); `aggregate` and `groupby` make rows that have every property again.
   */
  readonly presence?: ApplyPresence;
  /**
   * The common table expressions `from` reads (`WITH "~w1" AS (…), "~w2" AS (…) `, with its
   * trailing space), to begin the statement with; empty when there are none.
   */
  readonly with?: string;
  /** Columns the model does not declare that the rows carry (a join's alias's foreign keys): see `Scope.stored`. */
  readonly stored?: ReadonlySet<string>;
}

/** Which top-level properties each row of a relation has: see {@link ApplyRelation.presence}. */
export interface ApplyPresence {
  /** The column (unquoted) of the index into `sets`. */
  readonly column: string;
  readonly sets: readonly (readonly string[])[];
}

/** The column of {@link ApplyPresence}: a name no OData identifier has. */
export const PRESENCE_COLUMN = '~present';

const isFloat = (type: ExpressionType): boolean => isPrimitive(type, 'Edm.Double') || isPrimitive(type, 'Edm.Single');

const unsupported = (what: string, node: { readonly span: { readonly start: number } }) => unsupportedFeature('SQL', what, { node, option: '$apply' });

/** A ranking transformation (`topcount`, …). */
type RankNode = Extract<BoundTransformation, { kind: 'rank' }>;
/** The column of a row's number within its group, under a name no OData identifier has. */
const RANK_NUMBER = '~rank';

/**
 * The JSON arrays of `addnested` and `nest` (apply-nesting.ts, which registers itself from
 * to-sql.ts: it builds them as `$expand` does, and expansion.ts reads this module).
 */
export interface NestingCompiler {
  addnested(node: Extract<BoundTransformation, { kind: 'addnested' }>, scope: Scope, from: () => string, compiler: SqlCompiler): string;
  jsonArray(compiler: SqlCompiler, scope: Scope, from: string, order: () => string): string;
  groupArray(compiler: SqlCompiler, scope: Scope, order: string): string;
}
let nesting: NestingCompiler | undefined;

/** The relation of `ancestors`, `descendants` and `traverse` (hierarchy.ts, registered by to-sql.ts: it reads this module). */
export type HierarchyCompiler = (
  host: SqlApplyCompiler,
  node: Extract<BoundTransformation, { kind: 'ancestors' | 'descendants' | 'traverse' }>,
  input: ApplyRelation,
) => ApplyRelation;
let hierarchy: HierarchyCompiler | undefined;

/** The relation of a `groupby` with `rolluprecursive` (rollup-recursive.ts, registered by to-sql.ts: it reads this module). */
export type RollupRecursiveCompiler = (host: SqlApplyCompiler, node: Extract<BoundTransformation, { kind: 'groupby' }>, input: ApplyRelation) => ApplyRelation;
let rollupRecursive: RollupRecursiveCompiler | undefined;

/** The relation of a `groupby` ending in `nest` (apply-group-nest.ts, registered by to-sql.ts: it reads this module). */
export type GroupNestCompiler = (
  host: SqlApplyCompiler,
  keys: readonly BoundGroupKey[],
  before: readonly BoundTransformation[],
  nest: Extract<BoundTransformation, { kind: 'nest' }>,
  output: StructuredType,
  input: ApplyRelation,
) => ApplyRelation;
let groupNest: GroupNestCompiler | undefined;

/** Registers {@link GroupNestCompiler} (once, at import). */
export function registerGroupNestCompiler(compiler: GroupNestCompiler): void {
  groupNest = compiler;
}

/** Registers {@link RollupRecursiveCompiler} (once, at import). */
export function registerRollupRecursiveCompiler(compiler: RollupRecursiveCompiler): void {
  rollupRecursive = compiler;
}

/** Registers {@link HierarchyCompiler} (once, at import). */
export function registerHierarchyCompiler(compiler: HierarchyCompiler): void {
  hierarchy = compiler;
}

/** Registers {@link NestingCompiler} (once, at import). */
export function registerNestingCompiler(compiler: NestingCompiler): void {
  nesting = compiler;
}

// The aggregate function of expressions (`Sales/aggregate(…)`) compiles its aggregate here.
registerAggregateCompiler((compiler, aggregate, scope, prefix) => new SqlApplyCompiler(compiler, scope.set, prefix).aggregateValue(aggregate, scope));

/** Compiles the transformations of one `$apply` into nested derived tables, with one statement's compiler. */
export class SqlApplyCompiler {
  private aliases = 0;
  /** The common table expressions of the statement, in definition order (each may read the ones before). */
  private readonly tables: string[] = [];
  /** Whether a common table expression of the statement is recursive (the hierarchical transformations'). */
  private recursive = false;

  constructor(
    readonly compiler: SqlCompiler,
    readonly set: EntitySet,
    /** The prefix of the derived tables' aliases (another for `$apply` inside `$expand`, within the outer statement). */
    private readonly prefix = 'a',
  ) {}

  /** The rows `apply` gives, read from the entity set's table (restricted by the mapping's scope). */
  relation(apply: BoundApply): ApplyRelation {
    const base = this.compiler.table(this.set);
    const alias = this.alias();
    const restricted = this.compiler.scopeCondition(alias, this.set);
    const start: ApplyRelation = {
      from: restricted === '' ? base : `(SELECT ${alias}.* FROM ${base} ${alias} WHERE ${restricted})`,
      type: this.set.type,
      entity: true,
    };
    const rows = this.compiler.withOption('$apply', () => this.pipeline(apply.transformations, start));
    const recursive = this.recursive ? (this.compiler.dialect.hierarchy?.recursive ?? '') : '';
    return this.tables.length === 0 ? rows : { ...rows, with: `WITH ${recursive}${this.tables.join(', ')} ` };
  }

  /**
   * The rows `apply` gives, read from `rows` (the related entities of one expanded row, a
   * correlated SELECT): for `$apply` inside `$expand`. Refused where the pipeline reads its rows
   * more than once (a common table expression cannot be correlated on every engine).
   */
  relationOver(apply: BoundApply, rows: string, option: string): ApplyRelation {
    const start: ApplyRelation = { from: rows, type: this.set.type, entity: true };
    const result = this.compiler.withOption(option, () => this.pipeline(apply.transformations, start));
    if (this.tables.length > 0)
      throw unsupportedFeature('SQL', 'concat(), rollup() or aggregating along a navigation path in $apply inside $expand', { option });
    return result;
  }

  /**
   * The rows `transformations` give from `start` (correlated with an outer row: a group's rows,
   * apply-group-nest.ts), compiled by a compiler of their own (see {@link nested}). Refused where
   * the pipeline reads its rows more than once, as {@link relationOver}.
   */
  relationFrom(start: ApplyRelation, transformations: readonly BoundTransformation[], option: string): ApplyRelation {
    const result = this.compiler.withOption(option, () => this.pipeline(transformations, start));
    if (this.tables.length > 0)
      throw unsupportedFeature('SQL', 'concat(), rollup(), nest() inside groupby() or aggregating along a navigation path in a correlated pipeline', {
        option,
      });
    return result;
  }

  /** A compiler for a pipeline correlated with this one's rows, its aliases apart from this one's. */
  nested(): SqlApplyCompiler {
    return new SqlApplyCompiler(this.compiler, this.set, `${this.alias()}n`);
  }

  /**
   * The JSON array of `relation`'s rows read under `scope` (a nest item's), in their kept order,
   * else by every column. The order is compiled first: navigation in it joins
   * the scope's FROM.
   */
  nestedArray(relation: ApplyRelation, scope: Scope): string {
    const order = this.arrayOrder(relation, scope);
    return (nesting as NestingCompiler).jsonArray(this.compiler, scope, this.fromOf(relation, scope), () => order);
  }

  /**
   * The JSON array of the rows of `scope` in a GROUP BY group (an aggregate: the dialect's
   * `groupArray`), in their kept order, else by every column.
   */
  groupedArray(relation: ApplyRelation, scope: Scope): string {
    return (nesting as NestingCompiler).groupArray(this.compiler, scope, this.arrayOrder(relation, scope));
  }

  /** The order of a nest item's rows in its JSON array: the kept order, then every column. */
  private arrayOrder(relation: ApplyRelation, scope: Scope): string {
    const kept = relation.order?.(scope);
    // (Not a collection of complex values' JSON column, which has no order.)
    const columns = this.leaves(relation.type)
      .filter((leaf) => !isJsonLeaf(leaf))
      .map((leaf) => `${scope.alias}.${this.quote(leaf.column)}`);
    const nulls = this.compiler.dialect.nullsFirstByDefault ? '' : ' NULLS FIRST';
    return [...(kept === undefined || kept === '' ? [] : [kept]), ...columns.map((c) => `${c} ASC${nulls}`)].join(', ') || '1';
  }

  /** An aggregate function over the rows of `scope`, those meeting `keep` when it is not empty. */
  aggregateOver(a: BoundAggregate, scope: Scope, keep: string): string {
    return this.aggregateFunction(a, scope, keep);
  }

  /**
   * `relation` as a common table expression of the statement, for rows read more than once: each
   * reader names it instead of repeating its SELECT (a table is named as it is).
   */
  shared(relation: ApplyRelation): ApplyRelation {
    if (!relation.from.startsWith('(')) return relation;
    // A name no OData identifier has (nor, then, a table of the model's conventions).
    const name = this.quote(`~w${this.tables.length + 1}`);
    this.tables.push(`${name} AS ${relation.from}`);
    return { ...relation, from: name };
  }

  /** A common table expression of the statement, `name(columns) AS (body)` (a recursive one makes the list `WITH RECURSIVE`): its name. */
  define(columns: readonly string[], body: string | ((name: string) => string), recursive = false): string {
    const name = this.quote(`~w${this.tables.length + 1}`);
    const sql = typeof body === 'string' ? body : body(name);
    this.tables.push(`${name}(${columns.map((column) => this.quote(column)).join(', ')}) AS (${sql})`);
    this.recursive ||= recursive;
    return name;
  }

  alias(): string {
    return `${this.prefix}${++this.aliases}`;
  }

  /** A scope over `relation` under a fresh alias; navigation paths in it become LEFT JOINs. */
  scope(relation: ApplyRelation): Scope {
    const scope: Scope = {
      alias: this.alias(),
      type: relation.type,
      set: this.set,
      variables: new Map(),
      joins: { clauses: [], scopes: new Map() },
      // $these/aggregate(…): over these rows, where they are named (a table, or a common table expression).
      ...(relation.from.startsWith('(') ? {} : { these: { from: relation.from, type: relation.type } }),
    };
    const stored = relation.stored === undefined ? scope : { ...scope, stored: relation.stored };
    return relation.presence === undefined ? stored : { ...stored, presence: relation.presence };
  }

  fromOf(relation: ApplyRelation, scope: Scope): string {
    return [`${relation.from} ${scope.alias}`, ...(scope.joins?.clauses ?? [])].join(' ');
  }

  pipeline(transformations: readonly BoundTransformation[], input: ApplyRelation): ApplyRelation {
    let current = input;
    for (const node of transformations) current = this.transformation(node, current);
    return current;
  }

  /** The flattened columns of a type's properties, as `complexLeaves` names them. */
  leaves(type: StructuredType): { path: readonly Property[]; column: string; property: Property }[] {
    return [...type.properties.values()].filter((p) => !(p.collection && p.type.kind === 'complex')).flatMap((p) => this.compiler.leaves(type, p));
  }

  /** The flattened column of the value at `names` of a (nested) output type. */
  column(type: StructuredType, names: readonly string[]): string {
    let owner = type;
    let prefix = '';
    for (const [i, name] of names.entries()) {
      const property = owner.properties.get(name) as Property;
      if (i === names.length - 1) return prefix + columnName(owner, property, this.compiler.mapping);
      prefix += `${columnName(owner, property, this.compiler.mapping)}_`;
      owner = (property.type as { type: StructuredType }).type;
    }
    throw new Error('internal error: an empty grouping path');
  }

  quote(column: string): string {
    return this.compiler.dialect.quote(column);
  }

  transformation(node: BoundTransformation, input: ApplyRelation): ApplyRelation {
    const c = this.compiler;
    switch (node.kind) {
      case 'identity':
        return input;
      case 'filter':
      case 'search': {
        if (node.kind === 'filter' && usesThese([node.predicate])) input = this.shared(input);
        const scope = this.scope(input);
        const where = node.kind === 'filter' ? c.condition(node.predicate, scope) : c.search(node.search, scope);
        return { ...input, from: `(SELECT ${scope.alias}.* FROM ${this.fromOf(input, scope)} WHERE ${where})`, type: node.output };
      }
      case 'compute': {
        if (usesThese(node.items.map((item) => item.expression))) input = this.shared(input);
        const scope = this.scope(input);
        const items = node.items.map((item) => `${c.expression(item.expression, scope)} AS ${this.quote(this.column(node.output, [item.alias]))}`);
        const from = `(SELECT ${scope.alias}.*, ${items.join(', ')} FROM ${this.fromOf(input, scope)})`;
        if (input.presence === undefined) return { ...input, from, type: node.output };
        // Every row has the computed values.
        const aliases = node.items.map((item) => item.alias);
        return { ...input, from, type: node.output, presence: { ...input.presence, sets: input.presence.sets.map((set) => [...set, ...aliases]) } };
      }
      case 'orderby': {
        const items = node.items;
        return { ...input, order: (scope) => this.orderItems(items, scope) };
      }
      case 'top':
      case 'skip': {
        const scope = this.scope(input);
        const order = this.totalOrder(input, scope);
        const count = c.value(node.count, 'rowCount');
        const paging = node.kind === 'top' ? c.dialect.paging(count, undefined) : c.dialect.paging(undefined, count);
        return { ...input, from: `(SELECT ${scope.alias}.* FROM ${this.fromOf(input, scope)} ORDER BY ${order} ${paging})` };
      }
      case 'rank':
        return this.rank(node, input);
      case 'aggregate':
        return this.aggregate([], [], node.aggregates, node.output, input);
      case 'groupby': {
        if (node.recursive !== undefined) {
          return (rollupRecursive as RollupRecursiveCompiler)(this, node, input);
        }
        const last = node.apply[node.apply.length - 1];
        if (last !== undefined && last.kind !== 'aggregate') {
          if (node.sets !== undefined) throw unsupported('a groupby() with rollup whose nested transformations do not end with aggregate()', last);
          if (last.kind === 'nest') return (groupNest as GroupNestCompiler)(this, node.keys, node.apply.slice(0, -1), last, node.output, input);
          return this.groupRows(node.keys, node.apply, node.output, input);
        }
        const steps = node.apply.slice(0, -1);
        const aggregates = last?.kind === 'aggregate' ? last.aggregates : [];
        if (node.sets !== undefined) return this.rollup(node.keys, node.sets, steps, aggregates, node.output, input);
        const ranked = steps.findIndex((step) => step.kind === 'rank');
        if (ranked >= 0) {
          // A ranking before the aggregate (`groupby((k),topcount(2,v)/aggregate(…))`, example 102).
          const [numbered, kept] = this.rankedInGroups(node.keys, steps.slice(0, ranked), steps[ranked] as RankNode, input);
          return this.aggregate(node.keys, [kept, ...steps.slice(ranked + 1)], aggregates, node.output, numbered);
        }
        return this.aggregate(node.keys, steps, aggregates, node.output, input);
      }
      case 'concat':
        return this.concat(node.branches, node.output, input);
      case 'join': {
        if (input.presence !== undefined) throw unsupported('join() of rows of different properties (after rollup() or concat())', node);
        const scope = this.scope(input);
        const { from, stored } = joinSelect(node, scope, () => this.fromOf(input, scope), {
          compiler: c,
          nested: (apply, table, set) => {
            const output = (apply.at(-1) as BoundTransformation).output;
            return new SqlApplyCompiler(c, set, `${this.alias()}j`).relationOver({ transformations: apply, output, entity: true }, table, '$apply').from;
          },
        });
        return {
          from,
          type: node.output,
          entity: false,
          ...(input.with === undefined ? {} : { with: input.with }),
          ...(stored === undefined ? {} : { stored }),
        };
      }
      case 'addnested': {
        if (input.presence !== undefined) throw unsupported('addnested() of rows of different properties (after rollup() or concat())', node);
        const scope = this.scope(input);
        const from = (nesting as NestingCompiler).addnested(node, scope, () => this.fromOf(input, scope), c);
        return { ...input, from, type: node.output };
      }
      case 'custom':
        throw unsupported(`the custom transformation '${node.name}' (the service defines it in memory only)`, node);
      case 'nest':
        return this.nest(node, input);
      case 'ancestors':
      case 'descendants':
      case 'traverse':
        return (hierarchy as HierarchyCompiler)(this, node, input);
    }
  }

  /**
   * `nest`: one row, each item's rows (its pipeline over the input, read once per item from a
   * common table expression) a JSON array column in their kept order (else by every column).
   */
  private nest(node: Extract<BoundTransformation, { kind: 'nest' }>, input: ApplyRelation): ApplyRelation {
    if (input.presence !== undefined) throw unsupported('nest() of rows of different properties (after rollup() or concat())', node);
    const shared = node.items.length > 1 ? this.shared(input) : input;
    const columns = node.items.map((item) => {
      const relation = this.pipeline(item.apply, shared);
      if (relation.presence !== undefined) throw unsupported('rows of different properties (rollup(), concat()) inside nest()', node);
      const array = this.nestedArray(relation, this.scope(relation));
      return `${array} AS ${this.quote(this.column(node.output, [item.alias]))}`;
    });
    return { from: `(SELECT ${columns.join(', ')})`, type: node.output, entity: false, ...(input.with === undefined ? {} : { with: input.with }) };
  }

  /**
   * `rank` (topcount … bottomsum), in the value's order (highest first for `top`), null values last
   * either way: `count` an ORDER BY … LIMIT (a limit computed from the input: the rows numbered up
   * to it); `percent` and `sum` the fewest rows (nulls counted as 0) whose values reach the limit
   * (`percent`: that percentage of the total): a row is kept until the sum of the rows before it
   * first reaches the limit. Sums in doubles, in that order, as the reference adds them.
   */
  private rank(node: Extract<BoundTransformation, { kind: 'rank' }>, input: ApplyRelation): ApplyRelation {
    const c = this.compiler;
    const value = node.value;
    const direction = node.direction === 'top' ? 'desc' : 'asc';
    const order = (scope: Scope): string => this.rankOrder(value, direction, scope);
    // A limit computed from the input ($these): the input named, the limit a scalar subquery over it.
    const over = node.limitOver;
    const ordered: ApplyRelation = { ...(over === undefined ? input : this.shared(input)), order };
    const scope = this.scope(ordered);
    if (node.measure === 'count' && over !== undefined) {
      // The rows numbered in order; those numbered up to the limit (none where it is null).
      const number = this.quote(`~number ${scope.alias}`);
      const numbered = `(SELECT ${scope.alias}.*, ROW_NUMBER() OVER (ORDER BY ${this.totalOrder(ordered, scope)}) AS ${number} FROM ${this.fromOf(ordered, scope)})`;
      const outer = this.alias();
      return { ...ordered, from: `(SELECT ${outer}.* FROM ${numbered} ${outer} WHERE ${outer}.${number} <= ${c.expression(over, scope)})` };
    }
    if (node.measure === 'count') {
      const paging = c.dialect.paging(c.value(node.limit, 'rowCount'), undefined);
      return { ...ordered, from: `(SELECT ${scope.alias}.* FROM ${this.fromOf(ordered, scope)} ORDER BY ${this.totalOrder(ordered, scope)} ${paging})` };
    }
    const amount = `${c.dialect.double(`COALESCE(${c.expression(value, scope)}, 0)`)}`;
    // Helper columns under names no OData identifier has (they ride along in later `*` selects).
    const before = this.quote(`~before ${scope.alias}`);
    const total = this.quote(`~total ${scope.alias}`);
    const sequence = this.quote(`~sequence ${scope.alias}`);
    const reached = this.quote(`~reached ${scope.alias}`);
    const rowOrder = this.totalOrder(ordered, scope);
    const frame = `ORDER BY ${rowOrder} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING`;
    const sums = `SUM(${amount}) OVER (${frame}) AS ${before}, SUM(${amount}) OVER () AS ${total}, ROW_NUMBER() OVER (ORDER BY ${rowOrder}) AS ${sequence}`;
    const windowed = `(SELECT ${scope.alias}.*, ${sums} FROM ${this.fromOf(ordered, scope)})`;
    const middle = this.alias();
    const limit = over === undefined ? c.value(node.limit, 'double') : c.dialect.double(c.expression(over, scope));
    const target = node.measure === 'percent' ? `(${middle}.${total} * ${limit}) / 100` : limit;
    // Once the sum before a row reaches the target, that row and every later one are out, though
    // values may be negative and the sum fall back below it (a null target: every row).
    const reaches = `${over === undefined ? '' : `${target} IS NULL OR `}COALESCE(${middle}.${before}, 0) >= ${target}`;
    const flag = `MAX(CASE WHEN ${reaches} THEN 1 ELSE 0 END) OVER (ORDER BY ${middle}.${sequence} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`;
    const flagged = `(SELECT ${middle}.*, ${flag} AS ${reached} FROM ${windowed} ${middle})`;
    const outer = this.alias();
    return { ...ordered, from: `(SELECT ${outer}.* FROM ${flagged} ${outer} WHERE ${outer}.${reached} = 0)` };
  }

  /**
   * A ranking's order: by the value (highest first for `desc`), null values last either way. A
   * descending order puts nulls last already; an ascending one needs a first key for them.
   */
  private rankOrder(value: BoundExpression, direction: 'asc' | 'desc', scope: Scope): string {
    const items = this.orderItems([{ expression: value, direction }], scope);
    return direction === 'desc' ? items : `(CASE WHEN ${this.compiler.expression(value, scope)} IS NULL THEN 1 ELSE 0 END) ASC, ${items}`;
  }

  /** ORDER BY items of `items` over `scope` (nulls first ascending, strings by code point, NaN lowest). */
  orderItems(items: readonly BoundOrderByItem[], scope: Scope): string {
    return orderByItems(
      this.compiler,
      { entityType: scope.type, orderBy: items, select: { all: true, properties: [], navigation: [] }, expand: [] },
      scope,
      '$apply',
    );
  }

  /**
   * The order of `relation`'s rows for a page: the kept order, then the key of entities (or every
   * column of other rows), so that a page is the same on every run.
   */
  totalOrder(relation: ApplyRelation, scope: Scope): string {
    const kept = relation.order?.(scope);
    const c = this.compiler;
    // Joined rows (a join's alias in the rows of an entity type): the key, then each joined entity's
    // key (the reference orders a row's related entities by it), nulls (an outerjoin's none) first.
    const joined = relation.entity ? [] : joinedKeys(relation.type);
    const joinedColumns = joined.flatMap(({ alias, key }) => {
      const leaf = this.leaves(relation.type).find((l) => l.path[0] === alias && l.path[1] === key);
      if (leaf === undefined) return [];
      const column = `${scope.alias}.${this.quote(leaf.column)}`;
      return [isPrimitive(fromReference(key.type), 'Edm.String') ? c.dialect.binary(column) : column];
    });
    const columns =
      relation.entity || (joined.length > 0 && joinedColumns.length === joined.length)
        ? [...relation.type.key.map((key) => c.column(relation.type, relation.type.properties.get(key) as Property, scope.alias)), ...joinedColumns]
        : this.leaves(relation.type)
            .filter((leaf) => !isJsonLeaf(leaf))
            .map((leaf) => {
              const column = `${scope.alias}.${this.quote(leaf.column)}`;
              return isPrimitive(fromReference(leaf.property.type), 'Edm.String') ? c.dialect.binary(column) : column;
            });
    // Rows of different concat branches may agree on every column: which properties they have tells them apart.
    if (relation.presence !== undefined) columns.push(`${scope.alias}.${this.quote(relation.presence.column)}`);
    const tail = columns.map((column) => (c.dialect.nullsFirstByDefault ? `${column} ASC` : `${column} ASC NULLS FIRST`));
    const all = [...(kept === undefined || kept === '' ? [] : [kept]), ...tail];
    // Rows with no columns at all (none are made): any order.
    return all.length === 0 ? '1' : all.join(', ');
  }

  /**
   * `groupby` with `rollup(…)`: the groups of each grouping set, each row with its set's grouping
   * properties only (the presence column says which). Where the dialect has grouping sets, one
   * `GROUP BY GROUPING SETS` whose `GROUPING(…)` gives the presence; elsewhere (and for aggregates
   * along navigation paths, or input rows of several shapes) one `GROUP BY` per set over the
   * input as a common table expression, their rows one after the other.
   */
  private rollup(
    keys: readonly BoundGroupKey[],
    sets: readonly (readonly number[])[],
    steps: readonly BoundTransformation[],
    aggregates: readonly BoundAggregate[],
    output: StructuredType,
    input: ApplyRelation,
  ): ApplyRelation {
    const names = sets.map((set) => [...set.map((i) => (keys[i] as BoundGroupKey).names.join('/')), ...aggregates.map((a) => a.alias)]);
    const presence: ApplyPresence = { column: PRESENCE_COLUMN, sets: names };
    // GROUPING(…) must repeat the grouped expressions: not where one holds a parameter (a dynamic
    // property's name, a Duration's key), which the statement numbers apart (model 1318, seed 2901).
    const plain = keys.every((key) => !isUntyped(key.path.type) && !isPrimitive(key.path.type, 'Edm.Duration'));
    if (
      this.compiler.dialect.groupingSets !== undefined &&
      plain &&
      input.presence === undefined &&
      aggregates.every((a) => a.through === undefined && a.from === undefined)
    ) {
      return { ...this.aggregate(keys, steps, aggregates, output, input, sets), presence };
    }
    const shared = this.shared({ ...input, order: undefined });
    const leaves = this.leaves(output);
    const parts = sets.map((set, i) => {
      const subset = set.map((k) => keys[k] as BoundGroupKey);
      const result = this.aggregate(subset, steps, aggregates, output, shared);
      const own = new Set([...subset.map((key) => this.column(output, key.names)), ...aggregates.map((a) => this.column(output, [a.alias]))]);
      const alias = this.alias();
      const columns = leaves.map(
        (leaf) => `${own.has(leaf.column) ? `${alias}.${this.quote(leaf.column)}` : this.nullOf(leaf.property)} AS ${this.quote(leaf.column)}`,
      );
      columns.push(`${this.compiler.value(i, 'integer')} AS ${this.quote(PRESENCE_COLUMN)}`);
      return `SELECT ${columns.join(', ')} FROM ${result.from} ${alias}`;
    });
    return { from: `(${parts.join(' UNION ALL ')})`, type: output, entity: false, presence };
  }

  /** A null of a column's type (PostgreSQL's UNION matches no text[] with a text null). */
  private nullOf(property: Property): string {
    const type = fromReference(property.type);
    if (!property.collection) return this.compiler.value(null, parameterKind(type, type));
    const json = this.compiler.dialect.complexCollections;
    if (property.type.kind === 'complex' && json !== undefined)
      return this.compiler.dialect.castsToCollectionType === false ? 'NULL' : `CAST(NULL AS ${json.columnType})`;
    return this.compiler.dialect.castsToCollectionType === false ? 'NULL' : `CAST(NULL AS ${columnType(property, this.compiler.dialect)})`;
  }

  /**
   * `groupby(keys, steps/aggregate(aggregates))`, or `aggregate(aggregates)` without keys: the
   * row-wise `steps` become conditions inside the aggregates (a group stays one when its rows are
   * all filtered out) and computed columns; aggregates along navigation paths scalar subqueries.
   */
  /**
   * Row-wise steps before an aggregate (`filter`, `search`, `compute`, `identity`; others are left
   * to the caller): the filters and searches as conditions over a scope of the rows, which the
   * aggregates read, and the rows with the computed columns.
   */
  rowWise(steps: readonly BoundTransformation[], input: ApplyRelation): { rows: ApplyRelation; conditions: ((scope: Scope) => string)[] } {
    const c = this.compiler;
    let rows = input;
    const conditions: ((scope: Scope) => string)[] = [];
    for (const step of steps) {
      if (step.kind === 'filter') {
        const predicate = step.predicate;
        conditions.push((scope) => c.condition(predicate, scope));
      } else if (step.kind === 'search') {
        const search: BoundSearch = step.search;
        conditions.push((scope) => c.search(search, scope));
      } else if (step.kind === 'compute') rows = this.transformation(step, rows);
    }
    return { rows, conditions };
  }

  aggregate(
    keys: readonly BoundGroupKey[],
    steps: readonly BoundTransformation[],
    aggregates: readonly BoundAggregate[],
    output: StructuredType,
    input: ApplyRelation,
    /** Grouping sets (indices into `keys`) for the dialect's `GROUPING SETS`, with the presence column. */
    sets?: readonly (readonly number[])[],
  ): ApplyRelation {
    const c = this.compiler;
    const dialect = c.dialect;
    for (const step of steps) {
      // $these inside groupby() is the group's rows: not compiled here.
      if ((step.kind === 'filter' && usesThese([step.predicate])) || (step.kind === 'compute' && usesThese(step.items.map((item) => item.expression))))
        throw unsupported(`'$these' inside groupby()`, step);
      if (step.kind !== 'identity' && step.kind !== 'filter' && step.kind !== 'search' && step.kind !== 'compute')
        throw unsupported(`the transformation '${step.kind}' inside groupby() before its aggregate()`, step);
    }
    const wise = this.rowWise(steps, input);
    const conditions = wise.conditions;
    let rows = wise.rows;
    // In a groupby's aggregate too (not in a plain aggregate(), whose rows are the whole input).
    const inGroup = keys.length > 0 ? aggregates.find((a) => a.kind === 'method' && usesThese([a.expression])) : undefined;
    if (inGroup !== undefined) throw unsupported(`'$these' inside groupby()`, inGroup);
    const related = aggregates.filter((a) => a.through !== undefined && a.from === undefined);
    if (aggregates.some((a) => a.through !== undefined && a.from !== undefined))
      throw unsupported(`'from' with an aggregate along a navigation path`, aggregates[0] as BoundAggregate);
    // Each aggregate along a navigation path, and each with `from` steps, reads the rows again.
    if (related.length > 0 || aggregates.some((a) => a.from !== undefined)) rows = this.shared(rows);
    const keep = (scope: Scope): string => conditions.map((condition) => condition(scope)).join(' AND ');
    const strings = (type: ExpressionType): boolean => isPrimitive(type, 'Edm.String') && !dialect.binaryEquality;
    const scope = this.scope(rows);
    const kept = keep(scope);
    const select: string[] = [];
    const groups: string[] = [];
    for (const key of keys) {
      const value = c.expression(key.path, scope);
      const column = this.quote(this.column(output, key.names));
      const grouped = this.groupExpression(key, scope, value);
      groups.push(grouped);
      // A value grouped by another expression (a dynamic property's JSON text, whose key parameter
      // makes the expressions differ on PostgreSQL and DuckDB; a string by code point; a Duration by
      // length of time): each group's value is any of its (equal) values.
      select.push(grouped === value ? `${value} AS ${column}` : `MIN(${value}) AS ${column}`);
    }
    void strings;
    const local = aggregates.filter((a) => a.through === undefined && a.from === undefined);
    const derived = aggregates.filter((a) => a.from !== undefined);
    for (const a of local) select.push(`${this.aggregateFunction(a, scope, kept)} AS ${this.quote(this.column(output, [a.alias]))}`);
    if (keys.length === 0) {
      // One row, also for no input rows: aggregate functions over the rows, subqueries for the related entities.
      for (const a of related) select.push(`${this.relatedAggregate(a, rows, [], keep, undefined)} AS ${this.quote(this.column(output, [a.alias]))}`);
      for (const a of derived) select.push(`${this.fromAggregate(a, rows, [], keep, undefined)} AS ${this.quote(this.column(output, [a.alias]))}`);
      const from = local.length === 0 ? '' : ` FROM ${this.fromOf(rows, scope)}`;
      return { from: `(SELECT ${select.join(', ')}${from})`, type: output, entity: false };
    }
    let by = groups.join(', ');
    const native = dialect.groupingSets;
    if (sets !== undefined && native !== undefined) {
      by = native.by(sets.map((set) => set.map((i) => groups[i] as string)));
      // The index of the row's set, from the bit mask of the keys it leaves out.
      const masks = sets.map((set) => groups.reduce((mask, _g, i) => (set.includes(i) ? mask : mask | (1 << (groups.length - 1 - i))), 0));
      const cases = masks.map((mask, i) => `WHEN ${mask} THEN ${i}`).join(' ');
      select.push(`(CASE ${native.grouping(groups)} ${cases} END) AS ${this.quote(PRESENCE_COLUMN)}`);
    }
    const grouped = `(SELECT ${select.join(', ')} FROM ${this.fromOf(rows, scope)} GROUP BY ${by})`;
    if (related.length === 0 && derived.length === 0) return { from: grouped, type: output, entity: false };
    const g = this.alias();
    const items = [
      ...related.map((a) => `${this.relatedAggregate(a, rows, keys, keep, { alias: g, output })} AS ${this.quote(this.column(output, [a.alias]))}`),
      ...derived.map((a) => `${this.fromAggregate(a, rows, keys, keep, { alias: g, output })} AS ${this.quote(this.column(output, [a.alias]))}`),
    ];
    return { from: `(SELECT ${g}.*, ${items.join(', ')} FROM ${grouped} ${g})`, type: output, entity: false };
  }

  /** The expression a grouping key groups by (see `aggregate`); `value` is the key's value. */
  /**
   * A `groupby` whose nested transformations end in other than `aggregate` (Data Aggregation
   * 3.2.3.1): each row they give, with the group's grouping properties. Row-wise ones (`filter`,
   * `search`, `compute`) run on the whole input (a group's rows pass them as they would alone);
   * then a ranking by count (`topcount`, `bottomcount`) or an `orderby` with `top`/`skip` numbers each
   * group's rows in that order (`ROW_NUMBER() OVER (PARTITION BY` the grouping values, strings by
   * code point) and keeps those in range. Other endings are refused.
   */
  private groupRows(keys: readonly BoundGroupKey[], nested: readonly BoundTransformation[], output: StructuredType, input: ApplyRelation): ApplyRelation {
    const c = this.compiler;
    let rows = input;
    let at = 0;
    for (; at < nested.length; at++) {
      const step = nested[at] as BoundTransformation;
      if (step.kind === 'identity') continue;
      if (step.kind !== 'filter' && step.kind !== 'search' && step.kind !== 'compute') break;
      // $these inside groupby() is the group's rows: not compiled here.
      if ((step.kind === 'filter' && usesThese([step.predicate])) || (step.kind === 'compute' && usesThese(step.items.map((item) => item.expression))))
        throw unsupported(`'$these' inside groupby()`, step);
      rows = this.transformation(step, rows);
    }
    if (rows.presence !== undefined)
      throw unsupported('groupby() of rows of different properties (after rollup() or concat()) without aggregate()', nested[0] as BoundTransformation);
    // The order within each group, and which rows of it are kept: [from, to) of the numbers 1, 2, ….
    let order: ((scope: Scope) => string) | undefined;
    let from = 0;
    let to = Number.POSITIVE_INFINITY;
    const tail = nested.slice(at);
    const rank = tail[0]?.kind === 'rank' && tail.length === 1 ? tail[0] : undefined;
    if (rank !== undefined) {
      if (rank.measure !== 'count' || rank.limitOver !== undefined)
        throw unsupported(
          `the transformation '${rank.measure === 'count' ? 'topcount' : `top${rank.measure}`}' with this limit inside groupby() without aggregate()`,
          rank,
        );
      const value = rank.value;
      const direction = rank.direction === 'top' ? 'desc' : 'asc';
      order = (scope) => this.rankOrder(value, direction, scope);
      to = rank.limit;
    } else {
      for (const [i, step] of tail.entries()) {
        if (step.kind === 'orderby' && i === 0) {
          const items = step.items;
          order = (scope) => this.orderItems(items, scope);
        } else if (step.kind === 'top') to = Math.min(to, from + step.count);
        else if (step.kind === 'skip') from = Math.min(from + step.count, to);
        else
          throw unsupported(
            `the transformation '${step.kind}' at the end of groupby() (only filter, search, compute, then orderby, top, skip, a topcount, or a nest)`,
            step,
          );
      }
    }
    const ordered: ApplyRelation = order === undefined ? rows : { ...rows, order };
    const scope = this.scope(ordered);
    const grouped = new Set(keys.map((key) => key.names[0]));
    const columns = keys.map((key) => `${c.expression(key.path, scope)} AS ${this.quote(this.column(output, key.names))}`);
    const own = this.leaves(rows.type);
    for (const leaf of this.leaves(output)) {
      if (grouped.has(leaf.path[0]?.name as string)) continue;
      const names = leaf.path.map((p) => p.name).join('/');
      const found = own.find((candidate) => candidate.path.map((p) => p.name).join('/') === names);
      if (found === undefined) throw unsupported(`the property '${names}' of a groupby() without aggregate()`, nested[0] as BoundTransformation);
      columns.push(`${scope.alias}.${this.quote(found.column)} AS ${this.quote(leaf.column)}`);
    }
    // Collections of complex values: a JSON column each, no leaves (seed 3202, model 1813).
    for (const property of output.properties.values()) {
      if (!property.collection || property.type.kind !== 'complex' || grouped.has(property.name)) continue;
      const own = rows.type.properties.get(property.name);
      if (own === undefined) throw unsupported(`the property '${property.name}' of a groupby() without aggregate()`, nested[0] as BoundTransformation);
      columns.push(`${scope.alias}.${this.quote(this.column(rows.type, [property.name]))} AS ${this.quote(this.column(output, [property.name]))}`);
    }
    const base = { type: output, entity: false, ...(rows.with === undefined ? {} : { with: rows.with }) };
    if (from === 0 && to === Number.POSITIVE_INFINITY) return { ...base, from: `(SELECT ${columns.join(', ')} FROM ${this.fromOf(ordered, scope)})` };
    if (to <= from) return { ...base, from: `(SELECT ${columns.join(', ')} FROM ${this.fromOf(ordered, scope)} WHERE 1 = 0)` };
    const partition = keys.map((key) => this.groupExpression(key, scope)).join(', ');
    const number = this.quote(`~number ${scope.alias}`);
    const window = `ROW_NUMBER() OVER (${partition === '' ? '' : `PARTITION BY ${partition} `}ORDER BY ${this.totalOrder(ordered, scope)})`;
    const numbered = `(SELECT ${columns.join(', ')}, ${window} AS ${number} FROM ${this.fromOf(ordered, scope)})`;
    const outer = this.alias();
    const range = [
      ...(from > 0 ? [`${outer}.${number} > ${c.value(from, 'rowCount')}`] : []),
      ...(to < Number.POSITIVE_INFINITY ? [`${outer}.${number} <= ${c.value(to, 'rowCount')}`] : []),
    ];
    return { ...base, from: `(SELECT ${outer}.* FROM ${numbered} ${outer} WHERE ${range.join(' AND ')})` };
  }

  /**
   * A ranking by count (`topcount`, `bottomcount`) inside a `groupby` before its `aggregate`: each
   * row numbered within its group in the ranking's order (`ROW_NUMBER() OVER (PARTITION BY` the
   * grouping values), after the `compute` steps before it; and the filter of the numbers in range,
   * which the aggregate takes as a condition (a group whose rows are all left out stays one, as in
   * the reference). Other rankings, and filters before the ranking, are refused.
   */
  private rankedInGroups(
    keys: readonly BoundGroupKey[],
    before: readonly BoundTransformation[],
    rank: RankNode,
    input: ApplyRelation,
  ): [ApplyRelation, BoundTransformation] {
    let rows = input;
    for (const step of before) {
      if (step.kind === 'identity') continue;
      if (step.kind !== 'compute' || usesThese(step.items.map((item) => item.expression)))
        throw unsupported(`the transformation '${step.kind}' before a ranking inside groupby() before its aggregate()`, step);
      rows = this.transformation(step, rows);
    }
    if (rank.measure !== 'count' || rank.limitOver !== undefined)
      throw unsupported(
        `the transformation '${rank.measure === 'count' ? 'topcount' : `top${rank.measure}`}' with this limit inside groupby() before its aggregate()`,
        rank,
      );
    if (rows.presence !== undefined) throw unsupported('a ranking inside groupby() over rows of different properties (after rollup() or concat())', rank);
    const value = rank.value;
    const direction = rank.direction === 'top' ? 'desc' : 'asc';
    const ordered: ApplyRelation = { ...rows, order: (scope) => this.rankOrder(value, direction, scope) };
    const scope = this.scope(ordered);
    const partition = keys.map((key) => this.groupExpression(key, scope)).join(', ');
    const window = `ROW_NUMBER() OVER (${partition === '' ? '' : `PARTITION BY ${partition} `}ORDER BY ${this.totalOrder(ordered, scope)})`;
    const number = outputProperty(RANK_NUMBER, referenceOf(INT64) as never);
    const type = extendedType(rows.type, [number]);
    const numbered: ApplyRelation = {
      ...rows,
      order: undefined,
      type,
      from: `(SELECT ${scope.alias}.*, ${window} AS ${this.quote(this.column(type, [RANK_NUMBER]))} FROM ${this.fromOf(ordered, scope)})`,
    };
    const span = rank.span;
    const path: BoundExpression = { kind: 'path', root: { kind: 'it' }, steps: [{ kind: 'property', property: number, span }], type: INT64, span };
    const limit: BoundExpression = { kind: 'literal', value: BigInt(rank.limit), type: INT64, span };
    const predicate: BoundExpression = { kind: 'binary', operator: 'le', left: path, right: limit, type: BOOLEAN, operandType: INT64, span };
    return [numbered, { kind: 'filter', predicate, output: type, span }];
  }

  groupExpression(key: BoundGroupKey, scope: Scope, value = this.compiler.expression(key.path, scope)): string {
    const dialect = this.compiler.dialect;
    if (isUntyped(key.path.type)) return `(${value})`;
    if (isPrimitive(key.path.type, 'Edm.String') && !dialect.binaryEquality) return dialect.binary(value);
    if (isPrimitive(key.path.type, 'Edm.Duration')) return this.compiler.durationKey(key.path, scope);
    return value;
  }

  /**
   * An aggregate with `from` steps (Data Aggregation 3.2.1.5): the aggregate per group of every
   * step's properties, then each step's method over the values, grouped by the later steps'
   * properties, as nested derived tables; the last one row, as a scalar subquery (of the group's
   * rows, `group`, when grouped).
   */
  private fromAggregate(
    a: BoundAggregate,
    rows: ApplyRelation,
    keys: readonly BoundGroupKey[],
    keep: (scope: Scope) => string,
    group: { alias: string; output: StructuredType } | undefined,
  ): string {
    const c = this.compiler;
    const dialect = c.dialect;
    const steps = a.from ?? [];
    // The group's rows are read inside derived tables: an outer reference there (MariaDB cannot).
    if (keys.length > 0 && dialect.correlatedDerivedTables === false)
      throw unsupported(`'from' inside groupby() on ${dialect.displayName} (a derived table cannot read the group)`, a);
    const scope = this.scope(rows);
    const conditions: string[] = [];
    conditions.push(...this.inGroup(keys, scope, group, keep));
    // Every step's grouping expressions, as columns k0, k1, … of the innermost table.
    const owners: number[] = [];
    const expressions: string[] = [];
    steps.forEach((step, i) => {
      for (const key of step.keys) {
        expressions.push(this.groupExpression(key, scope));
        owners.push(i);
      }
    });
    const column = (i: number): string => this.quote(`k${i}`);
    const v = this.quote('v');
    const base = { ...a, from: undefined, type: (steps[0] as BoundFromStep).input } as BoundAggregate;
    const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
    let sql =
      `SELECT ${[...expressions.map((e, i) => `${e} AS ${column(i)}`), `${this.aggregateFunction(base, scope, '')} AS ${v}`].join(', ')} ` +
      `FROM ${this.fromOf(rows, scope)}${where}${expressions.length === 0 ? '' : ` GROUP BY ${expressions.join(', ')}`}`;
    steps.forEach((step, i) => {
      const t = this.alias();
      const remaining = owners.flatMap((owner, k) => (owner > i ? [`${t}.${column(k)}`] : []));
      const type = outputType('from', [outputProperty('v', referenceOf(step.input) as never)]);
      const path: BoundPath = {
        kind: 'path',
        root: { kind: 'it' },
        steps: [{ kind: 'property', property: type.properties.get('v') as Property, span: step.span }],
        type: step.input,
        span: step.span,
      };
      const value = this.aggregateFunction(
        { kind: 'method', alias: 'v', type: step.type, method: step.method, expression: path, span: step.span },
        { alias: t, type, set: this.set, variables: new Map() },
        '',
      );
      const carried = owners.flatMap((owner, k) => (owner > i ? [`${t}.${column(k)} AS ${column(k)}`] : []));
      sql = `SELECT ${[...carried, `${value} AS ${v}`].join(', ')} FROM (${sql}) ${t}${remaining.length === 0 ? '' : ` GROUP BY ${remaining.join(', ')}`}`;
    });
    const z = this.alias();
    return `(SELECT ${z}.${v} FROM (${sql}) ${z})`;
  }

  /**
   * The conditions that a row of `scope` belongs to the group `group` (its grouping values, null
   * equal to null, strings by code point) and passes the group's nested filters (`keep`).
   */
  private inGroup(
    keys: readonly BoundGroupKey[],
    scope: Scope,
    group: { alias: string; output: StructuredType } | undefined,
    keep: (scope: Scope) => string,
  ): string[] {
    const c = this.compiler;
    const dialect = c.dialect;
    const conditions = keys.map((key) => {
      const g = `${group?.alias}.${this.quote(this.column(group?.output as StructuredType, key.names))}`;
      const strings = isPrimitive(key.path.type, 'Edm.String') && !dialect.binaryEquality;
      return dialect.notDistinct(
        () => (strings ? dialect.binary(c.expression(key.path, scope)) : c.expression(key.path, scope)),
        () => (strings ? dialect.binary(g) : g),
      );
    });
    const kept = keep(scope);
    return kept === '' ? conditions : [...conditions, kept];
  }

  /** An aggregate expression over the rows of `scope`, as the aggregate function of an expression computes it. */
  aggregateValue(a: BoundAggregate, scope: Scope): string {
    return this.compiler.withOption(this.compiler.option ?? '$filter', () => this.aggregateFunction(a, scope, ''));
  }

  /** An aggregate function over the rows of `scope` (those meeting `keep` when it is not empty). */
  private aggregateFunction(a: BoundAggregate, scope: Scope, keep: string): string {
    const c = this.compiler;
    const dialect = c.dialect;
    const when = (value: string): string => (keep === '' ? value : `(CASE WHEN ${keep} THEN ${value} END)`);
    if (a.kind === 'count') return keep === '' ? 'COUNT(*)' : `COUNT(${when('1')})`;
    const input = a.expression.type;
    const x = when(c.expression(a.expression, scope));
    if (typeof a.method === 'object') return customSqlAggregate(a.method, dialect, x, a, c.option ?? '$apply');
    switch (a.method) {
      case 'countdistinct':
        // Durations stored as text count by their length of time (`-P0D` and `PT0S` are one value; seed 2837, model 1110).
        if (isPrimitive(input, 'Edm.Duration')) return `COUNT(DISTINCT ${when(c.durationKey(a.expression, scope))})`;
        return `COUNT(DISTINCT ${isPrimitive(input, 'Edm.String') && !dialect.binaryEquality ? dialect.binary(x) : x})`;
      case 'sum':
        if (isIntegerType(input)) return dialect.int64Guard(this.integerSum(x), c.value(-(2n ** 63n) - 1n, 'decimal'), c.value(2n ** 63n, 'decimal'));
        if (isFloat(input)) return this.doubleSum(x);
        return `SUM(${x})`;
      case 'average':
        if (isPrimitive(input, 'Edm.Decimal')) return dialect.decimalDivide(`SUM(${x})`, `NULLIF(${dialect.integerAsDecimal(`COUNT(${x})`)}, 0)`);
        // Integers: the exact quotient of the exact sum, rounded once to a double, as the reference.
        if (isIntegerType(input))
          return dialect.double(dialect.decimalDivide(dialect.integerAsDecimal(this.integerSum(x)), `NULLIF(${dialect.integerAsDecimal(`COUNT(${x})`)}, 0)`));
        if (isFloat(input) && dialect.doubleSumOverflow !== undefined) return this.doubleAverage(this.doubleSum(dialect.double(x)), `COUNT(${x})`);
        return `AVG(${dialect.double(x)})`;
      case 'min':
      case 'max':
        return this.extreme(a.method, a, x);
    }
  }

  /**
   * The sum of Doubles. Where the engine's SUM fails past the largest double (PostgreSQL) or gives
   * a wrong total (MariaDB: 0), the values of 2^500 and more are summed apart, scaled by 2^-500
   * (exactly: a power of two), so that neither sum can overflow; a total beyond the largest double
   * is ±INF as in the reference (null where doubles have no INF).
   */
  private doubleSum(x: string): string {
    const c = this.compiler;
    const overflow = c.dialect.doubleSumOverflow;
    if (overflow === undefined) return `SUM(${x})`;
    const large = (): string => c.value(2 ** 500, 'double');
    const small = `SUM(CASE WHEN ABS(${x}) < ${large()} THEN ${x} END)`;
    const big = `SUM(CASE WHEN NOT (ABS(${x}) < ${large()}) THEN ${x} * ${c.value(2 ** -500, 'double')} END)`;
    // Repeated rather than through withValues: aggregates belong to this query, not to a derived table.
    const nan = c.dialect.notNaN === undefined ? '' : `WHEN NOT (${c.dialect.notNaN(big)}) THEN ${big} `;
    const beyond = overflow === 'infinity' ? `${big} * ${c.value(Number.POSITIVE_INFINITY, 'double')}` : 'NULL';
    return `(CASE WHEN ${big} IS NULL THEN ${small} ${nan}WHEN ABS(${big}) > ${c.value(Number.MAX_VALUE * 2 ** -500, 'double')} THEN ${beyond} ELSE ${big} * ${large()} + COALESCE(${small}, 0) END)`;
  }

  /**
   * The average of Doubles from their sum: the quotient, except where IEEE 754 rounds it to 0 (a
   * subnormal sum over several values, `8e-323` and `-7.4e-323`), which PostgreSQL's division
   * raises as an underflow instead (campaign seed 3119, model 2047): 0 there, as in the
   * reference. The check compares at 2^1001 times the sum, clamped at 1 so that it cannot overflow
   * (see the compiler's `doubleOperation`, whose quotient this is for a count). The sum is written
   * twice (it is an aggregate of this query, not a value of a derived table): twice `SUM`'s size.
   */
  private doubleAverage(sum: string, count: string): string {
    const c = this.compiler;
    // (LEAST as such, not the dialect's null-safe hook, which writes its operand twice: a null sum
    // gives null or 1 here, and either way the ELSE, null. The dialects with doubleSumOverflow have it.)
    const clamped = `LEAST(ABS(${sum}), ${c.value(1, 'double')})`;
    return `(CASE WHEN ${clamped} * ${c.value(2 ** 1001, 'double')} <= ${c.value(2 ** -74, 'double')} * ${count} THEN ${c.dialect.double('0')} ELSE ${sum} / NULLIF(${count}, 0) END)`;
  }

  /** The exact sum of integers, one size wider than Int64 where the dialect has it. */
  private integerSum(x: string): string {
    const dialect = this.compiler.dialect;
    const wider = dialect.widerIntegers?.int64;
    return dialect.integerSum?.(x) ?? `SUM(${wider === undefined ? x : `CAST(${x} AS ${wider})`})`;
  }

  /** `min`/`max` in the reference's order: strings by code point, enums by value, NaN lowest, Booleans false < true. */
  private extreme(method: 'min' | 'max', a: Extract<BoundAggregate, { kind: 'method' }>, x: string): string {
    const c = this.compiler;
    const dialect = c.dialect;
    const fn = method === 'min' ? 'MIN' : 'MAX';
    const type = a.expression.type;
    if (type.kind === 'enum') {
      if (type.type.isFlags) throw unsupported(`${method} of a flag enumeration value`, a);
      // By the members' values, then the value's (first) member name.
      const members = memberOrdinals(type.type);
      const ordinal = `(CASE ${x} ${members.map(([name, value]) => `WHEN ${c.value(name, 'string')} THEN ${c.value(value, 'integer')}`).join(' ')} END)`;
      const seen = new Set<number>();
      const back = members.filter(([, value]) => !seen.has(Number(value)) && seen.add(Number(value)));
      return `(CASE ${fn}(${ordinal}) ${back.map(([name, value]) => `WHEN ${c.value(value, 'integer')} THEN ${c.value(name, 'string')}`).join(' ')} END)`;
    }
    if (isPrimitive(type, 'Edm.Guid') || isPrimitive(type, 'Edm.Duration')) throw unsupported(`${method} of ${(type as { name: string }).name} values`, a);
    if (isPrimitive(type, 'Edm.Boolean')) {
      const number = `(CASE WHEN ${dialect.booleanCondition(x)} THEN 1 WHEN NOT ${dialect.booleanCondition(x)} THEN 0 END)`;
      return `(CASE ${fn}(${number}) WHEN 1 THEN ${dialect.booleanLiteral(true)} WHEN 0 THEN ${dialect.booleanLiteral(false)} END)`;
    }
    if (isPrimitive(type, 'Edm.String')) return dialect.extremeText?.(fn, x) ?? `${fn}(${dialect.binary(x)})`;
    const notNaN = dialect.notNaN;
    if (notNaN !== undefined && (isPrimitive(type, 'Edm.Double') || isPrimitive(type, 'Edm.Single'))) {
      // NaN is the lowest value (the reference's order; the database's NaN is the highest).
      if (method === 'max') return `COALESCE(MAX(CASE WHEN ${notNaN(x)} THEN ${x} END), MAX(${x}))`;
      return `(CASE WHEN MIN(CASE WHEN ${notNaN(x)} THEN 1 ELSE 0 END) = 0 THEN MAX(${x}) ELSE MIN(${x}) END)`;
    }
    return `${fn}(${x})`;
  }

  /**
   * An aggregate along a navigation path: over the related entities reached from the rows (of
   * the group `group` when keys are given), each once:
   * `(SELECT f(r.x) FROM related r WHERE EXISTS (SELECT 1 FROM rows a … WHERE a reaches r AND a is in the group))`.
   */
  private relatedAggregate(
    a: BoundAggregate,
    rows: ApplyRelation,
    keys: readonly BoundGroupKey[],
    keep: (scope: Scope) => string,
    group: { alias: string; output: StructuredType } | undefined,
  ): string {
    const c = this.compiler;
    const through = a.through as BoundPath;
    const scope = this.scope(rows);
    const hops: string[] = [];
    const conditions: string[] = [];
    let current: Scope = scope;
    let target: { from: string; join: string; scope: Scope } | undefined;
    for (const [i, step] of through.steps.entries()) {
      if (step.kind !== 'navigation') throw unsupported('aggregating along a path through a complex or derived type', step);
      const related = c.related(step, current);
      if (i === through.steps.length - 1) target = related;
      else {
        hops.push(`JOIN ${related.from} ON ${related.join}`);
        current = related.scope;
      }
    }
    if (target === undefined) throw unsupported('this aggregated path', a);
    conditions.push(target.join);
    conditions.push(...this.inGroup(keys, scope, group, keep));
    const exists = `EXISTS (SELECT 1 FROM ${this.fromOf(rows, scope)}${hops.length === 0 ? '' : ` ${hops.join(' ')}`} WHERE ${conditions.join(' AND ')})`;
    const value = this.aggregateFunction({ ...a, through: undefined } as BoundAggregate, { ...target.scope, variables: new Map() }, '');
    return `(SELECT ${value} FROM ${target.from} WHERE ${exists})`;
  }

  /**
   * `concat`: the branches' rows one after the other (UNION ALL), each branch's missing columns
   * null, and, where the branches' rows have different properties, the presence column that says
   * which properties each row has (see {@link ApplyRelation.presence}).
   */
  private concat(branches: readonly (readonly BoundTransformation[])[], output: StructuredType, input: ApplyRelation): ApplyRelation {
    // Every branch reads the input: one common table expression, however many branches and concats.
    const shared = this.shared({ ...input, order: undefined });
    const results = branches.map((branch) => this.pipeline(branch, shared));
    const entity = results.every((r) => r.entity && r.type === input.type) && output === input.type;
    // Branches that keep the input's rows (entities, or a join's rows): every column, hidden ones (dynamic properties, links) too.
    const same = results.every((r) => r.type === input.type && r.presence === undefined) && output === input.type;
    const leaves = this.leaves(output);
    const presence = same ? undefined : this.presence(results, output);
    const parts = results.map((result, i) => {
      const alias = this.alias();
      if (same) return `SELECT ${alias}.* FROM ${result.from} ${alias}`;
      const own = new Set(this.leaves(result.type).map((leaf) => leaf.column));
      const columns = leaves.map(
        (leaf) => `${own.has(leaf.column) ? `${alias}.${this.quote(leaf.column)}` : this.nullOf(leaf.property)} AS ${this.quote(leaf.column)}`,
      );
      if (presence !== undefined) columns.push(`${presence.index(i, alias)} AS ${this.quote(PRESENCE_COLUMN)}`);
      return `SELECT ${columns.join(', ')} FROM ${result.from} ${alias}`;
    });
    const from = `(${parts.join(' UNION ALL ')})`;
    return presence === undefined ? { from, type: output, entity } : { from, type: output, entity, presence: { column: PRESENCE_COLUMN, sets: presence.sets } };
  }

  /**
   * The sets of top-level properties the rows of `results` have, and, per branch, the SQL of a
   * row's index into them (a constant, or a CASE over the branch's own presence column);
   * `undefined` when every row has every property of `output`.
   */
  private presence(
    results: readonly ApplyRelation[],
    output: StructuredType,
  ): { sets: string[][]; index: (branch: number, alias: string) => string } | undefined {
    const sets: string[][] = [];
    const keys: string[] = [];
    const indexOf = (set: readonly string[]): number => {
      const key = [...set].sort().join('/');
      let index = keys.indexOf(key);
      if (index < 0) {
        index = keys.push(key) - 1;
        sets.push([...set]);
      }
      return index;
    };
    // Per branch: its rows' index, or the index of each of its own sets.
    const mapped = results.map((result) => (result.presence === undefined ? indexOf([...result.type.properties.keys()]) : result.presence.sets.map(indexOf)));
    const all = [...output.properties.keys()];
    if (sets.length === 1 && sets[0]?.length === all.length) return undefined;
    const index = (branch: number, alias: string): string => {
      const own = mapped[branch] as number | number[];
      if (typeof own === 'number') return String(own);
      const column = `${alias}.${this.quote((results[branch] as ApplyRelation).presence?.column ?? PRESENCE_COLUMN)}`;
      return `(CASE ${column} ${own.map((to, from) => `WHEN ${from} THEN ${to}`).join(' ')} END)`;
    };
    return { sets, index };
  }
}

/** Whether expressions use `$these/aggregate(…)` or `$these/$count` (their rows must then be named). */
function usesThese(expressions: readonly BoundExpression[]): boolean {
  return expressions.some((expression) => someExpression(expression, (node) => node.kind === 'aggregateValue' && node.collection === undefined));
}
