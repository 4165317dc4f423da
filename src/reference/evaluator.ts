/**
 * The reference semantics of OData expressions, shared by every backend (the in-memory backend
 * runs it on rows, constant folding runs it on literals, the differential harness compares every
 * other backend with it). Compiles bound expressions to closures over a row (no `eval`, no `new Function`: it runs
 * under a strict Content-Security-Policy). Semantics are the spec's: three-valued logic with
 * `null`, null-propagating arithmetic and functions, exact Int64 and Decimal.
 */
import { OUTER_IT, type BoundAggregate, type BoundCall, type BoundExpression, type BoundPath } from '../semantic/bound-ast.js';
import { aggregation, storedValue, valueKey } from './aggregation.js';
import { isNumeric, isPrimitive, type ExpressionType } from '../semantic/types.js';
import { addDecimal, divideDecimal, modDecimal, multiplyDecimal, subtractDecimal, toDecimal, type Decimal } from '../util/decimal.js';
import { daysFromCivil, formatDate, instantFromPicos, parseDate, parseInstant, PICOS_PER_DAY } from '../util/temporal.js';
import { callFunction, derivedInstance } from './functions.js';
import { hierarchyTestEvaluator } from './hierarchy-functions.js';
import type { EntitySet } from '../model/model.js';
import { propertyGetter, type Evaluator, type NavigationResolver, type Row, type Scope } from './rows.js';
import { defaultSearch, type SearchFunction } from './search.js';
import { unknownTarget, unsupportedFeature } from '../passes/unsupported.js';
import { compareStrings, domainOf, readDynamic, toBigInt, toNumber } from './values.js';
import type { StorageMapping } from '../storage/storage-mapping.js';
import { dynamicColumn } from '../storage/dynamic-properties.js';

const NO_SCOPE: Scope = Object.freeze(Object.create(null) as Scope);

/**
 * Compiles expressions of one query; `resolve` follows navigation properties, `search` matches
 * `$count($search=…)`. With `requireTargets` (rows by entity set), a navigation property whose
 * entity set the model does not name is refused, as every backend refuses it.
 */
export class ReferenceCompiler {
  /** The query option being compiled (`$filter`, `$orderby`; `$expand` inside one), for error positions. */
  option: string | undefined;
  /**
   * The current collection (Data Aggregation 3.6) that `$these/aggregate(…)` and `$these/$count`
   * aggregate: whoever evaluates compiled expressions over a collection of rows sets it first (the
   * rows a `$filter` is applied to, the input rows of a transformation).
   */
  collection: readonly Row[] | undefined;
  /**
   * The node `x` of the `rolluprecursive` portion being evaluated (`Aggregation.rollupnode()`):
   * whoever runs a portion's transformations sets it first.
   */
  rollupNode: Row | undefined;
  /** The rows of an entity set, for the nodes of a hierarchy function (`undefined`: not at hand). */
  nodes: ((set: EntitySet) => readonly Row[] | undefined) | undefined;

  constructor(
    private readonly resolve: NavigationResolver,
    private readonly search: SearchFunction = defaultSearch,
    private readonly requireTargets = false,
    /** Rows in the stored form of this mapping: dynamic properties inside their JSON column (storage/dynamic-properties.ts). */
    private readonly stored?: StorageMapping,
  ) {}

