/**
 * Binds `$search` (PROT 11.2.6.6) to an entity type: free text becomes the conjunction of its
 * blank-separated terms, the search grammar's `AND`, `OR`, `NOT` and phrases are kept, and the
 * properties the default search looks in (the single-valued string properties) are listed. Every
 * backend's default search reads this one tree.
 */
import type { Property, StructuredType } from '../model/model.js';
import type { SearchExpression } from '../syntax/ast.js';
import { printSearch } from '../syntax/printer.js';
import type { BoundSearch, BoundSearchNode } from './bound-ast.js';

const searchable = new WeakMap<StructuredType, readonly Property[]>();

/** The properties a default `$search` looks in: the type's single-valued `Edm.String` properties. */
export function searchProperties(type: StructuredType): readonly Property[] {
  let properties = searchable.get(type);
  if (properties === undefined) {
    properties = [...type.properties.values()].filter((p) => !p.collection && p.type.kind === 'primitive' && p.type.name === 'Edm.String');
    searchable.set(type, properties);
  }
  return properties;
}

/** `AND` of the nodes as a balanced tree (a long free text never makes a deep one). */
function conjunction(nodes: readonly BoundSearchNode[]): BoundSearchNode {
  if (nodes.length === 1) return nodes[0] as BoundSearchNode;
  const half = nodes.length >> 1;
  return { kind: 'and', left: conjunction(nodes.slice(0, half)), right: conjunction(nodes.slice(half)) };
}

function node(expression: SearchExpression): BoundSearchNode {
  switch (expression.kind) {
    case 'searchText': {
      const terms = expression.text.split(/\s+/).filter((term) => term !== '');
      if (terms.length === 0) return { kind: 'everything' };
      return conjunction(terms.map((value): BoundSearchNode => ({ kind: 'term', value, phrase: false })));
    }
    case 'searchTerm':
      return { kind: 'term', value: expression.value, phrase: expression.phrase };
    case 'searchNot':
      return { kind: 'not', operand: node(expression.operand) };
    case 'searchBinary':
      return { kind: expression.operator === 'AND' ? 'and' : 'or', left: node(expression.left), right: node(expression.right) };
  }
}

/** Binds a parsed `$search` for entities of `type`. */
export function bindSearch(expression: SearchExpression, type: StructuredType): BoundSearch {
  return {
    kind: 'search',
    text: expression.kind === 'searchText' ? expression.text : printSearch(expression),
    root: node(expression),
    properties: searchProperties(type),
    span: expression.span,
  };
}

/** What a backend makes of each kind of search node (its default search, or a hook's own). */
export interface SearchFold<T> {
  term(value: string, phrase: boolean): T;
  not(operand: T): T;
  and(left: T, right: T): T;
  or(left: T, right: T): T;
  everything(): T;
}

/** Folds a bound `$search` tree bottom-up: the one walk every backend's search uses. */
export function foldSearch<T>(node: BoundSearchNode, fold: SearchFold<T>): T {
  switch (node.kind) {
    case 'everything':
      return fold.everything();
    case 'term':
      return fold.term(node.value, node.phrase);
    case 'not':
      return fold.not(foldSearch(node.operand, fold));
    case 'and':
      return fold.and(foldSearch(node.left, fold), foldSearch(node.right, fold));
    case 'or':
      return fold.or(foldSearch(node.left, fold), foldSearch(node.right, fold));
  }
}
