/**
 * What the OData version of a response changes in OData JSON (JSON Format 4.01 §3.1, §4.5,
 * §4.5.3): the names of control information (`@odata.context` in 4.0, `@context` in 4.01) and
 * of format parameters (`odata.metadata` in 4.0, `metadata` in 4.01), and how built-in primitive
 * types are named in `type` control information (`#Int64` in 4.0, `Int64` in 4.01).
 */

/** The OData versions a response can have (PROT §5.1). */
export type ODataVersion = '4.0' | '4.01';

/** How much control information a response holds (JSON Format §3.1): the `metadata` format parameter. */
export type MetadataLevel = 'minimal' | 'full' | 'none';

/** How control information is named: by the response's version, or always with the `odata.` prefix. */
export interface ControlNaming {
  /** The response's `OData-Version` (default `4.01`). */
  readonly version?: ODataVersion;
  /**
   * Write the `odata.` prefix in a 4.01 response too (`@odata.context`): 4.01 says it SHOULD be
   * omitted and 4.01 clients read both, but some clients look for the prefixed names only.
   * A 4.0 response always has it (JSON Format §4.5: MUST).
   */
  readonly odataPrefix?: boolean;
}

/**
 * The name of a piece of control information (`context`, `count`, `nextLink`, `type`, `id`, …)
 * as written in a payload: `@odata.context` in 4.0 (or with `odataPrefix`), `@context` in 4.01.
 *
 * @example
 * ```ts
 * controlName('context', { version: '4.0' }); // '@odata.context'
 * controlName('count'); // '@count'
 * controlName('navigationLink', {}, 'Friends'); // 'Friends@navigationLink'
 * ```
 */
export function controlName(name: string, naming: ControlNaming = {}, property = ''): string {
  const prefix = naming.version === '4.0' || naming.odataPrefix === true ? 'odata.' : '';
  return `${property}@${prefix}${name}`;
}

/**
 * The value of `type` control information for a type: a built-in primitive type by its name
 * without `Edm.` (`#Int64` in 4.0, `Int64` in 4.01, JSON Format §4.5.3), any other type as a
 * fragment with its qualified name (`#NS.Employee`), a collection as `Collection(…)`.
 *
 * @example
 * ```ts
 * typeAnnotation('Edm.Decimal', { version: '4.0' }); // '#Decimal'
 * typeAnnotation('Edm.Decimal'); // 'Decimal'
 * typeAnnotation('Trippin.Employee'); // '#Trippin.Employee'
 * typeAnnotation('Edm.String', {}, true); // 'Collection(String)'
 * ```
 */
export function typeAnnotation(qualifiedName: string, naming: ControlNaming = {}, collection = false): string {
  const builtIn = qualifiedName.startsWith('Edm.');
  const name = builtIn ? qualifiedName.slice(4) : qualifiedName;
  const text = collection ? `Collection(${name})` : name;
  return builtIn && naming.version !== '4.0' ? text : `#${text}`;
}
