/**
 * Random `$apply` pipelines for an entity set (issue 16), for the cross-backend harness: an
 * optional run of chained and nested `concat` (issue 26: `concat(filter(…),identity)/concat(…)`,
 * concats inside branches; most within the default `maxApplyFanOut` of 16, some past it, so that
 * the refusal is exercised too), an optional typed `filter(…)`, then `groupby((…),aggregate(…))` or `aggregate(…)` over the type's
 * properties and single-valued navigation paths (`$count`, `sum`/`average`/`min`/`max` of numbers,
 * `min`/`max`/`countdistinct` of orderable values; an open type's dynamic properties too), then the options the extension allows after
 * it: `$filter` on the count, `$orderby` of every grouping property (so that the order, and a
 * page, are defined), `$top`, `$skip`, `$count`. Issue 30: two grouping properties are rolled up
 * one time in three (`rollup(a,b)`: the order then also says which rows have `b`, through
 * `isdefined(b)`, and `$filter` may ask `isdefined`), a single-valued navigation property is
 * grouped by as an entity (`groupby((parent))`, left unordered), and the aggregate function
 * (`$these/aggregate(…)`) sometimes computes each group's share; one pipeline in six first joins a
 * collection-valued navigation property (`join`/`outerjoin(children as j[,filter(…)])`) and groups
 * by a property of the joined entity. Where the set's type has a
 * recursive hierarchy (an `Aggregation.RecursiveHierarchy` annotation), one pipeline in five starts
 * with `ancestors(…)` or `descendants(…)` of a typed filter's rows (a distance and `keep start` at
 * random), and one in ten with `traverse(…)`; one in eight groups by `rolluprecursive(…)` of a
 * hierarchy (a portion per node, with a start filter at random, and one time in three a filter of the
 * portion's rows by `Aggregation.rollupnode()`: the node's own row, its children, or the others;
 * ordered by the node), and one in
 * eight filters with a hierarchy function (`Aggregation.isroot`, `isleaf`, `isnode`, or
 * `isdescendant`/`isancestor`/`issibling` of a literal of the node's type, sometimes negated). Where
 * the key is one integer property, one grouped pipeline in seven ranks each group's rows by it
 * (`topcount`/`bottomcount`, no ties) before the aggregate or, one time in two, as the groupby's end
 * (there, for an odd count, as `orderby(key desc)/top(n)`, or `asc` for a bottom count).
 * One grouped pipeline in seven ends its groupby in `nest(…)` instead of the aggregate (example 129:
 * see `nestOf`), and a join's grouping property may be reached through the joined entity's
 * single-valued navigation (with or without a referential constraint, example 92).
 */
import fc from 'fast-check';
import type { Model, Property, StructuredType } from '../model/model.js';
import type { GeneratedQuery, TypedArbitraryOptions } from './typed-arbitraries.js';
import { typedFilterArbitrary, typedLiteralArbitrary } from './typed-arbitraries.js';
import { DYNAMIC_PROPERTY_NAMES } from './stored-data.js';
import { recursiveHierarchies } from '../model/recursive-hierarchy.js';

const NUMERIC = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Single', 'Edm.Double']);
const GROUPABLE = new Set(['Edm.String', 'Edm.Boolean', 'Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Date', 'Edm.Guid']);
const INTEGERS = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64']);
const ORDERABLE = new Set([...GROUPABLE, 'Edm.Double', 'Edm.Single', 'Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Duration']);

/** Single-valued primitive or enum properties of `type` whose type is in `names` (enums with `enums`). */
function propertiesOf(type: StructuredType, names: ReadonlySet<string>, enums: boolean): Property[] {
  return [...type.properties.values()].filter(
    (p) => !p.collection && p.filterable && (p.type.kind === 'primitive' ? names.has(p.type.name) : enums && p.type.kind === 'enum' && !p.type.type.isFlags),
  );
}

