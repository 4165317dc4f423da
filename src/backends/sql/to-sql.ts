/**
 * `toSql`: compiles a bound query to parametrized SQL statements for one dialect (the list, the
 * count, and the pieces for composing), numbering the placeholders in the order of the text.
 */
import type { PlanCache } from '../../cache/plan-cache.js';
import { prepareForBackend, type BackendPreparation } from '../preparation.js';
import { spatialText } from './spatial-text.js';
import type { Property } from '../../model/model.js';
import type { BoundQuery } from '../../semantic/bound-ast.js';
import type { ExpressionType } from '../../semantic/types.js';
import type { Dialect, DialectName, SqlSearchHook } from './dialect.js';
import { DIALECTS } from './dialects/index.js';
import type { SqlMapping } from './mapping.js';
import { registerHierarchyTestCompiler, ROOT, SqlCompiler, type Scope } from './compiler.js';
import { hierarchyTestSql } from './hierarchy-functions.js';
import { orderByItems } from './ordering.js';
import { computedColumns, expansion, selected, selectedComputed } from './expansion.js';
import { selectOptionsSql } from './select-options.js';
import { MARK_START } from './parameters.js';
import { checkStatement, DEFAULT_MAX_STATEMENT_LENGTH, outOfRoom } from './statement-limits.js';
import {
  registerGroupNestCompiler,
  registerHierarchyCompiler,
  registerNestingCompiler,
  registerRollupRecursiveCompiler,
  SqlApplyCompiler,
  type ApplyPresence,
  type ApplyRelation,
} from './apply.js';
import { groupNest } from './apply-group-nest.js';
import { hierarchyRelation } from './hierarchy.js';
import { rollupRecursiveRelation } from './rollup-recursive.js';
import { NESTING } from './apply-nesting.js';
import { crossJoinOf } from '../../semantic/resource-path/crossjoin.js';

// addnested's and nest's JSON arrays, built as $expand builds them (expansion.ts reads apply.ts).
registerNestingCompiler(NESTING);
// ancestors', descendants' and traverse's recursive common table expressions.
registerHierarchyCompiler(hierarchyRelation);
registerGroupNestCompiler(groupNest);
// groupby's rolluprecursive: a portion per node of the hierarchy.
registerRollupRecursiveCompiler(rollupRecursiveRelation);
// The hierarchy functions' subqueries (Aggregation.isdescendant, …).
registerHierarchyTestCompiler(hierarchyTestSql);

export interface ToSqlOptions extends SqlMapping {
  readonly dialect: DialectName | Dialect;
  /** A custom `$search` condition (e.g. full-text search); the default matches terms in string columns. */
  readonly search?: SqlSearchHook;
  /**
   * A plan cache (`createPlanCache`): for a bound query it gave, the SQL is kept under these options
   * (the `scope` values included, so a tenant's statement never serves another tenant).
   */
  readonly cache?: PlanCache;
  /**
   * The longest statement, in characters (default 1 000 000): a query whose list or count
   * statement would be longer is a `query_too_complex` error (400), as is one needing more
   * parameters than the dialect's `maxParameters`.
   */
  readonly maxStatementLength?: number;
}

/** SQL text with its parameters, in placeholder order. */
export interface SqlStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** The list statement, the count statement (with `$count=true`), and the pieces for composing. */
export interface SqlQuery extends SqlStatement {
  readonly count?: SqlStatement;
  /** The `WHERE` condition (without the keyword), or `undefined`. */
  readonly where?: SqlStatement;
  /** The `ORDER BY` list (without the keyword), or `undefined`. Like `where` and `select`, compiled when first read. */
  readonly orderBy?: SqlStatement;
  /** The select list. */
  readonly select: SqlStatement;
  /**
   * Result column alias → property, to read rows back. A complex value is stored flattened: each
   * of its columns has the `path` of property names from the row (`['address', 'city']`) and
   * `property` is the leaf; for other properties `path` is `[property.name]`.
   */
  readonly columns: readonly { readonly alias: string; readonly property: Property; readonly path: readonly string[]; readonly column: string }[];
  /** Result column alias → name of an expansion (JSON text or value, or a count). */
  readonly expansions: readonly { readonly alias: string; readonly name: string }[];
  /**
   * Result column alias (`k0`, `k1`, …) → name of a computed property (`$compute`) that `$select`
   * returns, with its type: the value as the database computed it (read it with `readSqlRows`).
   */
  readonly computed: readonly { readonly alias: string; readonly name: string; readonly type: ExpressionType }[];
  /**
   * With `$apply` whose `concat` branches give rows of different properties: the result column
   * (`p0`) of the index into `sets` of the top-level properties each row has; `readSqlRows` leaves
   * the other properties out (Data Aggregation, examples 74 and 75). Absent otherwise.
   */
  readonly presence?: { readonly alias: string; readonly sets: readonly (readonly string[])[] };
}

