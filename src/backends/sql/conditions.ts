/**
 * Conditions in SQL: the compiler of the lowered condition tree (src/passes/lower-conditions.ts),
 * which has applied OData's null rules and pushed `not` to the leaves already. A lowered tree is
 * compiled two ways: as a filter ({@link SqlConditions.condition}: TRUE exactly where it holds,
 * NULL may stand for false) and as a Boolean value ({@link SqlConditions.booleanValue}: TRUE,
 * FALSE and NULL where OData's value is true, false and null). A leaf that holds where its node
 * is false is the node compiled definitely (NULL only where OData's value is null) under SQL's
 * `NOT`, which is exact in three-valued logic.
 */
import { bitsOf, flagBits, membersCarrying } from '../../passes/enums.js';
import { neverNull } from '../../passes/never-null.js';
import { foldLowered, lowerCondition, type LoweredCases, type LoweredComparison, type LoweredCondition } from '../../passes/lower-conditions.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import { toBigInt, toNumber } from '../../reference/values.js';
import type { BoundExpression, BoundLiteral, BoundPathStep } from '../../semantic/bound-ast.js';
import { INTEGER_RANGES, isNumeric, isPrimitive } from '../../semantic/types.js';
import { untypedDynamic } from '../../semantic/dynamic-values.js';
import type { EnumType, Property, StructuredType } from '../../model/model.js';
import type { ExpressionType } from '../../semantic/types.js';
import type { Dialect, ParameterKind } from './dialect.js';
import { columnName, type SqlMapping } from './mapping.js';
import { LIST_PARAMETER_THRESHOLD, MARK_END, MARK_START, parameterKind } from './parameters.js';

/** What a condition needs of the rows it is about (the compiler's `Scope`). */
export interface ConditionScope {
  readonly alias: string;
  readonly type: StructuredType;
  /** Inside a complex value: the prefix of its flattened columns. */
  readonly prefix?: string;
  /** Inside an element of a collection of complex values (JSON): its SQL; complex members are JSON, not columns. */
  readonly element?: string;
}

type Path = Extract<BoundExpression, { kind: 'path' }>;

/** What compiling conditions needs of the SQL compiler (compiler.ts), in scopes of type `S`. */
export interface ConditionCompiler<S extends ConditionScope> {
  readonly dialect: Dialect;
  readonly mapping: SqlMapping;
  readonly params: unknown[];
  /** `build()`, bounded in length, with an error located at `node`. */
  checked(node: BoundExpression, build: () => string): string;
  expression(node: BoundExpression, scope: S, operandType?: ExpressionType): string;
  value(value: unknown, kind: ParameterKind): string;
  literal(node: BoundLiteral, operandType: ExpressionType): string;
  durationKey(node: BoundExpression, scope: S, operandType?: ExpressionType): string;
  enumOrdinal(node: BoundExpression, scope: S): string;
  flagsValue(column: string, enumType: EnumType): string;
  flagNames(column: string): string;
  leaves(type: StructuredType, property: Property, prefix?: string): { column: string }[];
  navigationExists(node: Path, scope: S): string;
  lambda(node: Extract<BoundExpression, { kind: 'lambda' }>, scope: S): string;
  /** A hierarchy function (`Aggregation.isdescendant`, …), TRUE or FALSE: see `SqlCompiler.hierarchyTest`. */
  hierarchyTest(node: Extract<BoundExpression, { kind: 'hierarchyTest' }>, scope: S): string;
  /** `isdefined(path)`: see `SqlCompiler.defined`. */
  defined(node: Extract<BoundExpression, { kind: 'defined' }>, scope: S): string;
}

/** A function predicate (`contains`, `isof`, …) as a condition: compiled with the functions. */
export type PredicateCompiler<S> = (node: Extract<BoundExpression, { kind: 'call' }>, scope: S) => string;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32 = INTEGER_RANGES['Edm.Int32'] as readonly [bigint, bigint];
const fitsInt32 = (n: bigint): boolean => n >= INT32[0] && n <= INT32[1];

function unsupported(what: string): ReturnType<typeof unsupportedFeature> {
  return unsupportedFeature('SQL', what);
}

/** A path to a complex property of the row (stored flattened: one column per leaf). */
function complexPath(node: BoundExpression): boolean {
  if (node.kind !== 'path' || node.root.kind !== 'it' || node.type.kind !== 'complex') return false;
  return node.steps.length > 0 && node.steps.every((step) => step.kind === 'property');
}

