/**
 * The base SQL compiler behind `toSql` (to-sql.ts): paths and joins, conditions, comparisons and
 * expressions, with every per-dialect difference asked of the dialect's hooks (`dialect.ts`,
 * `dialects/`). `$expand` is in expansion.ts, ORDER BY in ordering.ts, casts in casts.ts, the canonical functions in functions.ts. Every value goes through {@link SqlCompiler.value}, so every value
 * is a parameter; identifiers come only from the model (through the mapping) and are quoted.
 *
 * The SQL keeps the spec's semantics rather than SQL's: comparisons are two-valued where OData's
 * are (`x ne 'a'` keeps rows where `x` is null, `not (x gt 1)` keeps them too), `eq null` is
 * `IS NULL`, strings compare case-sensitively by code point, and nulls sort first ascending.
 */
import { DEFAULT_MAX_STATEMENT_LENGTH, statementTooLong } from './statement-limits.js';
import { memberOrdinals } from '../../passes/enums.js';
import { FIRST_STORED_DAY, LAST_STORED_DAY, formatInstant, instantFromPicos, parseDuration } from '../../util/temporal.js';
import { toBigInt, toNumber } from '../../reference/values.js';
import { ODataError } from '../../errors/odata-error.js';
import type { EntitySet, EnumType, NavigationProperty, Property, StructuredType } from '../../model/model.js';
import {
  OUTER_IT,
  type BoundAggregate,
  type BoundExpression,
  type BoundLiteral,
  type BoundPath,
  type BoundPathStep,
  type BoundQueryOptions,
  type BoundSearch,
} from '../../semantic/bound-ast.js';
import { foldSearch } from '../../semantic/bind-search.js';
import { fromReference, isNumeric, isPrimitive, type ExpressionType } from '../../semantic/types.js';
import { declaringType } from '../../model/navigation.js';
import { derivesFrom } from '../../model/model.js';
import { navigationLink, type StoredColumn } from '../../storage/links.js';
import { unknownTarget, unsupportedFeature } from '../../passes/unsupported.js';
import type { Dialect, ParameterKind, SqlSearchHook } from './dialect.js';
import { columnName, complexLeaves, dynamicColumnName, snake, type SqlMapping } from './mapping.js';
import { MARK_END, MARK_START, parameterKind, scopeKind } from './parameters.js';
import { partOfNull } from '../../passes/null-parts.js';
import type { CastContext } from './casts.js';
import { functionCondition, functionValue, type SqlFunctionContext } from './functions.js';
import { FUNCTIONS } from '../../semantic/functions.js';
import { SqlConditions } from './conditions.js';
import { crossJoinTable } from './crossjoin.js';
import { crossJoinOf } from '../../semantic/resource-path/crossjoin.js';
import { lowerCondition } from '../../passes/lower-conditions.js';

const MICROS_PER_DAY = 86_400_000_000n;

function unsupported(what: string): ODataError {
  return unsupportedFeature('SQL', what);
}

export const ROOT = 't0';

/** A navigation property with the entity set of its targets (a bound path step or expanded item). */
type NavigationHop = { readonly navigation: NavigationProperty; readonly entitySet: EntitySet | undefined };

/** What names in an expression refer to: the current row's alias and type, and lambda variables. */
export interface Scope {
  readonly alias: string;
  readonly type: StructuredType;
  readonly set: EntitySet;
  /**
   * Lambda variables: a row of an entity (alias and type), a primitive value (SQL), or an element
   * of a collection of complex values stored as JSON (its JSON's SQL, and its complex type).
   */
  readonly variables: ReadonlyMap<string, Variable>;
  /**
   * The outer statement's `LEFT JOIN`s: present on the root of a list or count statement, where
   * single-valued navigation becomes a join (to-one, so rows are not repeated) instead of a
   * correlated subquery per row, which planners cannot turn into an index lookup.
   */
  readonly joins?: Joins;
  /** Inside a complex value: the prefix of its flattened columns (`address_`). */
  readonly prefix?: string;
  /**
   * Columns the model does not declare that the rows carry under a flattened value's prefix (the
   * foreign keys of a join's alias, `ProductSales_Product_ID`), by their full names: navigation
   * from the value reads them. Absent: such navigation is refused.
   */
  readonly stored?: ReadonlySet<string>;
  /**
   * Inside an element of a collection of complex values (a `$count($filter=…)` of one): the SQL
   * of the element's JSON, whose members paths read (`type` is the element's complex type).
   */
  readonly element?: string;
  /**
   * Which properties each row has where rows differ in them (after `rollup`, or a `concat` of
   * differently shaped branches): `isdefined` reads it. Absent: every row has every property.
   */
  readonly presence?: { readonly column: string; readonly sets: readonly (readonly string[])[] };
  /**
   * The current collection of `$these/aggregate(…)` and `$these/$count` (Data Aggregation 3.6):
   * a FROM item (a table or a common table expression) of rows of `type`; `restricted`: the
   * entity set's table, restricted by the mapping's scope. Absent: `$these` is refused here.
   */
  readonly these?: { readonly from: string; readonly type: StructuredType; readonly restricted?: true };
}

/**
 * Compiles an aggregate expression over the rows of a scope (the aggregate function's): the
 * `$apply` compiler's, which registers itself here when it loads (./apply.ts reads this module's
 * types, so this module does not import it).
 */
export type AggregateCompiler = (compiler: SqlCompiler, aggregate: BoundAggregate, scope: Scope, prefix: string) => string;

let aggregateCompiler: AggregateCompiler | undefined;

/** Called by ./apply.ts when it loads. */
export function registerAggregateCompiler(compile: AggregateCompiler): void {
  aggregateCompiler = compile;
}

/** Compiles a hierarchy function as a condition (hierarchy-functions.ts, which reads this module's types; registered by to-sql.ts). */
export type HierarchyTestCompiler = (compiler: SqlCompiler, node: Extract<BoundExpression, { kind: 'hierarchyTest' }>, scope: Scope) => string;

let hierarchyTestCompiler: HierarchyTestCompiler | undefined;

/** Called by ./to-sql.ts when it loads. */
export function registerHierarchyTestCompiler(compile: HierarchyTestCompiler): void {
  hierarchyTestCompiler = compile;
}

/** A lambda variable (see {@link Scope.variables}). */
export type Variable =
  /**
   * A row of an entity. `level`: where the row is an outer query's (`$it` in the aggregate function,
   * OUTER_IT), a condition on the aggregated rows that always holds; a value read from the row is
   * `(SELECT value WHERE level)`, which ties each aggregate over it to the subquery's rows (an
   * aggregate whose argument reads outer columns only belongs to the outer query, and SQLite
   * places one that reads both there too).
   */
  | { readonly alias: string; readonly type: StructuredType; readonly set: EntitySet; readonly level?: string }
  | { readonly value: string }
  | { readonly element: string; readonly type: StructuredType };

/** The rows a collection path gives (see `collection`): related entities, primitive elements, or JSON elements of complex values. */
type CollectionRows =
  | { readonly kind: 'entities'; readonly scope: Scope; readonly from: string; readonly where: string }
  | { readonly kind: 'elements'; readonly value: string; readonly from: string; readonly where: string }
  | { readonly kind: 'json'; readonly element: string; readonly type: StructuredType; readonly from: string; readonly where: string };

interface Joins {
  readonly clauses: string[];
  /** `alias/navigation` → the joined scope, so that a path used twice joins once. */
  readonly scopes: Map<string, Scope>;
}

/** Compiles one statement; parameters are numbered in the order values are appended. */
export class SqlCompiler {
  readonly params: unknown[] = [];
  private aliases = 0;
  /** The compiler of conditions (conditions.ts); function predicates through `predicateCall`. */
  private readonly logic: SqlConditions<Scope> = new SqlConditions<Scope>(this, (node, scope) => this.predicateCall(node, scope));