function statement(build: (compiler: SqlCompiler) => string, dialect: Dialect, mapping: ToSqlOptions): SqlStatement {
  const maxLength = mapping.maxStatementLength ?? DEFAULT_MAX_STATEMENT_LENGTH;
  const compiler = new SqlCompiler(dialect, mapping, mapping.search, maxLength);
  let marked: string;
  try {
    marked = build(compiler);
  } catch (error) {
    // Nothing but an ODataError leaves toSql: a string or a stack the engine has no room for is one too.
    throw outOfRoom(error, maxLength);
  }
  // Placeholders numbered in the order of the text; a piece used twice has its values twice.
  const params: unknown[] = [];
  const sql = numbered(marked, compiler.params, params, dialect);
  checkStatement(sql, params.length, dialect, maxLength);
  // With positional `?` placeholders, text and parameters must agree one for one.
  if (dialect.placeholder(1) === '?') {
    const placeholders = sql.split('?').length - 1;
    if (placeholders !== params.length) {
      throw new Error(`internal error: ${placeholders} placeholders for ${params.length} parameters in ${dialect.name} SQL`);
    }
  }
  return { sql, params };
}

/**
 * `marked` with each marker (`\u0001<index>\u0002`, see MARK_START) replaced by the dialect's
 * next placeholder, its parameter appended to `params`: a scan instead of a regular expression
 * replace with a callback (this runs on every statement).
 */
function numbered(marked: string, values: readonly unknown[], params: unknown[], dialect: Dialect): string {
  let at = marked.indexOf(MARK_START);
  if (at < 0) return marked;
  let sql = '';
  let from = 0;
  while (at >= 0) {
    let end = at + 1;
    let index = 0;
    for (let c = marked.charCodeAt(end); c >= 48 && c <= 57; c = marked.charCodeAt(++end)) index = index * 10 + (c - 48);
    if (end > at + 1 && marked.charCodeAt(end) === 2) {
      params.push(values[index]);
      sql += marked.slice(from, at) + dialect.placeholder(params.length);
      from = end + 1;
      at = marked.indexOf(MARK_START, from);
    } else {
      at = marked.indexOf(MARK_START, at + 1);
    }
  }
  return sql + marked.slice(from);
}

/** What the backend preparation needs of a dialect: its fractional precision (kept per dialect: the pass keeps its units per precision). */
const preparations = new WeakMap<Dialect, BackendPreparation>();
function precisionOf(dialect: Dialect): BackendPreparation {
  let preparation = preparations.get(dialect);
  if (preparation === undefined) {
    const digits = dialect.fractionalSecondDigits;
    const precision = { digits: { 'Edm.DateTimeOffset': digits, 'Edm.TimeOfDay': digits, 'Edm.Duration': digits }, backend: 'SQL' };
    preparation = { backend: 'SQL', precision };
    preparations.set(dialect, preparation);
  }
  return preparation;
}

/** `toSql` without the plan cache (what the cache keeps), frozen. */
function toSqlUncached(bound: BoundQuery, options: ToSqlOptions): SqlQuery {
  return Object.freeze(toSql(bound, { ...options, cache: undefined }));
}

/**
 * Compiles a bound query to SQL for one dialect: the list statement, the count statement with
 * `$count=true`, and the `WHERE`, `ORDER BY` and select pieces for composing with other SQL.
 *
 * @example
 * ```ts
 * const { sql, params } = toSql(bindQuery("$filter=name eq 'a'&$top=10", { model, entitySet: 'assets' }), { dialect: 'postgres' });
 * ```
 */
