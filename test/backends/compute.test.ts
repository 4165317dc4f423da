/**
 * `$compute` on every engine (issue 16): computed properties returned with their types, used in
 * `$filter`, `$orderby` and `$select`, and inside `$expand`, on PGlite, sql.js, DuckDB, a live
 * PostgreSQL, a live MariaDB and mingo, each compared with the in-memory reference by the
 * differential runner (a documented deviation is excused by its entry, as everywhere).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, readSqlRows, toMongo, toSql, validateQuery, sqlTarget, mongoTarget } from '../../src/index.js';
import { runDifferential, type DifferentialTarget } from '../../src/testing/index.js';
import { openTargets } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const CI = process.env.CI === 'true';

let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows);
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[compute] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
  targets = opened.targets;
  close = opened.close;
}, 60_000);
afterAll(() => close());

/** Every query must give the reference's rows (computed values included) on every target, or a documented deviation. */
async function agree(queries: readonly string[]): Promise<Map<string, string[]>> {
  const problems: string[] = [];
  const excused = new Map<string, string[]>();
  for (const text of queries) {
    const result = await runDifferential(text, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets });
    if (result.bound === undefined) problems.push(`binder refused: ${text} (${result.reference.kind === 'odata' ? result.reference.message : ''})`);
    for (const f of result.findings) problems.push(`[${f.target}] ${f.class}: ${text}\n    ${f.detail.slice(0, 400)}`);
    for (const [target, name] of result.excused) excused.set(text, [...(excused.get(text) ?? []), `${target}: ${name}`]);
  }
  expect(problems.join('\n')).toBe('');
  if (process.env.SHOW_EXCUSED) console.log([...excused].map(([q, e]) => `${q}\n   ${e.join('; ')}`).join('\n'));
  return excused;
}

describe('$compute on every engine', () => {
  it('arithmetic of every numeric type, returned with its type', async () => {
    await agree([
      '$compute=n32 add 1 as a,n16 mul 2 as b,n64 sub 1 as c,dbl mul 2 as d&$select=id,a,b,c,d',
      '$compute=dec add 1 as a,dec mul 2 as b,n32 div 3 as c,n32 mod 3 as d,n32 divby 4 as e&$select=id,a,b,c,d,e',
      '$compute=-n32 as a,n16 add n32 as b,round(dbl) as c,floor(dec) as d&$select=id,a,b,c,d',
      '$compute=n32 div (id sub id) as a,dbl div 0 as b&$select=id,a,b',
    ]);
  }, 120_000);

  it('string functions, dates, durations, case(), enums, Booleans and nulls', async () => {
    await agree([
      "$compute=concat(name,'!') as a,tolower(code) as b,length(code) as c,substring(code,1) as d,trim(name) as e,indexof(code,'1') as f&$select=id,a,b,c,d,e,f",
      '$compute=year(at) as y,month(born) as m,day(born) as d,hour(at) as h,date(at) as dt,time(at) as tm&$select=id,y,m,d,h,dt,tm',
      "$compute=at add duration'P1D' as t,born as b,span as s,time as tm&$select=id,t,b,s,tm",
      "$compute=case(n32 gt 0:'pos',n32 lt 0:'neg',true:'zero') as sign,case(flag:1,true:null) as f&$select=id,sign,f",
      "$compute=n32 gt 5 as big,flag as f,not flag as nf,contains(code,'A') as c,n32 in (1,2,3) as i&$select=id,big,f,nf,c,i",
      '$compute=status as s,guid as g,null as nothing&$select=id,s,g,nothing',
      '$compute=cast(n32,Edm.String) as s,cast(n16,Edm.Int64) as w&$select=id,s,w',
    ]);
  }, 120_000);

  it('used in $filter, $orderby and $select, with paging and $count', async () => {
    await agree([
      '$compute=n32 mul 2 as twice&$filter=twice gt 10&$select=id,twice',
      '$compute=n32 mul 2 as twice&$filter=twice gt 10 or twice eq null&$orderby=twice desc,id&$select=id',
      '$compute=concat(code,name) as label&$orderby=label,id&$top=5&$skip=1&$count=true&$select=label,id',
      '$compute=length(name) as len&$filter=len gt 2 and len lt 100&$orderby=len desc,id&$top=4',
      '$compute=dbl mul 2 as d&$orderby=d,id&$select=id,d',
      '$compute=n32 add n16 as s&$select=*',
      '$compute=n32 add n16 as s',
      "$compute=year(at) as y&$filter=tags/any(t:t eq 'x') and y gt 2000&$select=id,y",
      '$compute=parent/n32 add 1 as p&$filter=p ne null&$orderby=p,id&$select=id,p',
    ]);
  }, 120_000);

  it('inside $expand, with its own $filter, $orderby and $select', async () => {
    await agree([
      '$expand=children($compute=n32 mul 2 as twice;$select=id,twice)&$select=id',
      "$expand=children($compute=concat(code,'-') as label;$filter=label ne '-';$orderby=label desc;$select=id,label)&$select=id",
      '$compute=n16 add 1 as k&$expand=parent($compute=n64 add 1 as big;$select=id,big)&$select=id,k',
      '$expand=children($compute=year(at) as y,dec mul 2 as d,flag as f)&$select=id',
    ]);
  }, 120_000);
});

