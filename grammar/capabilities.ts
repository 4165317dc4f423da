/**
 * The capability tables of docs/backends.md, generated from the backends themselves. The first:
 * each row is a probe query that the binder accepts, compiled for each target (`sqlTarget` of every
 * built-in dialect, `mongoTarget()`, the in-memory reference); a cell says whether that target runs
 * it or refuses it with `unsupported_feature`. The second: one row per canonical function of the
 * registry (src/semantic/functions.ts), read from each backend's table of implementations; a cell
 * is `yes` or the reason of the declared refusal. `npm run capabilities` rewrites both blocks; a
 * test checks that the page holds what this computes, so the tables cannot drift from the code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  DIALECTS,
  ODataError,
  compileQuery,
  crossJoinSet,
  defineModel,
  mongoTarget,
  sqlTarget,
  validateQuery,
  type BindSettings,
  type EntitySet,
  type QueryTarget,
} from '../src/index.js';
import { bindQueryToSet } from '../src/semantic/bind-query.js';
import { mongoFunctionRefusal } from '../src/backends/mongo/functions.js';
import { sqlFunctionRefusal } from '../src/backends/sql/functions.js';
import { referenceFunctionRefusal } from '../src/reference/functions.js';
import { FUNCTION_NAMES } from '../src/semantic/functions.js';
import type { CanonicalFunctionName } from '../src/syntax/ast.js';

const model = defineModel({
  namespace: 'Probe',
  enumTypes: { Level: ['low', 'high'], Access: { members: { read: 1, write: 2 }, flags: true } },
  complexTypes: { Address: { properties: { city: 'Edm.String' } } },
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        price: 'Edm.Decimal',
        ratio: 'Edm.Double',
        level: 'Level',
        at: 'Edm.DateTimeOffset',
        done: 'Edm.DateTimeOffset',
        span: 'Edm.Duration',
        tags: 'Collection(Edm.String)',
        places: 'Collection(Address)',
        parentId: 'Edm.Int32',
        spot: 'Edm.GeographyPoint',
        area: 'Edm.GeographyPolygon',
      },
      navigation: {
        parent: { type: 'Item', constraints: { parentId: 'id' } },
        children: { type: 'Collection(Item)', partner: 'parent' },
        // Without referential constraints (docs/storage.md): a foreign key, a link table, containment.
        related: { type: 'Item' },
        friends: { type: 'Collection(Item)' },
        parts: { type: 'Collection(Part)', containsTarget: true },
      },
      open: true,
      recursiveHierarchies: { Tree: { nodeProperty: 'id', parentNavigationProperty: 'parent' } },
    },
    Part: { key: ['n'], properties: { n: 'Edm.Int32' } },
    Special: { baseType: 'Item', properties: { extra: 'Edm.Int32' } },
  },
  entitySets: { items: { type: 'Item', customAggregates: { Revenue: 'Edm.Decimal' } }, others: { type: 'Item' } },
});

/** The host's definitions of the probes' custom aggregate and custom aggregation method (docs/aggregation.md). */
const CUSTOM = {
  customAggregates: { Revenue: 'price mul 2 with sum' },
  customAggregationMethods: { 'Probe.sumOfSquares': { expression: '$this mul $this with sum' } },
  customTransformations: { 'Probe.firstRows': { parameters: { Count: 'Edm.Int32' }, memory: (rows, args) => rows.slice(0, args['Count'] as number) } },
} as const satisfies Pick<BindSettings, 'customAggregates' | 'customAggregationMethods' | 'customTransformations'>;

