/**
 * `groupby((rolluprecursive(H,Q,p)),T)` on MongoDB (Data Aggregation 6.3), with the reference's
 * semantics (memory/hierarchy.ts, `rollupRecursiveStep`), for a hierarchy whose parent navigation
 * property is a foreign key to its node identifier, the nodes' key:
 *
 * 1. each input row gets the chain from its node up to its root by `$graphLookup` (which visits a
 *    node once: a cycle ends); its node is reached from a root of the hierarchy when a node of the
 *    chain has no parent among the nodes (a root, or an orphan's missing parent); a chain round a
 *    cycle has none, and its rows are in no portion;
 * 2. each reached row once per node of its chain (`$unwind`): the portions, the node in a field;
 * 3. `T` grouped by that field, as `groupby` compiles it (row-wise steps, then `aggregate`);
 * 4. every reached node without rows (found by the same walk from each node) gets `T` over none;
 * 5. the node goes into each row: the node document (the rows are the nodes), as an entity value,
 *    or its identifier, as `into` says.
 *
 * A node path through a collection (6.2.1's p₁/…/pₖ/r) walks each of a row's nodes on its own and
 * puts the row once into the portion of each node of the walks that reach a root.
 *
 * The work is the rows times the depth (each walk reads the chain), plus a walk per node for the
 * empty portions. Refused (`unsupported_feature`): start transformations (`S`), other grouping
 * properties beside it, transformations after `T`'s `aggregate`, node identifiers that are not the
 * nodes' key, and the rest `groupby` refuses.
 */
import type { EntitySet, StructuredType } from '../../model/model.js';
import type { BoundAggregate, BoundRollupRecursive, BoundTransformation } from '../../semantic/bound-ast.js';
import { extendedType } from '../../semantic/apply/output-type.js';
import { portionRows } from '../../semantic/apply/rollup-portions.js';
import { rollupNodeAsPath } from '../../semantic/apply/rollup-node.js';
import { newContext, rootFrame, type Context, type MongoExpressionCompiler } from './expression.js';
import { nodeFields } from './hierarchy-nodes.js';
import { collectionOf, type MongoDocument, type MongoMapping } from './mapping.js';

type Groupby = Extract<BoundTransformation, { kind: 'groupby' }>;

/** What compiling `rolluprecursive` needs of the apply compiler. */
export interface MongoRollupRecursiveHost {
  readonly mapping: MongoMapping;
  readonly expressions: MongoExpressionCompiler;
  /** A field name no property uses. */
  temporary(name: string): string;
  /** Compiles transformations onto `stages`. */
  pipeline(transformations: readonly BoundTransformation[], rows: { type: StructuredType; set: EntitySet | undefined }, stages: MongoDocument[]): void;
  /** Compiles a `groupby` without `rolluprecursive` onto `stages`. */
  groupby(node: Groupby, rows: { type: StructuredType; set: EntitySet | undefined }, stages: MongoDocument[]): void;
  /** The value of an aggregate over no rows (a count 0, everything else null). */
  ofNothing(aggregate: BoundAggregate): unknown;
  /** The field of a property of `type`. */
  field(type: StructuredType, name: string): string;
  dropLookups(context: Context, stages: MongoDocument[], more?: readonly string[]): void;
  fail(what: string, at: { readonly span: { readonly start: number } }): never;
}

