/**
 * The fields of a recursive hierarchy's node documents on MongoDB: the node identifier's field and
 * the field of the parent's identifier, for a hierarchy whose parent navigation property is a
 * foreign key to the node identifier's field (the only one a `$graphLookup` can walk). Read by the
 * hierarchical transformations (./hierarchy.ts) and the hierarchy functions (./hierarchy-functions.ts).
 */
import type { Property } from '../../model/model.js';
import type { BoundHierarchy } from '../../semantic/bound-ast.js';
import { navigationLink } from '../../storage/links.js';
import { fieldOf, hiddenField, scopeFilter, type MongoMapping } from './mapping.js';

/** The fields of a node document: its identifier, and its parent's identifier (the foreign key). */
export interface NodeFields {
  readonly id: string;
  readonly parent: string;
}

/** The node and parent fields of `hierarchy`; `fail` refuses a hierarchy no `$graphLookup` walks. */
export function nodeFields(hierarchy: BoundHierarchy, mapping: MongoMapping, fail: (what: string) => never): NodeFields {
  const type = hierarchy.nodes.type;
  const navigation = hierarchy.parent.steps[0];
  const own = hierarchy.node.steps;
  if (scopeFilter(mapping) !== undefined) fail(`hierarchies with a mapping scope`);
  const link = navigation?.kind === 'navigation' ? navigationLink(type, navigation.navigation, mapping) : undefined;
  const pair = link?.kind === 'direct' && link.pairs.length === 1 ? link.pairs[0] : undefined;
  if (pair === undefined || own.length !== 1 || own[0]?.kind !== 'property' || pair.target.property !== own[0].property) {
    return fail(`the hierarchy '${hierarchy.qualifier}', whose parent navigation property is no foreign key to its node identifier`);
  }
  const id = fieldOf(type, own[0].property, mapping, hierarchy.nodes);
  const source = pair.source;
  const parent =
    source.property !== undefined
      ? fieldOf(type, type.properties.get(source.property.name) as Property, mapping, hierarchy.nodes)
      : hiddenField(source.column, mapping);
  return { id, parent };
}
