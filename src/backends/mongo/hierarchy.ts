/**
 * `ancestors` and `descendants` on MongoDB (Data Aggregation 6.2.1; `traverse`, 6.2.2, below), with the reference's
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
 * `traverse`: {@link traverseStages}.
 *
 * A node path through a collection (6.2.1's p₁/…/pₖ/r) gives each row the array of its nodes'
 * identifiers: a row stays when one of them was reached; `traverse` gives it once per visit of
 * each, with σ(x) in place of p₁.
 *
 * Refused (`unsupported_feature`): a parent navigation property that is not such a foreign key, a
 * mapping scope, and hierarchies inside a `concat` branch or inside the start transformations of
 * another (a `$facet` does not nest).
 */
import type { BoundHierarchyFilter, BoundTransformation, BoundTraverse } from '../../semantic/bound-ast.js';
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
  // 1. The node identifier of each row (through a collection, 6.2.1's p₁/…/pₖ/r: the array of its nodes' identifiers).
  const many = node.path.type.kind === 'collection';
  const context = newContext(rows.type, rows.set);
  const frame = rootFrame(context);
  const value = many ? host.expressions.collectionValues(node.path, frame) : host.expressions.value(node.path, frame);
  stages.push(...context.stages, { $addFields: { [id]: value } });
  host.dropLookups(context, stages);
  // 2. The rows, and beside them the identifiers the walks from the start nodes reach.
  const startStages: MongoDocument[] = [];
  host.pipeline(node.start, rows, startStages);
  // Each start identifier once (`_id`: every node of a start row), then its walk.
  startStages.push(many ? { $unwind: `$${id}` } : { $match: { [id]: { $ne: null } } }, { $group: { _id: `$${id}` } });
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
  // 3. The rows whose node (one of whose nodes) the walks reached.
  const reachedRow = many
    ? { $gt: [{ $size: { $setIntersection: [`$${id}`, `$${starts}`] } }, 0] }
    : { $and: [{ $ne: [`$${id}`, null] }, { $in: [`$${id}`, `$${starts}`] }] };
  stages.push({ $match: { $expr: reachedRow } }, { $unset: [id, starts] });
}

/** What `traverse` needs of the apply compiler besides {@link MongoHierarchyHost}. */
export interface MongoTraverseHost extends MongoHierarchyHost {
  /** The field of the rows' sequence number (their order). */
  readonly sequence: string;
  /** `{ key: 1, … }` of a type's key fields. */
  keySort(type: StructuredType): MongoDocument;
  /** Sort keys of order items: computed keys into `computed`, the sort into `sort`. */
  order(items: BoundTraverse['orderBy'], context: Context, computed: MongoDocument, sort: MongoDocument, temporary: string[]): void;
  /** Sorts by `sort`, then the sequence, and renumbers the rows in that order. */
  renumber(sort: MongoDocument, stages: MongoDocument[]): void;
}

/** Ranks are written with ten digits, so that paths of ranks compare as text level by level. */
const RANK_DIGITS = 10;

/** A rank (a positive integer) as ten digits. */
function rankText(rank: string): unknown {
  return {
    $let: {
      vars: { t: { $concat: ['0'.repeat(RANK_DIGITS), { $toString: rank }] } },
      in: { $substrCP: ['$$t', { $subtract: [{ $strLenCP: '$$t' }, RANK_DIGITS] }, RANK_DIGITS] },
    },
  };
}

/**
 * `traverse` (Data Aggregation 6.2.2), with the reference's walk (reference/hierarchy.ts):
 *
 * 1. each input row gets its node identifier;
 * 2. a `$facet` keeps the rows and, beside them, reads the hierarchy's collection once (`$lookup`s
 *    of one document): every node's rank among its siblings (`$setWindowFields` partitioned by the
 *    parent field, sorted by the order items then the key), grouped by parent; the start nodes (the
 *    start pipeline's, or the roots: no parent that is a node) ranked among themselves the same
 *    way; the number of nodes;
 * 3. the walk, in one aggregation expression: from the start nodes, level by level (`$reduce`), the
 *    children of the nodes reached, each with the path of ranks from its start node (ten digits
 *    each); it does not enter its start node again and stops after as many levels as there are
 *    nodes, as the reference's (a cycle ends). A node reached from two start nodes is visited twice;
 * 4. rows and visits meet by node identifier (`$group`), a row once per visit of its node, and are
 *    numbered in the order of the path (postorder: the path followed by `:`, which sorts after every
 *    digit, so a node after its children), then in their order before.
 *
 * The walk looks the children of each reached node up among the groups of siblings: its cost is
 * the visits times the groups (the nodes with children), plus the visits times the levels (each
 * level's visits are appended to the array of those before); the visits are at most the nodes
 * times the levels.
 */
