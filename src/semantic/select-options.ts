/**
 * Options on `$select` items (OData 4.01, URL 5.1.3 and ABNF `selectOption`):
 * `$select=Places($filter=City eq 'Oslo';$orderby=City;$top=2;$skip=1;$count=true;$select=City;$compute=…)`
 * on a collection-valued complex property. The options are bound as a request's are, against the
 * complex type, and apply to the elements of the collection: `$filter`, `$orderby`, `$skip`,
 * `$top`, `$count` (`Places@odata.count`), `$compute` and a nested `$select` (with options of its
 * own). A single-valued property takes no options (`invalid_nested_option`); collections of
 * primitive values (`$this` in the options) and `$search` are refused (`unsupported_feature`);
 * `$expand`, `$apply` and `$levels` are not select options (`invalid_nested_option`).
 */
import { ODataError } from '../errors/odata-error.js';
import type { Property, StructuredType } from '../model/model.js';
import type { NestedOptions } from '../syntax/ast.js';

/** The complex type whose elements the options of a `$select` item ending in `last` apply to, or the refusal. */
export function selectOptionsType(last: Property, options: NestedOptions, option: string): StructuredType {
  const fail = (code: 'invalid_nested_option' | 'unsupported_feature', reason: string): never => {
    throw new ODataError({ code, reason, option, position: options.span.start, appendLocation: false });
  };
  if (!last.collection) fail('invalid_nested_option', `Options on a $select item need a collection-valued property; '${last.name}' is single-valued.`);
  for (const [name, given] of [
    ['$expand', options.expand],
    ['$apply', options.apply],
    ['$levels', options.levels],
  ] as const) {
    if (given !== undefined) fail('invalid_nested_option', `${name} is not an option of a $select item ('${last.name}').`);
  }
  // (An entity-typed collection is one $apply made, `nest` or `addnested`: its items are values of the row, as complex ones are.)
  if (last.type.kind !== 'complex' && last.type.kind !== 'entity')
    fail(
      'unsupported_feature',
      `Options on the $select item '${last.name}', a collection of primitive values, are not supported: only collections of complex values take them.`,
    );
  if (options.search !== undefined) fail('unsupported_feature', `$search in the options of the $select item '${last.name}' is not supported.`);
  return (last.type as { readonly type: StructuredType }).type;
}

/** What the SQL backend says of options on a `$select` item inside `$expand` (it runs them on the request's rows only). */
export const selectOptionsRefusal = (property: Property): string =>
  `options on the $select item '${property.name}' (a nested $filter, $orderby, $top, $skip, $count, $compute or $select of a collection of complex values)`;
