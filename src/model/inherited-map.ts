/**
 * The members of a structured type that derives from another: its own (declared) members plus
 * its base type's, without copying them. A derived type links to its base type's map, so a model
 * holds each declared member once, whatever the shape of its type hierarchy (a chain of derived
 * types, or many types derived from one base with many members): building the model stays
 * linear in the size of the document. A lookup walks up the chain of base types, whose depth the
 * model builder bounds ({@link MAX_DERIVATION_DEPTH}).
 */

/** How many base types a type may have above it (a chain of derivations); deeper ones are refused. */
export const MAX_DERIVATION_DEPTH = 100;

export class InheritedMap<V> implements ReadonlyMap<string, V> {
  /** The members declared by this type, in document order. */
  readonly declared = new Map<string, V>();

  /** @param base the base type's members, or `undefined` for a type without a base type */
  constructor(readonly base: InheritedMap<V> | undefined) {}

  /** Declares a member (the builder refuses a name that an ancestor declares already). */
  declare(name: string, value: V): void {
    this.declared.set(name, value);
  }

  get(name: string): V | undefined {
    if (this.base === undefined) return this.declared.get(name);
    for (let map: InheritedMap<V> | undefined = this; map !== undefined; map = map.base) {
      const value = map.declared.get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  has(name: string): boolean {
    if (this.base === undefined) return this.declared.has(name);
    for (let map: InheritedMap<V> | undefined = this; map !== undefined; map = map.base) {
      if (map.declared.has(name)) return true;
    }
    return false;
  }

  get size(): number {
    let size = 0;
    for (let map: InheritedMap<V> | undefined = this; map !== undefined; map = map.base) size += map.declared.size;
    return size;
  }

  /** The maps from the root type down to this one: inherited members come first, as declared. */
  private chain(): InheritedMap<V>[] {
    const chain: InheritedMap<V>[] = [];
    for (let map: InheritedMap<V> | undefined = this; map !== undefined; map = map.base) chain.push(map);
    return chain.reverse();
  }

  // A type without a base type (most types) iterates its own map directly.
  entries(): MapIterator<[string, V]> {
    return this.base === undefined ? this.declared.entries() : this.chainEntries();
  }

  keys(): MapIterator<string> {
    return this.base === undefined ? this.declared.keys() : this.chainKeys();
  }

  values(): MapIterator<V> {
    return this.base === undefined ? this.declared.values() : this.chainValues();
  }

  private *chainEntries(): MapIterator<[string, V]> {
    for (const map of this.chain()) yield* map.declared.entries();
  }

  private *chainKeys(): MapIterator<string> {
    for (const map of this.chain()) yield* map.declared.keys();
  }

  private *chainValues(): MapIterator<V> {
    for (const map of this.chain()) yield* map.declared.values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/**
 * The members that `members` declares itself, not inherited from `base` (the base type's members):
 * without a walk over the inherited ones when `members` is an {@link InheritedMap} of `base`.
 */
export function declaredMembers<V>(members: ReadonlyMap<string, V>, base: ReadonlyMap<string, V> | undefined): Iterable<[string, V]> {
  if (members instanceof InheritedMap && members.base === base) return members.declared;
  return [...members].filter(([name, value]) => base?.get(name) !== value);
}