  compile(node: BoundExpression): Evaluator {
    const fast = fastPath(node);
    if (fast !== undefined) return fast;
    switch (node.kind) {
      case 'literal': {
        const value = node.type.kind === 'enum' && Array.isArray(node.value) ? node.value.join(',') : node.value;
        return () => value;
      }
      case 'path':
        return this.path(node);
      case 'unary':
        return this.unary(node.operator, this.compile(node.operand), node.type);
      case 'binary':
        return this.binary(node.operator, node.left, node.right, node.operandType, node.type);
      case 'in':
        return this.in(node);
      case 'call':
        return this.call(node);
      case 'lambda':
        return this.lambda(node);
      case 'aggregateValue':
        return this.aggregateValue(node);
      case 'hierarchyTest':
        return hierarchyTestEvaluator(
          node,
          (expression) => this.compile(expression),
          () => this.nodes?.(node.hierarchy.nodes),
          () => {
            throw unsupportedFeature(
              'in-memory',
              `the hierarchy '${node.hierarchy.qualifier}' without the rows of '${node.hierarchy.nodes.name}' (give them in 'data')`,
              {
                node,
                option: this.option ?? '$filter',
              },
            );
          },
        );
      case 'defined': {
        // The row has each property along the path as its own (a rolled-up one it has not).
        const names = node.path.steps.map((step) => (step.kind === 'property' ? step.property.name : step.kind === 'dynamic' ? step.name : ''));
        return (row) => {
          let value: unknown = row;
          for (const name of names) {
            if (value === null || typeof value !== 'object' || !Object.hasOwn(value, name)) return false;
            value = (value as Record<string, unknown>)[name];
          }
          return true;
        };
      }
      case 'count': {
        const collection = this.path(node.collection);
        const filter = node.filter === undefined ? undefined : this.compile(node.filter);
        const search = node.search;
        const matches = this.search;
        return (row, scope) => {
          const items = collection(row, scope);
          if (!Array.isArray(items)) return items === null || items === undefined ? 0n : null;
          if (filter === undefined && search === undefined) return BigInt(items.length);
          let count = 0n;
          for (const item of items)
            if ((search === undefined || matches(item as Row, search)) && (filter === undefined || filter(item as Row, NO_SCOPE) === true)) count++;
          return count;
        };
      }
      case 'rollupNode': {
        const name = node.property.name;
        return () => {
          const x = this.rollupNode;
          return x === undefined ? null : (x[name] ?? null);
        };
      }
      case 'case': {
        const branches = node.branches.map((branch) => [this.compile(branch.when), this.compile(branch.then)] as const);
        return (row, scope) => {
          for (const [when, then] of branches) if (when(row, scope) === true) return then(row, scope);
          return null;
        };
      }
    }
  }

  /** A predicate: true only where the expression is true (false and null are left out). */
  predicate(node: BoundExpression): (row: Row) => boolean {
    const evaluate = this.compile(node);
    return (row) => evaluate(row, NO_SCOPE) === true;
  }

  /** The aggregate function: over the related entities of a path, or once per current collection (`$these`). */
  private aggregateValue(node: Extract<BoundExpression, { kind: 'aggregateValue' }>): Evaluator {
    const over = this.aggregateOver(node.aggregate);
    if (node.collection !== undefined) {
      const collection = this.path(node.collection);
      // `$it` in the aggregate expression is the row the path starts from (the variable OUTER_IT).
      return (row, scope) => {
        const items = collection(row, scope);
        return over(Array.isArray(items) ? (items as Row[]) : [], { [OUTER_IT]: scope[OUTER_IT] ?? row });
      };
    }
    // The value depends on the collection only: computed once for each.
    let rows: readonly Row[] | undefined;
    let value: unknown = null;
    return () => {
      const current = this.collection ?? [];
      if (current !== rows) {
        value = over(current);
        rows = current;
      }
      return value;
    };
  }