  constructor(
    readonly dialect: Dialect,
    readonly mapping: SqlMapping,
    readonly searchHook?: SqlSearchHook,
    /** The longest statement (`maxStatementLength`): an expression or condition longer fails at once. */
    readonly maxLength: number = DEFAULT_MAX_STATEMENT_LENGTH,
  ) {}

  /**
   * `sql`, unless it is already longer than a whole statement may be. Checked for every expression
   * and condition, so that a form that repeats its operands (where the dialect has no
   * `withValues` of its own) fails once it is too long, instead of growing on geometrically.
   */
  bounded(sql: string): string {
    if (sql.length > this.maxLength) throw statementTooLong(this.maxLength);
    return sql;
  }

  private nextAlias(): string {
    this.aliases++;
    return `t${this.aliases}`;
  }

  /** A table alias no other of the statement has (for the helpers of other files: hierarchy-functions.ts). */
  freshAlias(): string {
    return this.nextAlias();
  }

  /** A hierarchy function (`Aggregation.isdescendant`, …) as a condition, TRUE or FALSE: hierarchy-functions.ts. */
  hierarchyTest(node: Extract<BoundExpression, { kind: 'hierarchyTest' }>, scope: Scope): string {
    if (hierarchyTestCompiler === undefined) throw unsupported('the hierarchy functions without their compiler');
    return hierarchyTestCompiler(this, node, scope);
  }

  /**
   * A stored column of a link's side in `scope`: a property's column, or a column the model does
   * not have (a foreign key, a container's key), named by the mapping like a property. A property
   * the rows of `scope` lack (rows after `$apply`, in a hand-made tree) is refused, not a TypeError.
   */
  private storedColumn(
    column: StoredColumn,
    scope: { alias: string; type: StructuredType; prefix?: string; stored?: ReadonlySet<string> },
    navigation: NavigationProperty,
    declaring: StructuredType,
  ): string {
    if (column.property !== undefined) {
      if (scope.type.properties.get(column.property.name) === undefined)
        throw unsupported(`the navigation property '${navigation.name}' on rows without its property '${column.property.name}'`);
      return this.column(scope.type, column.property, scope.alias, scope.prefix);
    }
    // An entity held as a value (a join's alias): its foreign key where the rows carry it (apply-join.ts), under the value's prefix.
    if (scope.prefix !== undefined) {
      const carried = scope.prefix + this.storedName(column.column);
      if (scope.stored?.has(carried) !== true) throw unsupported('navigation properties of complex types without a referential constraint');
      return `${scope.alias}.${this.dialect.quote(carried)}`;
    }
    // A type extended with more properties (compute, rolluprecursive's node with its aggregates: extendedType) keeps the entity's columns.
    const extended = scope.type.kind === 'entity' && scope.type.qualifiedName === declaring.qualifiedName;
    if (!extended && !derivesFrom(scope.type, declaring) && !derivesFrom(declaring, scope.type) && scope.type !== navigation.target)
      throw unsupported(`the navigation property '${navigation.name}' on rows without its column '${column.column}'`);
    return `${scope.alias}.${this.dialect.quote(this.storedName(column.column))}`;
  }

  /** The name of a table or column the model does not declare (a link table, a foreign key): the mapping's, or its logical name under the naming. */
  storedName(logical: string, override: Readonly<Record<string, string>> | undefined = this.mapping.columns): string {
    const named = override !== undefined && Object.hasOwn(override, logical) ? override[logical] : undefined;
    return named ?? (this.mapping.naming === 'snake_case' ? snake(logical) : logical);
  }

  /**
   * A scope for the rows of a navigation property: `FROM table alias WHERE join`, the join as the
   * storage mapping relates the two sides (storage/links.ts): columns equal, or through a link
   * table (joined to the target's table inside the FROM item).
   */
  related({ navigation, entitySet: set }: NavigationHop, from: Scope): { scope: Scope; from: string; join: string } {
    if (set === undefined) throw unsupported(unknownTarget(navigation));
    const link = navigationLink(from.type, navigation, this.mapping);
    const declaring = declaringType(navigation, from.type);
    if (link === undefined || declaring === undefined) throw unsupported(`the navigation property '${navigation.name}' (the type that declares it is unknown)`);
    const alias = this.nextAlias();
    const scope: Scope = { alias, type: navigation.target, set, variables: from.variables };
    const restricted = this.scopeCondition(alias);
    const target = { alias, type: navigation.target };
    let rows = `${this.table(set)} ${alias}`;
    let join: string;
    if (link.kind === 'direct') {
      join = link.pairs
        .map(
          ({ source, target: there }) =>
            `${this.storedColumn(there, target, navigation, declaring)} = ${this.storedColumn(source, from, navigation, declaring)}`,
        )
        .join(' AND ');
    } else {
      const via = this.nextAlias();
      const linkColumn = (name: string): string => `${via}.${this.dialect.quote(this.storedName(name))}`;
      const on = link.target.map(({ link: name, column }) => `${linkColumn(name)} = ${this.storedColumn(column, target, navigation, declaring)}`).join(' AND ');
      rows = `(${rows} INNER JOIN ${this.dialect.quote(this.storedName(link.table, this.mapping.tables))} ${via} ON ${on})`;
      join = link.source.map(({ link: name, column }) => `${linkColumn(name)} = ${this.storedColumn(column, from, navigation, declaring)}`).join(' AND ');
    }
    return { scope, from: rows, join: restricted === '' ? join : `${join} AND ${restricted}` };
  }

  /**
   * A scope for the entity `$apply` wrote into a row of `from` (`BoundExpandItem.made`): the row of
   * its entity set whose key equals the key values of the row's value.
   */
  madeRelated(
    made: Property,
    target: { navigation: NavigationProperty; entitySet: EntitySet | undefined },
    from: Scope,
  ): { scope: Scope; from: string; join: string } {
    const set = target.entitySet;
    if (set === undefined) throw unsupported(unknownTarget(target.navigation));
    const type = target.navigation.target;
    const alias = this.nextAlias();
    const scope: Scope = { alias, type, set, variables: from.variables };
    const span = { start: 0, end: 0 };
    const join = type.key
      .map((name) => {
        const key = type.properties.get(name) as Property;
        const inner = (made.type as { readonly type: StructuredType }).type.properties.get(name) as Property;
        const value: BoundExpression = {
          kind: 'path',
          root: { kind: 'it' },
          steps: [
            { kind: 'property', property: made, span },
            { kind: 'property', property: inner, span },
          ],
          type: fromReference(inner.type),
          span,
        };
        return `${this.column(type, key, alias)} = ${this.expression(value, from)}`;
      })
      .join(' AND ');
    const restricted = this.scopeCondition(alias);
    return { scope, from: `${this.table(set)} ${alias}`, join: restricted === '' ? join : `${join} AND ${restricted}` };
  }

  /** The SQL of a path: columns, single-valued navigation through correlated subqueries. */
  private path(node: Extract<BoundExpression, { kind: 'path' }>, scope: Scope): string {
    let current: Scope = scope;
    if (node.root.kind === 'variable') {
      const variable = scope.variables.get(node.root.name);
      if (variable === undefined) throw unsupported(`the lambda variable '${node.root.name}' here`);
      if ('value' in variable) {
        if (node.steps.length > 0) throw unsupported('paths into collection elements');
        return variable.value;
      }
      if ('element' in variable) return this.memberValue(node.steps, variable.element, variable.type);
      const { level, ...row } = variable;
      current = { ...row, variables: scope.variables };
      if (level !== undefined) return `(SELECT ${this.steps(node.steps, current)} WHERE ${level})`;
    } else if (scope.element !== undefined) {
      return this.memberValue(node.steps, scope.element, scope.type);
    }
    return this.steps(node.steps, current);
  }

  /** The dialect's hooks for collections of complex values, or the refusal. */
  private complexCollections(): NonNullable<Dialect['complexCollections']> {
    const hooks = this.dialect.complexCollections;
    if (hooks === undefined) throw unsupported(`collections of complex values on ${this.dialect.displayName}`);
    return hooks;
  }

