/**
 * The walking kit of the bound tree (src/semantic/walk/): the transformer keeps what it does not
 * change, rewrites reach every child of every kind and every expression of a pipeline, and the
 * tables are exhaustive at compile time.
 */
import { describe, expect, it } from 'vitest';
import {
  bindQuery,
  everyExpression,
  expressionChildren,
  forEachTransformation,
  foldExpression,
  forEachExpression,
  mapExpressionChildren,
  mapQueryExpressions,
  mapTransformationExpressions,
  someExpression,
  someTransformation,
  transformationExpressions,
  transformExpression,
  visitExpression,
  type BoundExpression,
  type BoundExpressionKind,
  type BoundPathStep,
  type BoundQuery,
  type BoundTransformation,
  type BoundTransformationKind,
  type ExpressionOption,
  type ExpressionVisitor,
} from '../../src/core.js';
import { limitFraction } from '../../src/passes/fractional-precision.js';
import { foldQuery } from '../../src/reference/constant-folding.js';
import { assetModel } from '../fixtures/asset-model.js';
import { FUZZ_SET, fuzzModel } from '../fixtures/fuzz-data.js';

/** Every kind of bound expression (a compile error when a kind is added and not listed here). */
const EXPRESSION_KINDS: Record<BoundExpressionKind, true> = {
  literal: true,
  path: true,
  binary: true,
  unary: true,
  in: true,
  call: true,
  lambda: true,
  count: true,
  case: true,
  defined: true,
  aggregateValue: true,
  hierarchyTest: true,
  rollupNode: true,
};

const bind = (text: string): BoundQuery => bindQuery(text, { model: assetModel, entitySet: 'assets' });
const filterOf = (text: string): BoundExpression => bind(`$filter=${encodeURIComponent(text)}`).filter!;

/** One filter with every kind, each child position taken by something a rewrite can tell apart. */
const EVERY_KIND_TEXT =
  'tickets/any(t: t/estimatedHours gt 1) and tickets/$count($filter=estimatedHours gt 2) gt 0' +
  " and not (weightKg add 1 gt 3) and status in ('active','retired')" +
  " and case(active:1, true:2) eq 1 and contains(name,'x') and code in tags and tags/all(g: g ne 'b')" +
  ' and tickets/aggregate(estimatedHours with sum) gt 1';
/** `isdefined` binds to a node of its own only over rows an aggregation made (a rollup's). */
const DEFINED = bind('$apply=groupby((rollup(name,weightKg)))&$filter=isdefined(weightKg)').filter!;
/** A hierarchy function binds only where the model has a recursive hierarchy (the fuzz model's). */
const HIERARCHY = bindQuery(
  "$filter=Aggregation.isdescendant(HierarchyNodes=$root/items,HierarchyQualifier='Tree',Node=parentId,Ancestor=id add 1,MaxDistance=2)",
  { model: fuzzModel, entitySet: FUZZ_SET },
).filter!;
/** `Aggregation.rollupnode()` binds only inside a rolluprecursive portion's transformations. */
const ROLLUP_NODE = (() => {
  const bound = bindQuery('$apply=groupby((rolluprecursive($root/items,Tree,id)),filter($it eq Aggregation.rollupnode())/aggregate($count as c))', {
    model: fuzzModel,
    entitySet: FUZZ_SET,
  });
  const step = bound.apply?.transformations[0];
  const nested = step?.kind === 'groupby' ? step.apply[0] : undefined;
  if (nested?.kind !== 'filter') throw new Error('expected the portion filter');
  return nested.predicate;
})();
const AND = (left: BoundExpression, right: BoundExpression): BoundExpression => ({
  kind: 'binary',
  operator: 'and',
  left,
  right,
  operandType: DEFINED.type,
  type: DEFINED.type,
  span: { start: 0, end: 0 },
});
const EVERY_KIND: BoundExpression = {
  kind: 'binary',
  operator: 'and',
  left: filterOf(EVERY_KIND_TEXT),
  right: AND(DEFINED, AND(HIERARCHY, ROLLUP_NODE)),
  operandType: DEFINED.type,
  type: DEFINED.type,
  span: { start: 0, end: 0 },
};

/**
 * An oracle independent of the kit: every expression object reachable through any property of
 * the tree (model objects, types and path steps aside), found by looking at the objects, not at kinds.
 */
