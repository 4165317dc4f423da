/**
 * The model of the hierarchy benches: one entity set `nodes` of `Tree.Node` (key `id`, a nullable
 * `parentId` behind the `parent` navigation property, its partner `children`), annotated as the recursive hierarchy `Tree`,
 * with the benches' own properties between `id` and `parentId`.
 */
import { modelFromCsdl, type Model } from '../src/index.js';

export function treeModel(properties: Readonly<Record<string, unknown>>): Model {
  return modelFromCsdl({
    $Version: '4.01',
    $EntityContainer: 'Tree.Container',
    Tree: {
      Node: {
        $Kind: 'EntityType',
        $Key: ['id'],
        id: { $Type: 'Edm.Int32' },
        ...properties,
        parentId: { $Type: 'Edm.Int32', $Nullable: true },
        parent: { $Kind: 'NavigationProperty', $Type: 'Tree.Node', $Nullable: true, $Partner: 'children', $ReferentialConstraint: { parentId: 'id' } },
        children: { $Kind: 'NavigationProperty', $Collection: true, $Type: 'Tree.Node', $Partner: 'parent' },
        '@Aggregation.RecursiveHierarchy#Tree': { NodeProperty: { $PropertyPath: 'id' }, ParentNavigationProperty: { $NavigationPropertyPath: 'parent' } },
      },
      Container: {
        $Kind: 'EntityContainer',
        nodes: { $Collection: true, $Type: 'Tree.Node', $NavigationPropertyBinding: { parent: 'nodes', children: 'nodes' } },
      },
    },
  });
}