  /**
   * The names along `steps` (properties, into complex members) from an element of a collection of
   * complex values of `type`, and the property at their end.
   */
  private memberPath(steps: readonly BoundPathStep[], type: StructuredType): { names: string[]; last: Property | undefined } {
    const names: string[] = [];
    let owner = type;
    let last: Property | undefined;
    for (const [i, step] of steps.entries()) {
      if (step.kind !== 'property') throw unsupported(`this path into an element of a collection of complex values (${step.kind})`);
      if (last !== undefined) {
        if (last.type.kind !== 'complex' || last.collection) throw unsupported('paths into this property');
        owner = last.type.type;
      }
      if (owner.properties.get(step.property.name) === undefined) throw unsupported(`the property '${step.property.name}' here`);
      names.push(step.property.name);
      last = step.property;
      if (i < steps.length - 1 && step.property.collection) throw unsupported(`paths through the collection '${step.property.name}'`);
    }
    return { names, last };
  }

  /**
   * A path from an element of a collection of complex values (stored as JSON): a primitive member
   * as a value stored like its column (the dialect's `typed`), a complex member as its JSON (for
   * null tests: SQL NULL where it is null).
   */
  private memberValue(steps: readonly BoundPathStep[], element: string, type: StructuredType): string {
    const hooks = this.complexCollections();
    const { names, last } = this.memberPath(steps, type);
    // The element itself (`r eq null`): its JSON, SQL NULL where it is null.
    if (last === undefined) return hooks.json(element, []);
    if (last.collection) throw unsupported(`the collection property '${last.name}' as a value`);
    if (last.type.kind === 'complex') return hooks.json(element, names);
    const typed = hooks.typed(hooks.member(element, names), fromReference(last.type));
    if ('refused' in typed) throw unsupported(typed.refused);
    return typed.sql;
  }

  /** The SQL of `steps` from index `at` on (an index rather than a rest copy: paths are compiled often). */
  private steps(steps: readonly BoundPathStep[], scope: Scope, at = 0): string {
    const step = steps[at];
    if (step === undefined) throw unsupported('a path to a whole entity');
    const more = steps.length > at + 1;
    switch (step.kind) {
      case 'property':
        if (step.property.collection) throw unsupported(`the collection property '${step.property.name}' as a value`);
        if (step.property.type.kind === 'complex' || step.property.type.kind === 'entity') {
          // A complex value (or an entity held as a value: a join's alias) is stored flattened: its properties are columns with its name as prefix.
          if (!more) throw unsupported(`the complex property '${step.property.name}' as a value (compare it with null, or use its properties)`);
          const prefix = `${scope.prefix ?? ''}${columnName(scope.type, step.property, this.mapping)}_`;
          return this.steps(steps, { ...scope, type: step.property.type.type, prefix }, at + 1);
        }
        if (more) throw unsupported('paths into this property');
        return this.column(scope.type, step.property, scope.alias, scope.prefix);
      case 'navigation': {
        // From a value held flattened (a join's alias, a complex value): through a referential constraint, whose properties are its columns.
        if (step.navigation.collection) throw unsupported(`the collection '${step.navigation.name}' as a value; use any(), all() or $count`);
        const joins = scope.joins;
        if (joins !== undefined) {
          const key = `${scope.alias}/${scope.prefix ?? ''}/${step.navigation.name}`;
          let joined = joins.scopes.get(key);
          if (joined === undefined) {
            const related = this.related(step, scope);
            joins.clauses.push(`LEFT JOIN ${related.from} ON ${related.join}`);
            // Written out rather than spread (a hot path): the scope of related() and its joins.
            joined = { alias: related.scope.alias, type: related.scope.type, set: related.scope.set, variables: related.scope.variables, joins };
            joins.scopes.set(key, joined);
          }
          return this.steps(steps, joined, at + 1);
        }
        const related = this.related(step, scope);
        return `(SELECT ${this.steps(steps, related.scope, at + 1)} FROM ${related.from} WHERE ${related.join})`;
      }
      case 'typeCast':
        throw this.locate(unsupported(`the type cast to '${step.target.qualifiedName}', a derived type (a row does not say its type)`), step);
      case 'dynamic':
        try {
          return this.dynamicMember(step, scope, more);
        } catch (error) {
          throw this.locate(error, step);
        }
    }
  }

  /**
   * A dynamic property of the row's open type: a member of its table's JSON column, its name a
   * parameter (it comes from the request), read by the dialect's hook (semantic/dynamic-values.ts).
   */
  private dynamicMember(step: Extract<BoundPathStep, { kind: 'dynamic' }>, scope: Scope, more: boolean): string {
    const hooks = this.dialect.dynamicProperties;
    if (hooks === undefined) throw unsupported(this.dialect.noDynamicProperties ?? `dynamic properties on ${this.dialect.displayName}`);
    if (more) throw unsupported(`a path into the dynamic property '${step.name}'`);
    // No engine takes NUL in text (a name from the URL has none; one made through the API may).
    if (step.name.includes('\u0000')) throw unsupported('a dynamic property whose name holds NUL');
    const column = scope.prefix === undefined && scope.element === undefined ? dynamicColumnName(scope.set.type, this.mapping) : undefined;
    if (column === undefined) throw unsupported(`the dynamic property '${step.name}' here (only an open entity type's are stored)`);
    return hooks.member(`${scope.alias}.${this.dialect.quote(column)}`, () => this.value(hooks.key(step.name), 'string'), step.read);
  }

  /**
   * The rows of a collection path: the related entities of a navigation collection, the elements
   * of a primitive collection column (an array, or JSON), or the JSON elements of a collection of
   * complex values (a column, or a member of an element), with FROM and WHERE for EXISTS/COUNT.
   */
  private collection(node: Extract<BoundExpression, { kind: 'path' }>, scope: Scope): CollectionRows {
    let current: Scope = scope;
    if (node.root.kind === 'variable') {
      const variable = scope.variables.get(node.root.name);
      if (variable === undefined || 'value' in variable) throw unsupported(`the lambda variable '${node.root.name}' here`);
      if ('element' in variable) return this.memberCollection(node.steps, variable.element, variable.type);
      current = { ...variable, variables: scope.variables };
    } else if (scope.element !== undefined) {
      return this.memberCollection(node.steps, scope.element, scope.type);
    }
    const last = node.steps[node.steps.length - 1];
    // Single-valued steps before the collection become an inner join chain in the subquery.
    const hops: string[] = [];
    const conditions: string[] = [];
    for (const step of node.steps.slice(0, -1)) {
      const into = step.kind === 'property' && !step.property.collection ? step.property.type : undefined;
      if (into !== undefined && (into.kind === 'complex' || into.kind === 'entity')) {
        // Into a value held flattened (a complex value, a join's alias): its columns under its prefix.
        current = {
          ...current,
          type: into.type,
          prefix: `${current.prefix ?? ''}${columnName(current.type, (step as { property: Property }).property, this.mapping)}_`,
        };
        continue;
      }
      if (step.kind !== 'navigation' || step.navigation.collection) throw unsupported('this collection path');
      const related = this.related(step, current);
      hops.push(related.from);
      conditions.push(related.join);
      current = related.scope;
    }
    const where = conditions.length === 0 ? '1 = 1' : conditions.join(' AND ');
    // (A collection of entities `$apply` made, σ(x) of a hierarchy node placed through a collection, is JSON as well.)
    if (last?.kind === 'property' && last.property.collection && (last.property.type.kind === 'complex' || last.property.type.kind === 'entity')) {
      // A flattened complex value's collections of complex values have no column (an entity's held as a value, a join's alias, have).
      if (current.prefix !== undefined && current.type.kind !== 'entity') throw unsupported('this collection path');
      const hooks = this.complexCollections();
      const { source, element } = hooks.elements(this.column(current.type, last.property, current.alias, current.prefix), this.nextAlias());
      return { kind: 'json', element, type: last.property.type.type, from: [...hops, source].join(', '), where };
    }
    if (last?.kind === 'property' && last.property.collection) {
      const column = this.column(current.type, last.property, current.alias, current.prefix);
      const alias = this.nextAlias();
      const element = fromReference(last.property.type);
      if (this.dialect.collectionElements === undefined) throw unsupported(`collection properties on ${this.dialect.displayName} (yet)`);
      const { source, value } = this.dialect.collectionElements(column, alias, element);
      return { kind: 'elements', value, from: [...hops, source].join(', '), where };
    }
    if (last?.kind !== 'navigation' || !last.navigation.collection) throw unsupported('this collection');
    const target = this.related(last, current);
    return { kind: 'entities', scope: target.scope, from: [target.from, ...hops].join(', '), where: [target.join, ...conditions].join(' AND ') };
  }