export function traverseStages(
  node: BoundTraverse,
  rows: { type: StructuredType; set: EntitySet | undefined },
  stages: MongoDocument[],
  host: MongoTraverseHost,
): void {
  const fields = nodeFields(node.hierarchy, host.mapping, (what) => host.fail(what));
  const set = node.hierarchy.nodes;
  const from = collectionOf(set, host.mapping);
  const id = host.temporary('node');
  const kept = host.temporary('rows');
  const walked = host.temporary('walk');
  const all = host.temporary('all');
  const path = host.temporary('path');
  const rank = host.temporary('rank');
  const nodes = { type: set.type, set };
  // 1. The node identifier of each row (through a collection, 6.2.1's p₁/…/pₖ/r: the array of its nodes' identifiers).
  const many = node.path.type.kind === 'collection';
  const context = newContext(rows.type, rows.set);
  const frame = rootFrame(context);
  const value = many ? host.expressions.collectionValues(node.path, frame) : host.expressions.value(node.path, frame);
  stages.push(...context.stages, { $addFields: { [id]: value } });
  host.dropLookups(context, stages);

  /** The stages that rank documents of the nodes (partitioned by `partitionBy`) into `rank`. */
  const ranked = (partitionBy: string | undefined): MongoDocument[] => {
    const order = newContext(set.type, set);
    const computed: MongoDocument = {};
    const sort: MongoDocument = {};
    const temporary: string[] = [];
    host.order(node.orderBy, order, computed, sort, temporary);
    const out: MongoDocument[] = [...order.stages];
    if (Object.keys(computed).length > 0) out.push({ $addFields: computed });
    // Then by key (a key field among the order items keeps its place and direction).
    for (const [field, direction] of Object.entries(host.keySort(set.type))) if (!(field in sort)) sort[field] = direction;
    const window: MongoDocument = { sortBy: sort, output: { [rank]: { $documentNumber: {} } } };
    if (partitionBy !== undefined) window.partitionBy = partitionBy;
    out.push({ $setWindowFields: window });
    return out;
  };
  // 2. Every node ranked among its siblings, by parent.
  const edges: MongoDocument[] = [
    ...ranked(`$${fields.parent}`),
    { $group: { _id: { $ifNull: [`$${fields.parent}`, null] }, c: { $push: { n: { $ifNull: [`$${fields.id}`, null] }, r: rankText(`$${rank}`) } } } },
    { $match: { _id: { $ne: null } } },
  ];
  // The start nodes ranked among themselves: the start pipeline's (its order from the key order), or the roots.
  const starts: MongoDocument[] = [{ $setWindowFields: { sortBy: host.keySort(set.type), output: { [host.sequence]: { $documentNumber: {} } } } }];
  if (node.start !== undefined) host.pipeline(node.start, nodes, starts);
  else {
    const up = host.temporary('up');
    starts.push(
      { $lookup: { from, localField: fields.parent, foreignField: fields.id, as: up } },
      { $match: { $expr: { $or: [{ $eq: [{ $ifNull: [`$${fields.parent}`, null] }, null] }, { $eq: [{ $size: `$${up}` }, 0] }] } } },
    );
  }
  starts.push(...ranked(undefined), { $match: { [fields.id]: { $ne: null } } }, { $project: { _id: 0, n: `$${fields.id}`, r: rankText(`$${rank}`) } });

  // 3. The walk: visits { n: node, s: start node, p: path } level by level.
  const children = {
    $let: {
      vars: { f: '$$this' },
      in: {
        $map: {
          input: {
            $filter: {
              input: {
                $reduce: {
                  input: { $filter: { input: '$$groups', as: 'g', cond: { $eq: ['$$g._id', '$$f.n'] } } },
                  initialValue: [],
                  in: { $concatArrays: ['$$value', '$$this.c'] },
                },
              },
              as: 'c',
              cond: { $and: [{ $ne: ['$$c.n', null] }, { $ne: ['$$c.n', '$$f.s'] }] },
            },
          },
          as: 'c',
          in: { n: '$$c.n', s: '$$f.s', p: { $concat: ['$$f.p', '$$c.r'] } },
        },
      },
    },
  };
  const levels = { $max: [0, { $subtract: [{ $ifNull: [{ $arrayElemAt: ['$count.n', 0] }, 0] }, 1] }] };
  const walk = {
    $let: {
      vars: { groups: '$edges', first: { $map: { input: '$starts', in: { n: '$$this.n', s: '$$this.n', p: '$$this.r' } } } },
      in: {
        $let: {
          vars: {
            done: {
              $reduce: {
                input: { $range: [0, levels] },
                initialValue: { f: '$$first', out: '$$first' },
                // Once no node is left to expand, the remaining levels keep the visits as they are.
                in: {
                  $cond: [
                    { $eq: [{ $size: '$$value.f' }, 0] },
                    '$$value',
                    {
                      $let: {
                        vars: { next: { $reduce: { input: '$$value.f', initialValue: [], in: { $concatArrays: ['$$value', children] } } } },
                        in: { f: '$$next', out: { $concatArrays: ['$$value.out', '$$next'] } },
                      },
                    },
                  ],
                },
              },
            },
          },
          in: '$$done.out',
        },
      },
    },
  };
  const walkStages: MongoDocument[] = [
    { $limit: 1 },
    { $lookup: { from, pipeline: edges, as: 'edges' } },
    { $lookup: { from, pipeline: starts, as: 'starts' } },
    { $lookup: { from, pipeline: [{ $count: 'n' }], as: 'count' } },
    { $project: { _id: 0, v: walk } },
    { $unwind: '$v' },
    { $replaceRoot: { newRoot: { n: '$v.n', p: node.order === 'preorder' ? '$v.p' : { $concat: ['$v.p', ':'] } } } },
  ];
  // 4. Rows and visits by node identifier: each row once per visit of its node, in the order of the paths.
  stages.push(
    { $facet: { [kept]: [{ $match: {} }], [walked]: walkStages } },
    {
      $project: {
        _id: 0,
        [all]: {
          $concatArrays: [
            many
              ? // A row once for each of its nodes.
                {
                  $reduce: {
                    input: `$${kept}`,
                    initialValue: [],
                    in: { $concatArrays: ['$$value', { $map: { input: { $ifNull: [`$$this.${id}`, []] }, as: 'k', in: { k: '$$k', t: 0, r: '$$this' } } }] },
                  },
                }
              : { $map: { input: `$${kept}`, in: { k: { $ifNull: [`$$this.${id}`, null] }, t: 0, r: '$$this' } } },
            { $map: { input: `$${walked}`, in: { k: '$$this.n', t: 1, p: '$$this.p' } } },
          ],
        },
      },
    },
    { $unwind: `$${all}` },
    { $match: { [`${all}.k`]: { $ne: null } } },
    { $group: { _id: `$${all}.k`, items: { $push: `$${all}` } } },
    {
      $project: {
        _id: 0,
        r: { $filter: { input: '$items', cond: { $eq: ['$$this.t', 0] } } },
        p: { $filter: { input: '$items', cond: { $eq: ['$$this.t', 1] } } },
      },
    },
    { $unwind: '$r' },
    { $unwind: '$p' },
    { $replaceRoot: { newRoot: { $mergeObjects: ['$r.r', { [path]: '$p.p', [id]: '$p.k' }] } } },
  );
  // σ(x) (6.2.2's a(ε, t, x)): p₁ becomes a collection of one item holding the visit's node (or its identifier) where p names it.
  if (many && node.into !== undefined) placeNode(node, node.into, id, stages, host);
  host.renumber({ [path]: 1 }, stages);
  stages.push({ $unset: [id, path] });
}

/** σ(x) of `traverse` through a collection: the first segment of the placement an array of one document holding the node at the rest. */
function placeNode(node: BoundTraverse, into: NonNullable<BoundTraverse['into']>, id: string, stages: MongoDocument[], host: MongoTraverseHost): void {
  if (into.collections?.[0] !== true || into.collections.slice(1).some(Boolean))
    host.fail(`traverse() through the collection '${into.names.join('/')}' placed there`);
  const fields = nodeFields(node.hierarchy, host.mapping, (what) => host.fail(what));
  const [first, ...inner] = into.names as [string, ...string[]];
  let held: unknown = `$${id}`;
  if (into.kind === 'entity') {
    const found = host.temporary('placed');
    stages.push({ $lookup: { from: collectionOf(node.hierarchy.nodes, host.mapping), localField: id, foreignField: fields.id, as: found } });
    held = { $arrayElemAt: [`$${found}`, 0] };
    const item = inner.reduceRight<unknown>((value, name) => ({ [name]: value }), held);
    stages.push({ $addFields: { [first]: [item] } }, { $unset: [found] });
    return;
  }
  const item = inner.reduceRight<unknown>((value, name) => ({ [name]: value }), held);
  stages.push({ $addFields: { [first]: [item] } });
}