export function toSql(query: BoundQuery, options: ToSqlOptions): SqlQuery {
  if (options.cache !== undefined) {
    // (The options as given: the cache leaves out its own entry; a copy without it only to compile.)
    return options.cache.derive(query, 'sql', options, toSqlUncached);
  }
  const dialect = typeof options.dialect === 'string' ? DIALECTS[options.dialect] : options.dialect;
  // Refusals, constants folded (they become parameters), literals finer than the database's fraction of a second (../preparation.ts).
  const bound = prepareForBackend(query, precisionOf(dialect));
  // With $apply, the statement reads the rows it gives (a derived table named t0) of its output type.
  const apply = bound.apply;
  const type = apply?.output ?? bound.entityType;
  // $these in $filter, $orderby and $compute: the rows of the entity set (after $apply: refused).
  const root: Scope = {
    alias: ROOT,
    type,
    set: bound.entitySet,
    variables: new Map(),
    // (A cross join's derived table holds the scope's parameters: of another compiler here, so not with a scope.)
    ...(apply === undefined && (options.scope === undefined || crossJoinOf(bound.entitySet) === undefined)
      ? { these: { from: new SqlCompiler(dialect, options, options.search).table(bound.entitySet), type, restricted: true as const } }
      : {}),
  };
  // The rows $apply gives, compiled with each statement's compiler (its parameters are the statement's).
  const relations = new WeakMap<SqlCompiler, ApplyRelation>();
  const relationOf = (compiler: SqlCompiler): ApplyRelation | undefined => {
    if (apply === undefined) return undefined;
    let relation = relations.get(compiler);
    if (relation === undefined) relations.set(compiler, (relation = new SqlApplyCompiler(compiler, bound.entitySet).relation(apply)));
    return relation;
  };

  // Without $select: every column-stored property (complex values are not columns yet).
  // Complex values come as their flattened columns, each with its path (see SqlQuery.columns).
  const leaves = selected(new SqlCompiler(dialect, options, options.search), bound, type, true);
  const columns = leaves.map((leaf, index) => ({
    alias: `c${index}`,
    property: leaf.property,
    path: leaf.path.map((p) => p.name),
    column: leaf.column,
    ...(leaf.item === undefined ? {} : { item: leaf.item }),
  }));
  // Computed properties get aliases of their own (never their names, which are only ever JSON keys, as parameters).
  const computedItems = selectedComputed(bound);
  const computed = computedItems.map((item, index) => ({ alias: `k${index}`, name: item.name, type: item.type }));
  const selectList = (compiler: SqlCompiler, scope: Scope): string => {
    const list = columns.map((c, index) =>
      c.item !== undefined
        ? // Options on a $select item: the collection's elements they give (select-options.ts).
          `${selectOptionsSql(compiler, c.item, `${ROOT}.${dialect.quote(c.column)}`, bound.entitySet, index)} AS ${dialect.quote(c.alias)}`
        : `${spatialText(dialect, c.property.type.kind === 'primitive' ? c.property.type.name : undefined, c.property.collection, `${ROOT}.${dialect.quote(c.column)}`)} AS ${dialect.quote(c.alias)}`,
    );
    if (computedItems.length > 0) list.push(...computedColumns(compiler, computedItems, scope).map((sql, i) => `${sql} AS ${dialect.quote(`k${i}`)}`));
    return list.join(', ');
  };

  const expansionNames: { alias: string; name: string }[] = [];
  let presence: SqlQuery['presence'];
  // A fresh root per statement: single-valued navigation in $filter/$orderby becomes its LEFT JOINs.
  const joinedRoot = (compiler: SqlCompiler): Scope => ({
    alias: root.alias,
    type: root.type,
    set: root.set,
    variables: root.variables,
    joins: { clauses: [], scopes: new Map() },
    ...(root.these === undefined ? {} : { these: root.these }),
    ...presenceOf(compiler),
  });
  // Which properties each row has, after rollup or concat (isdefined reads it).
  // And the foreign keys a join's alias carries (navigation from it reads them).
  const presenceOf = (compiler: SqlCompiler): { presence?: ApplyPresence; stored?: ReadonlySet<string> } => {
    const relation = relationOf(compiler);
    const stored = relation?.stored === undefined ? {} : { stored: relation.stored };
    return relation?.presence === undefined ? stored : { ...stored, presence: relation.presence };
  };
  const fromClause = (compiler: SqlCompiler, scope: Scope): string =>
    [`${relationOf(compiler)?.from ?? compiler.table(bound.entitySet)} ${ROOT}`, ...(scope.joins?.clauses ?? [])].join(' ');
  const build = (compiler: SqlCompiler, withPaging: boolean, withOrder: boolean): string => {
    const scope = joinedRoot(compiler);
    let select = selectList(compiler, scope);
    const present = relationOf(compiler)?.presence;
    if (present !== undefined) {
      presence = { alias: 'p0', sets: present.sets };
      select = `${select === '' ? '' : `${select}, `}${ROOT}.${dialect.quote(present.column)} AS ${dialect.quote('p0')}`;
    }
    expansionNames.length = 0;
    for (const item of bound.expand) {
      for (const [name, sql] of expansion(compiler, item, root)) {
        const alias = `e${expansionNames.length}`;
        expansionNames.push({ alias, name });
        const part = `${sql()} AS ${dialect.quote(alias)}`;
        select = select === '' ? part : `${select}, ${part}`;
      }
    }
    // Placeholders are numbered in the order of the text, so the FROM can be assembled after WHERE and ORDER BY.
    const where = compiler.conditions(bound, scope, apply === undefined);
    let tail = where === '' ? '' : ` WHERE ${where}`;
    if (withOrder) {
      // Without $orderby, the order of a last orderby() (or topcount…) of $apply.
      // (With $top/$skip, the key after it breaks its ties: semantic/apply/output-order.ts.)
      const applyOrder = bound.orderBy === undefined ? relationOf(compiler)?.order?.(scope) : undefined;
      const order =
        applyOrder === undefined ? orderBy(compiler, bound, scope) : [applyOrder, orderBy(compiler, bound, scope)].filter((part) => part !== '').join(', ');
      if (order !== '') tail += ` ORDER BY ${order}`;
    }
    if (withPaging && (bound.top !== undefined || bound.skip !== undefined)) {
      const top = bound.top === undefined ? undefined : compiler.value(bound.top, 'rowCount');
      const skip = bound.skip === undefined ? undefined : compiler.value(bound.skip, 'rowCount');
      tail += ` ${dialect.paging(top, skip)}`;
    }
    const from = fromClause(compiler, scope);
    // Rows of no property (`$crossjoin(…)`'s virtual type has navigation properties only): one constant column.
    if (select === '') select = `1 AS ${dialect.quote('~')}`;
    return `${relationOf(compiler)?.with ?? ''}SELECT ${select} FROM ${from}${tail}`;
  };

  const list = statement((c) => build(c, true, true), dialect, options);
  const count =
    bound.count === true
      ? statement(
          (c) => {
            const scope = joinedRoot(c);
            const where = c.conditions(bound, scope, apply === undefined);
            const from = fromClause(c, scope);
            return `${relationOf(c)?.with ?? ''}SELECT COUNT(*) AS ${dialect.quote('count')} FROM ${from}${where === '' ? '' : ` WHERE ${where}`}`;
          },
          dialect,
          options,
        )
      : undefined;
  // The pieces compose with other SQL, so they keep navigation in correlated subqueries (no joins).
  // Most callers run the statements only: each piece is compiled when it is first read (own,
  // enumerable getters, so that a spread copies them; see PIECES).
  const where = once(() => statement((c) => c.conditions(bound, { ...root, ...presenceOf(c) }, apply === undefined), dialect, options));
  const order = once(() => {
    const piece = statement((c) => orderBy(c, bound, root), dialect, options);
    return piece.sql === '' ? undefined : piece;
  });
  const select = once(() => statement((c) => selectList(c, root), dialect, options));
  const { sql, params } = list;
  // The pieces' getters are added to the statements (see PIECES).
  const result: Omit<SqlQuery, keyof Pieces> = {
    sql,
    params,
    ...(count === undefined ? {} : { count }),
    columns,
    expansions: expansionNames,
    computed,
    ...(presence === undefined ? {} : { presence }),
  };
  Object.defineProperty(result, PIECES, { value: { where, orderBy: order, select } satisfies Pieces });
  if (bound.filter !== undefined || bound.search !== undefined || options.scope !== undefined) Object.defineProperty(result, 'where', WHERE);
  Object.defineProperty(result, 'orderBy', ORDER_BY);
  Object.defineProperty(result, 'select', SELECT);
  return result as SqlQuery;
}

/** Where a result keeps the compilers of its pieces (non-enumerable: a spread or JSON leaves it out). */
const PIECES = Symbol('pieces');
interface Pieces {
  readonly where: () => SqlStatement;
  readonly orderBy: () => SqlStatement | undefined;
  readonly select: () => SqlStatement;
}
/**
 * The getters of the pieces: own and enumerable (a spread copies them), and the same functions
 * on every result, so that V8 gives all results one hidden class. (Getters written in an object
 * literal are new functions on every call, and each result then got hidden classes of its own:
 * most of toSql's time went to the garbage collector.)
 */
const piece = (name: keyof Pieces): PropertyDescriptor => ({
  enumerable: true,
  configurable: true,
  get(this: { readonly [PIECES]: Pieces }) {
    return this[PIECES][name]();
  },
});
const WHERE = piece('where');
const ORDER_BY = piece('orderBy');
const SELECT = piece('select');

/** `compute`, called at most once: its first result is kept. */
function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** `ORDER BY` items: nulls first ascending (PROT 11.2.6.2); the key appended when paging (11.2.6.3). */
function orderBy(compiler: SqlCompiler, bound: BoundQuery, root: Scope): string {
  return orderByItems(compiler, bound, root);
}