  /**
   * A collection member of an element of a collection of complex values (`l/disabledPlans`,
   * `a/Items`): the elements of its JSON array, primitive values stored as their columns are, or
   * JSON elements again.
   */
  private memberCollection(steps: readonly BoundPathStep[], element: string, type: StructuredType): CollectionRows {
    const hooks = this.complexCollections();
    const { names, last } = this.memberPath(steps, type);
    if (last === undefined || !last.collection) throw unsupported('this collection');
    const rows = hooks.elements(hooks.json(element, names), this.nextAlias());
    if (last.type.kind === 'complex' || last.type.kind === 'entity')
      return { kind: 'json', element: rows.element, type: last.type.type, from: rows.source, where: '1 = 1' };
    const typed = hooks.typed(rows.atom, fromReference(last.type));
    if ('refused' in typed) throw unsupported(typed.refused);
    return { kind: 'elements', value: typed.sql, from: rows.source, where: '1 = 1' };
  }

  /**
   * A Duration as the dialect's key for comparing and ordering; the difference of two
   * DateTimeOffset values (`closedAt sub openedAt`) straight to that key, through the dialect.
   */
  durationKey(node: BoundExpression, scope: Scope, operandType: ExpressionType = node.type): string {
    if (
      node.kind === 'binary' &&
      node.operator === 'sub' &&
      isPrimitive(node.left.type, 'Edm.DateTimeOffset') &&
      isPrimitive(node.right.type, 'Edm.DateTimeOffset')
    ) {
      const difference = this.dialect.instantDifference;
      if (difference === undefined) throw this.locate(unsupported(`the difference of two instants on ${this.dialect.displayName}`), node);
      return difference(this.expression(node.left, scope), this.expression(node.right, scope));
    }
    // The sum or difference of two durations, as the sum or difference of their keys.
    if (
      node.kind === 'binary' &&
      (node.operator === 'add' || node.operator === 'sub') &&
      isPrimitive(node.left.type, 'Edm.Duration') &&
      isPrimitive(node.right.type, 'Edm.Duration')
    ) {
      const sum = this.dialect.durationSum;
      if (sum === undefined) throw this.locate(unsupported(`duration arithmetic on ${this.dialect.displayName}`), node);
      return sum(this.durationKey(node.left, scope), this.durationKey(node.right, scope), node.operator === 'add' ? '+' : '-');
    }
    // A case whose branches need keys (a difference or a sum): the case of the keys.
    // A null duration is a typed null's key (PostgreSQL would make a bare NULL text).
    const nullKey = (): string => this.dialect.durationKey(this.value(null, 'interval'));
    if (node.type.kind === 'null') return nullKey();
    if (node.kind === 'case' && node.branches.some(({ then }) => then.kind === 'binary')) {
      const branches = node.branches.map(
        ({ when, then }) => `WHEN ${this.condition(when, scope)} THEN ${then.type.kind === 'null' ? nullKey() : this.durationKey(then, scope)}`,
      );
      return `(CASE ${branches.join(' ')} ELSE NULL END)`;
    }
    return this.dialect.durationKey(this.expression(node, scope, operandType));
  }

  /** What `cast`/`isof` (casts.ts) need of this compiler, in `scope`. */
  private castContext(scope: Scope): CastContext {
    return {
      dialect: this.dialect,
      value: (node) => this.expression(node, scope),
      condition: (node) => this.logic.definite(node, scope),
      parameter: (value, kind) => this.value(value, kind),
      nullOf: (type) => this.value(null, parameterKind(type, type)),
    };
  }

  /**
   * `case(c1:v1, …)`: the value of the first branch whose condition is true (a null condition is
   * not), null when none is, as the reference's.
   */
  private caseValue(node: Extract<BoundExpression, { kind: 'case' }>, scope: Scope, operandType: ExpressionType): string {
    // A case of nulls only: a null of the type it is used as (PostgreSQL would make a bare NULL text).
    if (node.type.kind === 'null') return operandType.kind === 'null' ? 'NULL' : this.value(null, parameterKind(operandType, operandType));
    const branches = node.branches.map(({ when, then }) => {
      // A null branch is a typed null (a parameter of the case's type), so that a case of nulls
      // only still has its type (PostgreSQL would make it text).
      const isNull = then.kind === 'literal' && then.value === null;
      let value = isNull
        ? this.value(null, parameterKind(node.type, node.type))
        : this.expression(then, scope, then.type.kind === 'null' ? operandType : node.type);
      // Promoted as the reference promotes: a Date to its midnight UTC, an Int64 or a Decimal to a double.
      if (isPrimitive(node.type, 'Edm.DateTimeOffset') && isPrimitive(then.type, 'Edm.Date')) value = this.dialect.dateAsInstant(value);
      if (
        (isPrimitive(node.type, 'Edm.Double') || isPrimitive(node.type, 'Edm.Single')) &&
        (isPrimitive(then.type, 'Edm.Int64') || isPrimitive(then.type, 'Edm.Decimal'))
      )
        value = this.dialect.double(value);
      return `WHEN ${this.condition(when, scope)} THEN ${value}`;
    });
    return `(CASE ${branches.join(' ')} ELSE NULL END)`;
  }

  /** `$search` of the rows in `scope`: through the hook, or the default search. */
  search(search: BoundSearch, scope: Scope): string {
    const hook = this.searchHook;
    if (hook === undefined) return this.defaultSearch(search, scope);
    return `(${hook(search, {
      dialect: this.dialect.name,
      column: (name) => {
        const property = scope.type.properties.get(name);
        if (property === undefined) throw unsupported(`searching the unknown property '${name}'`);
        return this.column(scope.type, property, scope.alias);
      },
      value: (value) => this.value(value, 'string'),
    })})`;
  }

  /** The default `$search`: every term, ignoring case, in one of the bound search's string columns. */
  private defaultSearch(search: BoundSearch, scope: Scope): string {
    const no = this.dialect.booleanLiteral(false);
    const term = (text: string): string => {
      if (search.properties.length === 0) return '1 = 0';
      const tests = search.properties.map((property) => {
        const column = this.column(scope.type, property, scope.alias);
        const contains = this.dialect.containsIgnoringCase;
        if (contains !== undefined) return `COALESCE(${contains(column, this.value(text, 'string'))}, ${no})`;
        const escaped = text.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_');
        return `COALESCE(${this.dialect.like(`LOWER(${column})`, `LOWER(${this.value(`%${escaped}%`, 'string')})`)}, ${no})`;
      });
      return `(${tests.join(' OR ')})`;
    };
    return foldSearch<string>(search.root, {
      everything: () => '1 = 1',
      term,
      not: (operand) => `NOT ${operand}`,
      and: (left, right) => `(${left} AND ${right})`,
      or: (left, right) => `(${left} OR ${right})`,
    });
  }

