/**
 * The walking kit of the bound tree: one table of an expression's children and one of a
 * transformation's expressions, and the walks built on them (transformer, visitor, fold,
 * searches, whole queries). Every pass walks the tree with these; `odata-engine/core` exports
 * them for users' own passes. docs/contributing.md ("Walking and rewriting the bound tree") says
 * which to use when.
 */
export {
  mapExpressionChildren,
  expressionChildren,
  forEachChild,
  type BoundExpressionKind,
  type BoundExpressionOfKind,
  type ExpressionRewrite,
} from './expression-children.js';
export { transformExpression } from './transform-expression.js';
export { forEachExpression, someExpression, everyExpression } from './search-expression.js';
export { visitExpression, foldExpression, type ExpressionVisitor, type PartialExpressionVisitor } from './visit-expression.js';
export {
  mapTransformationExpressions,
  transformationExpressions,
  forEachTransformation,
  someTransformation,
  type BoundTransformationKind,
  type BoundTransformationOfKind,
} from './transformations.js';
export { mapQueryExpressions, type ExpressionOption } from './query-expressions.js';
