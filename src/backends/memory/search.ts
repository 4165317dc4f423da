/**
 * `$search` for the in-memory backend. What matching means is up to the service
 * (PROT 11.2.6.6); the default: a term matches a row when one of the row's string properties
 * contains it, ignoring case. Free text (the default `$search` form) is split into terms that
 * must all match; the OData search grammar's `AND`, `OR`, `NOT` and phrases are honoured.
 */
import type { StructuredType } from '../../model/model.js';
import type { SearchExpression } from '../../syntax/ast.js';
import type { Row } from './compile-expression.js';
import { propertyGetter } from './compile-expression.js';

/** Decides whether a row matches a `$search` expression. */
export type SearchFunction = (row: Row, search: SearchExpression, type: StructuredType) => boolean;

const stringGetters = new WeakMap<StructuredType, ((row: Row) => unknown)[]>();

function searchableValues(row: Row, type: StructuredType): string[] {
  let getters = stringGetters.get(type);
  if (getters === undefined) {
    getters = [...type.properties.values()]
      .filter((p) => !p.collection && p.type.kind === 'primitive' && p.type.name === 'Edm.String')
      .map((p) => propertyGetter(p.name) as (row: Row) => unknown);
    stringGetters.set(type, getters);
  }
  const values: string[] = [];
  for (const get of getters) {
    const value = get(row);
    if (typeof value === 'string') values.push(value.toLowerCase());
  }
  return values;
}

function matches(values: readonly string[], search: SearchExpression): boolean {
  switch (search.kind) {
    case 'searchText':
      return search.text
        .split(/\s+/)
        .filter((term) => term !== '')
        .every((term) => values.some((value) => value.includes(term.toLowerCase())));
    case 'searchTerm': {
      const term = search.value.toLowerCase();
      return values.some((value) => value.includes(term));
    }
    case 'searchNot':
      return !matches(values, search.operand);
    case 'searchBinary':
      return search.operator === 'AND' ? matches(values, search.left) && matches(values, search.right) : matches(values, search.left) || matches(values, search.right);
  }
}

/** The default search: every term, ignoring case, in one of the row's string properties. */
export const defaultSearch: SearchFunction = (row, search, type) => matches(searchableValues(row, type), search);
