/**
 * The expressions of a bound `$apply`, in one table: for each kind of transformation, where its
 * expressions are (predicates, computed values, order keys, aggregated values and their
 * navigation prefixes, grouping paths, ranked values) and its nested pipelines (`groupby`'s,
 * `concat`'s branches). Both the rewrite and the listing of a pipeline's expressions read it.
 */
import { mapSame } from '../../util/same.js';
import type { BoundAggregate, BoundExpression, BoundHierarchyFilter, BoundOrderByItem, BoundTransformation } from '../bound-ast.js';
import { stayPath, type ExpressionRewrite } from './expression-children.js';

/** The kinds of `$apply` transformations. */
export type BoundTransformationKind = BoundTransformation['kind'];

/** The transformation of one kind: `BoundTransformationOfKind<'groupby'>`. (`top` and `skip` share one member of the union.) */
export type BoundTransformationOfKind<K extends BoundTransformationKind> = BoundTransformation & { readonly kind: K };

type Pipeline = readonly BoundTransformation[];
/** How one transformation of kind `K` is rewritten: `rewrite` for its expressions, `pipeline` for its nested pipelines. */
type TransformationMapper<K extends BoundTransformationKind> = (
  t: BoundTransformationOfKind<K>,
  rewrite: ExpressionRewrite,
  pipeline: (steps: Pipeline) => Pipeline,
) => BoundTransformation;

const orderItems = (items: readonly BoundOrderByItem[], rewrite: ExpressionRewrite): readonly BoundOrderByItem[] =>
  mapSame(items, (item) => {
    const expression = rewrite(item.expression);
    return expression === item.expression ? item : { ...item, expression };
  });

const aggregate = (a: BoundAggregate, rewrite: ExpressionRewrite): BoundAggregate => {
  const through = a.through === undefined ? undefined : stayPath(rewrite(a.through), a.through);
  const expression = a.kind === 'method' ? rewrite(a.expression) : undefined;
  // The grouping paths of `from` steps.
  const from =
    a.from === undefined
      ? undefined
      : mapSame(a.from, (step) => {
          const keys = mapSame(step.keys, (key) => {
            const path = stayPath(rewrite(key.path), key.path);
            return path === key.path ? key : { ...key, path };
          });
          return keys === step.keys ? step : { ...step, keys };
        });
  if (through === a.through && (a.kind !== 'method' || expression === a.expression) && from === a.from) return a;
  return {
    ...a,
    ...(through === undefined ? {} : { through }),
    ...(expression === undefined ? {} : { expression }),
    ...(from === undefined ? {} : { from }),
  } as BoundAggregate;
};

/** `ancestors`/`descendants`: the node identifier path of the input rows, and the start pipeline. */
const hierarchyFilter = (t: BoundHierarchyFilter, rewrite: ExpressionRewrite, pipeline: (steps: Pipeline) => Pipeline): BoundTransformation => {
  const path = stayPath(rewrite(t.path), t.path);
  const start = pipeline(t.start);
  return path === t.path && start === t.start ? t : { ...t, path, start };
};

/**
 * For each kind: the transformation with its expressions and nested pipelines rewritten (itself
 * when nothing changes). Keyed by every kind, so that a new transformation does not compile until
 * its expressions are listed here.
 */