/** Random `$apply` queries for `entitySet` of `model` (see the module's description). */
export function applyQueryArbitrary(model: Model, entitySet: string, options: TypedArbitraryOptions = {}): fc.Arbitrary<GeneratedQuery> {
  const set = model.entitySets.get(entitySet);
  if (set === undefined) throw new Error(`The model has no entity set named '${entitySet}'`);
  const type = set.type;
  const groupable = propertiesOf(type, GROUPABLE, true).map((p) => p.name);
  for (const navigation of type.navigation.values()) {
    if (navigation.collection || !navigation.filterable) continue;
    for (const p of propertiesOf(navigation.target, GROUPABLE, false)) groupable.push(`${navigation.name}/${p.name}`);
  }
  const numeric = propertiesOf(type, NUMERIC, false).map((p) => p.name);
  const orderable = propertiesOf(type, ORDERABLE, true).map((p) => p.name);
  // An open type's dynamic properties (generateStoredData's): grouped by, summed, counted.
  const dynamic: readonly string[] = type.open ? DYNAMIC_PROPERTY_NAMES : [];
  groupable.push(...dynamic);
  numeric.push(...dynamic);
  orderable.push(...dynamic);
  // A ranking inside groupby (3.2.3.1, examples 101 and 102) by the key, which no two rows share: no tie to break.
  const keyProperty = type.key.length === 1 ? type.properties.get(type.key[0] as string) : undefined;
  const rankKey =
    keyProperty !== undefined && keyProperty.filterable && keyProperty.type.kind === 'primitive' && INTEGERS.has(keyProperty.type.name)
      ? keyProperty.name
      : undefined;
  // Entities grouped by (their properties): a single-valued navigation property.
  const entities = [...type.navigation.values()].filter((n) => !n.collection && n.filterable).map((n) => n.name);
  const aggregate = fc.oneof(
    ...(numeric.length === 0 ? [] : [fc.tuple(fc.constantFrom(...numeric), fc.constantFrom('sum', 'average', 'min', 'max'))]),
    ...(orderable.length === 0 ? [] : [fc.tuple(fc.constantFrom(...orderable), fc.constantFrom('min', 'max', 'countdistinct'))]),
  );
  const fanOut = concatArbitrary(typedFilterArbitrary(model, entitySet, { ...options, maxDepth: 1 }));
  // join/outerjoin over a collection-valued navigation property (issue 30), grouped by a property of the joined entity.
  const joins = [...type.navigation.values()].flatMap((navigation) => {
    if (!navigation.collection || !navigation.filterable) return [];
    const targetSet = [...model.entitySets.values()].find((candidate) => candidate.type === navigation.target);
    const keys = propertiesOf(navigation.target, GROUPABLE, true).map((p) => p.name);
    // Through the joined entity's single-valued navigation too, with or without a referential constraint (example 92).
    for (const next of navigation.target.navigation.values()) {
      if (next.collection || !next.filterable) continue;
      for (const p of propertiesOf(next.target, GROUPABLE, false)) keys.push(`${next.name}/${p.name}`);
    }
    if (targetSet === undefined || keys.length === 0) return [];
    return [
      fc
        .record({
          outer: fc.boolean(),
          key: fc.constantFrom(...keys),
          filter: fc.option(typedFilterArbitrary(model, targetSet.name, { ...options, maxDepth: 1 }), { freq: 2 }),
        })
        .map(({ outer, key, filter }) => ({
          step: `${outer ? 'outerjoin' : 'join'}(${navigation.name} as j${filter === null ? '' : `,filter(${filter})`})`,
          key: `j/${key}`,
        })),
    ];
  });
  // Hierarchical transformations over the set's own hierarchies (each node its own row).
  const reference = (h: { qualifier: string; nodeProperty: string }): string => `$root/${entitySet},${h.qualifier},${h.nodeProperty}`;
  const hierarchies = recursiveHierarchies(model, type).filter((h) => !h.nodeProperty.includes('/') && type.properties.has(h.nodeProperty));
  // A node path through a collection (6.2.1's p₁/…/pₖ/r): a collection-valued navigation property to the nodes, then the node property.
  const throughCollections = [...type.navigation.values()].filter((n) => n.collection && n.filterable && n.target === type).map((n) => n.name);
  const nodePath = (h: { nodeProperty: string }): fc.Arbitrary<string> =>
    throughCollections.length === 0
      ? fc.constant(h.nodeProperty)
      : fc.oneof(
          { arbitrary: fc.constant(h.nodeProperty), weight: 3 },
          { arbitrary: fc.constantFrom(...throughCollections).map((n) => `${n}/${h.nodeProperty}`), weight: 1 },
        );
  const through = (h: { qualifier: string; nodeProperty: string }): fc.Arbitrary<string> =>
    nodePath(h).map((path) => `$root/${entitySet},${h.qualifier},${path}`);
  const hierarchical =
    hierarchies.length === 0
      ? fc.constant(null)
      : fc.oneof(
          { arbitrary: fc.constant(null), weight: 7 },
          {
            arbitrary: fc
              .tuple(
                fc.constantFrom(...hierarchies).chain(through),
                fc.constantFrom('ancestors', 'descendants'),
                typedFilterArbitrary(model, entitySet, { ...options, maxDepth: 1 }),
                fc.option(fc.integer({ min: 1, max: 3 }), { freq: 2 }),
                fc.boolean(),
              )
              .map(
                ([h, kind, start, distance, keep]) => `${kind}(${h},filter(${start})${distance === null ? '' : `,${distance}`}${keep ? ',keep start' : ''})`,
              ),
            weight: 2,
          },
          {
            arbitrary: fc
              .tuple(
                fc.constantFrom(...hierarchies).chain(through),
                fc.constantFrom('preorder', 'postorder'),
                fc.option(typedFilterArbitrary(model, entitySet, { ...options, maxDepth: 1 }), { freq: 2 }),
              )
              .map(([h, order, start]) => `traverse(${h},${order}${start === null ? '' : `,filter(${start})`})`),
            weight: 1,
          },
        );
  // A portion per node of a hierarchy (6.3): the node property is the output's grouping property.
  const recursive =
    hierarchies.length === 0
      ? fc.constant(null)
      : fc.oneof(
          { arbitrary: fc.constant(null), weight: 7 },
          {
            arbitrary: fc
              .tuple(fc.constantFrom(...hierarchies), fc.option(typedFilterArbitrary(model, entitySet, { ...options, maxDepth: 1 }), { freq: 2 }))
              .map(([h, start]) => ({
                text: `rolluprecursive(${reference(h)}${start === null ? '' : `,filter(${start})`})`,
                node: h.nodeProperty,
                parent: h.parentNavigationProperty,
              })),
            weight: 1,
          },
        );
  // The hierarchy functions (5.5.2.1) over the row's own node, against a literal node where they take one.
  const nodeType = (h: { nodeProperty: string }): string => {
    const property = type.properties.get(h.nodeProperty);
    return property?.type.kind === 'primitive' ? property.type.name : 'Edm.String';
  };
  const tests =
    hierarchies.length === 0
      ? fc.constant(null)
      : fc.oneof(
          { arbitrary: fc.constant(null), weight: 7 },
          {
            arbitrary: fc.constantFrom(...hierarchies).chain((h) =>
              fc
                .tuple(
                  fc.constantFrom('isroot', 'isleaf', 'isnode', 'isdescendant', 'isancestor', 'issibling'),
                  typedLiteralArbitrary(model, nodeType(h)),
                  fc.option(fc.integer({ min: 1, max: 3 }), { freq: 2 }),
                  fc.boolean(),
                  fc.nat(3).map((n) => n === 0),
                )
                .map(([test, literal, distance, self, negated]) => {
                  const on = `HierarchyNodes=$root/${entitySet},HierarchyQualifier='${h.qualifier}',Node=${h.nodeProperty}`;
                  const other = { isdescendant: 'Ancestor', isancestor: 'Descendant', issibling: 'Other' }[test as 'isdescendant'];
                  const extra =
                    other === undefined
                      ? ''
                      : `,${other}=${literal}${test === 'issibling' ? '' : `${distance === null ? '' : `,MaxDistance=${distance}`}${self ? ',IncludeSelf=true' : ''}`}`;
                  return `filter(${negated ? 'not ' : ''}Aggregation.${test}(${on}${extra}))`;
                }),
            ),
            weight: 1,
          },
        );
  return fc
    .record({
      hierarchy: hierarchical,
      recursive,
      tests,
      concat: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fanOut, weight: 2 }),
      filter: fc.option(typedFilterArbitrary(model, entitySet, { ...options, maxDepth: Math.min(options.maxDepth ?? 2, 2) }), { freq: 3 }),
      keys: groupable.length === 0 ? fc.constant([] as string[]) : fc.uniqueArray(fc.constantFrom(...groupable), { maxLength: 2 }),
      rollup: fc.nat(2).map((n) => n === 0),
      entity:
        entities.length === 0
          ? fc.constant(null)
          : fc.oneof({ arbitrary: fc.constant(null), weight: 7 }, { arbitrary: fc.constantFrom(...entities), weight: 1 }),
      share: fc.nat(5).map((n) => n === 0),
      aggregates: fc.uniqueArray(aggregate, { maxLength: 3, selector: (a) => a.join(' ') }),
      having: fc.option(fc.nat(3), { freq: 3 }),
      page: fc.option(fc.tuple(fc.nat(4), fc.nat(3)), { freq: 3 }),
      count: fc.option(fc.boolean(), { freq: 3 }),
      join: joins.length === 0 ? fc.constant(null) : fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary: fc.oneof(...joins), weight: 1 }),
      // In a portion's transformations, Aggregation.rollupnode(): the node's own row, its children, the rest.
      node:
        hierarchies.length === 0
          ? fc.constant(null)
          : fc.oneof(
              { arbitrary: fc.constant(null), weight: 2 },
              {
                arbitrary: fc.constantFrom(
                  (_: string) => '$it eq Aggregation.rollupnode()',
                  (parent: string) => `${parent} eq Aggregation.rollupnode()`,
                  (parent: string) => `Aggregation.rollupnode(Position=1) ne ${parent}`,
                  (_: string) => 'not ($it ne Aggregation.rollupnode())',
                ),
                weight: 1,
              },
            ),
      ranked: rankKey === undefined ? fc.constant(null) : fc.option(fc.tuple(fc.constantFrom('topcount', 'bottomcount'), fc.nat(3), fc.boolean()), { freq: 6 }),
      // A groupby ending in nest (3.2.3.1, example 129): the item's form, its grouping property, a filter before the nest, a second item.
      nest: fc.oneof(
        { arbitrary: fc.constant(null), weight: 6 },
        {
          arbitrary: fc.record({
            form: fc.nat(4),
            key: groupable.length === 0 ? fc.constant(null) : fc.constantFrom(...groupable),
            filter: fc.option(typedFilterArbitrary(model, entitySet, { ...options, maxDepth: 1 }), { freq: 3 }),
            second: fc.boolean(),
          }),
          weight: 1,
        },
      ),
    })
    .map(
      ({
        hierarchy,
        recursive: portions,
        tests: test,
        concat,
        filter,
        keys: picked,
        aggregates,
        having,
        page,
        count,
        rollup,
        entity,
        share,
        join,
        node,
        ranked,
        nest,
      }) => {
        // A portion per node: beside one other grouping property at most, not beside a join's, a rollup or an entity.
        const recursive = join === null ? portions : null;
        const chosen = recursive === null ? picked : picked.filter((k) => k !== recursive.node).slice(0, 1);
        const keys = join === null ? chosen : [...chosen.slice(0, 1), join.key];
        // `$count as n` first: every pipeline has a count for $filter to use.
        const items = ['$count as n', ...aggregates.map(([path, method], i) => `${path} with ${method} as a${i}`)].join(',');
        const rolled = rollup && keys.length === 2 && recursive === null;
        // The entity's properties are grouping keys already: not with a path into it.
        const whole = entity !== null && keys.length > 0 && recursive === null && !keys.some((k) => k.startsWith(`${entity}/`)) ? entity : null;
        const grouping = [
          ...(recursive === null ? [] : [recursive.text]),
          ...(rolled ? [`rollup(${keys.join(',')})`] : keys),
          ...(whole === null ? [] : [whole]),
        ];
        // A ranking of each group's rows by the key (unique: after a concat or a join rows repeat), before
        // the aggregate or, one time in two, ending the groupby (its rows, not aggregated).
        const rankedGroups =
          ranked !== null && rankKey !== undefined && concat === null && join === null && recursive === null && !rolled && whole === null && keys.length > 0
            ? `${ranked[0]}(${ranked[1]},${rankKey})`
            : null;
        const rankEnds = rankedGroups !== null && ranked?.[2] === true;
        // Ending the groupby, an odd n one time in two as orderby then top (or skip for 3): the same rows in the same order.
        const ending =
          rankEnds && ranked !== null && ranked[1] % 2 === 1
            ? `orderby(${rankKey as string} ${ranked[0] === 'topcount' ? 'desc' : 'asc'})/${ranked[1] === 3 ? 'top(3)' : 'top(1)'}`
            : rankedGroups;
        // A nest instead of the aggregate: each group's rows as collections (no `n` for $filter then).
        const nested =
          nest !== null && grouping.length > 0 && !rolled && recursive === null && rankedGroups === null && whole === null
            ? // (A ranking by the key only where rows do not repeat it: not after a concat or a join, whose ties any order may break.)
              nestOf(nest, items, concat === null && join === null ? rankKey : undefined)
            : null;
        const transformations = [
          ...(hierarchy === null ? [] : [hierarchy]),
          ...(join === null ? [] : [join.step]),
          ...(concat === null ? [] : [concat]),
          ...(test === null ? [] : [test]),
          ...(filter === null ? [] : [`filter(${filter})`]),
          grouping.length === 0
            ? `aggregate(${items})`
            : nested !== null
              ? `groupby((${grouping.join(',')}),${nested})`
              : rankedGroups !== null
                ? `groupby((${grouping.join(',')}),${rankEnds ? ending : `${rankedGroups}/aggregate(${items})`})`
                : `groupby((${grouping.join(',')}),${recursive === null || node === null ? '' : `filter(${node(recursive.parent)})/`}aggregate(${items}))`,
          // Each group's share of the rows (SQL reads the groups as a common table expression).
          ...(share && keys.length > 0 && !rankEnds && nested === null ? ['compute(n div $these/aggregate(n with sum) as share)'] : []),
        ];
        const parts: [string, string][] = [['$apply', transformations.join('/')]];
        const defined = rolled ? ` and isdefined(${keys[1] as string})` : '';
        if (having !== null && !rankEnds && nested === null)
          parts.push(['$filter', having === 0 && rolled ? `not isdefined(${keys[1] as string})` : `n ge ${having}${having === 1 ? defined : ''}`]);
        // A grouped dynamic property is an untyped value, which SQL does not order: such groups stay unordered and unpaged.
        // Nor is a grouped entity's (structured) value ordered. With a rollup, which rows have the second key is ordered too.
        const ordered = grouping.length > 0 && !keys.some((k) => dynamic.includes(k)) && whole === null;
        const order = [...(recursive === null ? [] : [recursive.node]), ...keys, ...(rankEnds && !keys.includes(rankKey as string) ? [rankKey as string] : [])];
        if (ordered) parts.push(['$orderby', rolled ? `${keys.join(',')},isdefined(${keys[1] as string})` : order.join(',')]);
        if (page !== null && ordered) parts.push(['$skip', String(page[0])], ['$top', String(page[1] + 1)]);
        if (count !== null) parts.push(['$count', String(count)]);
        return { text: parts.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'), readable: parts.map(([k, v]) => `${k}=${v}`).join('&') };
      },
    );
}