// A hierarchy function's hierarchy holds paths from the hierarchy's nodes, not expressions of the row.
const SKIPPED = new Set(['type', 'steps', 'root', 'search', 'span', 'hierarchy']);
function scanned(node: unknown, out: object[] = []): object[] {
  if (Array.isArray(node)) {
    for (const item of node) scanned(item, out);
    return out;
  }
  if (node === null || typeof node !== 'object') return out;
  // An aggregate of the aggregate function (it has an alias) is no expression; its expression is.
  if ('kind' in node && 'span' in node && 'type' in node && !('alias' in node)) out.push(node);
  for (const [key, value] of Object.entries(node)) if (!SKIPPED.has(key)) scanned(value, out);
  return out;
}

const all = (node: BoundExpression): BoundExpression[] => {
  const nodes: BoundExpression[] = [];
  forEachExpression(node, (each) => nodes.push(each));
  return nodes;
};

describe('expressions', () => {
  it('the test tree has every kind, and the walk finds every expression object in it', () => {
    const nodes = all(EVERY_KIND);
    expect(new Set(nodes.map((n) => n.kind))).toEqual(new Set(Object.keys(EXPRESSION_KINDS)));
    expect(new Set(nodes)).toEqual(new Set(scanned(EVERY_KIND)));
    expect(nodes.length).toBe(scanned(EVERY_KIND).length);
  });

  it('keeps every node itself when nothing changes (each kind, and the whole tree)', () => {
    for (const node of all(EVERY_KIND)) expect(mapExpressionChildren(node, (child) => child)).toBe(node);
    expect(transformExpression(EVERY_KIND, (node) => node)).toBe(EVERY_KIND);
  });

  it('reaches every child of every kind: lambda predicates and collections, count filters, case branches, in-list items, call args', () => {
    const marked = transformExpression(EVERY_KIND, (node) => ({ ...node, span: { start: -1, end: -1 } }));
    const found = scanned(marked) as BoundExpression[];
    expect(found.length).toBe(scanned(EVERY_KIND).length);
    expect(found.filter((n) => n.span.start !== -1)).toEqual([]);
    // The original is not touched.
    expect((scanned(EVERY_KIND) as BoundExpression[]).filter((n) => n.span.start === -1)).toEqual([]);
  });

  it('rebuilds only the path from a changed node to the root', () => {
    const target = all(EVERY_KIND).find((n) => n.kind === 'literal' && n.value === 'x');
    expect(target).toBeDefined();
    const changed = transformExpression(EVERY_KIND, (node) => (node === target ? { ...node, value: 'y' } : node));
    const before = new Set(all(EVERY_KIND));
    const rebuilt = all(changed).filter((n) => !before.has(n));
    // The literal, `contains(…)`, and the `and`s above it: nothing beside them.
    expect(rebuilt.map((n) => n.kind)).toEqual([...Array(rebuilt.length - 2).fill('binary'), 'call', 'literal']);
    expect(all(changed).length).toBe(before.size);
  });

  it('lists the direct children in text order', () => {
    const call = all(EVERY_KIND).find((n) => n.kind === 'call')!;
    expect(expressionChildren(call).map((n) => n.kind)).toEqual(['path', 'literal']);
    const inList = all(EVERY_KIND).find((n) => n.kind === 'in' && n.right.kind === 'list')!;
    expect(expressionChildren(inList).map((n) => (n.kind === 'literal' ? n.value : n.kind))).toEqual(['path', ['active'], ['retired']]);
    const caseNode = all(EVERY_KIND).find((n) => n.kind === 'case')!;
    expect(expressionChildren(caseNode).map((n) => n.kind)).toEqual(['path', 'literal', 'literal', 'literal']);
  });

  it('refuses to put something other than a path where the tree only takes a path, or a literal in an in list', () => {
    const lambda = all(EVERY_KIND).find((n) => n.kind === 'lambda')!;
    const literal = { kind: 'literal', value: 1, type: { kind: 'primitive', name: 'Edm.Int32' }, span: lambda.span } as const;
    expect(() => mapExpressionChildren(lambda, (child) => (child.kind === 'path' ? literal : child))).toThrow(TypeError);
    const inList = all(EVERY_KIND).find((n) => n.kind === 'in' && n.right.kind === 'list')!;
    expect(() => mapExpressionChildren(inList, (child) => (child.kind === 'literal' ? (inList as BoundExpression) : child))).toThrow(TypeError);
  });

  it('searches in pre-order and stops at the first match', () => {
    const seen: BoundExpression[] = [];
    expect(someExpression(EVERY_KIND, (n) => (seen.push(n), n.kind === 'lambda'))).toBe(true);
    expect(seen.map((n) => n.kind)).toEqual([...seen.slice(0, -1).map(() => 'binary'), 'lambda']);
    expect(someExpression(EVERY_KIND, (n) => n.kind === 'literal' && n.value === 'nowhere')).toBe(false);
    expect(everyExpression(EVERY_KIND, (n) => n.type !== undefined)).toBe(true);
    let calls = 0;
    expect(everyExpression(EVERY_KIND, () => (calls++, false))).toBe(false);
    expect(calls).toBe(1);
  });

  it('visits by kind, with a default, and folds bottom-up', () => {
    const describe = (node: BoundExpression): string =>
      visitExpression(node, {
        binary: (n) => `(${describe(n.left)} ${n.operator} ${describe(n.right)})`,
        literal: (n) => JSON.stringify(n.value),
        default: (n) => n.kind,
      });
    expect(describe(filterOf('weightKg add 1 gt 3'))).toBe('((path add 1) gt 3)');
    const full: ExpressionVisitor<number> = {
      literal: () => 1,
      path: () => 2,
      binary: () => 3,
      unary: () => 4,
      in: () => 5,
      call: () => 6,
      lambda: () => 7,
      count: () => 8,
      case: () => 9,
      defined: () => 10,
      aggregateValue: () => 11,
      hierarchyTest: () => 12,
      rollupNode: () => 13,
    };
    expect(
      all(EVERY_KIND)
        .map((n) => visitExpression(n, full))
        .sort(),
    ).toContain(9);
    const size = foldExpression<number>(EVERY_KIND, (_node, children) => 1 + children.reduce((a, b) => a + b, 0));
    expect(size).toBe(all(EVERY_KIND).length);
    const depth = foldExpression<number>(filterOf('not (weightKg add 1 gt 3)'), (_node, children) => 1 + Math.max(0, ...children));
    expect(depth).toBe(4);
  });
});

