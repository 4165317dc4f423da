/**
 * `$apply` inside `$expand` (Data Aggregation 3.8) on every engine — PGlite, sql.js, DuckDB, mingo
 * and the live PostgreSQL — against the in-memory reference: the pipeline runs over the related
 * entities of each row (an `aggregate` of none still gives its one row), then the expansion's own
 * options over what it gives; a single-valued navigation property gives the one row or null.
 * MariaDB, where a derived table cannot read the columns of the expanded row, runs row-wise steps
 * and `orderby` over every related row (the row's own picked by the JSON array's WHERE) and
 * filters then an `aggregate` as scalar subqueries per aggregate; it refuses the rest
 * (`unsupported_feature`: `groupby`, `top`…, an aggregate of a single-valued navigation property).
 */
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../src/testing/index.js';
import { expectAgreement, useFuzzTargets } from '../fixtures/fuzz-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const targets = useFuzzTargets('apply-expand-engines');

// Related entities are read with $select of columns every engine stores exactly (mingo has no Int64: DEVIATIONS).
const CASES: readonly string[] = [
  '$expand=children($apply=aggregate(n32 with sum as t,$count as c,dbl with average as a))&$select=id',
  '$expand=children($apply=groupby((status),aggregate(n32 with sum as t));$orderby=t desc,status;$top=2;$count=true)&$select=id',
  '$expand=children($apply=filter(n32 gt 0)/orderby(n32 desc)/top(1);$select=id,n32)&$select=id',
  '$filter=id lt 6&$expand=children($apply=groupby((flag,address/city));$filter=flag ne null;$orderby=flag,address/city)&$select=id',
  '$expand=children($apply=compute(n32 mul 2 as d)/filter(d gt 0);$select=id,d;$orderby=id)&$select=id',
  '$expand=parent($apply=filter(n32 gt 0);$select=id,name)&$select=id',
  '$expand=parent($apply=aggregate($count as c,n32 with max as m))&$select=id',
  '$expand=parent($apply=groupby((status),aggregate($count as c)))&$select=id',
  '$apply=filter(id gt 3)&$expand=children($apply=aggregate($count as c))&$select=id&$orderby=id desc&$top=4',
];

/** What MariaDB refuses of CASES (see the module's description). */
const refusedOnMariaDB = (query: string): boolean => ['groupby(', 'top(', 'parent($apply=aggregate'].some((part) => query.includes(part));

describe('$apply inside $expand gives the reference rows on every engine', () => {
  for (const query of CASES) {
    it(
      query,
      async () => {
        await expectAgreement(query, targets(), (target) => target.startsWith('MariaDB') && refusedOnMariaDB(query));
      },
      60_000,
    );
  }

  it('refuses what the expansion cannot build: rows of different properties, and pipelines that read their rows twice', async () => {
    for (const query of [
      '$expand=children($apply=groupby((rollup(status,flag)),aggregate($count as c)))',
      '$expand=children($apply=concat(identity,identity))',
    ]) {
      const result = await runDifferential(query, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets: targets() });
      expect(result.reference.kind).toBe('rows');
      for (const [target, outcome] of result.outcomes) {
        if (target.startsWith('MongoDB')) continue;
        expect(outcome.kind === 'odata' && outcome.code === 'unsupported_feature', `${query} on ${target}: ${outcome.kind}`).toBe(true);
      }
    }
  });
});