  /** `EXISTS (…)` for the entity at the end of a path of single-valued navigation properties. */
  navigationExists(node: Extract<BoundExpression, { kind: 'path' }>, scope: Scope): string {
    let current: Scope = scope;
    if (node.root.kind === 'variable') {
      const variable = scope.variables.get(node.root.name);
      if (variable === undefined || 'value' in variable || 'element' in variable) throw unsupported(`the lambda variable '${node.root.name}' here`);
      current = { ...variable, variables: scope.variables };
    } else if (scope.element !== undefined) {
      throw unsupported('navigation properties of complex values in collections');
    }
    const from: string[] = [];
    const where: string[] = [];
    for (const step of node.steps) {
      if (step.kind !== 'navigation') throw unsupported('this path');
      const related = this.related(step, current);
      from.push(related.from);
      where.push(related.join);
      current = related.scope;
    }
    return `EXISTS (SELECT 1 FROM ${from.join(', ')} WHERE ${where.join(' AND ')})`;
  }

  /**
   * The values a path through one collection gives for a row of `scope` (a hierarchy node path
   * `p₁/…/pₖ/r` of Data Aggregation 6.2.1: a row related to several nodes): the FROM items and
   * WHERE condition of a subquery correlated with the row, and the value the rest of the path
   * reads in each related row or element (as the body of a lambda reads its variable). A path
   * through a second collection is refused as any path through a collection is.
   */
  collectionValues(path: BoundPath, scope: Scope): { readonly from: string; readonly where: string; readonly value: string } {
    const at = path.steps.findIndex(
      (step) => (step.kind === 'navigation' && step.navigation.collection) || (step.kind === 'property' && step.property.collection),
    );
    if (at < 0) throw unsupported('this collection path');
    const rows = this.collection({ ...path, steps: path.steps.slice(0, at + 1) }, scope);
    const rest = path.steps.slice(at + 1);
    if (rows.kind === 'elements') {
      if (rest.length > 0) throw unsupported('this collection path');
      return { from: rows.from, where: rows.where, value: rows.value };
    }
    const name = '~node';
    const variables = new Map(scope.variables);
    if (rows.kind === 'json') variables.set(name, { element: rows.element, type: rows.type });
    else variables.set(name, { alias: rows.scope.alias, type: rows.scope.type, set: rows.scope.set });
    const element = path.type.kind === 'collection' ? path.type.element : path.type;
    const elementType: ExpressionType = rows.kind === 'json' ? { kind: 'complex', type: rows.type } : { kind: 'entity', type: rows.scope.type };
    const read: BoundPath = { ...path, root: { kind: 'variable', name, elementType }, steps: rest, type: element };
    return { from: rows.from, where: rows.where, value: this.expression(read, { ...scope, variables }) };
  }

  lambda(node: Extract<BoundExpression, { kind: 'lambda' }>, scope: Scope): string {
    const rows = this.collection(node.collection, scope);
    if (node.variable === undefined || node.predicate === undefined) return `EXISTS (SELECT 1 FROM ${rows.from} WHERE ${rows.where})`;
    const variables = new Map(scope.variables);
    if (rows.kind === 'elements') variables.set(node.variable, { value: rows.value });
    else if (rows.kind === 'json') variables.set(node.variable, { element: rows.element, type: rows.type });
    else variables.set(node.variable, { alias: rows.scope.alias, type: rows.scope.type, set: rows.scope.set });
    const inner: Scope = { ...scope, variables };
    if (node.operator === 'any') return `EXISTS (SELECT 1 FROM ${rows.from} WHERE ${rows.where} AND ${this.condition(node.predicate, inner)})`;
    // all: no related row for which the predicate is false (null is not false, as in the reference).
    return `NOT EXISTS (SELECT 1 FROM ${rows.from} WHERE ${rows.where} AND ${this.logic.holds(lowerCondition(node.predicate, false), inner)})`;
  }

  /**
   * The aggregate function (Data Aggregation 3.6): a scalar subquery over the related entities of
   * a collection path, or over the current collection (`$these`, see {@link Scope.these}).
   */
  private aggregateValue(node: Extract<BoundExpression, { kind: 'aggregateValue' }>, scope: Scope): string {
    const a = node.aggregate;
    if (a.through !== undefined) throw unsupported('aggregating along a navigation path in the aggregate function');
    if (node.collection !== undefined) return this.relatedAggregate(node.collection, a, scope, node.span);
    const compile = aggregateCompiler;
    if (compile === undefined) throw unsupported('the aggregate function without the $apply compiler');
    const aggregates = { aggregateValue: (aggregate: BoundAggregate, over: Scope): string => compile(this, aggregate, over, `${this.nextAlias()}a`) };
    const these = scope.these;
    if (these === undefined)
      throw unsupported(`'$these' here (only in $filter, $orderby and $compute without $apply, and in filter() and compute() of $apply)`);
    const alias = this.nextAlias();
    const where = these.restricted === true ? this.scopeCondition(alias, scope.set) : '';
    const inner: Scope = { alias, type: these.type, set: scope.set, variables: new Map() };
    return `(SELECT ${aggregates.aggregateValue(a, inner)} FROM ${these.from} ${alias}${where === '' ? '' : ` WHERE ${where}`})`;
  }

  /**
   * The aggregate function over the related entities of `collection` (a scalar subquery), only
   * those `keep` holds for when it is given (the filters of a `join`'s nested transformations).
   */
  relatedAggregate(collection: BoundPath, a: BoundAggregate, scope: Scope, span: BoundAggregate['span'], keep?: (related: Scope) => string): string {
    if (a.through !== undefined) throw unsupported('aggregating along a navigation path in the aggregate function');
    const compile = aggregateCompiler;
    if (compile === undefined) throw unsupported('the aggregate function without the $apply compiler');
    const aggregates = { aggregateValue: (aggregate: BoundAggregate, over: Scope): string => compile(this, aggregate, over, `${this.nextAlias()}a`) };
    const rows = this.collection(collection, scope);
    if (rows.kind !== 'entities') throw unsupported('the aggregate function of a collection of values');
    // `$it` in the aggregate expression: the row the path starts from (OUTER_IT), a correlated reference.
    const found = scope.variables.get(OUTER_IT);
    const outer = found !== undefined && 'alias' in found ? found : scope.element === undefined && scope.prefix === undefined ? scope : undefined;
    const key = rows.scope.type.key.map((name) => rows.scope.type.properties.get(name)).find((p) => p !== undefined);
    const variables = new Map<string, Variable>();
    if (outer !== undefined && key !== undefined) {
      const level = `${this.steps([{ kind: 'property', property: key, span }], { ...rows.scope, variables })} IS NOT NULL`;
      variables.set(OUTER_IT, { alias: outer.alias, type: outer.type, set: outer.set, level });
    }
    const related: Scope = { ...rows.scope, variables };
    const kept = keep === undefined ? '' : ` AND ${keep(related)}`;
    return `(SELECT ${aggregates.aggregateValue(a, related)} FROM ${rows.from} WHERE ${rows.where}${kept})`;
  }

  private count(node: Extract<BoundExpression, { kind: 'count' }>, scope: Scope): string {
    const rows = this.collection(node.collection, scope);
    if (rows.kind === 'json') {
      // `$filter` and `$search` inside: about the element (`$it` is the element).
      if (node.search !== undefined) throw unsupported('$count($search=…) on a collection of complex values');
      const filter =
        node.filter === undefined
          ? ''
          : ` AND ${this.condition(node.filter, { alias: scope.alias, set: scope.set, type: rows.type, element: rows.element, variables: new Map() })}`;
      return `(SELECT COUNT(*) FROM ${rows.from} WHERE ${rows.where}${filter})`;
    }
    if (rows.kind === 'elements' && node.filter !== undefined) throw unsupported('$count($filter=…) on a primitive collection');
    if (rows.kind === 'elements' && node.search !== undefined) throw unsupported('$count($search=…) on a primitive collection');
    const filter = node.filter === undefined || rows.kind === 'elements' ? '' : ` AND ${this.condition(node.filter, { ...rows.scope, variables: new Map() })}`;
    const search = node.search === undefined || rows.kind === 'elements' ? '' : ` AND ${this.search(node.search, { ...rows.scope, variables: new Map() })}`;
    return `(SELECT COUNT(*) FROM ${rows.from} WHERE ${rows.where}${search}${filter})`;
  }

