/**
 * Backends that read related rows from entity sets (SQL, MongoDB) need the entity set of every
 * navigation property an expression follows. This pass refuses a navigation without a known
 * target wherever it is written, before constant folding can drop the expression that holds it
 * (`(null mul 0) add managedAppRegistrations/$count` folds to null): the reference reads rows by
 * entity set and refuses such a query whatever the folding, so every backend refuses it too.
 */
import type { BoundQueryOptions } from '../semantic/bound-ast.js';
import { forEachExpression } from '../semantic/walk/search-expression.js';
import { mapQueryExpressions } from '../semantic/walk/query-expressions.js';
import { unknownTarget, unsupportedFeature } from './unsupported.js';

/** Throws the backend's `unsupported_feature` error at the first navigation step of `query`'s expressions whose entity set is unknown. */
export function requireKnownTargets(backend: string, query: BoundQueryOptions): void {
  mapQueryExpressions(query, (root, option) => {
    forEachExpression(root, (node) => {
      if (node.kind !== 'path') return;
      for (const step of node.steps) {
        if (step.kind === 'navigation' && step.entitySet === undefined)
          throw unsupportedFeature(backend, unknownTarget(step.navigation), { node: step, option });
      }
    });
    return root;
  });
}
