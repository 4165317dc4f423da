/**
 * `odata-engine/mongo`: a bound query as a MongoDB `find` or aggregation pipeline, documents in
 * and out, and the target that tells `validateQuery` what MongoDB runs.
 *
 * @packageDocumentation
 */
export {
  toMongo,
  toMongoDocument,
  toMongoCollections,
  fromMongoDocument,
  fromMongoApplyDocument,
  numericValue,
  escapeRegex,
  mongoValue,
  type MongoFind,
  type MongoPipeline,
  type MongoDocument,
  type MongoMapping,
  type ToMongoOptions,
  type MongoSearchHook,
} from './to-mongo.js';
export { mongoTarget } from './target.js';