  /** An aggregate expression over rows (as the `aggregate` transformation computes it). */
  aggregateOver(a: BoundAggregate): (rows: readonly Row[], scope?: Scope) => unknown {
    let source = (rows: readonly Row[]): readonly Row[] => rows;
    if (a.through !== undefined) {
      // The related entities reached from all rows, each once (Data Aggregation 3.2.1.1).
      const follow = this.compile(a.through);
      source = (rows) => {
        const seen = new Set<unknown>();
        const related: Row[] = [];
        for (const row of rows) {
          const value = follow(row, NO_SCOPE);
          for (const entity of Array.isArray(value) ? (value as Row[]) : value === null || value === undefined ? [] : [value as Row]) {
            if (!seen.has(entity)) {
              seen.add(entity);
              related.push(entity);
            }
          }
        }
        return related;
      };
    }
    let over: (rows: readonly Row[], scope?: Scope) => unknown;
    if (a.kind === 'count') over = (rows) => BigInt(source(rows).length);
    else {
      const evaluate = this.compile(a.expression);
      const read = (row: Row): unknown => evaluate(row, NO_SCOPE);
      const combine = aggregation<Row>(a.method, a.expression.type);
      // With a scope (the aggregate function's `$it`), each value is read in it.
      over = (rows, scope) => storedValue(combine(source(rows), scope === undefined ? read : (row) => evaluate(row, scope)));
    }
    // `from` steps (3.2.1.5): the value per group of the step's properties, then the step's method over those values.
    for (const step of a.from ?? []) {
      const inner = over;
      const keys = step.keys.map((key) => ({ evaluate: this.compile(key.path), domain: domainOf(key.path.type) }));
      const combine = aggregation<unknown>(step.method, step.input);
      over = (rows, scope) => {
        const groups = new Map<string, Row[]>();
        for (const row of rows) {
          const key = JSON.stringify(
            keys.map(({ evaluate, domain }) => {
              const value = storedValue(evaluate(row, NO_SCOPE));
              return valueKey(value === null ? null : domain.normalize(value));
            }),
          );
          const group = groups.get(key);
          if (group === undefined) groups.set(key, [row]);
          else group.push(row);
        }
        return storedValue(
          combine(
            [...groups.values()].map((group) => inner(group, scope)),
            (value) => value,
          ),
        );
      };
    }
    return over;
  }

  private path(node: BoundPath): Evaluator {
    const steps = node.steps.map((step): ((value: unknown) => unknown) => {
      switch (step.kind) {
        case 'property': {
          const get = propertyGetter(step.property.name);
          return (value) => {
            const result = get(value);
            return result === undefined ? null : result;
          };
        }
        case 'navigation': {
          const { navigation, entitySet } = step;
          if (this.requireTargets && entitySet === undefined)
            throw unsupportedFeature('in-memory', unknownTarget(navigation), this.option === undefined ? undefined : { node: step, option: this.option });
          return (value) => (value === null || typeof value !== 'object' ? null : this.resolve(navigation, value as Row, entitySet));
        }
        case 'typeCast': {
          // URL 4.11: a cast to a derived type is null for an instance of another type.
          const instance = derivedInstance(step.target);
          return (value) => (instance(value) ? value : null);
        }
        case 'dynamic': {
          // A plain row holds dynamic properties as its own; a stored one in its JSON column.
          const column = this.stored === undefined || step.owner === undefined ? undefined : dynamicColumn(step.owner, this.stored);
          const get = propertyGetter(step.name);
          const bag = column === undefined ? undefined : propertyGetter(column);
          const read = step.read;
          return bag === undefined ? (value) => readDynamic(get(value), read) : (value) => readDynamic(get(bag(value)), read);
        }
      }
    });
    const root: Evaluator = node.root.kind === 'it' ? (row) => row : this.variable(node.root.name);
    if (steps.length === 1) {
      const [only] = steps as [(value: unknown) => unknown];
      return (row, scope) => only(root(row, scope));
    }
    return (row, scope) => {
      let value = root(row, scope);
      for (const step of steps) {
        if (value === null || value === undefined) return null;
        value = step(value);
      }
      return value;
    };
  }

  private variable(name: string): Evaluator {
    return (_row, scope) => scope[name];
  }