describe('$compute results as OData JSON', () => {
  it('readSqlRows reads computed columns with their types (PGlite)', async () => {
    const bound = bindQuery("$compute=dec add 1 as d,at add duration'P1D' as t,n32 gt 5 as big,status as s&$filter=id eq 1&$select=id,d,t,big,s", {
      model: fuzzModel,
      entitySet: FUZZ_SET,
    });
    const pg = targets.find((t) => t.name === 'PostgreSQL (PGlite)');
    expect(pg).toBeDefined();
    const compiled = toSql(bound, { dialect: 'postgres' });
    expect(compiled.computed.map((c) => [c.alias, c.name])).toEqual([
      ['k0', 'd'],
      ['k1', 't'],
      ['k2', 'big'],
      ['k3', 's'],
    ]);
    // The names never enter the SQL text: the columns are k0, k1, …
    expect(compiled.sql).not.toMatch(/\bbig\b/);
    const reference = compileQuery(bound, { data: { [FUZZ_SET]: fuzzRows } }).apply(fuzzRows).value[0];
    expect(reference).toEqual({ id: 1, d: '12345678901234567891.123456789', t: '2024-01-02T00:30:00Z', big: true, s: 'active' });
    const raw = { c0: 1, k0: '12345678901234567891.123456789', k1: new Date('2024-01-02T00:30:00Z'), k2: true, k3: 'active' };
    expect(readSqlRows(bound, compiled, [raw], { ieee754Compatible: true })).toEqual([
      { id: 1, d: '12345678901234567891.123456789', t: '2024-01-02T00:30:00.000Z', big: true, s: 'active' },
    ]);
  });

  it('MongoDB keeps computed values in reserved fields, projected when selected', () => {
    const bound = bindQuery('$compute=n32 mul 2 as twice&$select=id,twice', { model: fuzzModel, entitySet: FUZZ_SET });
    const query = toMongo(bound);
    expect(query.kind).toBe('pipeline');
    expect(JSON.stringify(query)).toContain('__odata_compute_twice');
  });

  it('validateQuery reports what a target cannot compute, at its place in $compute, and nothing more', () => {
    const text = '$compute=span add span as s,n32 add 1 as n&$select=id,s,n&$orderby=s';
    expect(validateQuery(text, { model: fuzzModel, entitySet: FUZZ_SET })).toEqual([]);
    // A sum of durations as a value (not only compared) is refused by the SQL dialects and MongoDB alike.
    for (const target of [sqlTarget('sqlite'), sqlTarget('postgres'), mongoTarget()]) {
      const diagnostics = validateQuery(text, { model: fuzzModel, entitySet: FUZZ_SET, target });
      expect(diagnostics.map((d) => [d.code, d.option, d.range.start])).toEqual([['unsupported_feature', '$compute', 9]]);
    }
    expect(validateQuery('$compute=n32 add 1 as n&$orderby=n', { model: fuzzModel, entitySet: FUZZ_SET, target: sqlTarget('sqlite') })).toEqual([]);
  });

  it('validateQuery reports each bad $compute item once, and the options that use it are still checked', () => {
    const text = '$compute=nope add 1 as a,n32 as id,n32 as b&$filter=a gt 1 and b gt 1 and zz eq 1&$select=a,b';
    const diagnostics = validateQuery(text, { model: fuzzModel, entitySet: FUZZ_SET });
    expect(diagnostics.map((d) => [d.code, d.option, text.slice(d.range.start, d.range.end)])).toEqual([
      ['unknown_property', '$compute', 'nope'],
      ['alias_conflict', '$compute', 'id'],
      ['unknown_property', '$filter', 'zz'],
    ]);
  });
});