  table(set: EntitySet): string {
    // `$crossjoin(…)`'s virtual set: the CROSS JOIN of its sets (crossjoin.ts).
    const join = crossJoinOf(set);
    if (join !== undefined) return crossJoinTable(this, join, set.type);
    const name = this.mapping.tables?.[set.name] ?? (this.mapping.naming === 'snake_case' ? snake(set.name) : set.name);
    return this.dialect.quote(name);
  }

  column(type: StructuredType, property: Property, alias = ROOT, prefix = ''): string {
    return `${alias}.${this.dialect.quote(prefix + columnName(type, property, this.mapping))}`;
  }

  /**
   * The stored columns of a property: itself, or for a complex property the columns of its
   * properties, flattened (`address_city`; see {@link complexLeaves}).
   */
  leaves(type: StructuredType, property: Property, prefix = ''): { path: Property[]; column: string; property: Property }[] {
    return complexLeaves(type, property, this.mapping, prefix, [], this.dialect.complexCollections !== undefined);
  }

  /**
   * Appends a parameter and returns its placeholder: the one way a value enters SQL. The text
   * holds a marker until the statement is finished; {@link statement} then numbers the
   * placeholders in the order of the text, so pieces may be built in any order.
   */
  value(value: unknown, kind: ParameterKind): string {
    // An Int32 value may leave 32 bits (`2 mul -2147483648` folded): a bigint then.
    if (kind === 'integer' && (typeof value === 'number' || typeof value === 'bigint') && (value > 2147483647 || value < -2147483648)) kind = 'bigint';
    // A Double is a double: an Int64 cast to it (`cast(9007199254740993,Edm.Double)`, folded) rounds
    // as the reference rounds it (MariaDB compared the exact integer: seed 20261132).
    if (kind === 'double' && typeof value === 'bigint') value = Number(value);
    const parameter = this.dialect.parameter(value, kind);
    this.params.push(parameter);
    return this.dialect.typedPlaceholder(`${MARK_START}${this.params.length - 1}${MARK_END}`, kind, parameter);
  }

  /** `alias.column = value AND …` for the `scope` option (empty without one). */
  scopeCondition(alias: string, set?: EntitySet): string {
    const scope = this.mapping.scope;
    // `$crossjoin(…)`'s rows: each joined table is restricted inside its derived table.
    if (scope === undefined || (set !== undefined && crossJoinOf(set) !== undefined)) return '';
    return Object.entries(scope)
      .map(([column, value]) => `${alias}.${this.dialect.quote(column)} = ${this.value(value, scopeKind(value))}`)
      .join(' AND ');
  }

  /** The option being compiled, for the position of an `unsupported_feature` error. */
  option: string | undefined;

  /** `$search` (through the hook or the default) and `$filter` of the rows in `root`, joined with AND. */
  conditions(bound: BoundQueryOptions, root: Scope, restrict = true): string {
    return this.withOption('kind' in bound ? '$filter' : '$expand', () => {
      const parts: string[] = [];
      // The rows of the request's own entity set are restricted here (inside `$apply`'s first
      // table when there is one: `restrict` false); related rows in related().
      if ('kind' in bound && restrict) {
        const restricted = this.scopeCondition(root.alias, root.set);
        if (restricted !== '') parts.push(restricted);
      }
      if (bound.search !== undefined) parts.push(this.search(bound.search, root));
      if (bound.filter !== undefined) parts.push(this.condition(bound.filter, root));
      return parts.join(' AND ');
    });
  }

  /** Runs `compile` with `option` as the option being compiled (nested options of `$expand` report `$expand`). */
  withOption<T>(option: string, compile: () => T): T {
    const previous = this.option;
    this.option = previous === '$expand' ? previous : option;
    try {
      return compile();
    } finally {
      this.option = previous;
    }
  }

  /**
   * Gives an ODataError without a position (an unsupported part, a refused pattern, a NUL in a
   * value) the option and the position of the innermost node being compiled. An unsupported part
   * says where it is in its message too, as MongoDB's does (unsupportedFeature with a node).
   */
  private locate(error: unknown, node: { readonly span: { readonly start: number } }): unknown {
    if (!(error instanceof ODataError) || error.position !== undefined || this.option === undefined) return error;
    return new ODataError({
      code: error.code,
      status: error.status,
      reason: error.reason,
      option: this.option,
      position: node.span.start,
      appendLocation: error.code === 'unsupported_feature',
    });
  }

  /** `node` as a condition: TRUE exactly where it holds (conditions.ts compiles its lowering). */
  condition(node: BoundExpression, scope: Scope): string {
    return this.logic.condition(node, scope);
  }

  /** `build()`, bounded in length, with an error located at `node` (for each node of a condition). */
  checked(node: BoundExpression, build: () => string): string {
    try {
      return this.bounded(build());
    } catch (error) {
      throw this.locate(error, node);
    }
  }

  /** A condition as a Boolean value with OData's three values (conditions.ts). */
  private booleanValue(node: BoundExpression, scope: Scope, unknown = ''): string {
    return this.logic.booleanValue(node, scope, unknown);
  }

  /** A canonical function as a condition (functions.ts). */
  private predicateCall(node: Extract<BoundExpression, { kind: 'call' }>, scope: Scope): string {
    return functionCondition(node, this.functionContext(scope));
  }

  /** What the canonical functions (functions.ts) need of this compiler, in `scope`. */
  private functionContext(scope: Scope): SqlFunctionContext {
    return {
      dialect: this.dialect,
      expression: (node) => this.expression(node, scope),
      parameter: (value, kind) => this.value(value, kind),
      column: (property) => {
        if (scope.element !== undefined) throw unsupported(`the collection '${property.name}' of an element of a collection of complex values here`);
        return this.column(scope.type, property, scope.alias, scope.prefix);
      },
      collection: (node) => {
        const rows = this.collection(node, scope);
        return rows.kind === 'json' ? { kind: 'entities' } : rows;
      },
      castContext: () => this.castContext(scope),
    };
  }

  /**
   * An Int64 result, or null outside 64 bits (computed one size wider, see `widened`):
   * clamped just outside the range, and the two clamp values made null.
   */
  private int64Guard(sql: string, type: ExpressionType): string {
    if (!isPrimitive(type, 'Edm.Int64')) return sql;
    return this.dialect.int64Guard(sql, this.value(-(2n ** 63n) - 1n, 'decimal'), this.value(2n ** 63n, 'decimal'));
  }

