/**
 * Compile-time checks of defineModel's typing (checked by `npm run typecheck`, which covers
 * test/): each `@ts-expect-error` line must be an error, or the typecheck fails.
 */
import { defineModel } from '../../src/index.js';

export const good = defineModel({
  namespace: 'T',
  entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } } },
  entitySets: { items: { type: 'Item', nonFilterable: ['name'] } },
});

export const badKey = defineModel({
  namespace: 'T',
  // @ts-expect-error 'nope' is not a property of Item
  entityTypes: { Item: { key: ['nope'], properties: { id: 'Edm.Int32' } } },
  entitySets: { items: { type: 'Item' } },
});

export const badRestriction = defineModel({
  namespace: 'T',
  entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32' } } },
  // @ts-expect-error 'missing' is not a property of Item
  entitySets: { items: { type: 'Item', nonSortable: ['missing'] } },
});

export const badSetType = defineModel({
  namespace: 'T',
  entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32' } } },
  // @ts-expect-error 'Thing' is not an entity type
  entitySets: { items: { type: 'Thing' } },
});