/**
 * The nested transformations of a `groupby` ending in `nest`: an optional filter, then one item (two
 * one time in two, the second a count) that groups the group's rows by another property (with the
 * aggregates or without), aggregates them, keeps those a filter passes (whole rows: every value
 * form nested), or the two with the highest key.
 */
function nestOf(nest: { form: number; key: string | null; filter: string | null; second: boolean }, items: string, rankKey: string | undefined): string {
  const key = nest.key ?? undefined;
  const forms = [
    key === undefined ? `aggregate(${items})` : `groupby((${key}))`,
    `aggregate(${items})`,
    key === undefined ? `aggregate(${items})` : `groupby((${key}),aggregate(${items}))`,
    nest.filter === null ? 'identity' : `filter(${nest.filter})`,
    rankKey === undefined ? `aggregate(${items})` : `orderby(${rankKey} desc)/top(2)`,
  ];
  const first = `${forms[nest.form % forms.length] as string} as x`;
  const before = nest.filter !== null && nest.form !== 3 ? `filter(${nest.filter})/` : '';
  return `${before}nest(${first}${nest.second ? ',aggregate($count as c) as y' : ''})`;
}

/**
 * One or two chained `concat`s (three to five one time in ten) of two or three branches, a branch
 * `identity`, `filter(…)` of a typed predicate, or (two levels deep at most) a `filter(…)` followed
 * by a `concat` of its own: most pipelines within the default fan-out (16), a few past it.
 */
export function concatArbitrary(predicate: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const branches = (branch: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    fc
      .oneof({ arbitrary: fc.tuple(branch, branch), weight: 4 }, { arbitrary: fc.tuple(branch, branch, branch), weight: 1 })
      .map((list) => `concat(${list.join(',')})`);
  const { branch } = fc.letrec<{ branch: string; concat: string }>((tie) => ({
    branch: fc.oneof(
      { depthSize: 'small', maxDepth: 2, depthIdentifier: 'concat-branch', withCrossShrink: true },
      { arbitrary: fc.constant('identity'), weight: 3 },
      { arbitrary: predicate.map((p) => `filter(${p})`), weight: 3 },
      { arbitrary: fc.tuple(predicate, tie('concat')).map(([p, c]) => `filter(${p})/${c}`), weight: 1 },
    ),
    concat: branches(tie('branch')),
  }));
  const steps = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 2 }), weight: 9 }, { arbitrary: fc.integer({ min: 3, max: 5 }), weight: 1 });
  return steps.chain((k) => fc.array(branches(branch), { minLength: k, maxLength: k })).map((list) => list.join('/'));
}