  /**
   * Double arithmetic as IEEE 754 computes it, without the database errors on overflow (MariaDB,
   * PostgreSQL) and underflow (PostgreSQL): a non-finite result from finite operands is null
   * ("Failed operations yield null"), an underflow is 0; `mod` is `a - b * trunc(a / b)`. A
   * result is 0 only where IEEE 754 rounds it to 0 (at most half the smallest subnormal: seed 3108
   * saw 0.1 × -3e-323 made 0 where it is -5e-324); other subnormal results are computed.
   */
  private doubleOperation(operator: 'add' | 'sub' | 'mul' | 'div' | 'mod', left: string, right: string): string {
    const d = this.dialect;
    const max = (): string => this.value(Number.MAX_VALUE, 'double');
    // The underflow checks compare at 2^1000 times the values (normal doubles, scaled exactly):
    // 2·|x| ≤ the smallest subnormal, as 2^1001·|x| ≤ 2^-74.
    const scale = (): string => this.value(2 ** 1001, 'double');
    const scaledTiny = (): string => this.value(2 ** -74, 'double');
    const operands = [d.double(left), d.double(`NULLIF(${right}, 0)`)];
    if (operator !== 'div' && operator !== 'mod') operands[1] = d.double(right);
    const finite = (a: string, b: string): string => `ABS(${a}) <= ${max()} AND ABS(${b}) <= ${max()}`;
    const quotient = (a: string, b: string): string =>
      `(CASE WHEN ${finite(a, b)} AND ${a} <> 0 THEN (CASE WHEN ABS(${b}) < 1 AND ABS(${a}) > ${max()} * ABS(${b}) THEN NULL WHEN ABS(${b}) > 1 AND ABS(${a}) < 1 AND ABS(${a}) * ${scale()} <= ${scaledTiny()} * ABS(${b}) THEN ${d.double('0')} ELSE ${a} / ${b} END) ELSE ${a} / ${b} END)`;
    // Nested CASEs fix the order of the checks, whose own steps never overflow or underflow;
    // the last one halves exactly, so it rounds as the product does.
    const product = (a: string, b: string): string =>
      `(CASE WHEN ${finite(a, b)} AND ${a} <> 0 AND ${b} <> 0 THEN (CASE WHEN ABS(${a}) > 1 THEN (CASE WHEN ABS(${b}) < 1 THEN ${a} * ${b} WHEN ABS(${b}) / 2 > ${max()} / ABS(${a}) THEN NULL WHEN ABS(${a}) / 4 * ABS(${b}) > ${max()} / 4 THEN NULL ELSE ${a} * ${b} END) WHEN ABS(${b}) < 1 AND ABS(${b}) * ${scale()} <= ${scaledTiny()} / ABS(${a}) THEN ${d.double('0')} ELSE ${a} * ${b} END) ELSE ${a} * ${b} END)`;
    return d.withValues(operands, ([a, b]) => {
      const [x, y] = [a as string, b as string];
      switch (operator) {
        case 'add':
        case 'sub': {
          const sign = operator === 'add' ? '+' : '-';
          // With an operand below 1 the sum cannot overflow; only operands of 1 and more are halved
          // (halving the smallest subnormal underflows, an error on PostgreSQL: seed 2830, model 401).
          return `(CASE WHEN ABS(${x}) < 1 OR ABS(${y}) < 1 THEN ${x} ${sign} ${y} WHEN ${finite(x, y)} AND ABS(${x} / 2 ${sign} ${y} / 2) > ${max()} / 2 THEN NULL ELSE ${x} ${sign} ${y} END)`;
        }
        case 'mul':
          return product(x, y);
        case 'div':
          return quotient(x, y);
        default:
          // b·trunc(a/b) may round beyond the largest double: a product like any other.
          return d.withValues([x, y, d.truncate(quotient(x, y))], ([p, q, t]) => `(${p} - ${product(q as string, t as string)})`);
      }
    });
  }

  /**
   * An integer operand of add, sub, mul or negate in a wider type, so that the result is the
   * exact one the reference computes instead of an overflow error: Int32 and smaller in 64 bits,
   * Int64 as an exact decimal (SQLite's integers are 64-bit already; beyond that it gives a REAL).
   */
  private widened(sql: string, type: ExpressionType, node?: Extract<BoundExpression, { kind: 'binary' }>): string {
    // An Int32 result is exact, not range-checked (as in the reference): one computed from another
    // (`(a mul b) mul c`, up to 2^77) needs Int64's wider type, not 64 bits.
    // (A literal beyond 32 bits is one: a product folded to a constant, `32767 mul -2147483648`, campaign seed 3109.)
    const computed = (n: BoundExpression): boolean =>
      (n.kind === 'binary' && ['add', 'sub', 'mul', 'div', 'mod'].includes(n.operator)) ||
      (n.kind === 'literal' && (typeof n.value === 'number' || typeof n.value === 'bigint') && (n.value > 2147483647 || n.value < -2147483648));
    const narrow = ['Edm.Int32', 'Edm.Int16', 'Edm.Byte', 'Edm.SByte'].some((name) => isPrimitive(type, name as never));
    if (!narrow && !isPrimitive(type, 'Edm.Int64')) return sql;
    const int64 = !narrow || (node !== undefined && (computed(node.left) || computed(node.right)));
    const target = this.dialect.widerIntegers?.[int64 ? 'int64' : 'int32'];
    return target === undefined ? sql : `CAST(${sql} AS ${target})`;
  }

  /**
   * A DateTimeOffset plus or minus a constant duration (`openedAt add duration'PT1H'`), exact to
   * the microsecond: an interval on PostgreSQL, `DATE_ADD … MICROSECOND` on MySQL/MariaDB,
   * `DATEADD` on SQL Server, the text's seconds and picoseconds on SQLite (hook `shiftInstant`).
   */
  private shiftedInstant(node: Extract<BoundExpression, { kind: 'binary' }>, scope: Scope): string {
    const durationLiteral = (n: BoundExpression): n is BoundLiteral => n.kind === 'literal' && isPrimitive(n.type, 'Edm.Duration') && n.value !== null;
    const [instant, duration] = durationLiteral(node.right)
      ? [node.left, node.right]
      : node.operator === 'add' && durationLiteral(node.left)
        ? [node.right, node.left]
        : [undefined, undefined];
    if (instant === undefined || duration === undefined) throw unsupported('date arithmetic with a duration that is not a literal');
    const picos = parseDuration(duration.value);
    if (picos === undefined || picos % 1_000_000n !== 0n) throw unsupported('durations finer than a microsecond in SQL');
    const micros = (node.operator === 'sub' ? -picos : picos) / 1_000_000n;
    // A result outside the years 1 to 9999 is a failed operation: null. The shift is computed only
    // for the instants whose result lies inside (a bound computed here, exactly, on the side the
    // shift moves to), so that no database computes past its range (PostgreSQL errors, MariaDB
    // wraps). The upper bound is exclusive: an instant may be finer than a microsecond where the
    // dialect stores more digits (SQLite: 9999-12-31T23:59:59.9999999Z plus nothing is itself).
    if (micros === 0n) return this.expression(instant, scope);
    const lowest = BigInt(FIRST_STORED_DAY) * MICROS_PER_DAY;
    const beyond = BigInt(LAST_STORED_DAY + 1) * MICROS_PER_DAY;
    const bound = micros > 0n ? beyond - micros : lowest - micros;
    if (bound <= lowest || bound >= beyond) return this.value(null, 'timestamp');
    const at = this.value(formatInstant(instantFromPicos(bound * 1_000_000n, 0)), 'timestamp');
    return this.dialect.withValues([this.expression(instant, scope)], ([column]) => {
      const c = column as string;
      const shifted = this.shiftInstant(c, micros);
      return `(CASE WHEN ${c} ${micros > 0n ? '<' : '>='} ${at} THEN ${shifted} END)`;
    });
  }

  /** `column` (an instant) moved by `micros` microseconds, in range. */
  private shiftInstant(column: string, micros: bigint): string {
    if (this.dialect.shiftInstant === undefined) throw unsupported(`date arithmetic on ${this.dialect.displayName}`);
    return this.dialect.shiftInstant(column, micros, (value, kind) => this.value(value, kind));
  }

  /** The number of a flag enum value stored as member names: the bitwise or of its members' values. */
  flagsValue(column: string, enumType: EnumType): string {
    const names = this.flagNames(column);
    const terms = memberOrdinals(enumType).map(
      ([name, value]) => `(CASE WHEN ${this.dialect.indexOf(names, this.value(`,${name},`, 'string'))} >= 0 THEN ${this.value(value, 'integer')} ELSE 0 END)`,
    );
    return `(CASE WHEN ${column} IS NULL THEN NULL ELSE (${terms.join(' | ')}) END)`;
  }

  /** `',' || names || ','` without spaces, for finding `,name,` in a flag value. */
  flagNames(column: string): string {
    return this.dialect.concat(
      this.dialect.concat(this.value(',', 'string'), `REPLACE(${column}, ${this.value(' ', 'string')}, ${this.value('', 'string')})`),
      this.value(',', 'string'),
    );
  }