/** Compiles lowered conditions for one SQL compiler (its parameters, dialect and mapping). */
export class SqlConditions<Scope extends ConditionScope> {
  constructor(
    private readonly c: ConditionCompiler<Scope>,
    private readonly predicate: PredicateCompiler<Scope>,
  ) {}

  /** `node` as a filter: TRUE exactly where it holds (NULL may stand for OData's false). */
  condition(node: BoundExpression, scope: Scope): string {
    return this.holds(lowerCondition(node), scope);
  }

  /** A lowered condition as a filter: TRUE exactly where it holds. */
  holds(condition: LoweredCondition, scope: Scope): string {
    return foldLowered(condition, this.cases(false, scope));
  }

  /**
   * A condition as a Boolean value with OData's three values: NULL where neither it nor its
   * negation holds (`not flag` with a null flag is null, and `null eq null` is true). `unknown`:
   * `WHEN … THEN NULL` cases that come first (`has` with a null operand).
   */
  booleanValue(node: BoundExpression, scope: Scope, unknown = ''): string {
    const holds = this.definite(node, scope);
    if (unknown !== '') return `(CASE ${unknown}WHEN ${holds} THEN ${this.c.dialect.booleanLiteral(true)} ELSE ${this.c.dialect.booleanLiteral(false)} END)`;
    return this.c.dialect.booleanValue(holds, neverNull(node));
  }

  /** `node` as an SQL condition that is TRUE, FALSE and NULL where OData's value is true, false and null. */
  definite(node: BoundExpression, scope: Scope): string {
    return foldLowered(lowerCondition(node), this.cases(true, scope));
  }

  /**
   * The compilers of lowered nodes: `definite` for a Boolean value (exact), else for a filter.
   * A leaf that holds where its node is false is `NOT` of the node compiled definitely.
   */
  private cases(definite: boolean, scope: Scope): LoweredCases<string> {
    return {
      constant: (value) => (value === null ? 'NULL' : value ? '1 = 1' : '1 = 0'),
      and: (left, right, node) => this.c.checked(node, () => `(${left} AND ${right})`),
      or: (left, right, node) => this.c.checked(node, () => `(${left} OR ${right})`),
      null: (operand, isNull, node) => this.c.checked(node, () => this.nullTest(operand, isNull, scope)),
      comparison: (comparison) =>
        this.c.checked(comparison.node, () =>
          comparison.holdsWhen ? this.comparison(comparison, definite, scope) : `NOT (${this.comparison(comparison, true, scope)})`,
        ),
      leaf: (node, holdsWhen) => this.c.checked(node, () => (holdsWhen ? this.leaf(node, definite, scope) : `NOT (${this.leaf(node, true, scope)})`)),
      // `not (a and b)` as one NOT of the definite conjunction, not a NOT per leaf (shorter, exact alike).
      negation: (complemented, node) => this.c.checked(node, () => `NOT (${foldLowered(complemented, this.cases(true, scope))})`),
    };
  }

  /** A condition `not` does not go into, where its value is true (`definite`: and FALSE where it is false). */
  private leaf(node: BoundExpression, definite: boolean, scope: Scope): string {
    switch (node.kind) {
      case 'binary':
        if (node.operator === 'has') return this.has(node, scope);
        break;
      case 'in':
        return this.in(node, definite, scope);
      case 'lambda':
        return this.c.lambda(node, scope);
      case 'defined':
        return this.c.defined(node, scope);
      case 'hierarchyTest':
        return this.c.hierarchyTest(node, scope);
      case 'call':
        return this.predicate(node, scope);
      case 'path':
      case 'case':
        // A dynamic property is no condition here (passes/dynamic-uses.ts).
        if (untypedDynamic(node) !== undefined) throw unsupported('a dynamic property as a condition: compare it with true');
        // A Boolean property or case as a condition (SQLite and MySQL store 0/1).
        return this.c.dialect.booleanCondition(this.c.expression(node, scope));
      default:
        break;
    }
    throw unsupported(`this condition (${node.kind})`);
  }

  /**
   * `operand` is null (or is not): a single-valued navigation path has no related entity, a
   * complex value stored flattened has all of its columns null, a Duration its key null.
   */
  private nullTest(operand: BoundExpression, isNull: boolean, scope: Scope): string {
    if (complexPath(operand) && scope.element === undefined) {
      const all = this.complexNull(operand as Path, scope);
      return isNull ? all : `NOT ${all}`;
    }
    const last = operand.kind === 'path' ? operand.steps[operand.steps.length - 1] : undefined;
    if (operand.kind === 'path' && last?.kind === 'navigation' && !last.navigation.collection) {
      const exists = this.c.navigationExists(operand, scope);
      return isNull ? `NOT ${exists}` : exists;
    }
    const sql = isPrimitive(operand.type, 'Edm.Duration') ? this.c.durationKey(operand, scope) : this.c.expression(operand, scope);
    return `${sql} ${isNull ? 'IS NULL' : 'IS NOT NULL'}`;
  }