  private lambda(node: Extract<BoundExpression, { kind: 'lambda' }>): Evaluator {
    const collection = this.path(node.collection);
    if (node.variable === undefined || node.predicate === undefined) {
      return (row, scope) => {
        const items = collection(row, scope);
        return Array.isArray(items) && items.length > 0;
      };
    }
    const variable = node.variable;
    const predicate = this.compile(node.predicate);
    const any = node.operator === 'any';
    return (row, scope) => {
      const items = collection(row, scope);
      // A null collection counts as empty: any() is false, all() is true.
      if (!Array.isArray(items)) return !any;
      for (const item of items) {
        const inner = Object.create(scope) as Record<string, unknown>;
        Object.defineProperty(inner, variable, { value: item, enumerable: true });
        const result = predicate(row, inner);
        // any: some element is true; all: no element is false (null is not false, as SQL's NOT EXISTS).
        if (any ? result === true : result === false) return any;
      }
      return !any;
    };
  }

  private unary(operator: 'not' | 'negate', operand: Evaluator, type: ExpressionType): Evaluator {
    if (operator === 'not') {
      return (row, scope) => {
        const value = operand(row, scope);
        return value === null || value === undefined ? null : !value;
      };
    }
    const negate = arithmetic('sub', type);
    return (row, scope) => {
      const value = operand(row, scope);
      if (value === null || value === undefined) return null;
      return negate(isPrimitive(type, 'Edm.Duration') ? 'PT0S' : 0, value);
    };
  }

  /**
   * `and`/`or`: a chain `a and b and c` runs as one loop over its operands (fewer closure frames per
   * row). Each operand is compiled once, so compiling is linear in the tree (a nested and/or tree
   * compiled its operands twice, exponentially in the nesting).
   */
  private junction(operator: 'and' | 'or', leftNode: BoundExpression, rightNode: BoundExpression): Evaluator {
    const operands = flatten(operator, leftNode, rightNode).map((operand) => this.compile(operand));
    const decisive = operator === 'and' ? false : true;
    if (operands.length === 2) {
      const [left, right] = operands as [Evaluator, Evaluator];
      return (row, scope) => {
        const a = left(row, scope);
        if (a === decisive) return decisive;
        const b = right(row, scope);
        if (b === decisive) return decisive;
        return a === !decisive && b === !decisive ? !decisive : null;
      };
    }
    if (operands.length === 3) {
      const [x, y, z] = operands as [Evaluator, Evaluator, Evaluator];
      return (row, scope) => {
        const a = x(row, scope);
        if (a === decisive) return decisive;
        const b = y(row, scope);
        if (b === decisive) return decisive;
        const c = z(row, scope);
        if (c === decisive) return decisive;
        return a === !decisive && b === !decisive && c === !decisive ? !decisive : null;
      };
    }
    return (row, scope) => {
      let unknown = false;
      for (let i = 0; i < operands.length; i++) {
        const value = (operands[i] as Evaluator)(row, scope);
        if (value === decisive) return decisive;
        if (value !== !decisive) unknown = true;
      }
      return unknown ? null : !decisive;
    };
  }

  private binary(operator: string, leftNode: BoundExpression, rightNode: BoundExpression, operandType: ExpressionType, type: ExpressionType): Evaluator {
    if (operator === 'and' || operator === 'or') return this.junction(operator, leftNode, rightNode);
    const left = this.compile(leftNode);
    const right = this.compile(rightNode);
    switch (operator) {
      case 'eq':
      case 'ne':
      case 'gt':
      case 'ge':
      case 'lt':
      case 'le':
        return comparison(operator, left, right, operandType, rightNode.kind === 'literal' ? rightNode.value : undefined);
      case 'has': {
        const domain = domainOf(operandType);
        return (row, scope) => {
          const a = domain.normalize(left(row, scope));
          const b = domain.normalize(right(row, scope));
          if (a === null || b === null) return null;
          return ((a as bigint) & (b as bigint)) === (b as bigint);
        };
      }
      default: {
        const compute = arithmetic(operator, type, operandType);
        return (row, scope) => {
          const a = left(row, scope);
          if (a === null || a === undefined) return null;
          const b = right(row, scope);
          if (b === null || b === undefined) return null;
          return compute(a, b);
        };
      }
    }
  }

