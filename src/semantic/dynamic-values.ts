/**
 * The semantics of dynamic properties of open types (URL Conventions 5.1.1, CSDL 6.3), one for
 * every backend (the reference in src/reference implements it; SQL reads a JSON column, MongoDB
 * an embedded document):
 *
 * - A dynamic value is a JSON primitive: a string, a number, a Boolean, or null; a property an
 *   instance lacks is null.
 * - Compared with a value of a type (`Dyn eq 'a'`, `Dyn gt 5`, `Dyn eq true`, `Dyn eq Name`), it is
 *   read as that type's JSON type (a string for Edm.String, a number for the numeric types, read as
 *   Edm.Double, a Boolean for Edm.Boolean) and is null when its JSON type is another: `Dyn eq 5` is
 *   false for the string `'5'`, `Dyn ne 5` true (as for any null), `Dyn lt 5` false.
 * - `Dyn in (…)` with values of one JSON type (no null) reads it as that type, as `eq` does.
 * - `Dyn eq null` is true where the value is JSON null or absent.
 * - Ordered (`$orderby`, `min`/`max` in the reference's value order) by JSON type first (null, then
 *   numbers, strings, Booleans: MongoDB's BSON order), then by value (numbers numerically, strings by
 *   code point, `false` before `true`).
 * - `groupby` groups by the JSON value (the number 1 and the string `'1'` are two groups);
 *   `countdistinct` counts distinct JSON values. `sum`, `average`, `min` and `max` aggregate the
 *   numbers (read as Edm.Double, other values ignored like nulls) and are Edm.Double.
 *
 * - `$select=Dyn` returns it (null where absent), bound as a computed value of its name; the
 *   default projection and `$select=*` return declared properties only.
 *
 * Other uses of a dynamic value (arithmetic, functions, two dynamic values compared, a comparison
 * with a Date or another type without a JSON form) keep the reference's untyped semantics, and the
 * SQL and MongoDB backends refuse them (`unsupported_feature`).
 */
import type { BoundApply, BoundExpression, BoundPathStep, DynamicRead } from './bound-ast.js';
import { forEachTransformation } from './walk/transformations.js';
import { isNumeric, isPrimitive, primitive, type ExpressionType } from './types.js';

/** The type a dynamic value compared with a value of `other` is read as, or `undefined` (no JSON type of its own). */
export function dynamicReadFor(other: ExpressionType): DynamicRead | undefined {
  if (isPrimitive(other, 'Edm.String')) return 'Edm.String';
  if (isPrimitive(other, 'Edm.Boolean')) return 'Edm.Boolean';
  if (isNumeric(other)) return 'Edm.Double';
  return undefined;
}

/** The dynamic step `node` ends with and reads untyped, or `undefined`. */
export function untypedDynamic(node: BoundExpression): Extract<BoundPathStep, { kind: 'dynamic' }> | undefined {
  if (node.kind !== 'path') return undefined;
  const last = node.steps[node.steps.length - 1];
  return last?.kind === 'dynamic' && last.read === undefined ? last : undefined;
}

/** `node` (a path ending with an untyped dynamic property) read as `read`; any other expression as it is. */
export function readDynamicAs(node: BoundExpression, read: DynamicRead | undefined): BoundExpression {
  const step = untypedDynamic(node);
  if (step === undefined || read === undefined || node.kind !== 'path') return node;
  return { ...node, steps: [...node.steps.slice(0, -1), { ...step, read }], type: primitive(read) };
}

/** The names of the dynamic properties `apply` groups by: properties of its output rows that hold JSON values. */
export function groupedDynamic(apply: BoundApply | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  if (apply === undefined) return names;
  forEachTransformation(apply.transformations, (t) => {
    if (t.kind !== 'groupby') return;
    for (const key of t.keys) if (key.path.steps[key.path.steps.length - 1]?.kind === 'dynamic') names.add(key.names.join('/'));
  });
  return names;
}