  /** Every flattened column of a complex value is null. */
  private complexNull(path: Path, scope: Scope): string {
    let owner = scope.type;
    let prefix = scope.prefix ?? '';
    const steps = path.steps as Extract<BoundPathStep, { kind: 'property' }>[];
    for (const step of steps.slice(0, -1)) {
      prefix += `${columnName(owner, step.property, this.c.mapping)}_`;
      owner = (step.property.type as { type: StructuredType }).type;
    }
    const last = (steps[steps.length - 1] as (typeof steps)[number]).property;
    const nulls = this.c.leaves(owner, last, prefix).map((leaf) => `${scope.alias}.${this.c.dialect.quote(leaf.column)} IS NULL`);
    return `(${nulls.join(' AND ')})`;
  }

  /**
   * A comparison of two operands, neither a null literal (the lowering made those null tests):
   * where it is true, and with `definite` FALSE where it is false (never NULL). The null rules
   * are the lowering's: which operands may be null, and whether two nulls make it hold.
   */
  private comparison(comparison: LoweredComparison, definite: boolean, scope: Scope): string {
    const { operator, left: leftNode, right: rightNode, operandType } = comparison;
    if (complexPath(leftNode) || complexPath(rightNode)) throw unsupported('comparing a whole complex value with anything but null');
    const nullable = (node: BoundExpression): boolean => comparison.nulls[node === leftNode ? 0 : 1] === 'maybe';
    const strings = isPrimitive(operandType, 'Edm.String');
    const enums = operandType.kind === 'enum';
    const durations = isPrimitive(operandType, 'Edm.Duration');
    const doubles = isPrimitive(operandType, 'Edm.Double') || isPrimitive(operandType, 'Edm.Single');
    const instants = isPrimitive(operandType, 'Edm.DateTimeOffset');
    // An operand used twice is compiled twice (its parameters then appear twice, as its text does).
    const equality = operator === 'eq' || operator === 'ne';
    // A Double compared in order with a literal that is not NaN (`price gt 50`), where NaN is a value
    // above every number: the other operand stays bare, so an index serves the range, and where the
    // comparison would hold for NaN (`price gt 50`, not `price lt 60`) it is kept below NaN.
    const notNaNLiteral = (node: BoundExpression): boolean => node.kind === 'literal' && node.value !== 'NaN' && !Number.isNaN(node.value);
    const belowNaN = this.c.dialect.belowNaN;
    const ranged =
      doubles && !equality && belowNaN !== undefined && notNaNLiteral(leftNode) !== notNaNLiteral(rightNode)
        ? notNaNLiteral(leftNode)
          ? rightNode
          : leftNode
        : undefined;
    // Flag values stored as member names compare by their bits ('read,write' eq 'readWrite').
    const flags = operandType.kind === 'enum' && operandType.type.isFlags ? operandType.type : undefined;
    const wrap = (node: BoundExpression): string => {
      if (flags !== undefined)
        return node.kind === 'literal'
          ? this.c.value(Number(flagBits(node.value, flags)), 'integer')
          : this.c.flagsValue(this.c.expression(node, scope, operandType), flags);
      let sql =
        enums && !equality
          ? this.c.enumOrdinal(node, scope)
          : durations
            ? this.c.durationKey(node, scope, operandType)
            : this.c.expression(node, scope, operandType);
      // In Double, an Int64 or a Decimal is first rounded to a double, as the reference does (SQLite
      // and MariaDB would compare exactly: a Decimal with a Double literal MariaDB is sent as integer
      // text, seed 2835, model 905).
      if (doubles && node.kind !== 'literal' && (isPrimitive(node.type, 'Edm.Int64') || isPrimitive(node.type, 'Edm.Decimal')))
        sql = this.c.dialect.double(sql);
      if (doubles && !equality && ranged === undefined) sql = this.c.dialect.orderedDouble(sql);
      if (instants && node.kind !== 'literal' && isPrimitive(node.type, 'Edm.Date')) sql = this.c.dialect.dateAsInstant(sql);
      return strings && !(equality && this.c.dialect.binaryEquality) ? this.c.dialect.binary(sql) : sql;
    };
    // A Duration's key is null exactly when it is (and a difference of instants is only a key).
    const isNull = (node: BoundExpression): string => `${durations ? wrap(node) : this.c.expression(node, scope, operandType)} IS NULL`;
    const bothNullable = nullable(leftNode) && nullable(rightNode);
    // Where doubles hold NaN (PostgreSQL finds NaN = NaN), NaN equals nothing, as in the reference.
    const notNaN = this.c.dialect.notNaN;
    if (doubles && equality && notNaN !== undefined) {
      const guarded = (node: BoundExpression): boolean => node.kind !== 'literal' || node.value === 'NaN' || Number.isNaN(node.value);
      if ([leftNode, rightNode].some((node) => node.kind !== 'literal' && node.kind !== 'path')) {
        // A computed side is read twice (its guard and the comparison): bound once where the dialect can.
        // Typed as doubles: an untyped NULL (`-(null)`) in a derived table would be text in PostgreSQL.
        return this.c.dialect.withValues([this.c.dialect.double(wrap(leftNode)), this.c.dialect.double(wrap(rightNode))], ([l, r]) => {
          const guards = [guarded(leftNode) ? notNaN(l as string) : undefined, guarded(rightNode) ? notNaN(r as string) : undefined].filter(
            (g) => g !== undefined,
          );
          const equal = `(${[
            ...guards,
            this.c.dialect.notDistinct(
              () => l as string,
              () => r as string,
            ),
          ].join(' AND ')})`;
          return operator === 'eq' ? equal : `NOT ${equal}`;
        });
      }
      const guards = [leftNode, rightNode].filter(guarded).map((node) => notNaN(this.c.expression(node, scope, operandType)));
      if (guards.length > 0) {
        const equal = `(${guards.join(' AND ')} AND ${this.c.dialect.notDistinct(
          () => wrap(leftNode),
          () => wrap(rightNode),
        )})`;
        return operator === 'eq' ? equal : `NOT ${equal}`;
      }
    }
    switch (operator) {
      case 'eq':
        if (!definite && !bothNullable) return `${wrap(leftNode)} = ${wrap(rightNode)}`;
        return this.c.dialect.notDistinct(
          () => wrap(leftNode),
          () => wrap(rightNode),
        );
      case 'ne':
        if (bothNullable || definite)
          return `NOT (${this.c.dialect.notDistinct(
            () => wrap(leftNode),
            () => wrap(rightNode),
          )})`;
        return `(${wrap(leftNode)} <> ${wrap(rightNode)} OR ${isNull(nullable(leftNode) ? leftNode : rightNode)})`;
      default: {
        const sqlOperator = { gt: '>', ge: '>=', lt: '<', le: '<=' }[operator] as string;
        const above = ranged !== undefined && (ranged === leftNode) === (operator === 'gt' || operator === 'ge');
        const bare = `${wrap(leftNode)} ${sqlOperator} ${wrap(rightNode)}`;
        const compare = above && belowNaN !== undefined ? `(${bare} AND ${belowNaN(wrap(ranged))})` : bare;
        // The lowering's null rules: ge/le hold for two nulls (`bothNull`), gt/lt not; a null operand alone makes them false.
        const orBothNull = comparison.bothNull && bothNullable ? ` OR (${isNull(leftNode)} AND ${isNull(rightNode)})` : '';
        if (!definite) return orBothNull === '' ? compare : `(${compare}${orBothNull})`;
        // Doubles compare as NULLIF(x, NaN) where NaN exists (NaN compares false): guarded as such.
        const notNull = [leftNode, rightNode]
          .filter(
            (node) => nullable(node) || (doubles && ranged === undefined && (node.kind !== 'literal' || node.value === 'NaN' || Number.isNaN(node.value))),
          )
          .map((node) => `${doubles || durations ? wrap(node) : this.c.expression(node, scope, operandType)} IS NOT NULL AND `)
          .join('');
        return `((${notNull}${compare})${orBothNull})`;
      }
    }
  }