const MAPPERS: { readonly [K in BoundTransformationKind]: TransformationMapper<K> } = {
  filter: (t, rewrite) => {
    const predicate = rewrite(t.predicate);
    return predicate === t.predicate ? t : { ...t, predicate };
  },
  compute: (t, rewrite) => {
    const items = mapSame(t.items, (item) => {
      const expression = rewrite(item.expression);
      return expression === item.expression ? item : { ...item, expression };
    });
    return items === t.items ? t : { ...t, items };
  },
  orderby: (t, rewrite) => {
    const items = orderItems(t.items, rewrite);
    return items === t.items ? t : { ...t, items };
  },
  aggregate: (t, rewrite) => {
    const aggregates = mapSame(t.aggregates, (a) => aggregate(a, rewrite));
    return aggregates === t.aggregates ? t : { ...t, aggregates };
  },
  groupby: (t, rewrite, pipeline) => {
    const keys = mapSame(t.keys, (key) => {
      const path = stayPath(rewrite(key.path), key.path);
      return path === key.path ? key : { ...key, path };
    });
    const apply = pipeline(t.apply);
    // rolluprecursive(…): its node path and the transformations over the nodes.
    const recursive = t.recursive;
    let rolled = recursive;
    if (recursive !== undefined) {
      const path = stayPath(rewrite(recursive.path), recursive.path);
      const start = recursive.start === undefined ? undefined : pipeline(recursive.start);
      if (path !== recursive.path || start !== recursive.start) rolled = { ...recursive, path, ...(start === undefined ? {} : { start }) };
    }
    return keys === t.keys && apply === t.apply && rolled === recursive ? t : { ...t, keys, apply, ...(rolled === undefined ? {} : { recursive: rolled }) };
  },
  concat: (t, _rewrite, pipeline) => {
    const branches = mapSame(t.branches, pipeline);
    return branches === t.branches ? t : { ...t, branches };
  },
  join: (t, rewrite, pipeline) => {
    const path = stayPath(rewrite(t.path), t.path);
    const apply = pipeline(t.apply);
    return path === t.path && apply === t.apply ? t : { ...t, path, apply };
  },
  nest: (t, _rewrite, pipeline) => {
    const items = mapSame(t.items, (item) => {
      const apply = pipeline(item.apply);
      return apply === item.apply ? item : { ...item, apply };
    });
    return items === t.items ? t : { ...t, items };
  },
  addnested: (t, rewrite, pipeline) => {
    const path = stayPath(rewrite(t.path), t.path);
    const items = mapSame(t.items, (item) => {
      const apply = pipeline(item.apply);
      return apply === item.apply ? item : { ...item, apply };
    });
    return path === t.path && items === t.items ? t : { ...t, path, items };
  },
  search: (t) => t,
  custom: (t) => t,
  top: (t) => t,
  skip: (t) => t,
  identity: (t) => t,
  ancestors: (t, rewrite, pipeline) => hierarchyFilter(t, rewrite, pipeline),
  descendants: (t, rewrite, pipeline) => hierarchyFilter(t, rewrite, pipeline),
  traverse: (t, rewrite, pipeline) => {
    const path = stayPath(rewrite(t.path), t.path);
    const start = t.start === undefined ? undefined : pipeline(t.start);
    const orderBy = orderItems(t.orderBy, rewrite);
    return path === t.path && start === t.start && orderBy === t.orderBy ? t : { ...t, path, orderBy, ...(start === undefined ? {} : { start }) };
  },
  rank: (t, rewrite) => {
    const limitOver = t.limitOver === undefined ? undefined : rewrite(t.limitOver);
    const value = rewrite(t.value);
    return value === t.value && limitOver === t.limitOver ? t : { ...t, value, ...(limitOver === undefined ? {} : { limitOver }) };
  },
};

/**
 * `transformations` with `rewrite` applied to each of their expressions, nested pipelines
 * included, in text order: predicates, computed values, order keys, aggregates' navigation
 * prefixes and values, grouping paths, ranked values. The array itself when every expression is
 * rewritten to itself. A navigation prefix or a grouping path must be rewritten to a path
 * (`TypeError` otherwise).
 */
export function mapTransformationExpressions(transformations: readonly BoundTransformation[], rewrite: ExpressionRewrite): readonly BoundTransformation[] {
  const pipeline = (steps: Pipeline): Pipeline =>
    mapSame(steps, (t) => (MAPPERS[t.kind] as TransformationMapper<BoundTransformationKind>)(t, rewrite, pipeline));
  return pipeline(transformations);
}

/**
 * The expressions of a bound `$apply`'s transformations, nested pipelines included, in the order
 * {@link mapTransformationExpressions} rewrites them (the roots only: walk each for its sub-expressions).
 */
export function transformationExpressions(transformations: readonly BoundTransformation[]): BoundExpression[] {
  const found: BoundExpression[] = [];
  mapTransformationExpressions(transformations, (node) => {
    found.push(node);
    return node;
  });
  return found;
}

const keep: ExpressionRewrite = (node) => node;

/** Calls `visit` on each transformation, each before its nested pipelines, until it returns `true`; whether one did. */
function walkPipeline(steps: Pipeline, visit: (t: BoundTransformation) => boolean): boolean {
  for (const t of steps) {
    if (visit(t)) return true;
    let stopped = false;
    (MAPPERS[t.kind] as TransformationMapper<BoundTransformationKind>)(t, keep, (nested) => {
      stopped ||= walkPipeline(nested, visit);
      return nested;
    });
    if (stopped) return true;
  }
  return false;
}

/**
 * Calls `visit` on each transformation of `transformations` and of their nested pipelines
 * (`groupby`'s, each `concat` branch), each before its nested ones, in text order.
 */
export function forEachTransformation(transformations: readonly BoundTransformation[], visit: (t: BoundTransformation) => void): void {
  walkPipeline(transformations, (t) => {
    visit(t);
    return false;
  });
}

/**
 * Whether `predicate` holds for a transformation of `transformations` or of their nested
 * pipelines, tried in the order of {@link forEachTransformation}; stops at the first that does.
 */
export function someTransformation(transformations: readonly BoundTransformation[], predicate: (t: BoundTransformation) => boolean): boolean {
  return walkPipeline(transformations, predicate);
}
