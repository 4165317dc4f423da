/** What the reference evaluator works on: rows, lambda scopes, compiled expressions, and reading a row's property. */
import type { EntitySet, NavigationProperty } from '../model/model.js';

/** A row: a plain object keyed by property names. */
export type Row = Readonly<Record<string, unknown>>;

/** Lambda variables in scope. */
export type Scope = Readonly<Record<string, unknown>>;

/**
 * Follows a navigation property from a row: the related row (or `null`), or the related rows.
 * `target` is the entity set of the related rows, as the binder resolved it (`undefined` when the
 * model does not say).
 */
export type NavigationResolver = (navigation: NavigationProperty, row: Row, target: EntitySet | undefined) => Row | null | readonly Row[];

/** A compiled expression. */
export type Evaluator = (row: Row, scope: Scope) => unknown;

/** Reads an own property only: `constructor` or `__proto__` never reach a prototype. */
export function propertyGetter(name: string): (object: unknown) => unknown {
  if (name in Object.prototype || name === '__proto__') {
    return (object) => (typeof object === 'object' && object !== null && Object.hasOwn(object, name) ? (object as Record<string, unknown>)[name] : undefined);
  }
  return (object) => (typeof object === 'object' && object !== null ? (object as Record<string, unknown>)[name] : undefined);
}