/** What is probed, and a query that needs it (on `items`, or on the cross join of the sets named third). */
export const PROBES: readonly (readonly [string, string, (readonly string[])?])[] = [
  ['an instant plus a duration', "$orderby=at add duration'PT1H'"],
  ['the difference of two instants', "$filter=done sub at gt duration'PT1H'"],
  ['the sum of two durations', "$filter=span add span gt duration'PT1H'"],
  ['`cast`/`isof` between integer types, and to text', "$filter=cast(id,Edm.Int16) eq 1 and isof(parentId,Edm.Byte) and cast(id,Edm.String) eq '1'"],
  ['`cast` of a Decimal or a Double to an integer type', '$filter=cast(price,Edm.Int32) eq 1 and cast(ratio,Edm.Int64) eq 1'],
  ['`isof` of a Decimal or a Double as an integer type', '$filter=isof(price,Edm.Int32) and isof(ratio,Edm.Byte)'],
  ['`cast`/`isof` of an integer to an enumeration', "$filter=cast(id,Probe.Level) eq Probe.Level'high' and isof(parentId,Probe.Level)"],
  ['`isof` of an integer as a flag enumeration', '$filter=isof(parentId,Probe.Access)'],
  ['`cast` of an integer to a flag enumeration', "$filter=cast(id,Probe.Access) eq Probe.Access'read'"],
  ['`cast` of text to an enumeration', "$filter=cast(name,Probe.Level) eq Probe.Level'high'"],
  ['a derived type: type-cast segments, `isof`, `cast`', '$filter=parent/Probe.Special/extra eq 1 or isof(parent,Probe.Special)'],
  ['`case`', '$filter=case(price gt 1:1,true:2) eq 1'],
  [
    '`$compute` in `$filter`, `$orderby`, `$select` and `$expand`',
    "$compute=price mul 2 as total,concat(name,'!') as label&$filter=total gt 1&$orderby=label&$select=id,total,label&$expand=children($compute=ratio add 1 as r;$select=id,r)",
  ],
  ['`$compute` of a sum of durations', '$compute=span add span as twice&$select=id,twice'],
  [
    '`$apply`: `filter`, `groupby` (also by a navigation path), `aggregate`, then `$filter`/`$orderby`/`$top`',
    '$apply=filter(ratio gt 0)/groupby((level,parent/name),aggregate(price with sum as total,$count as n,name with countdistinct as names))&$filter=n gt 1&$orderby=total desc&$top=5',
  ],
  [
    '`$apply`: `aggregate` along a navigation path, `compute`, `concat`, `topcount`',
    '$apply=concat(aggregate(parent/price with sum as total),compute(price mul 2 as twice)/topcount(3,twice))',
  ],
  ['`$apply`: `toppercent`, `topsum`', '$apply=toppercent(50,price)/topsum(10,ratio)'],
  [
    '`$apply`: a custom aggregate and a portable custom aggregation method (defined as standard aggregates)',
    '$apply=groupby((level),aggregate(Revenue,price with Probe.sumOfSquares as s))',
  ],
  ['`$apply` inside `$expand`', '$expand=children($apply=aggregate($count as n))'],
  [
    '`$apply` inside `$expand` of other than row-wise steps, `orderby`, or filters then `aggregate` (`groupby`, `top`…)',
    '$expand=children($apply=groupby((level),aggregate($count as n)))',
  ],
  [
    'the aggregate function of the current collection (`$these/aggregate(…)`, `$these/$count`, 3.6) in `$filter`, `$compute`',
    '$filter=price ge $these/aggregate(price with average)&$compute=$these/$count as n&$select=id,n',
  ],
  [
    '`$apply`: `$these/aggregate(…)` in `compute`, `filter`',
    '$apply=compute(ratio div $these/aggregate(ratio with sum) as share)/filter(share ge $these/aggregate(share with average))',
  ],
  ['`$apply`: `from` in an aggregate (3.2.1.5), inside `groupby`', '$apply=groupby((level),aggregate(price with sum from name with max as m))'],
  [
    '`$apply`: `join`, `outerjoin` (Data Aggregation 3.5.1)',
    '$apply=outerjoin(children as c,filter(price gt 1))/groupby((name,c/name),aggregate($count as n))',
  ],
  ['`$apply`: `nest`, `addnested` (3.4.3, 3.5.2)', '$apply=addnested(children,aggregate(price with sum as total) as sums)/nest(identity as all)'],
  [
    '`$apply`: `addnested` of other than row-wise steps, `orderby`, or filters then `aggregate` (`groupby`, `top`…)',
    '$apply=addnested(children,orderby(price)/top(1) as first)',
  ],
  [
    '`$apply`: navigation from a `join`’s alias without a referential constraint (example 92)',
    '$apply=outerjoin(children as c)/groupby((name,c/related/name,c/related/parent/name))',
  ],
  [
    '`$apply`: `groupby` whose nested transformations end in `topcount`, `bottomcount` or `orderby` with `top`/`skip` (3.2.3.1)',
    '$apply=groupby((level),filter(price gt 0)/topcount(1,price))/groupby((name),orderby(ratio)/skip(1)/top(2))',
  ],
  [
    '`$apply`: `groupby` whose nested transformations end in `nest` (3.2.3.1, example 129)',
    '$apply=groupby((level),filter(price gt 0)/nest(groupby((name)) as names,aggregate($count as n) as count))',
  ],
  [
    '`$apply`: `groupby` ending in `nest` of a ranking or a `groupby` with a filter inside (a correlated subquery per group)',
    '$apply=groupby((level),nest(topcount(1,price) as top))',
  ],
  [
    '`$apply`: `groupby` whose nested transformations end in another transformation (`toppercent`, `concat`…, 3.2.3.1)',
    '$apply=groupby((level),toppercent(50,price))',
  ],
  [
    '`$apply`: `ancestors`, `descendants` (recursive hierarchies)',
    "$apply=descendants($root/items,Tree,id,filter(name eq 'a'),2,keep start)/ancestors($root/items,Tree,id,filter(price gt 1))",
  ],
  ['`$apply`: `traverse` (recursive hierarchies)', '$apply=traverse($root/items,Tree,id,preorder,name desc)'],
  [
    '`$apply`: `groupby` with `rolluprecursive` (a portion per node of a recursive hierarchy, 6.3)',
    "$apply=groupby((rolluprecursive($root/items,Tree,id,filter(name ne 'x'))),aggregate(price with sum as total))",
  ],
  [
    '`$apply`: `Aggregation.rollupnode()` in a `rolluprecursive` portion',
    '$apply=groupby((rolluprecursive($root/items,Tree,id)),filter(parent eq Aggregation.rollupnode())/aggregate($count as under))',
  ],
  [
    '`$apply`: a hierarchy node path through a collection (`children/id`: a row related to several nodes, 6.2.1)',
    "$apply=descendants($root/items,Tree,children/id,filter(name eq 'a'))",
  ],
  ['`$apply`: `traverse` through a collection (a row once per node, with σ(x))', '$apply=traverse($root/items,Tree,children/id,preorder)'],
  [
    '`$apply`: `rolluprecursive` through a collection (a row in the portion of each node above one of its nodes, once)',
    '$apply=groupby((rolluprecursive($root/items,Tree,children/id)),aggregate(price with sum as total))',
  ],
  [
    '`$expand` with options of an entity `$apply` wrote into the row (a grouped navigation property, `/$ref`, nested `$expand`)',
    '$apply=groupby((parent),aggregate($count as n))&$expand=parent($select=name;$expand=children/$ref)',
  ],
  ['`$apply`: a custom transformation the host defines (7.7)', '$apply=Probe.firstRows(Count=2)'],
  [
    'the hierarchy functions (`Aggregation.isdescendant`, `isancestor`, `isroot`, `isleaf`, `issibling`, `isnode`)',
    "$filter=Aggregation.isdescendant(HierarchyNodes=$root/items,HierarchyQualifier='Tree',Node=id,Ancestor=1,MaxDistance=2)",
  ],
  ['`any`/`all` on primitive collections', "$filter=tags/any(t:t eq 'a')"],
  ['`hassubset` of primitive collections', '$filter=hassubset(tags,tags)'],
  ['`hassubsequence` of primitive collections', '$filter=hassubsequence(tags,tags)'],
  ['`any`/`all` and `$count` on navigation', '$filter=children/any(c:c/price gt 1) and children/$count gt 0'],
  ['collections of complex values', "$filter=places/any(p:p/city eq 'Oslo')"],
  [
    'navigation without a referential constraint: a foreign key, a link table',
    "$filter=related/name eq 'a' and friends/any(f:f/price gt 1)&$expand=friends($select=id)",
  ],
  ['contained navigation (`ContainsTarget`)', '$filter=parts/any(p:p/n gt 1)&$expand=parts($orderby=n)'],
  ['dynamic properties of open types: compared, `eq null`, ordered', "$filter=color eq 'red' and size gt 2 and note ne null&$orderby=size"],
  ['dynamic properties of open types: `groupby` and `aggregate`', '$apply=groupby((color),aggregate(size with sum as total,note with countdistinct as notes))'],
  ['`$expand` with nested options', '$expand=children($filter=price gt 1;$orderby=name;$top=2;$count=true)'],
  [
    'options on a `$select` item (OData 4.01) of a collection of complex values: `$filter`, `$orderby`, `$top`, `$skip`, `$select`',
    "$select=id,places($filter=city ne 'Oslo';$orderby=city;$skip=1;$top=2;$select=city)",
  ],
  ['options on a `$select` item: `$count`, `$compute`', '$select=id,places($count=true;$compute=length(city) as n;$select=n)'],
  ['`$search`', '$search=pump'],
  ['spatial properties, read back as GeoJSON (also inside `$expand`)', '$select=spot&$expand=children($select=spot)'],
  ['`geo.distance`, `geo.length`, `geo.intersects`', "$filter=geo.distance(spot,geography'SRID=4326;Point(1 2)') lt 100 and geo.intersects(spot,area)"],
  [
    '`$crossjoin(…)` of entity sets, with `$filter`, `$orderby` and `$expand` over it',
    '$filter=items/parentId eq others/id&$expand=items($select=name)&$orderby=others/name',
    ['items', 'others'],
  ],
  [
    '`$crossjoin(…)` with `$apply`',
    '$apply=filter(items/parentId eq others/id)/groupby((others/name),aggregate(items/price with sum as total))',
    ['items', 'others'],
  ],
];

