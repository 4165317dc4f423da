/**
 * `join`, `outerjoin`, `nest` and `addnested` (Data Aggregation 3.4.3, 3.5) and `groupby` whose
 * nested transformations do not end with `aggregate` (3.2.3.1), on every engine against the
 * in-memory reference. MongoDB runs them over a collection-valued navigation property (`$lookup`,
 * `$unwind`, `$facet`); SQL runs `join`/`outerjoin` with row-wise nested transformations (a JOIN
 * of the related table), `nest` at the end of `groupby` (a JSON array per group) and refuses the
 * rest (`unsupported_feature`), as the capability table says.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, ODataError, parseQuery, printQuery } from '../../src/index.js';
import { expectAgreement, referenceRows, useFuzzTargets } from '../fixtures/fuzz-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const targets = useFuzzTargets('apply-nesting-engines');

/** Queries every engine runs: joins whose nested transformations are row-wise. */
const EVERYWHERE: readonly string[] = [
  '$apply=join(children as c)&$select=id,c&$orderby=id,c/id',
  '$apply=outerjoin(children as c)&$select=id,c&$orderby=id,c/id',
  '$apply=join(children as c,filter(n32 gt 0)/compute(n32 mul 2 as twice))&$select=id,c&$orderby=id,c/id',
  '$apply=outerjoin(children as c,filter(flag eq true))/groupby((name,c/status),aggregate(c/n16 with max as m,$count as n))',
  "$apply=join(children as c)/filter(c/name ne 'x')/compute(c/n32 add n32 as s)&$filter=s gt 0&$orderby=s desc,id,c/id&$top=5",
  '$apply=outerjoin(children as c,aggregate(n32 with sum as total,$count as n))/groupby((c/n),aggregate($count as rows))',
  '$apply=join(children as c,aggregate(n32 with sum as total,$count as n,dbl with max as top))/groupby((c/n),aggregate($count as rows,c/total with sum as all))',
  // $expand of the alias (example 39): it is a value of the row, returned though $select leaves it out.
  '$apply=join(children as c)&$select=id&$expand=c&$orderby=id,c/id',
  '$apply=outerjoin(children as c)&$expand=c&$orderby=id,c/id',
  '$apply=join(children as c)&$expand=c($select=id,name)&$orderby=id,c/id',
  // Navigation from the alias through a referential constraint (its property is one of the alias's columns).
  '$apply=join(children as c)/groupby((c/parent/name),aggregate($count as n))',
  "$apply=outerjoin(children as c)/filter(c/parent/name ne 'zz')/compute(c/parent/n32 add 1 as p)&$select=id,p&$orderby=id,p",
  // Filters before the aggregate: a condition of each scalar subquery.
  '$apply=join(children as c,filter(n32 gt 0)/aggregate($count as n))',
  "$apply=outerjoin(children as c,filter(flag eq true)/filter(name ne 'x')/aggregate(n32 with sum as s,$count as n,dbl with max as m))/groupby((c/n),aggregate($count as rows))",
  '$apply=join(children as c,identity/filter(n16 lt 0)/aggregate(n32 mul $it/n16 with max as m))', // A ranking before the aggregate (example 102): each group's rows numbered, those in range aggregated.
  '$apply=groupby((status),topcount(2,n32)/aggregate(n32 with sum as s,$count as n))&$orderby=status',
  '$apply=groupby((status,flag),bottomcount(1,dbl)/aggregate(dbl with max as m,id with min as i))',
  '$apply=groupby((parent/name),compute(n32 mul 2 as d)/topcount(2,d)/filter(flag eq true)/aggregate($count as n,d with min as lo))',
  '$apply=groupby((status),topcount(0,n32)/aggregate($count as n,n32 with sum as s))',
  '$apply=groupby((address/city),bottomcount(3,id)/compute(n16 add 1 as m)/aggregate(m with sum as t))/filter(t ne null)',
];

/**
 * addnested and nest, and $apply inside $expand: MariaDB, where a derived table cannot read the
 * outer row, runs row-wise steps and orderby over every related row (the row's picked by the
 * JSON array's WHERE) and filters then an aggregate as scalar subqueries, and refuses the rest
 * (here: top, groupby).
 */