export function rollupRecursiveStages(
  node: Groupby,
  rows: { type: StructuredType; set: EntitySet | undefined },
  stages: MongoDocument[],
  host: MongoRollupRecursiveHost,
): void {
  const recursive = node.recursive as BoundRollupRecursive;
  const hierarchy = recursive.hierarchy;
  const nodes = hierarchy.nodes;
  const fail = (what: string, at: { readonly span: { readonly start: number } } = recursive): never => host.fail(`rolluprecursive() ${what}`, at);
  const own = hierarchy.node.steps;
  if (nodes.type.key.length !== 1 || own.length !== 1 || own[0]?.kind !== 'property' || own[0].property.name !== nodes.type.key[0])
    fail(`of a hierarchy whose node identifiers are not its nodes' key (they may repeat)`);
  // T: row-wise steps, aggregate, then compute or filter of its row (example 65).
  const end = node.apply.map((step) => step.kind).lastIndexOf('aggregate');
  const after = end < 0 ? [] : node.apply.slice(end + 1);
  const other = after.find((step) => step.kind !== 'compute' && step.kind !== 'filter' && step.kind !== 'identity');
  if (other !== undefined) fail('with transformations after the aggregate() other than compute() and filter()', other);
  if (end < 0 && node.apply.length > 0) fail('whose transformations do not end with aggregate()', node.apply[0] as BoundTransformation);
  const last = end < 0 ? undefined : (node.apply[end] as Extract<BoundTransformation, { kind: 'aggregate' }>);
  const fields = nodeFields(hierarchy, host.mapping, (what) => fail(`of ${what}`));
  const from = collectionOf(nodes, host.mapping);
  const chain = host.temporary('chain');
  const portion = host.temporary('portion');
  const first = host.temporary('first');
  const linked = host.temporary('linked');
  const depth = host.temporary('depth');

  // S: H′, the nodes the start transformations keep, as the list of their identifiers beside each
  // document (a $lookup that reads nothing of the document: MongoDB runs it once and caches it).
  let hPrime: MongoDocument[] = [];
  const within = host.temporary('hprime');
  const start: MongoDocument[] = [];
  if (recursive.start !== undefined) {
    host.pipeline(recursive.start, { type: nodes.type, set: nodes }, start);
    hPrime = [
      { $lookup: { from, pipeline: [...start, { $project: { _id: 0, i: `$${fields.id}` } }], as: within } },
      { $addFields: { [within]: `$${within}.i` } },
    ];
  }

  /**
   * The identifiers of the portions a document of node `$chain[0]` is in: without S, the chain's,
   * where a node of it has no parent among them (it reaches a root), else none; with S, the chain
   * from the node up while its nodes are in H′ (by depth: `$graphLookup` keeps no order), where the
   * last one's parent is not in H′ (a root of H′), else none (the node is not in H′, or a cycle of
   * H′ holds the chain).
   */
  const reachedIds = (): MongoDocument => {
    if (recursive.start === undefined) {
      return {
        $let: {
          vars: { ids: `$${chain}.${fields.id}` },
          in: {
            $cond: [
              {
                $anyElementTrue: [
                  {
                    $map: {
                      input: `$${chain}`,
                      as: 'c',
                      in: { $or: [{ $eq: [{ $ifNull: [`$$c.${fields.parent}`, null] }, null] }, { $not: [{ $in: [`$$c.${fields.parent}`, '$$ids'] }] }] },
                    },
                  },
                ],
              },
              '$$ids',
              [],
            ],
          },
        },
      };
    }
    const parent = { $ifNull: [`$$this.${fields.parent}`, null] };
    const outside = { $or: [{ $eq: [parent, null] }, { $not: [{ $in: [parent, `$${within}`] }] }] };
    return {
      $let: {
        vars: {
          walked: {
            $reduce: {
              input: { $sortArray: { input: `$${chain}`, sortBy: { [depth]: 1 } } },
              initialValue: { ids: [], open: true, root: false },
              in: {
                $cond: [
                  { $and: ['$$value.open', { $in: [`$$this.${fields.id}`, `$${within}`] }] },
                  { ids: { $concatArrays: ['$$value.ids', [`$$this.${fields.id}`]] }, open: { $not: [outside] }, root: outside },
                  { ids: '$$value.ids', open: false, root: '$$value.root' },
                ],
              },
            },
          },
        },
        in: { $cond: ['$$walked.root', '$$walked.ids', []] },
      },
    };
  };
  const walk = (startWith: string): MongoDocument => ({
    $graphLookup: {
      from,
      startWith,
      connectFromField: fields.parent,
      connectToField: fields.id,
      as: chain,
      ...(recursive.start === undefined ? {} : { depthField: depth }),
    },
  });

  // 1. and 2.: each row once per node of its chain, when the chain reaches a root.
  // (A node path through a collection, 6.2.1's p₁/…/pₖ/r: each of the row's nodes walked on its own,
  // then the row once per node of the union of their chains that reach a root.)
  const many = recursive.path.type.kind === 'collection';
  const context = newContext(rows.type, rows.set);
  const frame = rootFrame(context);
  const value = many ? host.expressions.collectionValues(recursive.path, frame) : host.expressions.value(recursive.path, frame);
  stages.push(...context.stages, { $addFields: { [portion]: value } });
  host.dropLookups(context, stages);
  const row = host.temporary('row');
  if (many) stages.push({ $setWindowFields: { sortBy: { _id: 1 }, output: { [row]: { $documentNumber: {} } } } }, { $unwind: `$${portion}` });
  stages.push(...hPrime, walk(`$${portion}`), { $addFields: { [chain]: reachedIds() } });
  if (many)
    stages.push(
      { $group: { _id: `$${row}`, row: { $first: '$$ROOT' }, ids: { $push: `$${chain}` } } },
      {
        $replaceRoot: {
          newRoot: { $mergeObjects: ['$row', { [chain]: { $reduce: { input: '$ids', initialValue: [], in: { $setUnion: ['$$value', '$$this'] } } } }] },
        },
      },
      { $unset: row },
    );
  stages.push({ $unwind: `$${chain}` }, { $addFields: { [portion]: `$${chain}` } }, { $unset: recursive.start === undefined ? chain : [chain, within] });

  // 3.: T per portion, grouped by its node.
  const { nodeProperty, key, made } = portionRows(node, portion, last?.output);
  const type = extendedType(rows.type, [nodeProperty]);
  // Aggregation.rollupnode() in T: the portion's node, this field.
  const apply = rollupNodeAsPath(node.apply, nodeProperty, (where, what) => host.fail(what, where));
  const aggregated = end < 0 ? apply : apply.slice(0, end + 1);
  host.groupby({ kind: 'groupby', keys: [key, ...node.keys], apply: aggregated, output: made, span: node.span }, { type, set: rows.set }, stages);

  // 4.: without P, the reached nodes without rows, T over none; a node's group when it has one.
  const defaults: MongoDocument = {};
  for (const a of last?.aggregates ?? []) defaults[host.field(made, a.alias)] = host.ofNothing(a);
  if (node.keys.length === 0)
    stages.push(
      { $addFields: { [first]: 0 } },
      {
        $unionWith: {
          coll: from,
          pipeline: [
            ...start,
            ...hPrime,
            walk(`$${fields.id}`),
            { $match: { $expr: { $gt: [{ $size: reachedIds() }, 0] } } },
            { $replaceRoot: { newRoot: { $mergeObjects: [{ $literal: defaults }, { [portion]: `$${fields.id}`, [first]: 1 }] } } },
          ],
        },
      },
      { $sort: { [first]: 1 } },
      { $group: { _id: `$${portion}`, row: { $first: '$$ROOT' } } },
      { $replaceRoot: { newRoot: '$row' } },
      { $unset: first },
    );
  // T's steps after its aggregate, on each portion's row.
  const rest = apply.slice(end + 1);
  if (end >= 0 && rest.length > 0) host.pipeline(rest, { type: made, set: undefined }, stages);

  // 5.: the node into each row.
  const into = recursive.into;
  /** The dotted field of the names in the output. */
  const at = (names: readonly string[]): string => {
    let owner: StructuredType = node.output;
    return names
      .map((name) => {
        const field = host.field(owner, name);
        const property = owner.properties.get(name);
        if (property !== undefined && (property.type.kind === 'complex' || property.type.kind === 'entity')) owner = property.type.type;
        return field;
      })
      .join('.');
  };
  /** σ(x) through a collection (its first segment): an array of one document holding `held` at the rest of the names. */
  const placed = (held: unknown): MongoDocument => {
    if (into.kind === 'node' || into.collections?.[0] !== true || into.collections.slice(1).some(Boolean))
      return fail(`with its node placed through the collection '${into.kind === 'node' ? '' : into.names.join('/')}' there`);
    const [first, ...inner] = into.names as [string, ...string[]];
    const property = node.output.properties.get(first);
    const element = property?.type.kind === 'complex' ? property.type.type : undefined;
    let owner: StructuredType | undefined = element;
    const names = inner.map((name) => {
      const field = owner === undefined ? name : host.field(owner, name);
      const next = owner?.properties.get(name)?.type;
      owner = next !== undefined && (next.kind === 'complex' || next.kind === 'entity') ? next.type : undefined;
      return field;
    });
    return { [host.field(node.output, first)]: [names.reduceRight<unknown>((value, name) => ({ [name]: value }), held)] };
  };
  const through = into.kind !== 'node' && into.collections?.some(Boolean) === true;
  if (into.kind === 'value') {
    stages.push({ $addFields: through ? placed(`$${portion}`) : { [at(into.names)]: `$${portion}` } }, { $unset: portion });
    return;
  }
  stages.push({ $lookup: { from, localField: portion, foreignField: fields.id, as: linked } });
  const x = { $arrayElemAt: [`$${linked}`, 0] };
  if (into.kind === 'entity') stages.push({ $addFields: through ? placed(x) : { [at(into.names)]: x } }, { $unset: [portion, linked] });
  else {
    // The node's properties over the row's, except the grouping properties (P), which stay the group's.
    const kept: MongoDocument = {};
    for (const k of node.keys) {
      const name = host.field(made, k.names[0] as string);
      kept[name] = `$${name}`;
    }
    stages.push({ $replaceRoot: { newRoot: { $mergeObjects: ['$$ROOT', x, kept] } } }, { $unset: [portion, linked] });
  }
}
