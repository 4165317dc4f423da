/**
 * Where an open entity type's dynamic properties are stored: one JSON object per row, in a column
 * (SQL: `jsonb`, `JSON` or JSON text) or an embedded document (MongoDB) named `DynamicProperties`
 * unless the storage mapping names another (`dynamicProperties`). Each dynamic property is a
 * member of that object, its value a JSON primitive (semantic/dynamic-values.ts); a member the
 * object lacks, or a row whose object is null, is a null value.
 */
import type { StructuredType } from '../model/model.js';
import { NO_STORAGE, type StorageMapping } from './storage-mapping.js';

/** The conventional name of the column (or embedded document) of dynamic properties. */
export const DYNAMIC_PROPERTIES = 'DynamicProperties';

/**
 * The column (or embedded document) that holds the dynamic properties of rows of `type` (an entity
 * set's type), or `undefined` when `type` is not open. An override of `type` or of a base type
 * (nearest first, by qualified then simple name) wins over the convention.
 *
 * @example
 * ```ts
 * dynamicColumn(model.entitySets.get('Events')!.type, { dynamicProperties: { Event: 'extra' } }); // 'extra'
 * ```
 */
export function dynamicColumn(type: StructuredType, storage: StorageMapping = NO_STORAGE): string | undefined {
  if (!type.open) return undefined;
  const overrides = storage.dynamicProperties;
  if (overrides !== undefined) {
    for (let current: StructuredType | undefined = type; current !== undefined; current = current.baseType) {
      for (const name of [current.qualifiedName, current.name]) if (Object.hasOwn(overrides, name)) return overrides[name] as string;
    }
  }
  return DYNAMIC_PROPERTIES;
}
