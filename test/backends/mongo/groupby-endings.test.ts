/**
 * `groupby` ending in other than `aggregate` (Data Aggregation 3.2.3.1) on MongoDB (mingo) against
 * the in-memory reference. Ending in `nest` (example 129): each item's transformations run over every group's rows at once,
 * partitioned by the group (filters, computes with `$these` the group's rows, `groupby` ending in
 * `aggregate`, a last `aggregate`, which gives a group without rows the aggregates of none); the
 * rest is refused with `unsupported_feature`. Ending in `orderby` with `top`/`skip`, or in a
 * `filter` or `compute`: each group's rows numbered in its order by `$setWindowFields`.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectAgreement } from '../../fixtures/fuzz-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../../fixtures/fuzz-data.js';
import { openTargets } from '../../fixtures/differential-targets.js';

let opened: Awaited<ReturnType<typeof openTargets>> | undefined;
beforeAll(async () => {
  opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows, ['mingo']);
}, 60_000);
afterAll(async () => {
  await opened?.close();
});
const mingo = () => opened?.targets ?? [];

const RUNS: readonly string[] = [
  '$apply=groupby((flag),nest(groupby((status)) as statuses))&$orderby=flag',
  '$apply=groupby((status),nest(aggregate(n32 with sum as s,$count as n) as totals))',
  // A filter before the nest drops rows, not groups: a group without rows has empty collections, and an aggregate of none.
  '$apply=groupby((flag),filter(n32 gt 0)/nest(groupby((status),aggregate($count as n)) as byStatus,aggregate(dbl with max as m) as top))',
  '$apply=groupby((status),filter(n32 gt 2000000000)/nest(groupby((name)) as none,aggregate($count as n,dbl with min as m) as zero))',
  '$apply=groupby((address/city),compute(n32 mul 2 as d)/nest(filter(d gt 10)/compute(d add 1 as e) as rows))',
  '$apply=groupby((parent/name),nest(groupby((flag),filter(n16 lt 0)/aggregate($count as c)) as f))',
  '$apply=groupby((span),nest(aggregate(n32 with average as a) as avg))',
  '$apply=groupby((status),nest(groupby((flag)) as a,groupby((name)) as b))/filter(status ne null)',
  // $these in an item: the group's rows.
  '$apply=groupby((flag),nest(compute(n32 div 1 as v)/filter(v ge $these/aggregate(n32 with average)) as above))',
  '$apply=groupby((flag,status),nest(identity as all))&$orderby=flag,status',
  // Ordered and paged items: each group's rows numbered in the item's order.
  '$apply=groupby((flag),nest(orderby(n32 desc,id)/top(2) as firsts))',
  '$apply=groupby((status),compute(n32 mul 2 as d)/nest(orderby(d,id)/skip(1)/top(2) as some,orderby(name,id) as sorted))',
  '$apply=groupby((parent/name),nest(orderby(id)/top(1) as one))',
];

const REFUSED: readonly string[] = [
  '$apply=groupby((flag),nest(orderby(n32)/top(2)/filter(n32 gt 0) as firsts))',
  '$apply=groupby((flag),nest(aggregate($count as n)/compute(n add 1 as m) as x))',
];

describe('groupby ending in nest on MongoDB gives the reference answer', () => {
  for (const query of RUNS) it(query, async () => expectAgreement(query, mingo()), 60_000);
  for (const query of REFUSED) it(`refused: ${query}`, async () => expectAgreement(query, mingo(), () => true), 60_000);
});

/** groupby ending in orderby with top/skip, or in a filter or compute (3.2.3.1): each group's rows, numbered per group by `$setWindowFields`. */
const ROWS_PER_GROUP: readonly string[] = [
  '$apply=groupby((parent/name),filter(n32 gt 0)/compute(n32 mul 2 as d)/orderby(d desc,id)/top(2))',
  '$apply=groupby((flag),orderby(name,id)/skip(1)/top(2))',
  '$apply=groupby((status),filter(flag eq true))',
  '$apply=groupby((status),compute(n32 add 1 as m))&$orderby=id',
  '$apply=groupby((flag),orderby(dbl desc)/top(1)/skip(0)/top(3))',
  '$apply=groupby((address/city),skip(1))',
  '$apply=groupby((span),orderby(n16,id))',
  '$apply=groupby((flag),top(2)/skip(1))/orderby(id)',
  '$apply=groupby((status),filter(n32 ge $these/aggregate(n32 with average))/orderby(n32 desc,id)/top(1))',
];

describe('groupby ending in orderby with top/skip, a filter or a compute on MongoDB gives the reference answer', () => {
  for (const query of ROWS_PER_GROUP) it(query, async () => expectAgreement(query, mingo()), 60_000);
});