const NESTING: readonly string[] = [
  '$apply=nest(filter(flag eq true)/orderby(id)/top(3) as first)',
  '$apply=filter(n32 gt 0)/nest(groupby((status),aggregate($count as n)) as byStatus,aggregate(dbl with max as m) as top)',
  '$apply=addnested(children,aggregate(n32 with sum as total) as sums,orderby(id desc)/top(1) as last)&$select=id,sums,last&$orderby=id',
  '$apply=addnested(children,filter(flag eq true) as kids)&$select=id,kids&$orderby=id',
  '$apply=addnested(children,filter(n32 gt 0)/compute(n32 mul 2 as d)/orderby(d desc) as kids,filter(flag eq true)/aggregate(dec with sum as s,dbl with average as a,born with max as b,$count as n) as sums)&$select=id,kids,sums&$orderby=id',
  '$apply=addnested(children,groupby((status)) as statuses)&$select=id,statuses&$orderby=id',
  '$select=id&$expand=children($apply=filter(n16 ne null)/compute(n16 add 1 as m);$filter=m gt 0;$orderby=m desc,id;$top=2)&$orderby=id',
  '$select=id&$expand=children($apply=filter(flag eq true)/aggregate(n64 with sum as s,n32 with min as lo,$count as n))&$orderby=id',
];
/** What MariaDB refuses of NESTING (a pipeline over a row's related entities beyond row-wise steps, orderby, filters then aggregate). */
const refusedOnMariaDB = (query: string): boolean => query.includes('top(1) as last') || query.includes('groupby((status)) as statuses');

/** groupby ending in a topcount or bottomcount (3.2.3.1, example 101): every engine; MongoDB numbers each group's rows by `$setWindowFields`. */
const RANK_ENDING: readonly string[] = [
  '$apply=groupby((status),topcount(1,n32))&$orderby=status',
  '$apply=groupby((status,flag),bottomcount(2,dbl))',
  '$apply=groupby((address/city),topcount(1,n16))',
  '$apply=filter(n32 gt -100)/groupby((status),topcount(0,n32))',
  '$apply=groupby((name),topcount(2,n32))/groupby((flag),aggregate($count as n,n32 with sum as s))',
  '$apply=groupby((span),bottomcount(1,id))&$select=span,id',
  '$apply=groupby((status),filter(flag eq true)/topcount(1,n32))/top(3)',
  '$apply=groupby((parent/name),compute(n32 mul 2 as d)/bottomcount(2,d))&$orderby=d,id',
];

/**
 * groupby ending in other than aggregate (3.2.3.1) that every engine runs (row-wise steps, then a
 * topcount or orderby/top/skip per group, or nothing more, or a nest: example 129); MongoDB refuses
 * a search before a nest (it partitions the nest's items by the group). The nests: with
 * aggregates, after filter and compute, two items, orderby/top inside, groups whose rows the filter
 * all leaves out (empty collections, an aggregate's row of none), whole entities (every value form).
 */
const ON_SQL: readonly string[] = [
  '$apply=groupby((parent/name),filter(n32 gt 0)/compute(n32 mul 2 as d)/orderby(d desc,id)/top(2))',
  '$apply=groupby((flag),orderby(name,id)/skip(1)/top(2))',
  '$apply=groupby((status),filter(flag eq true))',
  '$apply=groupby((flag),nest(groupby((status)) as statuses))&$orderby=flag',
  '$apply=groupby((status),nest(aggregate(n32 with sum as s,dec with sum as d,dbl with max as m,born with min as lo,$count as n) as totals))',
  '$apply=groupby((address/city),filter(n32 gt 0)/nest(groupby((flag),aggregate($count as n,n64 with max as hi)) as byFlag,aggregate(dec with average as a) as avg))',
  '$apply=groupby((flag,status),nest(filter(id le 6) as rows))',
  '$apply=groupby((parent/name),compute(n32 mul 2 as d)/nest(orderby(d desc,id)/top(2) as best,orderby(name)/skip(1) as rest))',
  '$apply=groupby((name),filter(dbl gt 1000)/nest(groupby((status)) as s,aggregate($count as n,n32 with sum as t) as c))',
  "$apply=groupby((code),search(NOT zzz)/nest(groupby((parent/name,colors)) as p))/filter(code ne 'zz')&$orderby=code&$top=4",
];

