/**
 * The rows of `rolluprecursive`'s portions as backends that hold a portion's node in a column or
 * field of each row group them (SQL, MongoDB: ../../backends/*\/rollup-recursive.ts): the node
 * identifier as a property of its own (under a name no OData identifier has), its grouping key, and
 * the type of a portion's row after `T`: the node, the other grouping properties `P` (nested as
 * `groupby` writes them) and what `T` gives.
 */
import type { Property, StructuredType } from '../../model/model.js';
import type { BoundGroupKey, BoundPath, BoundRollupRecursive, BoundTransformation } from '../bound-ast.js';
import { nestedProperties, outputProperty, outputType, referenceOf } from './output-type.js';

type Groupby = Extract<BoundTransformation, { kind: 'groupby' }>;

/** The portion's node as the property `name`, its grouping key, and the portion rows' type given the type `T` ends with. */
export function portionRows(
  node: Groupby,
  name: string,
  byT: StructuredType | undefined,
): { readonly nodeProperty: Property; readonly key: BoundGroupKey; readonly made: StructuredType } {
  const recursive = node.recursive as BoundRollupRecursive;
  const span = recursive.span;
  const nodeType = recursive.hierarchy.node.type;
  const nodeProperty = outputProperty(name, referenceOf(nodeType) as never);
  const key: BoundGroupKey = {
    path: { kind: 'path', root: { kind: 'it' }, steps: [{ kind: 'property', property: nodeProperty, span }], type: nodeType, span } as BoundPath,
    names: [name],
    span,
  };
  const grouped = nestedProperties(
    node.keys.map((k) => ({ names: k.names, leaf: referenceOf(k.path.type) as never })),
    '~rolluprecursive',
  );
  const fromT = [...(byT?.properties.values() ?? [])].filter((p) => !grouped.some((g) => g.name === p.name));
  return { nodeProperty, key, made: outputType('~rolluprecursive', [nodeProperty, ...grouped, ...fromT]) };
}