const APPLY = bind(
  '$apply=' +
    encodeURIComponent(
      'filter(weightKg gt 1)/concat(compute(weightKg mul 2 as w2)/orderby(w2 desc)/topcount(2, w2),' +
        ' groupby((status, locality/name), filter(active eq true)' +
        '/aggregate(weightKg with sum as total, tickets/estimatedHours with max as most, $count as n)))/top(5)',
    ),
);

describe('$apply pipelines', () => {
  const transformations = APPLY.apply!.transformations;

  it('lists the expressions of nested groupby and concat pipelines in text order', () => {
    const roots = transformationExpressions(transformations);
    const name = (s: BoundPathStep): string => (s.kind === 'navigation' ? s.navigation.name : s.kind === 'property' ? s.property.name : s.kind);
    expect(roots.map((n) => (n.kind === 'path' ? n.steps.map(name).join('/') : n.kind))).toEqual([
      'binary', // filter(weightKg gt 1)
      'binary', // weightKg mul 2
      'w2', // orderby(w2 desc)
      'w2', // topcount(2, w2)
      'status',
      'locality/name',
      'binary', // filter(active eq true)
      'weightKg', // weightKg with sum
      'tickets', // through tickets/
      'estimatedHours',
    ]);
  });

  it('visits every transformation of nested pipelines, each before its nested ones, and stops a search at the first match', () => {
    const kinds: string[] = [];
    forEachTransformation(transformations, (t) => kinds.push(t.kind));
    expect(kinds).toEqual(['filter', 'concat', 'compute', 'orderby', 'rank', 'groupby', 'filter', 'aggregate', 'top']);
    const tried: string[] = [];
    expect(someTransformation(transformations, (t) => (tried.push(t.kind), t.kind === 'aggregate'))).toBe(true);
    expect(tried).toEqual(kinds.slice(0, 8));
    expect(someTransformation(transformations, (t) => t.kind === 'identity')).toBe(false);
  });

  it('keeps the pipeline itself when nothing changes, and rewrites every expression of every nested pipeline', () => {
    expect(mapTransformationExpressions(transformations, (node) => node)).toBe(transformations);
    const marked = mapTransformationExpressions(transformations, (node) => transformExpression(node, (n) => ({ ...n, span: { start: -1, end: -1 } })));
    expect(marked).not.toBe(transformations);
    const roots = transformationExpressions(marked);
    expect(roots.length).toBe(transformationExpressions(transformations).length);
    for (const root of roots) expect(everyExpression(root, (n) => n.span.start === -1)).toBe(true);
    // The top step is kept as it is.
    expect(marked[2]).toBe(transformations[2]);
  });

  it('rebuilds only the transformations that hold a changed expression', () => {
    const add = (node: BoundExpression): BoundExpression => (node.kind === 'binary' && node.operator === 'mul' ? { ...node, operator: 'add' } : node);
    const changed = mapTransformationExpressions(transformations, add);
    expect(changed[0]).toBe(transformations[0]);
    const [before, after] = [transformations[1], changed[1]] as Extract<BoundTransformation, { kind: 'concat' }>[];
    expect(after).not.toBe(before);
    expect(after!.branches[1]).toBe(before!.branches[1]);
    expect(after!.branches[0]![1]).toBe(before!.branches[0]![1]);
    expect(after!.branches[0]![0]).not.toBe(before!.branches[0]![0]);
  });

  it('maps a whole query: $compute, $apply, $filter, $orderby and every expansion, each with its option', () => {
    const query = bind('$compute=weightKg mul 2 as w2&$filter=w2 gt 1&$orderby=name&$expand=tickets($filter=estimatedHours gt 2;$orderby=code)');
    const options: ExpressionOption[] = [];
    expect(mapQueryExpressions(query, (node, option) => (options.push(option), node))).toBe(query);
    expect(options).toEqual(['$compute', '$filter', '$orderby', '$expand', '$expand']);
    const mark = (n: BoundExpression): BoundExpression => ({ ...n, span: { start: -1, end: -1 } });
    const rewritten = mapQueryExpressions(query, (node, option) => (option === '$expand' ? transformExpression(node, mark) : node));
    expect(rewritten.filter).toBe(query.filter);
    expect(rewritten.expand[0]!.options.filter!.span.start).toBe(-1);
    expect(query.expand[0]!.options.filter!.span.start).not.toBe(-1);
    const applied: ExpressionOption[] = [];
    mapQueryExpressions(APPLY, (node, option) => (applied.push(option), node));
    expect(applied).toEqual(transformationExpressions(transformations).map(() => '$apply'));
  });
});