/**
 * A groupby ending in a nest whose item is not run over every group at once (a ranking, a groupby
 * with a filter inside): on SQL a correlated subquery per group, which MariaDB (no derived table
 * reading the group) refuses; MongoDB refuses the ranking (it partitions the items by the group).
 */
const CORRELATED_NEST: readonly string[] = [
  '$apply=groupby((flag),nest(topcount(2,n32) as top,aggregate($count as n) as all))&$orderby=flag',
  '$apply=groupby((status),filter(id gt 1)/nest(groupby((flag),filter(n32 gt 0)/aggregate($count as n)) as byFlag))',
];

/** `$these` (the group's rows) in a nest inside groupby: the reference and MongoDB (partitioned by the group) run it; SQL refuses it. */
const REFERENCE_ONLY: readonly string[] = ['$apply=groupby((flag),nest(filter(n32 ge $these/aggregate(n32 with average)) as big))&$orderby=flag'];

/** A filter before a ranking before the aggregate: MongoDB numbers the rows the filter kept; SQL refuses it. */
const ON_MONGO: readonly string[] = ['$apply=groupby((status),filter(flag eq true)/topcount(1,n32)/aggregate($count as n,n32 with max as m))&$orderby=status'];

describe('join, outerjoin, nest and addnested give the reference answer where they run', () => {
  for (const query of EVERYWHERE) {
    it(query, async () => expectAgreement(query, targets()), 60_000);
  }
  for (const query of NESTING) {
    it(query, async () => expectAgreement(query, targets(), (target) => target.startsWith('MariaDB') && refusedOnMariaDB(query)), 60_000);
  }
  for (const query of ON_SQL) {
    // (MongoDB partitions a nest's items by the group: a search before the nest it refuses.)
    const mongoRefuses = /search\([^)]*\)\/nest/.test(query);
    it(query, async () => expectAgreement(query, targets(), (target) => mongoRefuses && target.startsWith('MongoDB')), 60_000);
  }
  for (const query of CORRELATED_NEST) {
    it(
      query,
      async () => expectAgreement(query, targets(), (target) => (target.startsWith('MongoDB') && query.includes('topcount')) || target.startsWith('MariaDB')),
      60_000,
    );
  }
  for (const query of REFERENCE_ONLY) {
    it(query, async () => expectAgreement(query, targets(), (target) => !target.startsWith('MongoDB')), 60_000);
  }
  for (const query of RANK_ENDING) {
    it(query, async () => expectAgreement(query, targets()), 60_000);
  }
  for (const query of ON_MONGO) {
    it(query, async () => expectAgreement(query, targets(), (target) => !target.startsWith('MongoDB')), 60_000);
  }
});

describe('their rows, as the text defines them (reference)', () => {
  const children = (id: unknown): Record<string, unknown>[] => fuzzRows.filter((row) => row.parentId === id);

  it('join: a row per related entity, the entity as the alias; outerjoin: a row with null for an entity without any', async () => {
    const pairs = fuzzRows.reduce((n, row) => n + children(row.id).length, 0);
    const lonely = fuzzRows.filter((row) => children(row.id).length === 0).length;
    expect(pairs).toBeGreaterThan(0);
    expect(lonely).toBeGreaterThan(0);
    const joined = await referenceRows('$apply=join(children as c)&$select=id,c');
    expect(joined).toHaveLength(pairs);
    for (const row of joined) expect((row.c as { parentId: unknown }).parentId).toBe(row.id);
    const outer = await referenceRows('$apply=outerjoin(children as c)&$select=id,c');
    expect(outer).toHaveLength(pairs + lonely);
    expect(outer.filter((row) => row.c === null)).toHaveLength(lonely);
  });

  it('join with transformations: they run on each row’s related entities, an aggregate giving its row for none too (3.5.1 step 2)', async () => {
    const rows = await referenceRows('$apply=join(children as c,aggregate($count as n))&$select=id,c');
    expect(rows).toHaveLength(fuzzRows.length);
    for (const row of rows) expect(Number((row.c as { n: unknown }).n)).toBe(children(row.id).length);
  });

  it('addnested keeps every row and adds the collection; nest gives one row', async () => {
    const rows = await referenceRows('$apply=addnested(children,compute(id as childId) as kids)&$select=id,kids');
    expect(rows).toHaveLength(fuzzRows.length);
    for (const row of rows) expect((row.kids as unknown[]).length).toBe(children(row.id).length);
    const nested = await referenceRows('$apply=nest(identity as all,aggregate($count as n) as count)');
    expect(nested).toHaveLength(1);
    expect(Number((nested[0]?.count as { n: unknown }[])[0]?.n)).toBe(fuzzRows.length);
    expect((nested[0]?.all as unknown[]).length).toBe(fuzzRows.length);
  });

  it('groupby with a nested topcount: the rows it keeps, each with the grouping property (3.2.3.1)', async () => {
    const rows = await referenceRows('$apply=groupby((status),topcount(1,n32))');
    const statuses = new Set(fuzzRows.map((row) => row.status ?? null));
    expect(rows).toHaveLength(statuses.size);
    for (const row of rows) expect(Object.keys(row)).toContain('n32');
  });
});