  private in(node: Extract<BoundExpression, { kind: 'in' }>, definite: boolean, scope: Scope): string {
    if (node.right.kind !== 'list') throw unsupported(`'in' with a collection`);
    const left = (): string => this.c.expression(node.left, scope, node.left.type);
    const operandType = node.left.type;
    // An item the left type cannot hold (`n64 in (2.5)`) matches nothing: left out.
    const integral = ['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64'].some((name) => isPrimitive(operandType, name as never));
    // An integral item travels as an integer, or as a bigint beyond 32 bits (`n16 in (2147483648)`,
    // `(n16 add 1) in (-1.7976931348623157e308)`); one beyond 64 bits matches nothing (the integer
    // arithmetic yields null past Int64).
    const integralItem = (literal: BoundLiteral): bigint | null => {
      const n = toBigInt(literal.value) ?? (Number.isInteger(toNumber(literal.value)) ? BigInt(toNumber(literal.value) as number) : null);
      return n !== null && n >= INT64_MIN && n <= INT64_MAX ? n : null;
    };
    const items = node.right.items.filter((item) => item.value !== null && (!integral || !isNumeric(item.type) || integralItem(item) !== null));
    const wide =
      integral && (isPrimitive(operandType, 'Edm.Int64') || items.some((literal) => isNumeric(literal.type) && !fitsInt32(integralItem(literal) as bigint)));
    const hasNull = node.right.items.some((item) => item.value === null);
    const strings = isPrimitive(operandType, 'Edm.String');
    // x in (...) is false, not null, when x is null and no item is null.
    const guard = !definite || hasNull ? '' : `${left()} IS NOT NULL AND `;
    const flags = operandType.kind === 'enum' && operandType.type.isFlags ? operandType.type : undefined;
    const column = flags !== undefined ? this.c.flagsValue(left(), flags) : strings && !this.c.dialect.binaryEquality ? this.c.dialect.binary(left()) : left();
    const item = (literal: BoundLiteral): string => {
      if (flags !== undefined) return this.c.value(Number(flagBits(literal.value, flags)), 'integer');
      if (integral && isNumeric(literal.type))
        return wide ? this.c.value(integralItem(literal), 'bigint') : this.c.value(Number(integralItem(literal)), 'integer');
      return this.c.literal(literal, operandType);
    };
    const list =
      items.length === 0
        ? '1 = 0'
        : items.length >= LIST_PARAMETER_THRESHOLD
          ? this.listParameter(
              column,
              integral
                ? items.map((literal) =>
                    isNumeric(literal.type) ? { ...literal, value: wide ? integralItem(literal) : Number(integralItem(literal)) } : literal,
                  )
                : items,
              flags !== undefined ? 'integer' : integral ? (wide ? 'bigint' : 'integer') : parameterKind(operandType, items[0]?.type ?? operandType),
            )
          : `${column} IN (${items.map(item).join(', ')})`;
    const withNull = hasNull ? `(${list} OR ${left()} IS NULL)` : list;
    return guard === '' ? withNull : `(${guard}${withNull})`;
  }

