/**
 * The aggregate function of expressions (Data Aggregation 3.6) on every engine against the
 * in-memory reference: `path/aggregate(…)` over the related entities of a row, `$these/aggregate(…)`
 * and `$these/$count` over the current collection (the entity set in `$filter`, `$orderby` and
 * `$compute`; the input rows in `filter()` and `compute()` of `$apply`). MongoDB runs
 * `path/aggregate(…)` over the looked-up array and `$these` by `$setWindowFields` over the current
 * collection.
 */
import { describe, expect, it } from 'vitest';
import { expectAgreement, referenceRows, useFuzzTargets } from '../fixtures/fuzz-targets.js';
import { fuzzRows } from '../fixtures/fuzz-data.js';

const targets = useFuzzTargets('aggregate-function-engines');

const CASES: readonly string[] = [
  '$filter=n16 mul 3 ge $these/aggregate(n16 with max)&$select=id,n16',
  '$filter=dbl gt $these/aggregate(dbl with average)&$select=id',
  '$filter=$these/$count gt 11&$select=id&$top=2',
  '$filter=children/aggregate(n32 with sum) gt 0&$select=id',
  '$filter=children/aggregate($count) eq 0 and children/aggregate(name with countdistinct) eq 0&$select=id',
  '$orderby=children/aggregate($count),id&$select=id&$compute=children/aggregate(dbl with max) as m',
  '$apply=groupby((status),aggregate(n32 with sum as t))/compute(t div $these/aggregate(t with sum) as share)',
  '$apply=filter(n32 gt 0)/filter(n32 ge $these/aggregate(n32 with average))&$select=id',
  '$apply=compute(children/aggregate(dec with sum) as s)/groupby((flag),aggregate(s with max as m))',
  '$compute=$these/aggregate(name with min) as lo,$these/aggregate(name with max) as hi,$these/aggregate(status with max) as st,$these/aggregate(span with min) as sp&$select=id,lo,hi,st,sp',
  '$compute=$these/aggregate(name with countdistinct) as c,$these/aggregate(span with countdistinct) as d,$these/aggregate(dec with sum) as ds&$select=id,c,d,ds',
  '$count=true&$orderby=$these/aggregate(n32 with sum) sub n32,id&$filter=n32 gt $these/aggregate(n32 with min)&$select=id&$top=5',
  '$apply=orderby(n16 sub $these/aggregate(n16 with average) desc,id)/top(3)/compute($these/$count as n)&$select=id,n',
  '$apply=filter(id gt 1000)/compute($these/aggregate(n32 with sum) as s,$these/$count as c)',
  '$expand=children($apply=filter(n32 ge $these/aggregate(n32 with average));$select=id)&$select=id',
  '$apply=groupby((status),aggregate(n32 with sum as t))&$filter=t ge $these/aggregate(t with average)&$orderby=$these/$count sub t',
  '$expand=children($apply=filter(n32 gt -5);$filter=n32 ge $these/aggregate(n32 with average);$select=id)&$select=id',
  '$apply=filter(n32 gt -10)/aggregate(n32 mul $these/$count with sum as s,n16 sub $these/aggregate(n16 with min) with max as m)',
  '$apply=topcount(3,n16 sub $these/aggregate(n16 with average))&$select=id',
  // A ranking's limit computed from its input (3.6.2, example 44): the same for every row.
  '$apply=topcount($these/$count div 3,n16)&$select=id',
  '$apply=filter(n32 gt 0)/bottomcount($these/$count sub 2,dbl)&$select=id',
  '$apply=toppercent($these/aggregate(n16 with max) div 2,n32)&$select=id',
  '$apply=topsum($these/aggregate(n32 with average),n32)&$select=id',
  '$apply=bottomsum($these/aggregate(dbl with max) mul -1,dbl)/compute($these/$count as n)&$select=id,n',
  '$apply=topcount($these/$count sub 100,n16)&$select=id',
  '$apply=filter(id gt 100000)/topcount($these/aggregate(n32 with sum),n16)&$select=id',
  '$apply=groupby((status),aggregate(n32 with sum as t))/topcount($these/$count div 2,t)',
  // Values of both signs (n32 from -2^31 to 2^31 - 1): once the sum before a row reaches the
  // target, later rows stay out though the sum falls back below it (SQL kept them before).
  '$apply=topsum(40000,n32)&$select=id',
  '$apply=bottomsum(-5,n32)&$select=id',
  '$apply=bottompercent(50,n32)&$select=id',
  // countdistinct of a navigation property (3.2.1.3.5, example 13): the distinct related entities.
  '$apply=aggregate(parent with countdistinct as parents,$count as n)',
  '$apply=groupby((flag),aggregate(parent with countdistinct as parents))',
  // `$it` in the aggregate expression (3.6.1, example 42): the row the path starts from, not the related entity.
  '$filter=children/aggregate(n16 mul $it/n32 with sum) gt 0&$select=id',
  '$filter=children/aggregate(n32 sub $it/n32 with max) lt 0 and id gt 2&$select=id',
  '$compute=children/aggregate(dbl add $it/dbl with min) as lo,children/aggregate($it/n32 with sum) as s&$select=id,lo,s',
  "$orderby=children/aggregate(n32 add $it/parent/n32 with average),id&$select=id&$filter=$it/parent/name ne 'x'",
  '$filter=children/any(c: c/children/aggregate(n32 with sum) gt $it/n32)&$select=id',
  '$apply=compute(children/aggregate(n16 mul $it/n16 with sum) as s)/groupby((flag),aggregate(s with sum as t))',
  '$compute=children/aggregate(n32 add $it/parent/n32 with average) as a&$select=id,a',
];