describe('binding and printing', () => {
  const bind = (apply: string) => bindQuery(parseQuery(`$apply=${apply}`), { model: fuzzModel, entitySet: FUZZ_SET });
  const refusal = (apply: string): string => {
    try {
      bind(apply);
    } catch (error) {
      if (error instanceof ODataError) return `${error.code}: ${error.message}`;
      throw error;
    }
    return 'bound';
  };

  it('prints what it parses', () => {
    for (const apply of [
      'join(children as c)',
      'outerjoin(children as c,filter(n32 gt 0)/aggregate($count as n))',
      'nest(groupby((status)) as s,identity as all)',
      'addnested(children,filter(flag eq true) as kids,aggregate($count as n) as counts)',
    ]) {
      expect(printQuery(parseQuery(`$apply=${apply}`))).toBe(`$apply=${apply}`);
    }
  });

  it("$expand of an alias $apply made: without options it returns the value; with options, or of a model's own complex property, refused", () => {
    const query = (text: string): string => {
      try {
        const bound = bindQuery(parseQuery(text), { model: fuzzModel, entitySet: FUZZ_SET });
        return bound.select.properties.map((p) => p.path.map((q) => q.name).join('/')).join(',');
      } catch (error) {
        if (error instanceof ODataError) return `${error.code}`;
        throw error;
      }
    };
    expect(query('$apply=join(children as c)&$select=id&$expand=c')).toBe('id,c');
    expect(query('$apply=addnested(children,filter(flag eq true) as kids)&$select=id&$expand=kids')).toBe('id,kids');
    expect(query('$apply=join(children as c)&$select=id,c&$expand=c')).toBe('id,c');
    expect(query('$apply=join(children as c)&$select=id&$expand=c($select=id,name)')).toBe('id,c/id,c/name');
    expect(query('$apply=join(children as c)&$expand=c($filter=id gt 1)')).toBe('unsupported_feature');
    expect(query('$apply=join(children as c)&$expand=c($select=parent)')).toBe('unsupported_feature');
    expect(query('$apply=join(children as c)&$expand=c/$ref')).toBe('unsupported_feature');
    expect(query('$apply=join(children as c)&$expand=c,c')).toBe('syntax_error');
    expect(query('$apply=join(children as c)&$expand=address')).toBe('type_mismatch');
    expect(query('$expand=address')).toBe('type_mismatch');
  });

  it('refuses what the text does not allow, with an ODataError', () => {
    expect(refusal('join(children as c)/join(children as d)')).toMatch(/^unsupported_feature: .*after a join/);
    expect(refusal('join(parent as p)')).toMatch(/^type_mismatch: .*collection/);
    expect(refusal('join(tags as t)')).toMatch(/^type_mismatch: .*collection of entities or complex values/);
    expect(refusal('join(children as name)')).toMatch(/^invalid_option_value: .*'name'/);
    expect(refusal('addnested(children,identity as a,identity as a)')).toMatch(/^invalid_option_value: .*more than once/);
    expect(refusal('nest(identity as id)')).toMatch(/^invalid_option_value: .*'id'/);
    expect(refusal('join(children as c)/groupby((c/name),aggregate($count as n))')).toBe('bound');
  });
});
