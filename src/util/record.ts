/**
 * A dictionary without a prototype: `__proto__`, `constructor` and `prototype` are ordinary keys
 * and nothing is inherited. Use it for every object keyed by user input.
 */
export function createRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}