describe('the aggregate function gives the reference answer on every engine', () => {
  for (const query of CASES) {
    it(
      query,
      async () => {
        // SQL refuses $these in $apply inside $expand, in orderby(), aggregate() and topcount() and after $apply, and min/max of Durations.
        const sqlRefuses = ['$expand', 'orderby(', 'span with min', ')&$filter=t', '/aggregate(n32 mul', 'topcount(3,n16 sub $these'].some((part) =>
          query.includes(part),
        );
        await expectAgreement(query, targets(), (target) => !target.startsWith('MongoDB') && sqlRefuses);
      },
      60_000,
    );
  }

  // `from` (3.2.1.5): the aggregate per group, then the method over the groups' values. MariaDB
  // refuses it inside groupby() (derived tables over the group's rows); MongoDB runs it as nested
  // $group stages, a branch per such aggregate.
  for (const query of [
    '$apply=aggregate(n32 with sum from status with average as a,n32 with sum as s)',
    '$apply=aggregate(name with countdistinct from status with average as a,$count from flag,status with max as m)',
    '$apply=aggregate(dec with sum from address/city with max from flag with min as x)',
    '$apply=groupby((status),aggregate(n32 with sum as s,n32 with sum from flag with max from name with min as m,$count from flag with countdistinct as c))',
    '$apply=groupby((flag),filter(n32 gt 0)/aggregate(dbl with max from address/city with sum as x))',
    '$apply=groupby((status),filter(n32 gt 100000)/aggregate(name with countdistinct from flag with countdistinct as c,n32 with sum from flag with max as m))',
    '$apply=groupby((rollup(status,flag)),aggregate(n32 with max from address/city with sum as m,$count as n))',
    '$apply=concat(groupby((flag),aggregate(n16 with min from status with countdistinct as m)),aggregate($count from flag with countdistinct as m))',
    '$apply=filter(id gt 1000)/aggregate(n32 with sum from flag with countdistinct as c,n32 with sum from flag with sum as s)',
    '$apply=groupby((status),aggregate(n32 with sum from parent with max as m))&$orderby=m desc&$top=2',
  ]) {
    it(
      query,
      async () => {
        await expectAgreement(query, targets(), (target) => target.startsWith('MariaDB') && query.includes('groupby'));
      },
      60_000,
    );
  }

  // What only MongoDB runs of `from`: along a navigation path, Durations and enumerations, inside $expand.
  for (const query of [
    '$apply=groupby((flag),aggregate(children/n32 with sum from status with max as m))',
    '$apply=groupby((flag),aggregate(span with max from status with min as m,status with min from flag with max as e))',
    '$expand=children($apply=aggregate(n32 with sum from status with max as m))&$select=id',
  ]) {
    it(query, async () => void (await expectAgreement(query, targets(), (target) => !target.startsWith('MongoDB'))), 60_000);
  }

  // $these inside groupby() is the group's rows (those its filters kept so far): MongoDB partitions
  // its windows by the group (not with rollup); SQL refuses it.
  for (const query of [
    '$apply=groupby((flag),filter(n32 ge $these/aggregate(n32 with average))/aggregate($count as c))',
    '$apply=groupby((status,flag),filter(n32 gt -100)/compute(n16 sub $these/aggregate(n16 with min) as d,$these/$count as n)/filter(d ge $these/aggregate(d with average))/aggregate(d with sum as s,n with max as m,name with min from address/city with countdistinct as x))',
    '$apply=groupby((rollup(status,flag)),filter(n32 ge $these/aggregate(n32 with average))/aggregate($count as c))',
  ]) {
    it(query, async () => {
      await expectAgreement(query, targets(), (target) => !target.startsWith('MongoDB') || query.includes('rollup'));
    });
  }
  // $these in the expression of groupby()'s aggregate: MongoDB reads the group; SQL refuses it
  // (it aggregated the whole input there before it refused it).
  it('$these in the aggregate of groupby(): MongoDB runs it, SQL refuses it', async () => {
    const query = '$apply=groupby((parent/name),aggregate(n32 mul $these/$count with sum as s,$these/aggregate(name with countdistinct) with max as c))';
    await expectAgreement(query, targets(), (target) => !target.startsWith('MongoDB'));
  });

  it('from is the groupby-then-aggregate it stands for', async () => {
    expect(await referenceRows('$apply=aggregate(n32 with sum from status with average as a)')).toEqual(
      await referenceRows('$apply=groupby((status),aggregate(n32 with sum as t))/aggregate(t with average as a)'),
    );
  });

  it('$these inside groupby() is the group (the reference collects the group, it does not stream it)', async () => {
    const rows = await referenceRows('$apply=groupby((flag),filter(n32 ge $these/aggregate(n32 with average))/aggregate($count as c))');
    const expected = new Map<unknown, bigint>();
    for (const flag of new Set(fuzzRows.map((row) => row.flag ?? null))) {
      const group = fuzzRows.filter((row) => (row.flag ?? null) === flag);
      const values = group.map((row) => row.n32).filter((n): n is number => typeof n === 'number');
      const average = values.reduce((a, b) => a + b, 0) / values.length;
      expected.set(flag, BigInt(group.filter((row) => typeof row.n32 === 'number' && row.n32 >= average).length));
    }
    expect(new Map(rows.map((row) => [row.flag, row.c]))).toEqual(expected);
  });

  it('$these is the current collection: the rows of the set, or of the transformation', async () => {
    const rows = await referenceRows('$apply=filter(id le 3)/compute($these/$count as n)&$select=id,n');
    expect(rows.map((row) => row.n)).toEqual([3n, 3n, 3n]);
  });
});