/** The diagnostics of `query` on the cross join of `sets` for `target`: the binder's, then the target's refusal. */
function crossJoinDiagnostics(query: string, sets: readonly string[], target: QueryTarget): { code: string; message: string }[] {
  const set = crossJoinSet(
    model,
    sets.map((name) => model.entitySets.get(name) as EntitySet),
  );
  try {
    target.check(bindQueryToSet(query, { model, entitySet: set.name, ...CUSTOM }, set));
    return [];
  } catch (error) {
    if (error instanceof ODataError) return [{ code: error.code, message: error.message }];
    throw error;
  }
}

const targets: readonly QueryTarget[] = [
  ...Object.values(DIALECTS).map((dialect) => sqlTarget(dialect)),
  mongoTarget(),
  { name: 'in memory', check: (bound) => void compileQuery(bound) },
];

/** The table, as Markdown, then the reason of every "no" (the refusal's message, the same for the targets listed with it). */
export function capabilityTable(): string {
  const reasons: string[] = [];
  const rows = PROBES.map(([what, query, sets]) => {
    const refusals = new Map<string, string[]>();
    const cells = targets.map((target) => {
      const diagnostics =
        sets === undefined
          ? validateQuery(query, { model, entitySet: 'items', target, maxAnyAllExpressionDepth: 2, ...CUSTOM })
          : crossJoinDiagnostics(query, sets, target);
      if (diagnostics.some((d) => d.code !== 'unsupported_feature')) throw new Error(`the probe ${query} is not valid: ${JSON.stringify(diagnostics)}`);
      const [first] = diagnostics;
      if (first === undefined) return 'yes';
      // The reason without the target's name, so that targets that refuse alike share a line.
      const reason = first.message
        .replace(/ at position \d+ in \$\w+$/, '')
        .replaceAll(` on ${target.name}`, '')
        .replace(/\s+/g, ' ')
        .trim();
      refusals.set(reason, [...(refusals.get(reason) ?? []), target.name]);
      return 'no';
    });
    for (const [reason, names] of refusals) reasons.push(`- ${what} (${names.join(', ')}): ${reason}`);
    return `| ${what} | ${cells.join(' | ')} |`;
  });
  return [
    `| | ${targets.map((t) => t.name).join(' | ')} |`,
    `| --- | ${targets.map(() => ':---:').join(' | ')} |`,
    ...rows,
    '',
    'Why "no", as the backends say it:',
    '',
    ...reasons,
  ].join('\n');
}