  private in(node: Extract<BoundExpression, { kind: 'in' }>): Evaluator {
    const left = this.compile(node.left);
    if (node.right.kind === 'list') {
      const domain = domainOf(node.left.type.kind === 'null' ? (node.right.items[0]?.type ?? node.left.type) : node.left.type);
      // Only a null literal is a null item: an item the left type cannot hold matches nothing.
      const hasNull = node.right.items.some((item) => item.value === null);
      const values = node.right.items
        .filter((item) => item.value !== null)
        .map((item) => domain.normalize(item.type.kind === 'enum' && Array.isArray(item.value) ? item.value.join(',') : item.value))
        .filter((item) => item !== null);
      // `x in (a, b)` is `x eq a or x eq b`: null equals only null.
      return (row, scope) => {
        const value = domain.normalize(left(row, scope));
        if (value === null) return hasNull;
        for (const item of values) if (domain.equals(value, item)) return true;
        return false;
      };
    }
    const collection = this.compile(node.right.collection);
    const element = node.right.collection.type.kind === 'collection' ? node.right.collection.type.element : node.left.type;
    const domain = domainOf(isNumeric(node.left.type) && isNumeric(element) ? node.left.type : element);
    return (row, scope) => {
      const value = domain.normalize(left(row, scope));
      const items = collection(row, scope);
      if (!Array.isArray(items)) return false;
      for (const item of items) {
        const normalized = domain.normalize(item);
        if (value === null ? normalized === null : normalized !== null && domain.equals(value, normalized)) return true;
      }
      return false;
    };
  }

  private call(node: BoundCall): Evaluator {
    const args = node.args.map((arg) => this.compile(arg));
    return callFunction(node, args);
  }
}

