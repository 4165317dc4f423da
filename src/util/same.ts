/**
 * Identity-keeping rewrites for the passes over bound trees: a pass that changes nothing returns
 * its input itself, so that a query without anything to rewrite costs a walk and no copies.
 */

/** `items.map(rewrite)`, or `items` itself when every item is rewritten to itself. */
export function mapSame<T>(items: readonly T[], rewrite: (item: T) => T): readonly T[] {
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    const first = rewrite(item);
    if (first === item) continue;
    const result = items.slice(0, i);
    result.push(first);
    for (let k = i + 1; k < items.length; k++) result.push(rewrite(items[k] as T));
    return result;
  }
  return items;
}
