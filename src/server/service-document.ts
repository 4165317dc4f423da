/** The service document (OData JSON Format §5): the entity sets, singletons and function imports of the container. */
import type { Model } from '../model/model.js';
import { contextUrl } from '../responses/odata-json/context-url.js';
import { controlName, type ControlNaming } from '../responses/odata-json/versions.js';

/**
 * The service document of a model: `value` lists each entity set (`kind` `EntitySet`), singleton
 * and function import marked `IncludeInServiceDocument`, each with its `url` relative to the
 * service root.
 *
 * @example
 * ```ts
 * serviceDocument(model, 'https://host/odata/', { version: '4.01' });
 * // { '@context': 'https://host/odata/$metadata', value: [{ name: 'People', kind: 'EntitySet', url: 'People' }, …] }
 * ```
 */
export function serviceDocument(model: Model, root: string, naming: ControlNaming): Record<string, unknown> {
  const value: Record<string, unknown>[] = [];
  for (const set of model.entitySets.values()) if (set.container === undefined) value.push({ name: set.name, kind: 'EntitySet', url: set.name });
  for (const schema of model.schemas ?? []) {
    for (const element of schema.elements.values()) {
      if (element.kind !== 'container') continue;
      for (const [name, member] of element.container.members) {
        if (member.kind !== 'csdl') continue;
        const json = member.csdl;
        if (typeof json.$Type === 'string' && json.$Collection !== true && json.$Function === undefined && json.$Action === undefined) {
          value.push({ name, kind: 'Singleton', url: name });
        } else if (typeof json.$Function === 'string' && json.$IncludeInServiceDocument === true) {
          value.push({ name, kind: 'FunctionImport', url: name });
        }
      }
    }
  }
  return { [controlName('context', naming)]: contextUrl(root, { kind: 'service' }, naming), value };
}
