/**
 * `ancestors` and `descendants` on MongoDB (Data Aggregation 6.2.1), with the reference's
 * semantics (reference/hierarchy.ts), for a hierarchy whose parent navigation property is a
 * foreign key to the node identifier's field:
 *
 * 1. each input row gets its node identifier (a temporary field);
 * 2. a `$facet` keeps the rows and, beside them, the identifiers reached from the start pipeline's
 *    rows' identifiers (each once) by `$graphLookup` (which visits a node once, so a cycle ends):
 *    for `descendants` down to the nodes whose parent is a start identifier, their children, …;
 *    for `ancestors` up to the start nodes' parents that are nodes (an orphan's missing parent is
 *    none), theirs, …; within the distance; with `keep start`, the start identifiers too;
 * 3. a row stays when its node identifier is among them.
 *
 * The walks start from the start nodes, not from every row, so the work grows with the rows reached
 * (an index on the parent field serves the walk down, one on the identifier the walk up).
 *
 * Refused (`unsupported_feature`): `traverse` (sibling ranks along each path are not compiled for
 * MongoDB), a parent navigation property that is not such a foreign key, a mapping scope, and
 * hierarchies inside a `concat` branch (a `$facet` does not nest).
 */
import type { BoundHierarchyFilter, BoundTransformation } from '../../semantic/bound-ast.js';
import type { StructuredType, EntitySet } from '../../model/model.js';
import { newContext, rootFrame, type Context, type MongoExpressionCompiler } from './expression.js';
import { collectionOf, type MongoDocument, type MongoMapping } from './mapping.js';
import { nodeFields } from './hierarchy-nodes.js';

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

/** The stages of `ancestors` or `descendants` over rows of `rows`; the rows keep their type. */
export function hierarchyStages(
  node: BoundHierarchyFilter,
  rows: { type: StructuredType; set: EntitySet | undefined },
  stages: MongoDocument[],
  host: MongoHierarchyHost,
): void {
  const fields = nodeFields(node.hierarchy, host.mapping, (what) => host.fail(what));
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
  // 2. The rows, and beside them the identifiers the walks from the start nodes reach.
  const startStages: MongoDocument[] = [];
  host.pipeline(node.start, rows, startStages);
  // Each start identifier once (`_id`), then its walk.
  startStages.push({ $match: { [id]: { $ne: null } } }, { $group: { _id: `$${id}` } });
  const reached: unknown[] = [];
  if (node.keepStart) reached.push(['$_id']);
  const withoutNull = (input: unknown): MongoDocument => ({ $filter: { input, cond: { $ne: ['$$this', null] } } });
  if (node.kind === 'descendants') {
    // Down from the start identifier: the nodes whose parent it is (distance 1), their children, …
    const walk: MongoDocument = { from, startWith: '$_id', connectFromField: fields.id, connectToField: fields.parent, as: walked };
    if (node.distance !== undefined) walk.maxDepth = node.distance - 1;
    startStages.push({ $graphLookup: walk });
    reached.push(withoutNull(`$${walked}.${fields.id}`));
  } else {
    // Up from the start nodes to their parents that are nodes (distance 1; an orphan's missing parent is none), theirs, …
    startStages.push({ $lookup: { from, localField: '_id', foreignField: fields.id, as: found } });
    const walk: MongoDocument = {
      from,
      startWith: withoutNull(`$${found}.${fields.parent}`),
      connectFromField: fields.parent,
      connectToField: fields.id,
      as: walked,
    };
    if (node.distance !== undefined) walk.maxDepth = node.distance - 1;
    startStages.push({ $graphLookup: walk });
    reached.push(withoutNull(`$${walked}.${fields.id}`));
  }
  startStages.push({ $project: { _id: 0, ids: { $concatArrays: reached } } }, { $unwind: '$ids' }, { $group: { _id: null, ids: { $addToSet: '$ids' } } });
  stages.push(
    { $facet: { [kept]: [{ $match: {} }], [starts]: startStages } },
    { $unwind: `$${kept}` },
    {
      $replaceRoot: {
        newRoot: { $mergeObjects: [`$${kept}`, { [starts]: { $ifNull: [{ $arrayElemAt: [`$${starts}.ids`, 0] }, []] } }] },
      },
    },
  );
  // 3. The rows whose node the walks reached.
  stages.push({ $match: { $expr: { $and: [{ $ne: [`$${id}`, null] }, { $in: [`$${id}`, `$${starts}`] }] } } }, { $unset: [id, starts] });
}
