/**
 * `rollup` in `groupby` (Data Aggregation 3.2.3.2) on every engine — PGlite, sql.js, DuckDB,
 * mingo, and the live PostgreSQL and MariaDB — against the in-memory reference: a group per
 * grouping set, the rolled-up grouping properties absent from the row (not null), nested paths
 * through complex and navigation properties, two rollups (every choice of a level of each), the
 * nested filters of groupby, aggregates along a navigation path, and transformations after it;
 * `isdefined` (3.7) over such rows, where the presence of a property is what tells them apart;
 * grouping by an entity-valued navigation property or a complex value (by its properties).
 * PostgreSQL and DuckDB read it as one `GROUP BY GROUPING SETS`; SQLite and MariaDB (which has no
 * `GROUPING()`) as one `GROUP BY` per set; MongoDB as one `$group` over each document once per set.
 */
import { describe, expect, it } from 'vitest';
import { expectAgreement, referenceRows, useFuzzTargets } from '../fixtures/fuzz-targets.js';
import { fuzzRows } from '../fixtures/fuzz-data.js';

const targets = useFuzzTargets('apply-grouping-engines');

/** Each query, and how many rows the reference gives (a group per set: checked here against the rows). */
const CASES: readonly string[] = [
  '$apply=groupby((rollup(status,flag)),aggregate($count as c,n32 with sum as s))',
  '$apply=groupby((rollup(status,flag),name),aggregate(n32 with sum as s,n32 with countdistinct as d,dbl with average as a))',
  '$apply=groupby((rollup(status,flag),rollup(name,n32)))&$count=true',
  '$apply=groupby((rollup(address/city,address/zip),status),aggregate(n32 with sum as t,dec with max as m))',
  '$apply=groupby((rollup(status,parent/name,parent/address/city)),aggregate(dec with sum as t,parent/n32 with max as m))',
  '$apply=groupby((rollup(span,born),rollup(guid,dbl)),aggregate($count as c))/filter(c gt 0)&$count=true',
  '$apply=groupby((rollup(status,flag)),filter(n32 gt 0)/compute(n32 mul 2 as d)/aggregate(d with sum as s))/filter(s ne null)',
  '$apply=groupby((rollup(name,status)),aggregate(n32 with sum as t))/groupby((name),aggregate(t with sum as u))',
  '$apply=concat(groupby((rollup(status,flag)),aggregate($count as c)),aggregate($count as c))',
  '$apply=filter(id gt 2)/groupby((rollup(status,colors,time)),aggregate(n64 with min as lo,n64 with max as hi))&$orderby=lo desc&$select=status,lo',
  // isdefined (3.7): a rolled-up property is not defined, a null group's is; one aggregated away never is.
  '$apply=groupby((rollup(status,flag)),aggregate($count as c))&$filter=not isdefined(flag)',
  '$apply=groupby((rollup(status,address/city,address/zip)),aggregate($count as c))/filter(isdefined(address/zip) or c gt 2)',
  '$apply=aggregate(n32 with sum as t)&$filter=isdefined(name)',
  '$apply=concat(groupby((status)),groupby((flag)))&$filter=isdefined(status)&$orderby=status',
  '$apply=groupby((rollup(status,flag)),aggregate($count as c))/compute(isdefined(flag) as detail)&$filter=detail eq false&$count=true',
  // Grouping by an entity (a single-valued navigation property) or a complex value: by its properties (3.2.3.1).
  '$apply=groupby((parent),aggregate($count as c))&$select=parent/id,parent/name,parent/address,c',
  '$apply=groupby((address,status))',
  '$apply=groupby((rollup(status,parent)),aggregate(n32 with sum as t))&$select=status,t,parent/id,parent/address',
  '$apply=filter(parentId ne null)/groupby((parent/parent),aggregate(n32 with max as m))&$select=parent/parent/id,m',
];

describe('rollup gives the reference rows on every engine', () => {
  for (const query of CASES) {
    it(
      query,
      async () => {
        await expectAgreement(query, targets());
      },
      60_000,
    );
  }

  it('gives each grouping set its groups, and leaves the rolled-up properties out', async () => {
    const rows = await referenceRows('$apply=groupby((rollup(status,flag)),aggregate($count as c))');
    const key = (row: Record<string, unknown>): string => JSON.stringify([row.status ?? null, row.flag ?? null]);
    const pairs = new Set(fuzzRows.map(key));
    const statuses = new Set(fuzzRows.map((row) => JSON.stringify(row.status ?? null)));
    expect(rows.filter((row) => Object.hasOwn(row, 'flag')).length).toBe(pairs.size);
    expect(rows.filter((row) => !Object.hasOwn(row, 'flag')).length).toBe(statuses.size);
    // The coarser set counts every row once.
    expect(rows.filter((row) => !Object.hasOwn(row, 'flag')).reduce((sum, row) => sum + Number(row.c), 0)).toBe(fuzzRows.length);
  });
});