describe('the passes built on the kit', () => {
  it('give back a query with nothing to rewrite itself, lambdas, counts, case and in lists included', () => {
    const query = bind(`$filter=${encodeURIComponent(EVERY_KIND_TEXT)}&$orderby=name&$expand=tickets($filter=estimatedHours gt 2)`);
    expect(foldQuery(query)).toBe(query);
    expect(limitFraction(query, { digits: { 'Edm.DateTimeOffset': 6 }, backend: 'test' })).toBe(query);
    expect(foldQuery(APPLY)).toBe(APPLY);
  });

  it('rewrite inside lambdas, case values and pipelines', () => {
    const query = bind(`$filter=${encodeURIComponent('tickets/any(t: t/estimatedHours gt 1 add 2) and case(weightKg gt 1 add 1:2 mul 3, true:0) eq 6')}`);
    const folded = foldQuery(query);
    const literals: unknown[] = [];
    forEachExpression(folded.filter!, (n) => n.kind === 'literal' && literals.push(n.value));
    expect(literals).toEqual([3, 2, 6, true, 0, 6]);
    const grouped = foldQuery(bind(`$apply=${encodeURIComponent('groupby((status),filter(weightKg gt 1 add 2)/aggregate(weightKg with sum as s))')}`));
    const literalRight = (n: BoundExpression): unknown[] => (n.kind === 'binary' && n.right.kind === 'literal' ? [n.right.value] : []);
    const rights = transformationExpressions(grouped.apply!.transformations).flatMap(literalRight);
    expect(rights).toEqual([3]);
  });
});

describe('exhaustiveness (checked by the compiler)', () => {
  it('a visitor without a default must handle every kind; a table of transformations every kind', () => {
    // @ts-expect-error: `case` is missing, and there is no default
    const partial: ExpressionVisitor<number> = {
      literal: () => 1,
      path: () => 2,
      binary: () => 3,
      unary: () => 4,
      in: () => 5,
      call: () => 6,
      lambda: () => 7,
      count: () => 8,
    };
    // @ts-expect-error: the ranking kinds and others are missing
    const kinds: Record<BoundTransformationKind, true> = { filter: true, compute: true, orderby: true, aggregate: true, groupby: true, concat: true };
    expect(Object.keys(partial)).toHaveLength(8);
    expect(Object.keys(kinds)).toHaveLength(6);
  });
});
