/** `mongoSource`: MongoDB through the official driver's `Db` (or anything shaped like it), compiled by `toMongo`. */
import { collectionOf, fromMongoApplyDocument, fromMongoDocument, type MongoDocument } from '../../backends/mongo/mapping.js';
import { toMongo, type ToMongoOptions } from '../../backends/mongo/to-mongo.js';
import { crossJoinCollection } from '../../backends/mongo/crossjoin.js';
import { crossJoinOf } from '../../semantic/resource-path/crossjoin.js';
import { jsonRecord } from '../../responses/json-values.js';
import type { BoundQuery } from '../../semantic/bound-ast.js';
import type { Row } from '../../reference/rows.js';
import type { ODataSource } from '../source.js';

/** The part of a MongoDB `Db` (the official driver's) a source uses. */
export interface MongoDb {
  collection(name: string): {
    find(
      filter: MongoDocument,
      options: { projection?: MongoDocument; sort?: MongoDocument; skip?: number; limit?: number; signal?: AbortSignal },
    ): { toArray(): Promise<MongoDocument[]> };
    aggregate(pipeline: MongoDocument[], options?: { signal?: AbortSignal }): { toArray(): Promise<MongoDocument[]> };
    countDocuments(filter: MongoDocument): Promise<number>;
  };
}

/** Options of {@link mongoSource}: `toMongo`'s (the mapping, a plan cache) and the database. */
export interface MongoSourceOptions extends ToMongoOptions {
  readonly db: MongoDb;
}

/**
 * A source over MongoDB: each read is `toMongo`'s `find` (with `countDocuments` for
 * `$count=true`) or aggregation pipeline, on the entity set's collection, read back by
 * `fromMongoDocument` as OData JSON.
 *
 * @example
 * ```ts
 * const client = await MongoClient.connect(url);
 * const source = mongoSource({ db: client.db('shop') });
 * ```
 */
export function mongoSource(options: MongoSourceOptions): ODataSource {
  const { db, ...mapping } = options;
  // A handler reads a bound query it keeps (its plan cache) again and again: compiled once.
  const compiledOf = new WeakMap<BoundQuery, ReturnType<typeof toMongo>>();
  return {
    async read(query, { ieee754Compatible, signal }) {
      let compiled = compiledOf.get(query);
      if (compiled === undefined) {
        compiled = toMongo(query, mapping);
        compiledOf.set(query, compiled);
      }
      // `$crossjoin(…)`: its pipeline runs on the first joined set's collection.
      const join = crossJoinOf(query.entitySet);
      const collection = db.collection(join === undefined ? collectionOf(query.entitySet, mapping) : crossJoinCollection(join, mapping));
      const signalled = signal === undefined ? {} : { signal };
      let documents: MongoDocument[];
      let count: number | undefined;
      if (compiled.kind === 'pipeline') {
        const counting = compiled.count === undefined ? undefined : collection.aggregate([...compiled.count], signalled).toArray();
        documents = await collection.aggregate([...compiled.pipeline], signalled).toArray();
        if (counting !== undefined) count = Number(((await counting)[0] as { count?: unknown } | undefined)?.count ?? 0);
      } else {
        const { filter, projection, sort, skip, limit } = compiled;
        const counting = compiled.count === undefined ? undefined : collection.countDocuments(compiled.count);
        documents = await collection
          .find(filter, {
            ...(projection === undefined ? {} : { projection }),
            ...(sort === undefined ? {} : { sort }),
            ...(skip === undefined ? {} : { skip }),
            ...(limit === undefined ? {} : { limit }),
            ...signalled,
          })
          .toArray();
        if (counting !== undefined) count = await counting;
      }
      const value = documents.map((document) => {
        const row = (
          query.apply === undefined
            ? fromMongoDocument(document, query.entityType, mapping, query.expand, query.select.computed)
            : fromMongoApplyDocument(document, query, mapping)
        ) as Row;
        return jsonRecord(query, row, { ieee754Compatible });
      });
      return count === undefined ? { value } : { value, count };
    },
  };
}
