/**
 * `ancestors` and `descendants` on MongoDB (Data Aggregation 6.2.1), with the reference's
 * semantics (reference/hierarchy.ts), for a hierarchy whose parent navigation property is a
 * foreign key to the node identifier's field:
 *
 * 1. each input row gets its node identifier (a temporary field);
 * 2. a `$facet` keeps the rows and, beside them, the start pipeline's rows' identifiers (`$addToSet`);
 * 3. each row looks its node up and walks the hierarchy with `$graphLookup` (which visits a node
 *    once, so a cycle ends): for `descendants` up from its node's parents, for `ancestors` down
 *    from its node to its children, within `maxDepth` distance − 1;
 * 4. a row stays when the walk met a start node (or, with `keep start`, its node is one).
 *
 * Refused (`unsupported_feature`): `traverse` (sibling ranks along each path are not compiled for
 * MongoDB), a parent navigation property that is not such a foreign key, a mapping scope, and
 * hierarchies inside a `concat` branch (a `$facet` does not nest).
 */
import type { Property } from '../../model/model.js';
import type { BoundHierarchyFilter, BoundTransformation } from '../../semantic/bound-ast.js';
import type { StructuredType, EntitySet } from '../../model/model.js';
import { navigationLink } from '../../storage/links.js';
import { newContext, rootFrame, type Context, type MongoExpressionCompiler } from './expression.js';
import { collectionOf, fieldOf, hiddenField, scopeFilter, type MongoDocument, type MongoMapping } from './mapping.js';

/** What compiling a hierarchical transformation needs of the apply compiler. */
export interface MongoHierarchyHost {
  readonly mapping: MongoMapping;
  readonly expressions: MongoExpressionCompiler;
  /** A field name no property uses. */
  temporary(name: string): string;
  /** Compiles transformations onto `stages` inside a `$facet`. */
  pipeline(transformations: readonly BoundTransformation[], rows: { type: StructuredType; set: EntitySet | undefined }, stages: MongoDocument[]): void;
  /** Drops the lookup fields of a context (and `more`) after the stage that needed them. */
  dropLookups(context: Context, stages: MongoDocument[], more?: readonly string[]): void;
  fail(what: string): never;
}

/** The fields of a node document: its identifier, and its parent's identifier (the foreign key). */
function nodeFields(node: BoundHierarchyFilter, host: MongoHierarchyHost): { id: string; parent: string } {
  const hierarchy = node.hierarchy;
  const type = hierarchy.nodes.type;
  const navigation = hierarchy.parent.steps[0];
  const own = hierarchy.node.steps;
  if (scopeFilter(host.mapping) !== undefined) host.fail(`hierarchies with a mapping scope`);
  const link = navigation?.kind === 'navigation' ? navigationLink(type, navigation.navigation, host.mapping) : undefined;
  const pair = link?.kind === 'direct' && link.pairs.length === 1 ? link.pairs[0] : undefined;
  if (pair === undefined || own.length !== 1 || own[0]?.kind !== 'property' || pair.target.property !== own[0].property) {
    return host.fail(`the hierarchy '${hierarchy.qualifier}', whose parent navigation property is no foreign key to its node identifier`);
  }
  const id = fieldOf(type, own[0].property, host.mapping, hierarchy.nodes);
  const source = pair.source;
  const parent =
    source.property !== undefined
      ? fieldOf(type, type.properties.get(source.property.name) as Property, host.mapping, hierarchy.nodes)
      : hiddenField(source.column, host.mapping);
  return { id, parent };
}

/** The stages of `ancestors` or `descendants` over rows of `rows`; the rows keep their type. */
export function hierarchyStages(
  node: BoundHierarchyFilter,
  rows: { type: StructuredType; set: EntitySet | undefined },
  stages: MongoDocument[],
  host: MongoHierarchyHost,
): void {
  const fields = nodeFields(node, host);
  const from = collectionOf(node.hierarchy.nodes, host.mapping);
  const id = host.temporary('node');
  const kept = host.temporary('rows');
  const starts = host.temporary('starts');
  const found = host.temporary('found');
  const walked = host.temporary('walked');
  // 1. The node identifier of each row.
  const context = newContext(rows.type, rows.set);
  const value = host.expressions.value(node.path, rootFrame(context));
  stages.push(...context.stages, { $addFields: { [id]: value } });
  host.dropLookups(context, stages);
  // 2. The rows, and the start nodes' identifiers beside them.
  const startStages: MongoDocument[] = [];
  host.pipeline(node.start, rows, startStages);
  startStages.push({ $match: { [id]: { $ne: null } } }, { $group: { _id: null, ids: { $addToSet: `$${id}` } } });
  stages.push(
    { $facet: { [kept]: [{ $match: {} }], [starts]: startStages } },
    { $unwind: `$${kept}` },
    {
      $replaceRoot: {
        newRoot: { $mergeObjects: [`$${kept}`, { [starts]: { $ifNull: [{ $arrayElemAt: [`$${starts}.ids`, 0] }, []] } }] },
      },
    },
  );
  // 3. The row's node, and the walk from it.
  const present = { $and: [{ $ne: [`$${id}`, null] }, { $gt: [{ $size: `$${found}` }, 0] }] };
  const walk: MongoDocument =
    node.kind === 'descendants'
      ? {
          from,
          // Up from the node's parents: a start node among its ancestors.
          startWith: { $filter: { input: `$${found}.${fields.parent}`, cond: { $ne: ['$$this', null] } } },
          connectFromField: fields.parent,
          connectToField: fields.id,
          as: walked,
        }
      : {
          from,
          // Down from the node (when it is one) to its children: a start node among its descendants.
          startWith: { $cond: [present, `$${id}`, []] },
          connectFromField: fields.id,
          connectToField: fields.parent,
          as: walked,
        };
  if (node.distance !== undefined) walk.maxDepth = node.distance - 1;
  stages.push({ $lookup: { from, localField: id, foreignField: fields.id, as: found } }, { $graphLookup: walk });
  // 4. The rows whose walk met a start node, or whose node is one (keep start).
  const met = { $gt: [{ $size: { $filter: { input: `$${walked}`, cond: { $in: [`$$this.${fields.id}`, `$${starts}`] } } } }, 0] };
  const condition = node.keepStart ? { $or: [met, { $and: [{ $ne: [`$${id}`, null] }, { $in: [`$${id}`, `$${starts}`] }] }] } : met;
  stages.push({ $match: { $expr: condition } }, { $unset: [id, starts, found, walked] });
}
