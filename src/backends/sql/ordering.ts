/**
 * `ORDER BY` items of a list or an expansion: nulls first ascending (PROT 11.2.6.2), enums by
 * their declared order, durations by their key, strings by code point, NaN above the numbers,
 * and the key appended when paging (11.2.6.3) so that pages are stable.
 */
import type { BoundExpression, BoundQueryOptions } from '../../semantic/bound-ast.js';
import { isPrimitive } from '../../semantic/types.js';
import { readDynamicAs, untypedDynamic } from '../../semantic/dynamic-values.js';
import { everyExpression } from '../../semantic/walk/index.js';
import type { Scope, SqlCompiler } from './compiler.js';
import { nonNullColumn, nullRejected } from './nullability.js';
import { partOfNull } from '../../passes/null-parts.js';
import { joinedKeys } from '../../semantic/apply/output-order.js';

/** The kinds that read nothing of the row themselves. */
const OPERATORS: ReadonlySet<BoundExpression['kind']> = new Set(['literal', 'unary', 'binary', 'case']);

/** Whether the node itself reads nothing of the row: a literal, an operator, a call with arguments other than `now`. */
const readsNothing = (n: BoundExpression): boolean => OPERATORS.has(n.kind) || (n.kind === 'call' && n.name !== 'now' && n.args.length > 0);

/** Whether an expression reads nothing of the row (literals and operators and functions over them). */
function isConstant(node: BoundExpression): boolean {
  return everyExpression(node, readsNothing);
}

export function orderByItems(compiler: SqlCompiler, options: BoundQueryOptions, scope: Scope, option = 'kind' in options ? '$orderby' : '$expand'): string {
  return compiler.withOption(option, () => orderByItemsOf(compiler, options, scope));
}

function orderByItemsOf(compiler: SqlCompiler, options: BoundQueryOptions, scope: Scope): string {
  const rejected = nullRejected(options.filter);
  const type = scope.type;
  const dialect = compiler.dialect;
  // A constant key, or one always null, orders nothing (and a bare number would name a column in MySQL): left out.
  const items = (options.orderBy ?? [])
    .filter((item) => !isConstant(item.expression) && item.expression.type.kind !== 'null' && !partOfNull(item.expression))
    .map((item) => {
      const expression = item.expression;
      if (untypedDynamic(expression) !== undefined) return untypedOrderKeys(compiler, expression, scope, item.direction === 'desc');
      const base =
        // Any enum-valued key (a property, a cast, a case) by its members' values, not its names.
        expression.type.kind === 'enum'
          ? expression.type.type.isFlags
            ? compiler.flagsValue(compiler.expression(expression, scope), expression.type.type)
            : compiler.enumOrdinal(expression, scope)
          : isPrimitive(expression.type, 'Edm.Duration')
            ? compiler.durationKey(expression, scope)
            : compiler.expression(expression, scope);
      const text = isPrimitive(expression.type, 'Edm.String') ? dialect.binary(base) : base;
      const direction = item.direction === 'desc' ? 'DESC' : 'ASC';
      const neverNull =
        nonNullColumn(expression) ||
        (expression.kind === 'path' &&
          expression.steps.length === 1 &&
          expression.root.kind === 'it' &&
          expression.steps[0]?.kind === 'property' &&
          rejected.has(expression.steps[0].property));
      // Computed Double keys only: a column keeps its index (a stored NaN: see DEVIATIONS).
      const nan =
        expression.kind !== 'path' && (isPrimitive(expression.type, 'Edm.Double') || isPrimitive(expression.type, 'Edm.Single'))
          ? dialect.nanOrderKey(base)
          : undefined;
      const key =
        dialect.nullsFirstByDefault || neverNull ? `${text} ${direction}` : `${text} ${direction} NULLS ${item.direction === 'desc' ? 'LAST' : 'FIRST'}`;
      return nan === undefined ? key : `${nan} ${direction}, ${key}`;
    });
  // (Elements of a JSON array, the items of a $select item's options, keep their stored order after the keys: no key of theirs.)
  if ((options.top !== undefined || options.skip !== undefined) && scope.element === undefined) {
    const ordered = new Set(
      (options.orderBy ?? []).flatMap((item) =>
        item.expression.kind === 'path' && item.expression.steps.length === 1 && item.expression.steps[0]?.kind === 'property'
          ? [item.expression.steps[0].property.name]
          : [],
      ),
    );
    for (const key of type.key) {
      const property = type.properties.get(key);
      if (property === undefined || ordered.has(key)) continue;
      items.push(`${compiler.column(type, property, scope.alias)} ASC`);
    }
    // Joined rows: the key of each joined entity too (the rows' own key repeats), nulls (an outerjoin's none) first.
    for (const { alias, key } of joinedKeys(type)) {
      const leaf = compiler.leaves(type, alias).find((l) => l.path[1] === key);
      if (leaf === undefined) continue;
      const column = `${scope.alias}.${dialect.quote(leaf.column)}`;
      const text = isPrimitive(key.type, 'Edm.String') ? dialect.binary(column) : column;
      items.push(dialect.nullsFirstByDefault ? `${text} ASC` : `${text} ASC NULLS FIRST`);
    }
  }
  return items.join(', ');
}

/**
 * The order keys of a dynamic property (semantic/dynamic-values.ts): its JSON type's rank (null
 * first ascending), then its value read as a number, a string (by code point) and a Boolean, each
 * null where the JSON type is another. Every key is compiled anew (its parameters are its own).
 */
function untypedOrderKeys(compiler: SqlCompiler, expression: BoundExpression, scope: Scope, descending: boolean): string {
  const read = (as: 'Edm.Double' | 'Edm.String' | 'Edm.Boolean'): string => compiler.expression(readDynamicAs(expression, as), scope);
  const direction = descending ? 'DESC' : 'ASC';
  const rank = `(CASE WHEN ${read('Edm.Double')} IS NOT NULL THEN 0 WHEN ${read('Edm.String')} IS NOT NULL THEN 1 WHEN ${read('Edm.Boolean')} IS NOT NULL THEN 2 END)`;
  const nulls = compiler.dialect.nullsFirstByDefault ? '' : ` NULLS ${descending ? 'LAST' : 'FIRST'}`;
  return [
    `${rank} ${direction}${nulls}`,
    `${read('Edm.Double')} ${direction}`,
    `${compiler.dialect.binary(read('Edm.String'))} ${direction}`,
    `${read('Edm.Boolean')} ${direction}`,
  ].join(', ');
}