/** A comparison in `operandType`; a literal right side is normalized once. */
function comparison(operator: string, left: Evaluator, right: Evaluator, operandType: ExpressionType, literal: unknown): Evaluator {
  const domain = domainOf(operandType);
  const constant = literal === undefined ? undefined : literal === null ? null : domain.normalize(Array.isArray(literal) ? literal.join(',') : literal);
  const rightValue: Evaluator = constant === undefined ? (row, scope) => domain.normalize(right(row, scope)) : () => constant;
  const read = (row: Parameters<Evaluator>[0], scope: Scope): unknown => {
    const value = left(row, scope);
    return value === null || value === undefined ? null : domain.normalize(value);
  };
  switch (operator) {
    case 'eq':
      return (row, scope) => {
        const a = read(row, scope);
        const b = rightValue(row, scope);
        if (a === null || b === null) return a === null && b === null;
        return domain.equals(a, b);
      };
    case 'ne':
      return (row, scope) => {
        const a = read(row, scope);
        const b = rightValue(row, scope);
        if (a === null || b === null) return !(a === null && b === null);
        return !domain.equals(a, b);
      };
    default: {
      const accept =
        operator === 'gt' ? (c: number) => c > 0 : operator === 'ge' ? (c: number) => c >= 0 : operator === 'lt' ? (c: number) => c < 0 : (c: number) => c <= 0;
      const orEqualNulls = operator === 'ge' || operator === 'le';
      const isDouble = isPrimitive(operandType, 'Edm.Double') || isPrimitive(operandType, 'Edm.Single');
      return (row, scope) => {
        const a = read(row, scope);
        const b = rightValue(row, scope);
        // gt/lt are false with a null operand; ge/le follow eq for two nulls (null ge null).
        if (a === null || b === null) return orEqualNulls && a === null && b === null;
        if (isDouble && (Number.isNaN(a) || Number.isNaN(b))) return false;
        return accept(domain.compare(a, b));
      };
    }
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An Int64 result, or null when it does not fit in 64 bits (a failed operation yields null). */
const int64 = (value: bigint): bigint | null => (value < INT64_MIN || value > INT64_MAX ? null : value);

/**
 * Arithmetic in the result type (URL 5.1.1.2). An operation that fails on a row's values (a zero
 * divisor, an Int64 overflow, a non-finite Double from finite operands) yields null for that row:
 * see "Failed operations yield null" in grammar/DEVIATIONS.md.
 */
function arithmetic(operator: string, type: ExpressionType, operandType: ExpressionType = type): (a: unknown, b: unknown) => unknown {
  const name = type.kind === 'primitive' ? type.name : '';
  if (name === 'Edm.Duration' || name === 'Edm.DateTimeOffset' || name === 'Edm.Date') return temporalArithmetic(operator, name);
  if (name === 'Edm.Int64' || (name !== 'Edm.Decimal' && name !== 'Edm.Double' && name !== 'Edm.Single' && isPrimitive(operandType, 'Edm.Int64'))) {
    return (a, b) => {
      const x = toBigInt(a);
      const y = toBigInt(b);
      if (x === null || y === null) return null;
      switch (operator) {
        case 'add':
          return int64(x + y);
        case 'sub':
          return int64(x - y);
        case 'mul':
          return int64(x * y);
        case 'div':
          return y === 0n ? null : int64(x / y);
        default:
          return y === 0n ? null : x % y;
      }
    };
  }
  if (name === 'Edm.Decimal') {
    return (a, b) => {
      const x = asDecimal(a);
      const y = asDecimal(b);
      if (x === null || y === null) return null;
      switch (operator) {
        case 'add':
          return addDecimal(x, y);
        case 'sub':
          return subtractDecimal(x, y);
        case 'mul':
          return multiplyDecimal(x, y);
        case 'mod':
          return modDecimal(x, y) ?? null;
        default:
          return divideDecimal(x, y) ?? null;
      }
    };
  }
  const integer = name !== 'Edm.Double' && name !== 'Edm.Single';
  return (a, b) => {
    // An integer operand beyond 2^53 (an Int32 product, kept exact): the operation exact too.
    if (integer && (typeof a === 'bigint' || typeof b === 'bigint')) return exactInteger(operator, a, b);
    const x = toNumber(a);
    const y = toNumber(b);
    if (x === null || y === null) return null;
    let result: number;
    switch (operator) {
      case 'add':
        result = x + y;
        break;
      case 'sub':
        result = x - y;
        break;
      case 'mul':
        result = x * y;
        break;
      case 'mod':
        if (y === 0) return null;
        // Double: a - b·trunc(a/b), which every engine computes alike (integers: the exact remainder).
        result = integer ? x % y : x - y * Math.trunc(x / y);
        break;
      default:
        // A zero divisor yields null (Double too); integer division truncates.
        if (y === 0) return null;
        result = integer ? Math.trunc(x / y) : x / y;
    }
    // An integer sum, difference or product beyond 2^53 (Int32 operands reach 2^62) is exact as a
    // bigint, as the SQL engines compute it in 64 bits (seed 2831: (s mul s) div 2.1e-9 as a Decimal).
    if (integer && !Number.isSafeInteger(result) && Number.isFinite(result) && (operator === 'add' || operator === 'sub' || operator === 'mul')) {
      return exactInteger(operator, x, y);
    }
    // A non-finite result from finite operands (an overflow) yields null.
    return !Number.isFinite(result) && Number.isFinite(x) && Number.isFinite(y) ? null : result;
  };
}

/** Integer arithmetic in bigints: a number again where it is a safe integer, else the exact bigint; null for a zero divisor. */
function exactInteger(operator: string, a: unknown, b: unknown): number | bigint | null {
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x === null || y === null) return null;
  let result: bigint;
  switch (operator) {
    case 'add':
      result = x + y;
      break;
    case 'sub':
      result = x - y;
      break;
    case 'mul':
      result = x * y;
      break;
    case 'mod':
      if (y === 0n) return null;
      result = x % y;
      break;
    default:
      if (y === 0n) return null;
      result = x / y;
  }
  return result >= -(2n ** 53n) && result <= 2n ** 53n ? Number(result) : result;
}

function asDecimal(value: unknown): Decimal | null {
  if (typeof value === 'object' && value !== null && 'coefficient' in value) return value as Decimal;
  return toDecimal(value) ?? null;
}

/** Days of 0001-01-01 and 9999-12-31 since 1970-01-01. */
const MIN_DAY = BigInt(daysFromCivil(1, 1, 1));
const MAX_DAY = BigInt(daysFromCivil(9999, 12, 31));

function temporalArithmetic(operator: string, result: string): (a: unknown, b: unknown) => unknown {
  const duration = domainOf({ kind: 'primitive', name: 'Edm.Duration' });
  const dto = domainOf({ kind: 'primitive', name: 'Edm.DateTimeOffset' });
  return (a, b) => {
    if (result === 'Edm.Duration') {
      const da = duration.normalize(a);
      const db = duration.normalize(b);
      if (da !== null && db !== null) return operator === 'add' ? (da as bigint) + (db as bigint) : (da as bigint) - (db as bigint);
      // DateTimeOffset sub DateTimeOffset, or Date sub Date.
      const ia = dto.normalize(a);
      const ib = dto.normalize(b);
      return ia === null || ib === null ? null : (ia as bigint) - (ib as bigint);
    }
    const [base, delta] = operator === 'add' && duration.normalize(a) !== null ? [b, a] : [a, b];
    const d = duration.normalize(delta);
    if (d === null) return null;
    const signed = operator === 'sub' ? -(d as bigint) : (d as bigint);
    if (result === 'Edm.Date') {
      const days = parseDate(base);
      if (days === undefined) return null;
      const shifted = BigInt(days) * PICOS_PER_DAY + signed;
      const floor = shifted >= 0n ? shifted / PICOS_PER_DAY : -((-shifted + PICOS_PER_DAY - 1n) / PICOS_PER_DAY);
      // A date outside years 1 to 9999 is a failed operation: null.
      return floor < MIN_DAY || floor > MAX_DAY ? null : formatDate(Number(floor));
    }
    // The result keeps the offset of the DateTimeOffset operand.
    const instant = parseInstant(base);
    if (instant === undefined) return null;
    const picos = instant.picos + signed;
    return picos < MIN_DAY * PICOS_PER_DAY || picos >= (MAX_DAY + 1n) * PICOS_PER_DAY ? null : instantFromPicos(picos, instant.offsetMinutes);
  };
}

/** The operands of a chain of one logical operator: `a and (b and c)` gives [a, b, c]. */
function flatten(operator: string, left: BoundExpression, right: BoundExpression): BoundExpression[] {
  const result: BoundExpression[] = [];
  const visit = (node: BoundExpression): void => {
    if (node.kind === 'binary' && node.operator === operator) {
      visit(node.left);
      visit(node.right);
    } else result.push(node);
  };
  visit(left);
  visit(right);
  return result;
}

/** The property name of a path `Name` on the current row, when it can be read with a plain `row[name]`. */
function plainProperty(node: BoundExpression): string | undefined {
  if (node.kind !== 'path' || node.root.kind !== 'it' || node.steps.length !== 1) return undefined;
  const [step] = node.steps;
  if (step?.kind !== 'property' || step.property.collection) return undefined;
  const name = step.property.name;
  return name in Object.prototype || name === '__proto__' ? undefined : name;
}

const FAST_OPERATORS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const FAST_NUMBERS = new Set(['Edm.Int32', 'Edm.Int16', 'Edm.Byte', 'Edm.SByte', 'Edm.Double', 'Edm.Single']);

/**
 * Specialized closures for the most common shapes (`Name op literal` on numbers, strings and
 * Booleans, and `startswith`/`endswith`/`contains(Name,'literal')`): one closure per row instead
 * of a chain, with the generic form as the fallback for values of an unexpected JavaScript type.
 */
function fastPath(node: BoundExpression): Evaluator | undefined {
  if (node.kind === 'call' && (node.name === 'startswith' || node.name === 'endswith' || node.name === 'contains')) {
    const [target, search] = node.args;
    const name = target === undefined ? undefined : plainProperty(target);
    if (name === undefined || search?.kind !== 'literal' || typeof search.value !== 'string') return undefined;
    const text = search.value;
    if (node.name === 'startswith')
      return (row) => {
        const v = (row as Record<string, unknown> | null)?.[name];
        return typeof v === 'string' ? v.startsWith(text) : null;
      };
    if (node.name === 'endswith')
      return (row) => {
        const v = (row as Record<string, unknown> | null)?.[name];
        return typeof v === 'string' ? v.endsWith(text) : null;
      };
    return (row) => {
      const v = (row as Record<string, unknown> | null)?.[name];
      return typeof v === 'string' ? v.includes(text) : null;
    };
  }
  if (node.kind !== 'binary' || !FAST_OPERATORS.has(node.operator)) return undefined;
  const name = plainProperty(node.left);
  const literal = node.right;
  if (name === undefined || literal.kind !== 'literal' || literal.value === null) return undefined;
  const operandType = node.operandType;
  const numeric = operandType.kind === 'primitive' && FAST_NUMBERS.has(operandType.name);
  const textual = isPrimitive(operandType, 'Edm.String') && node.left.type.kind === 'primitive' && node.left.type.name === 'Edm.String';
  const boolean = isPrimitive(operandType, 'Edm.Boolean');
  if (!numeric && !textual && !boolean) return undefined;
  const constant = numeric ? toNumber(literal.value) : literal.value;
  if (constant === null || (numeric && typeof constant !== 'number') || (textual && typeof constant !== 'string') || (boolean && typeof constant !== 'boolean'))
    return undefined;
  const kind = numeric ? 'number' : textual ? 'string' : 'boolean';
  const generic = comparison(
    node.operator,
    (row) => (row as Record<string, unknown> | null)?.[name],
    () => literal.value,
    operandType,
    literal.value,
  );
  const c = constant as number;
  const t = constant as string;
  // A stored value of another JavaScript type (a numeric string, a bigint) takes the generic path.
  const other = (v: unknown, row: Row, scope: Scope): unknown => (v === null || v === undefined ? node.operator === 'ne' : generic(row, scope));
  switch (node.operator) {
    case 'eq':
      return (row, scope) => {
        const v = (row as Record<string, unknown> | null)?.[name];
        return typeof v === kind ? v === constant : other(v, row, scope);
      };
    case 'ne':
      return (row, scope) => {
        const v = (row as Record<string, unknown> | null)?.[name];
        return typeof v === kind ? v !== constant : other(v, row, scope);
      };
    default:
      if (kind === 'number') {
        switch (node.operator) {
          case 'gt':
            return (row, scope) => {
              const v = (row as Record<string, unknown> | null)?.[name];
              return typeof v === 'number' ? v > c : other(v, row, scope);
            };
          case 'ge':
            return (row, scope) => {
              const v = (row as Record<string, unknown> | null)?.[name];
              return typeof v === 'number' ? v >= c : other(v, row, scope);
            };
          case 'lt':
            return (row, scope) => {
              const v = (row as Record<string, unknown> | null)?.[name];
              return typeof v === 'number' ? v < c : other(v, row, scope);
            };
          default:
            return (row, scope) => {
              const v = (row as Record<string, unknown> | null)?.[name];
              return typeof v === 'number' ? v <= c : other(v, row, scope);
            };
        }
      }
      if (kind === 'string') {
        const accept =
          node.operator === 'gt'
            ? (x: number) => x > 0
            : node.operator === 'ge'
              ? (x: number) => x >= 0
              : node.operator === 'lt'
                ? (x: number) => x < 0
                : (x: number) => x <= 0;
        return (row, scope) => {
          const v = (row as Record<string, unknown> | null)?.[name];
          return typeof v === 'string' ? accept(compareStrings(v, t)) : other(v, row, scope);
        };
      }
      return undefined;
  }
}
