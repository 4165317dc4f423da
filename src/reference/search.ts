/**
 * The reference's default `$search` (the in-memory backend runs it; SQL and MongoDB translate the same rule). What matching means is up to the service
 * (PROT 11.2.6.6); the default: a term matches a row when one of the row's string properties
 * contains it, ignoring case. Free text (the default `$search` form) is split into terms that
 * must all match; the OData search grammar's `AND`, `OR`, `NOT` and phrases are honoured.
 */
import type { BoundSearch, BoundSearchNode } from '../semantic/bound-ast.js';
import { foldSearch } from '../semantic/bind-search.js';
import { propertyGetter, type Row } from './rows.js';

/** Decides whether a row matches a bound `$search`. */
export type SearchFunction = (row: Row, search: BoundSearch) => boolean;

const getters = new WeakMap<BoundSearch['properties'], ((row: Row) => unknown)[]>();

function searchableValues(row: Row, search: BoundSearch): string[] {
  let get = getters.get(search.properties);
  if (get === undefined) {
    get = search.properties.map((p) => propertyGetter(p.name) as (row: Row) => unknown);
    getters.set(search.properties, get);
  }
  const values: string[] = [];
  for (const read of get) {
    const value = read(row);
    if (typeof value === 'string') values.push(value.toLowerCase());
  }
  return values;
}

function matches(values: readonly string[], node: BoundSearchNode): boolean {
  return foldSearch<boolean>(node, {
    everything: () => true,
    term: (value) => {
      const term = value.toLowerCase();
      return values.some((text) => text.includes(term));
    },
    not: (operand) => !operand,
    and: (left, right) => left && right,
    or: (left, right) => left || right,
  });
}

/** The default search: every term, ignoring case, in one of the bound search's string properties. */
export const defaultSearch: SearchFunction = (row, search) => matches(searchableValues(row, search), search.root);
