/**
 * What the translating backends (SQL, MongoDB) run over a bound query before compiling it, in this
 * order: every navigation needs its entity set (passes/known-targets.ts), dynamic properties only where
 * the backends run them (passes/dynamic-uses.ts), constant subexpressions folded
 * (reference/constant-folding.ts), temporal literals finer than the backend stores made exact or
 * refused (passes/fractional-precision.ts).
 *
 * Each of these walks the whole query; most queries give none of them anything to do. One
 * read-only walk first notes what each could act on, and only those run: a navigation without an
 * entity set, a dynamic property or an untyped value, a literal that folding rewrites (null, NaN,
 * TimeOfDay, Duration) or an operator or function over literals alone, a temporal literal. The
 * result is exactly that of running all four.
 */
import type { BoundExpression, BoundQueryOptions } from '../semantic/bound-ast.js';
import { isUntyped } from '../semantic/types.js';
import { mapExpressionChildren, mapQueryExpressions } from '../semantic/walk/index.js';
import { foldQuery } from '../reference/constant-folding.js';
import { refuseUntypedUses } from '../passes/dynamic-uses.js';
import { limitFraction, type FractionalPrecision } from '../passes/fractional-precision.js';
import { requireKnownTargets } from '../passes/known-targets.js';

/** What the read-only walk found: which of the passes can act on the query. */
interface Survey {
  /** A navigation step without a known entity set. */
  unknownTarget: boolean;
  /** A dynamic step in a path, or any untyped value. */
  untyped: boolean;
  /** Something constant folding may rewrite. */
  folds: boolean;
  /** A DateTimeOffset, TimeOfDay or Duration literal. */
  temporal: boolean;
}

/** Whether folding computes a node whose operands are literals (constant-folding.ts's `readsNothing`, without the literal). */
const FOLDED_CALLS_WITHOUT_ARGUMENTS = new Set(['now', 'mindatetime', 'maxdatetime']);
function computesFromOperands(node: BoundExpression): boolean {
  return node.kind === 'binary' || node.kind === 'unary' || (node.kind === 'call' && (node.args.length > 0 || FOLDED_CALLS_WITHOUT_ARGUMENTS.has(node.name)));
}

/** The literal's contribution to the survey. */
function surveyLiteral(node: Extract<BoundExpression, { kind: 'literal' }>, survey: Survey): void {
  const value = node.value;
  // Null (null-strict calls, comparisons), NaN (left out of `in` lists).
  if (value === null || value === 'NaN' || (typeof value === 'number' && Number.isNaN(value))) survey.folds = true;
  if (node.type.kind !== 'primitive') return;
  const name = node.type.name;
  if (name === 'Edm.DateTimeOffset' || name === 'Edm.TimeOfDay' || name === 'Edm.Duration') {
    survey.temporal = true;
    // Times of day are made canonical; a duration added to an instant moves to the constant side.
    if (name !== 'Edm.DateTimeOffset') survey.folds = true;
  }
}

/** Surveys every expression of `query` (those `mapQueryExpressions` gives, expansions' included). */
function surveyQuery(query: BoundQueryOptions): Survey {
  const survey: Survey = { unknownTarget: false, untyped: false, folds: false, temporal: false };
  // Whether every child of the node in hand is a literal (set by `noteChild`, read after its children's walk).
  let literalsOnly = true;
  const noteChild = (child: BoundExpression): BoundExpression => {
    if (child.kind !== 'literal') literalsOnly = false;
    return child;
  };
  const step = (node: BoundExpression): BoundExpression => {
    if (isUntyped(node.type)) survey.untyped = true;
    switch (node.kind) {
      case 'literal':
        surveyLiteral(node, survey);
        return node;
      case 'path':
        for (const s of node.steps) {
          if (s.kind === 'dynamic') survey.untyped = true;
          else if (s.kind === 'navigation' && s.entitySet === undefined) survey.unknownTarget = true;
        }
        break;
      default:
        break;
    }
    mapExpressionChildren(node, step);
    if (!survey.folds && computesFromOperands(node)) {
      literalsOnly = true;
      mapExpressionChildren(node, noteChild);
      if (literalsOnly) survey.folds = true;
    }
    return node;
  };
  mapQueryExpressions(query, step);
  return survey;
}

/** The backend and its precision, for {@link prepareForBackend}. */
export interface BackendPreparation {
  /** The backend's name in its errors (`SQL`, `MongoDB`). */
  readonly backend: string;
  /** What it stores of a second. */
  readonly precision: FractionalPrecision;
  /** Whether it orders a grouped dynamic property (see {@link refuseUntypedUses}). */
  readonly ordersGrouped?: boolean;
}

/**
 * `query` as a translating backend compiles it: its refusals thrown (an {@link ODataError}), its
 * constants folded and its temporal literals limited to the backend's precision; `query` itself
 * when none of that changes anything.
 */
export function prepareForBackend<T extends BoundQueryOptions>(query: T, preparation: BackendPreparation): T {
  const survey = surveyQuery(query);
  // Every navigation needs its entity set, also inside an expression that folding drops.
  if (survey.unknownTarget) requireKnownTargets(preparation.backend, query);
  // Dynamic properties: compared, ordered, grouped and aggregated; other uses refused.
  if (survey.untyped) refuseUntypedUses(query, preparation.backend, preparation.ordersGrouped ?? false);
  // now() and other constant subexpressions become literals (computed once, as the reference does).
  const folded = survey.folds ? foldQuery(query) : query;
  // Then literals finer than the database's fraction of a second are made exact or refused (folding may have made some).
  return survey.folds || survey.temporal ? limitFraction(folded, preparation.precision) : folded;
}
