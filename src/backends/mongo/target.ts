/** `mongoTarget`: the MongoDB backend as a target of `validateQuery`. */
import type { QueryTarget } from '../../validation/validate-query.js';
import { toMongo, type ToMongoOptions } from './to-mongo.js';

/**
 * A {@link QueryTarget} that compiles with `toMongo`: `validateQuery` then reports what MongoDB
 * cannot run (`unsupported_feature`, with its position) as diagnostics.
 *
 * @example
 * ```ts
 * validateQuery("$filter=at add duration'PT0.0001S' gt now()", { model, entitySet: 'events', target: mongoTarget() });
 * ```
 */
export function mongoTarget(options: ToMongoOptions = {}): QueryTarget {
  return { name: 'MongoDB', check: (bound) => void toMongo(bound, options) };
}
