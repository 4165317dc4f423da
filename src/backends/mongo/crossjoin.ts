/**
 * The documents of `$crossjoin(…)`'s virtual set (semantic/resource-path/crossjoin.ts) in
 * MongoDB: an aggregation over the first joined set's collection that makes one document per
 * combination of the sets' documents, holding the stored key of each (`Products_ID`, `Sales_ID`:
 * the fields a single-valued navigation property without a referential constraint is stored in),
 * so that the navigation properties are `$lookup`s as any other. Each further set is an
 * uncorrelated `$lookup` (a sub-pipeline of its keys) followed at once by `$unwind`, which
 * MongoDB runs as one stage (no document holds the other set's keys as an array); the mapping's
 * `scope` restricts every set.
 */
import type { Property } from '../../model/model.js';
import type { CrossJoin } from '../../semantic/resource-path/crossjoin.js';
import { navigationLink } from '../../storage/links.js';
import { collectionOf, fieldOf, hiddenField, scopeFilter, type MongoDocument, type MongoMapping } from './mapping.js';

/** `{ Products_ID: '$_id' }`: the stored key of a set's document in the fields of its navigation property. */
function keyProjection(join: CrossJoin, index: number, mapping: MongoMapping): MongoDocument {
  const set = join.sets[index] as CrossJoin['sets'][number];
  const navigation = join.navigation[index] as CrossJoin['navigation'][number];
  const link = navigationLink(undefined, navigation, mapping);
  if (link === undefined || link.kind !== 'direct') throw new Error(`internal error: no stored key for '$crossjoin' of '${set.name}'`);
  const projection: MongoDocument = { _id: 0 };
  for (const { source, target } of link.pairs) {
    const from = target.property !== undefined ? fieldOf(set.type, target.property as Property, mapping, set) : hiddenField(target.column, mapping);
    projection[hiddenField(source.column ?? source.property.name, mapping)] = `$${from}`;
  }
  return projection;
}

/** The stages that make the combinations, run on the first set's collection ({@link crossJoinCollection}). */
export function crossJoinStages(join: CrossJoin, mapping: MongoMapping): MongoDocument[] {
  const scope = scopeFilter(mapping);
  const scoped = (stages: MongoDocument[]): MongoDocument[] => (scope === undefined ? stages : [{ $match: scope }, ...stages]);
  const stages = scoped([{ $project: keyProjection(join, 0, mapping) }]);
  const keys: string[] = Object.keys(stages[stages.length - 1]?.$project as MongoDocument).filter((field) => field !== '_id');
  for (let i = 1; i < join.sets.length; i++) {
    const as = `__odata_crossjoin_${i}`;
    const from = collectionOf(join.sets[i] as CrossJoin['sets'][number], mapping);
    stages.push(
      { $lookup: { from, pipeline: scoped([{ $project: keyProjection(join, i, mapping) }]), as } },
      { $unwind: `$${as}` },
      { $replaceWith: { $mergeObjects: [{ $unsetField: { field: as, input: '$$ROOT' } }, `$${as}`] } },
    );
    keys.push(...Object.keys(keyProjection(join, i, mapping)).filter((field) => field !== '_id'));
  }
  // The combination's id: its sets' keys, in order (the order `$apply` numbers rows in: apply.ts's keySort).
  stages.push({ $addFields: { _id: Object.fromEntries(keys.map((field) => [field, `$${field}`])) } });
  return stages;
}

/** The collection the combinations are made from: the first joined set's. */
export function crossJoinCollection(join: CrossJoin, mapping: MongoMapping): string {
  return collectionOf(join.sets[0] as CrossJoin['sets'][number], mapping);
}