  /** `column IN` the items of a long list, all in one parameter (drivers limit their number). */
  private listParameter(column: string, items: readonly BoundLiteral[], kind: ParameterKind): string {
    const flags = items[0]?.type.kind === 'enum' && items[0].type.type.isFlags ? items[0].type.type : undefined;
    const values = items.map((literal) => {
      const value =
        flags !== undefined
          ? Number(flagBits(literal.value, flags))
          : literal.type.kind === 'enum' && Array.isArray(literal.value)
            ? literal.value.join(',')
            : literal.value;
      return this.c.dialect.parameter(value, kind);
    });
    this.c.params.push(this.c.dialect.listParameter(values, kind));
    return this.c.dialect.inList(column, `${MARK_START}${this.c.params.length - 1}${MARK_END}`, kind);
  }
  /**
   * `access has Access'write'` on a flag enum stored as member names (`'read,write'`): for every
   * bit of the literal, one of the members that carry that bit is among the names. Exact for any
   * member values (also composite ones); null stays null.
   */
  private has(node: Extract<BoundExpression, { kind: 'binary' }>, scope: Scope): string {
    const enumType = node.operandType.kind === 'enum' ? node.operandType.type : undefined;
    const literal = node.right;
    if (enumType === undefined || literal.kind !== 'literal' || !Array.isArray(literal.value))
      throw unsupported("'has' with a value that is not a flag enum literal");
    let wanted = 0n;
    for (const name of literal.value as readonly string[]) wanted |= enumType.members.get(name) ?? 0n;
    const column = this.c.expression(node.left, scope);
    const names = this.c.flagNames(column);
    const contains = (member: string): string => `${this.c.dialect.indexOf(names, this.c.value(`,${member},`, 'string'))} >= 0`;
    const bits: string[] = [];
    for (const bit of bitsOf(wanted)) {
      const carriers = membersCarrying(enumType, bit).map(contains);
      bits.push(carriers.length === 0 ? '1 = 0' : `(${carriers.join(' OR ')})`);
    }
    // has with no bits: true for every non-null value.
    if (bits.length === 0) return `${column} IS NOT NULL`;
    return `(${bits.join(' AND ')})`;
  }
}