export const START = '<!-- capabilities:start -->';
export const END = '<!-- capabilities:end -->';

/** Why each target refuses a canonical function (`undefined`: it runs it), in the columns' order. */
export const FUNCTION_TARGETS: readonly (readonly [string, (name: CanonicalFunctionName) => string | undefined])[] = [
  ...Object.values(DIALECTS).map((dialect) => [dialect.displayName, (name: CanonicalFunctionName) => sqlFunctionRefusal(name, dialect)] as const),
  ['MongoDB', mongoFunctionRefusal],
  ['in memory', referenceFunctionRefusal],
];

/** The canonical functions' table, as Markdown: a row per function of the registry, `yes` or the refusal's reason. */
export function functionTable(): string {
  const rows = FUNCTION_NAMES.map((name) => `| \`${name}\` | ${FUNCTION_TARGETS.map(([, refusal]) => refusal(name) ?? 'yes').join(' | ')} |`);
  const header = [`| | ${FUNCTION_TARGETS.map(([target]) => target).join(' | ')} |`, `| --- | ${FUNCTION_TARGETS.map(() => ':---:').join(' | ')} |`];
  return [...header, ...rows].join('\n');
}

/** The markers of the functions' block in docs/backends.md. */
export const FUNCTIONS_START = '<!-- functions:start -->';
export const FUNCTIONS_END = '<!-- functions:end -->';

/** `text` with the block between `start` and `end` replaced by `table`. */
function replaceBlock(text: string, start: string, end: string, table: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/backends.md has no ${start} … ${end} block`);
  return `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const readme = new URL('../docs/backends.md', import.meta.url);
  const text = readFileSync(readme, 'utf8');
  writeFileSync(readme, replaceBlock(replaceBlock(text, START, END, capabilityTable()), FUNCTIONS_START, FUNCTIONS_END, functionTable()));
  console.log('wrote the capability tables into docs/backends.md');
}