  /** The value of a literal as a parameter of the operand type. */
  literal(node: BoundLiteral, operandType: ExpressionType): string {
    if (node.value === null) return 'NULL';
    const value = node.type.kind === 'enum' && Array.isArray(node.value) ? node.value.join(',') : node.value;
    const kind = parameterKind(operandType.kind === 'null' ? node.type : operandType, node.type);
    // An Int32 value folded out of 32 bits (`2147483647 mul -4226943`) travels exactly, as a bigint
    // (seed 3115: it went through a double, one off).
    if (kind === 'integer' && typeof value === 'bigint' && (value > 2147483647n || value < -2147483648n)) return this.value(value, 'bigint');
    // An integral literal written as a decimal (`n32 in (2.0)`) travels as the integer.
    if (kind === 'integer' && typeof value !== 'number' && Number.isInteger(toNumber(value))) return this.value(toNumber(value), kind);
    if (kind === 'bigint' && typeof value !== 'bigint' && toBigInt(value) !== null) return this.value(toBigInt(value), kind);
    // An Int64 or a Decimal used as a Double is the double nearest to it, as the reference promotes it
    // (MariaDB compared a Decimal's text exactly with a double: seed 3104, model 1746).
    if (
      kind === 'double' &&
      (typeof value === 'bigint' || typeof value === 'string') &&
      (isPrimitive(node.type, 'Edm.Int64') || isPrimitive(node.type, 'Edm.Decimal'))
    )
      return this.value(toNumber(value), kind);
    return this.value(value, kind);
  }

  /** An enum value as its member's value, for ordering enums stored as member names (null for any other text). */
  enumOrdinal(node: BoundExpression, scope: Scope): string {
    if (node.type.kind !== 'enum') return this.expression(node, scope);
    if (node.kind === 'literal') {
      const name = Array.isArray(node.value) ? node.value[0] : node.value;
      return this.value(Number(node.type.type.members.get(String(name)) ?? 0n), 'integer');
    }
    const sql = this.expression(node, scope);
    const cases = memberOrdinals(node.type.type).map(([name, value]) => `WHEN ${this.value(name, 'string')} THEN ${this.value(value, 'integer')}`);
    return `(CASE ${sql} ${cases.join(' ')} END)`;
  }

  /**
   * `isdefined(path)` as a condition: the rows whose set of properties (the presence column's
   * index, see {@link Scope.presence}) has the path or a path above it; every row where rows do not differ.
   */
  defined(node: Extract<BoundExpression, { kind: 'defined' }>, scope: Scope): string {
    const names = node.path.steps.map((step) => (step.kind === 'property' ? step.property.name : step.kind === 'dynamic' ? step.name : ''));
    const presence = scope.presence;
    if (presence === undefined) return '(1 = 1)';
    const prefixes = names.map((_n, i) => names.slice(0, i + 1).join('/'));
    const holding = presence.sets.flatMap((set, i) => (prefixes.some((p) => set.includes(p)) ? [i] : []));
    if (holding.length === 0) return '(1 = 0)';
    return `${scope.alias}.${this.dialect.quote(presence.column)} IN (${holding.map((i) => this.value(i, 'integer')).join(', ')})`;
  }

  /** A value expression. `operandType` types the parameters of literals. */
  expression(node: BoundExpression, scope: Scope, operandType: ExpressionType = node.type): string {
    try {
      return this.bounded(this.expressionOf(node, scope, operandType));
    } catch (error) {
      throw this.locate(error, node);
    }
  }

  private expressionOf(node: BoundExpression, scope: Scope, operandType: ExpressionType): string {
    switch (node.kind) {
      case 'literal':
        if (typeof node.value === 'boolean') return this.dialect.booleanLiteral(node.value);
        return this.literal(node, operandType);
      case 'path':
        return this.path(node, scope);
      case 'count':
        return this.count(node, scope);
      case 'aggregateValue':
        return this.aggregateValue(node, scope);
      case 'binary': {
        const { operator } = node;
        if (['add', 'sub', 'mul', 'div', 'divby', 'mod'].includes(operator)) {
          if (isPrimitive(node.type, 'Edm.DateTimeOffset')) return this.shiftedInstant(node, scope);
          if (!isNumeric(node.type)) throw unsupported('date and duration arithmetic (yet)');
          // With a null operand: a null of the result's type. `x - NULL` has no type of its own in
          // MariaDB, which then makes a CASE around it a DOUBLE (an Int64 branch lost its last digits).
          if (node.left.type.kind === 'null' || node.right.type.kind === 'null') return this.value(null, parameterKind(node.type, node.type));
          // An operand that compiles to a bare NULL (a function of a null literal, `round(null)`) is
          // typed: `NULL * NULL` has no operator on PostgreSQL ("operator is not unique", seed 2901).
          const typed = (sql: string): string => (sql === 'NULL' ? this.value(null, parameterKind(node.operandType, node.operandType)) : sql);
          const l = typed(this.expression(node.left, scope, node.operandType));
          const r = typed(this.expression(node.right, scope, node.operandType));
          if (operator !== 'divby' && numericKind(node.type) === 'double') return this.doubleOperation(operator as 'add', l, r);
          // A zero divisor yields null (see "Failed operations yield null" in grammar/DEVIATIONS.md).
          const divisor = `NULLIF(${r}, 0)`;
          switch (operator) {
            case 'add':
              return this.int64Guard(`(${this.widened(l, node.type, node)} + ${r})`, node.type);
            case 'sub':
              return this.int64Guard(`(${this.widened(l, node.type, node)} - ${r})`, node.type);
            case 'mul':
              return this.int64Guard(`(${this.widened(l, node.type, node)} * ${r})`, node.type);
            case 'mod':
              return this.dialect.modulo(l, divisor, numericKind(node.operandType));
            case 'divby':
              if (numericKind(node.type) === 'double') return this.doubleOperation('div', l, r);
              return this.dialect.decimalDivide(l, divisor);
            default: {
              const integer = ['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64'].some((name) => isPrimitive(node.type, name as never));
              return integer
                ? this.int64Guard(this.dialect.integerDivide(this.widened(l, node.type, node), divisor), node.type)
                : this.dialect.decimalDivide(l, divisor);
            }
          }
        }
        // `has` with a null operand is null (a comparison is never null).
        const unknown =
          operator === 'has' ? `WHEN ${this.expression(node.left, scope)} IS NULL OR ${this.expression(node.right, scope)} IS NULL THEN NULL ` : '';
        return this.booleanValue(node, scope, unknown);
      }
      case 'unary':
        // The negation of an untyped null is null (PostgreSQL cannot choose a `-` for it).
        if (node.operator === 'negate' && node.operand.type.kind === 'null') return 'NULL';
        if (node.operator === 'negate' && isPrimitive(node.type, 'Edm.Duration'))
          return this.dialect.negateDuration(this.expression(node.operand, scope, operandType));
        if (node.operator === 'negate') return this.int64Guard(`(-${this.widened(this.expression(node.operand, scope, operandType), node.type)})`, node.type);
        return this.booleanValue(node, scope);
      case 'call':
        // A predicate's value is its condition with OData's three values.
        if (FUNCTIONS[node.name].predicate) return this.booleanValue(node, scope);
        if (partOfNull(node)) return 'NULL';
        return functionValue(node, this.functionContext(scope));
      case 'case':
        return this.caseValue(node, scope, operandType);
      case 'in':
      case 'lambda':
      case 'defined':
      case 'hierarchyTest':
        // A condition as a value (`(x in (1,2)) eq false`, `$orderby=tags/any()`): OData's three values.
        return this.booleanValue(node, scope);
      default:
        throw unsupported(`${(node as BoundExpression).kind} expressions (yet)`);
    }
  }
}

/** The arithmetic of a numeric operand type. */
function numericKind(type: ExpressionType): 'integer' | 'decimal' | 'double' {
  if (isPrimitive(type, 'Edm.Double') || isPrimitive(type, 'Edm.Single')) return 'double';
  return isPrimitive(type, 'Edm.Decimal') ? 'decimal' : 'integer';
}
