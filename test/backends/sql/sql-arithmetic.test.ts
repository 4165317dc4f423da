/**
 * Audit of arithmetic and the numeric, string and date functions on every SQL engine: each query
 * (operators × argument kinds the binder accepts: Int16/32/64 and Decimal and Double properties,
 * literal and computed, negative, zero, huge, Int64 max, INF/NaN) must give the in-memory
 * reference's rows or its ODataError code on PGlite, sql.js, a live PostgreSQL and a live MariaDB.
 * A failed operation yields null for its row (grammar/DEVIATIONS.md, "Failed operations yield null").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDifferential, type DifferentialTarget } from '../../../src/testing/index.js';
import { openTargets } from '../../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../../fixtures/fuzz-data.js';

const CI = process.env.CI === 'true';

let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows, ['pglite', 'sqlite', 'postgres', 'mysql']);
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[sql-arithmetic] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
  targets = opened.targets;
  close = opened.close;
}, 60_000);
afterAll(() => close());

/**
 * SQLite stores Decimals as REAL (DEVIATIONS, "Decimals in SQLite"): a remainder or quotient of a
 * Decimal, or an Int64 beyond 2^53 made a Decimal, is inexact there. Only row orders of SQLite
 * on such queries are let through, and they are counted so that the list cannot grow unseen.
 */
const SQLITE_REAL = /\bdec\b|divby|round\(n64\)/;
const sqliteReal: string[] = [];

async function agree(queries: readonly string[]): Promise<void> {
  const problems: string[] = [];
  for (const text of queries) {
    const result = await runDifferential(text, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets });
    for (const f of result.findings) {
      if (f.target === 'SQLite (sql.js)' && f.class === 'row disagreement' && SQLITE_REAL.test(text)) sqliteReal.push(text);
      else problems.push(`[${f.target}] ${f.class}: ${text}\n    ${f.detail.slice(0, 300)}`);
    }
  }
  expect(problems.join('\n')).toBe('');
}

afterAll(() => {
  expect(sqliteReal.length).toBeLessThanOrEqual(20);
});

const NUMBERS = [
  'n16',
  'n32',
  'n64',
  'dec',
  'dbl',
  'id',
  '0',
  '-1',
  '7',
  '2147483648',
  '9223372036854775807',
  '-9223372036854775808',
  '2.5',
  '-0.5',
  '1e308',
  '2.5e0',
  'INF',
  '-INF',
  'NaN',
  'length(name)',
  '(n16 sub n16)',
  'parent/n64',
];

describe('failed operations yield null on every engine', () => {
  it('div, mod and divby by zero, literal or computed, on every numeric type', async () => {
    const queries: string[] = [];
    for (const x of ['n16', 'n32', 'n64', 'dec', 'dbl', 'id']) {
      for (const zero of ['0', '(n16 sub n16)', '0.0', '0e0', `(${x} sub ${x})`]) {
        for (const op of ['div', 'mod', 'divby']) queries.push(`$filter=(${x} ${op} ${zero}) eq null&$select=id`);
      }
    }
    queries.push('$filter=(round(n64) div dec) ne (parent/n64 mod (parent/n64 sub parent/n16))&$select=id');
    queries.push('$filter=(-((n16 mod n16))) gt (-(month(at)))&$select=id');
    await agree(queries);
  }, 60_000);

  it('Int64 overflow of add, sub, mul, div and negate is null', async () => {
    await agree([
      '$filter=(n64 add 1) eq null&$select=id',
      '$filter=(n64 sub 1) eq null&$select=id',
      '$filter=(n64 mul 2) eq null&$select=id',
      '$filter=(n64 mul n64) gt 0&$select=id',
      '$filter=(-n64) lt 0&$select=id',
      '$filter=(n64 div -1) gt 0&$select=id',
      '$filter=((n64 add n64) sub n64) eq n64&$select=id',
      '$filter=(n64 add 9223372036854775807) eq null&$select=id',
      '$filter=(-9223372036854775808 sub n64) ne null&$select=id',
      '$orderby=n64 add n64,id&$select=id',
      // A null operand makes a typed null: MariaDB typed `x - NULL` as a DOUBLE, and a case around
      // it then lost an Int64 branch's last digits (found by the generated-model campaign).
      "$compute=case((name eq 'no such name'):(n16 sub null),true:(n64 sub 2147483648)) as k&$select=id,k",
      '$compute=case((name eq null):(null add n32),true:(n64 add 1)) as k&$filter=k ne null&$select=id,k',
    ]);
  }, 60_000);

  it('substring with computed, negative and huge starts and lengths', async () => {
    const queries: string[] = [];
    for (const start of [
      '0',
      '2',
      '-2',
      '-100',
      'length(code) mul 2',
      '-length(code)',
      'n16',
      'n64',
      '2147483648',
      '9223372036854775807',
      '-9223372036854775808',
    ]) {
      queries.push(`$filter=substring(name,${start}) eq 'x'&$select=id`);
      queries.push(`$select=id&$orderby=substring(name,${start}),id`);
      for (const length of ['0', '3', 'length(code) sub 1', 'n16', '9223372036854775807', 'children/$count']) {
        queries.push(`$select=id&$orderby=substring(name,${start},${length}),id`);
      }
    }
    queries.push('$filter=startswith(code,substring(toupper(code),9223372036854775807,children/$count))&$select=id');
    queries.push(
      "$filter=contains(substring(name,cast(null,Edm.Int64)),concat(name,toupper('')))&$select=id",
      '$select=id&$orderby=substring(name,1,cast(null,Edm.Int32)),id',
    );
    await agree(queries);
  }, 60_000);

  it('mod on Int, Decimal and Double operands', async () => {
    const queries: string[] = [];
    for (const x of NUMBERS) for (const y of ['2.5e0', '1e10', 'dbl', 'dec', 'n32', '-3', 'parent/dbl']) queries.push(`$select=id&$orderby=(${x} mod ${y}),id`);
    queries.push(
      '$filter=length(name) mod 2.5e0 eq 0.5&$select=id',
      '$filter=length(name) mod 1e10 eq 0&$select=id',
      '$filter=(ceiling(parent/id) mod parent/dbl) lt 1&$select=id',
    );
    await agree(queries);
  }, 60_000);
});

describe('numbers are bound as numbers', () => {
  it('Decimal literals compare with numbers on every engine', async () => {
    await agree([
      '$filter=round(dec) lt 100&$select=id',
      '$filter=dec div 2 gt 1400&$select=id',
      '$filter=dec add 0.5 eq 1&$select=id',
      '$filter=round(dec) eq 2&$select=id',
      '$filter=floor(dec) eq -1&$select=id',
      '$filter=ceiling(dec) eq 2&$select=id',
      '$filter=dec divby 2 gt 1&$select=id',
      '$filter=dec gt 1.25&$select=id',
      '$filter=dbl lt 2.5&$select=id',
    ]);
  }, 60_000);
});

describe('every arithmetic operator and numeric function over argument kinds', () => {
  it('agrees on the catalogue', async () => {
    const queries: string[] = [];
    const pairs = [
      ['n16', 'n32'],
      ['n32', 'n64'],
      ['n64', 'dec'],
      ['dec', 'dbl'],
      ['dbl', 'n16'],
      ['n64', '7'],
      ['dec', '-0.5'],
      ['n32', 'NaN'],
      ['id', '2147483648'],
    ];
    for (const [x, y] of pairs) for (const op of ['add', 'sub', 'mul', 'div', 'divby', 'mod']) queries.push(`$select=id&$orderby=(${x} ${op} ${y}),id`);
    for (const f of ['round', 'floor', 'ceiling']) for (const x of ['dec', 'dbl', 'n64', '-2.5', '2.5e0']) queries.push(`$select=id&$orderby=${f}(${x}),id`);
    for (const f of ['year', 'month', 'day']) queries.push(`$select=id&$orderby=${f}(born),id`, `$select=id&$orderby=${f}(at),id`);
    for (const f of ['hour', 'minute', 'second']) queries.push(`$select=id&$orderby=${f}(at),id`);
    queries.push('$select=id&$orderby=length(name),id', "$select=id&$orderby=indexof(name,'a'),id");
    await agree(queries);
  }, 60_000);
});

describe('paging and order keys', () => {
  it('$skip and $top up to 2^53 - 1, constant $orderby keys', async () => {
    await agree([
      '$orderby=id&$skip=2147483648&$select=id',
      '$orderby=id&$skip=2147483647&$top=1000&$select=id',
      '$orderby=id&$top=9007199254740991&$select=id',
      '$orderby=id&$skip=9007199254740991&$top=9007199254740991&$select=id',
      '$orderby=id&$skip=2147483648&$select=id&$expand=children($orderby=id;$skip=2147483648;$top=2147483648)',
      '$orderby=255 desc,id&$select=id',
      '$orderby=null,id desc&$top=3&$skip=1&$select=id',
      "$orderby='x',1 add 2,id desc&$select=id",
    ]);
  }, 60_000);
});

describe('durations', () => {
  it('compare and sort as durations, negative literals and negation included', async () => {
    await agree([
      '$orderby=span,id&$select=id',
      '$orderby=span desc,id&$select=id',
      "$filter=span gt duration'PT12H'&$select=id",
      "$filter=span le duration'P1D'&$select=id",
      "$filter=span lt duration'PT0.01S'&$select=id",
      "$filter=duration'-P1DT2H' gt (-(span))&$select=id",
      "$filter=(-span) lt duration'-PT1H'&$select=id",
      '$orderby=-span,id&$select=id',
      "$filter=span eq duration'P1D'&$select=id",
    ]);
  }, 60_000);
});

describe('long in lists are one parameter', () => {
  const list = (n: number, item: (i: number) => string, extra: readonly string[]): string =>
    [...extra, ...Array.from({ length: n - extra.length }, (_, i) => item(i))].join(',');
  it('1 500 items of every kind give the reference rows', async () => {
    const n = 1500;
    await agree([
      `$filter=id in (${list(n, (i) => String(i + 100), ['1', '5', '12'])})&$select=id`,
      `$filter=n64 in (${list(n, (i) => String(i + 100), ['9223372036854775807', '-9223372036854775808', '42'])})&$select=id`,
      `$filter=n64 in (${list(n, (i) => String(i + 100), ['2.5', 'null'])})&$select=id`,
      `$filter=dec in (${list(n, (i) => `${i}.25`, ['0.1', '-0.5', '2.5'])})&$select=id`,
      `$filter=dbl in (${list(n, (i) => `${i}.5e3`, ['10.5', '-0.5', '0.1', 'null'])})&$select=id`,
      `$filter=name in (${list(n, (i) => `'n${i}'`, ["'Alpha'", "''", "'Ünïcödé 😀'", "'O''Neil_under\\score'", "'x y'"])})&$select=id`,
      `$filter=not (code in (${list(n, (i) => `'c${i}'`, ["'A1'", "'%'"])}))&$select=id`,
      `$filter=guid in (${list(n, (i) => `aaaaaaaa-0000-0000-0000-${String(i).padStart(12, '9')}`, ['aaaaaaaa-0000-0000-0000-000000000001', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'])})&$select=id`,
      `$filter=born in (${list(n, (i) => `${1000 + (i % 999)}-01-0${(i % 9) + 1}`, ['2000-02-29', '1999-12-31'])})&$select=id`,
      `$filter=status in (${list(n, () => "'draft'", ["'active'"])})&$select=id`,
    ]);
  }, 60_000);

  it('short lists: an item the left type cannot hold matches nothing, null rows included', async () => {
    await agree([
      '$filter=n64 in (2.5)&$select=id',
      '$filter=n64 in (2.5,1)&$select=id',
      '$filter=n64 in (2.5,null)&$select=id',
      '$filter=n32 in (2.0,7)&$select=id',
      '$filter=null in (NaN)&$select=id',
      '$filter=not (n16 in (0.5))&$select=id',
    ]);
  }, 60_000);

  it('70 000 items (more than PostgreSQL accepts parameters) on every engine', async () => {
    const items = Array.from({ length: 70_000 }, (_, i) => String(i * 2 + 1)).join(',');
    const problems: string[] = [];
    const result = await runDifferential(`$filter=id in (${items})&$select=id`, {
      model: fuzzModel,
      entitySet: FUZZ_SET,
      rows: fuzzRows,
      targets,
      settings: { maxNodeCount: 200_000, parse: { maxLength: 1_000_000 } },
    });
    for (const f of result.findings) problems.push(`[${f.target}] ${f.class}: ${f.detail.slice(0, 300)}`);
    expect(problems.join('\n')).toBe('');
    expect(result.reference).toMatchObject({ kind: 'rows' });
    for (const target of targets) expect(result.outcomes.get(target.name)).toMatchObject({ kind: 'rows' });
  }, 60_000);
});

describe('comparisons across types', () => {
  it('NaN compares false; Date against DateTimeOffset as midnight UTC', async () => {
    await agree([
      '$filter=(NaN ge tags/$count) and (children/any())&$select=id',
      '$filter=dbl lt NaN&$select=id',
      '$filter=NaN le dbl&$select=id',
      '$orderby=dbl mul INF,id&$select=id',
      '$orderby=dbl mul INF desc,id&$select=id',
      '$orderby=dbl sub dbl,id desc&$select=id',
      '$filter=at eq 1970-01-01&$select=id',
      '$filter=at ge 2024-01-01&$select=id',
      '$filter=born lt at&$select=id',
      '$filter=born eq at&$select=id',
      '$expand=children($filter=at eq 1970-01-01;$orderby=id)&$select=id',
    ]);
  }, 60_000);

  it('a Decimal or an Int64 against a Double compares as doubles, a Double literal of integral value included (seed 2835)', async () => {
    // 9007199254740993 and 12345678901234567890.12… are those doubles only when rounded; MariaDB
    // had compared the Decimal exactly with the literal it is sent as integer text.
    await agree([
      '$filter=cast(n64,Edm.Decimal) eq 9007199254740992e0&$select=id',
      '$filter=9007199254740992e0 eq cast(n64,Edm.Decimal)&$select=id',
      '$filter=cast(n64,Edm.Decimal) le 9007199254740992e0&$select=id',
      '$filter=dec eq 12345678901234567168e0&$select=id',
      '$filter=dec le 12345678901234567168e0&$select=id',
      '$filter=dec ne 12345678901234567168e0&$select=id',
      '$filter=(-9007199254740993 mul (0e0 sub 1)) eq cast(n64,Edm.Decimal)&$select=id',
      '$filter=n64 eq 9007199254740992e0&$select=id',
      // A case of Double with a Decimal or Int64 branch: the branch promoted likewise.
      '$filter=case(id eq 1: dec, true: 1e0) eq 12345678901234567168e0&$select=id',
      '$filter=case(id eq 4: cast(n64,Edm.Decimal), true: 1e0) eq 9007199254740992e0&$select=id',
      '$filter=case(id eq 1: dec, true: 1e0) le 12345678901234567168e0&$select=id',
      // A Decimal or Int64 literal (round() of one folded) against a Double: the double nearest to it (seed 3104, model 1746).
      "$filter=round(9007199254740993) eq case((substringof('a b','')):0e0,true:9.007199254740993e15)&$select=id",
      '$filter=round(9007199254740993) eq case(id gt 0:9.007199254740993e15)&$select=id',
      '$filter=9007199254740993 eq case(id gt 0:9.007199254740992e15)&$select=id',
      '$filter=case(id gt 0:9.007199254740992e15) le 9007199254740993.4&$select=id',
      '$filter=round(9007199254740993) in (case(id gt 0:9.007199254740993e15),1e0)&$select=id',
    ]);
  }, 60_000);
});

describe('the rest of issue 12', () => {
  it('has on a null flag, negated null, casts of decimals, Int64 div of widened arithmetic, computed order keys with nulls', async () => {
    await agree([
      "$filter=(colors has Fz.Colors'red') eq null&$select=id",
      "$filter=not (colors has Fz.Colors'red')&$select=id",
      '$filter=-null eq null&$select=id',
      '$filter=(-null) eq n32&$select=id',
      '$filter=cast(0.0,Edm.Int32) eq 0&$select=id',
      '$filter=cast(dec,Edm.Int32) eq 2&$select=id',
      '$filter=((n64 add 1) div 2) gt 0&$select=id',
      '$filter=((n32 add n32) div 3) eq 0&$select=id',
      '$orderby=n16 add 1,id&$select=id',
      '$orderby=n16 add 1 desc,id&$select=id',
      '$orderby=length(name) desc,id&$select=id',
      '$filter=(round(dbl) divby n16) eq n16&$select=id',
      '$filter=(-(round(dbl))) eq (dbl mod (n16 div (id sub id)))&$select=id',
      '$filter=round(dbl) eq 3&$select=id',
      '$filter=round(-2.5e0) eq -3 and round(0.49999999999999994e0) eq 0&$select=id',
      "$filter=startswith(tolower(''),substring(concat(name,name),cast(2147483648,Edm.Int32),n16))&$select=id",
      '$filter=cast(2.5,Edm.Int32) eq null&$select=id',
      '$filter=cast(n64,Edm.Int32) eq null&$select=id',
    ]);
  }, 60_000);
});

describe('dates outside years 1 to 9999', () => {
  it('a folded or computed date beyond the calendar is null', async () => {
    await agree([
      "$filter=at gt 0001-01-01T00:00:00Z sub duration'P1D'&$select=id",
      "$filter=at lt 9999-12-31T00:00:00Z add duration'P2D'&$select=id",
      "$filter=(9999-12-31T00:00:00Z add duration'P2D') eq null&$select=id",
      "$filter=at lt (2024-01-01T00:00:00Z sub duration'P1000000D')&$select=id",
      "$filter=at add duration'P3000000D' eq null&$select=id",
      // Folded to the constant side only where the shifted column stays inside the years.
      "$filter=at add duration'P2900000D' gt 9000-01-01T00:00:00Z&$select=id",
      "$filter=at sub duration'P700000D' lt 0100-01-01T00:00:00Z&$select=id",
      "$filter=at add duration'P2900000D' ne 9000-01-01T00:00:00Z&$select=id",
      "$filter=not (at add duration'P2900000D' le 9999-01-01T00:00:00Z)&$select=id",
    ]);
  }, 60_000);
});

describe('findings of the fuzz campaign (seed 20261124)', () => {
  it('a Boolean expression as a value has three values: not, and, or of null are null', async () => {
    await agree([
      '$filter=(not (flag)) eq flag&$select=id',
      '$filter=(not ((not (flag)))) eq flag&$select=id',
      '$filter=(flag and true) eq null&$select=id',
      '$filter=(flag or false) eq (not flag)&$select=id',
      '$filter=(flag or true) eq true&$select=id',
      '$filter=(flag and false) eq false&$select=id',
      '$filter=((n16 gt 5) eq flag) eq (not flag)&$select=id',
      '$orderby=not flag,id&$select=id',
      '$orderby=(flag and (n16 lt 0)) desc,id&$select=id',
    ]);
  }, 60_000);

  it('Int32 products beyond 2^53 are exact in the reference too, as the engines compute them in 64 bits (seed 2831)', async () => {
    await agree([
      '$compute=((n32 mul n32) div (2147483648.5 mul 0.000000000000000001)) as z&$filter=z ne null&$select=id,z',
      '$compute=cast(n32 mul n32,Edm.String) as t&$select=id,t',
      '$filter=((n32 mul n32) mod 7) eq 1&$select=id',
      '$filter=((n32 mul n32) add 1) gt (n32 mul n32)&$select=id',
      // The product itself as a property (seed 3010): past 2^53 it is written as an Int64 is, the same from every engine.
      '$compute=n32 mul 2147483647 as p&$select=id,p',
      '$compute=case(n32 gt 0:(n32 mul 2147483647),true:n32) as p&$select=id,p',
      '$compute=(n32 mul n32) sub 1 as p&$orderby=p desc,id&$select=id,p',
    ]);
  }, 60_000);

  it('sums of the smallest subnormal double (halving it in the overflow check underflows: an error on PostgreSQL; seed 2830)', async () => {
    await agree([
      '$compute=(n32 mul 0 add 4.9e-324) add dbl as s&$filter=s ne null&$select=id,s',
      '$filter=((dbl mul 0e0) add -4.9e-324) sub dbl lt 1e308&$select=id',
      '$filter=(4.9e-324 add dbl) add 1.7e308 eq null&$select=id',
      '$filter=(dbl add 4.9e-324) mod 3e0 eq dbl&$select=id',
    ]);
  }, 60_000);

  it('products and quotients in the subnormal range: 0 only where IEEE 754 rounds to 0 (seed 3108: 0.1 × -3e-323 is -5e-324, no integer)', async () => {
    await agree([
      '$compute=(0.1 mul (dbl mul 0e0 add -3e-323)) as p&$select=id,p',
      '$compute=cast((0.1 mul (dbl mul 0e0 add -3e-323)),Edm.Int64) as z&$filter=z ne null&$select=id,z',
      '$compute=(0.5 mul (dbl mul 0e0 add 4.9e-324)) as p,(0.75 mul (dbl mul 0e0 add 4.9e-324)) as q&$select=id,p,q',
      '$compute=((dbl mul 0e0 add -3e-323) div 10e0) as p,((dbl mul 0e0 add 4.9e-324) div 2e0) as q,((dbl mul 0e0 add 4.9e-324) div 1.5e0) as r&$select=id,p,q,r',
      '$filter=(0.1 mul (dbl mul 0e0 add 3e-323)) gt 0&$select=id',
    ]);
  }, 60_000);

  it('an Int32 column times a constant folded beyond 32 bits is exact, not a database error (seed 3109, model 1871)', async () => {
    await agree([
      '$filter=(n32 mul (32767 mul -2147483648)) ne null&$select=id',
      '$compute=n16 mul (65536 mul 65536) as p,n32 add (2147483647 add 2147483647) as q&$select=id,p,q',
      '$filter=n32 mul (32767 mul -2147483648) lt 0&$select=id',
    ]);
  }, 60_000);

  it('floor and ceiling of doubles beyond 2^63 (SQLite casts saturate)', async () => {
    await agree([
      '$filter=(not (floor(floor(dbl)) eq dbl))&$select=id',
      '$filter=ceiling(dbl) in (-1.7976931348623157e308,0e0)&$select=id',
      '$filter=(indexof(name,null) mul n16) eq (floor(parent/dbl) sub (parent/dbl div -9007199254740993))&$select=id',
      '$filter=floor(dbl mul 1e10) eq dbl mul 1e10&$select=id',
      '$orderby=ceiling(dbl div -3e0),id&$select=id',
    ]);
  }, 60_000);

  it('in lists: integral items beyond 32 and 64 bits against a narrower integer', async () => {
    await agree([
      '$filter=(null add n16) in (-1.7976931348623157e308)&$select=id',
      '$filter=(null div n16) in (2147483648)&$select=id',
      '$filter=n16 in (1e300,2147483648,7,100.0)&$select=id',
      '$filter=(n16 add n32) in (2147483648,7,-32769,-2147481000)&$select=id',
      '$filter=n32 in (-2147483648,2147483647,9223372036854775807)&$select=id',
      '$filter=n64 in (1e300,2147483648,42)&$select=id',
      `$filter=(n32 add n32) in (${[4294967294, 14, ...Array.from({ length: 1200 }, (_, i) => 2 ** 33 + i)].join(',')})&$select=id`,
    ]);
  }, 60_000);

  it('substring with starts at the ends of Int64 (MariaDB folds the branch not taken)', async () => {
    await agree([
      "$filter=contains(substring('',9223372036854775807,(n16 mul 0)),substring(substring('',n16,null),(0 div id),(parent/n16 mod parent/n16)))&$orderby=id&$skip=2&$count=true&$select=id",
      "$filter=substring('abc',-9223372036854775808) eq 'abc'&$select=id",
      "$filter=substring('abc',9223372036854775807) eq ''&$select=id",
      "$filter=substring('abc',-9223372036854775808,9223372036854775807) eq ''&$select=id",
      "$filter=substring(name,n64,n64) eq ''&$select=id",
      "$filter=substring(name,n64 mul -1) eq 'a'&$select=id",
    ]);
  }, 60_000);

  it('decimal remainders of zero and decimal literals in products (MariaDB)', async () => {
    await agree([
      '$filter=(n16 mod dec) in (0.0)&$select=id',
      '$filter=(n16 mod dec) eq 0&$orderby=id&$skip=1&$count=true&$select=id',
      '$orderby=(n16 mod dec),id&$select=id',
      '$orderby=(dec mul 2147483648),id asc&$select=id',
      '$orderby=(dec mul 99999999999999999999),id&$select=id',
      '$filter=(dec mul 1.000000000000000000000000000001) gt 1&$select=id',
      '$filter=dec in (0.000000000000000001,0.1,-0.5)&$select=id',
    ]);
  }, 60_000);

  it('durations up to .NET TimeSpan: interval parameters as days and microseconds, shifts past the calendar are null', async () => {
    await agree([
      "$filter=span eq (-(duration'P10675199DT2H48M5.4775807S'))&$select=id",
      "$filter=span lt duration'-P10675199DT2H48M5.4775807S'&$select=id",
      "$filter=born ge (duration'P10675199D' add at)&$select=id",
      "$filter=(duration'P10675199D' add at) eq parent/born&$select=id",
      "$orderby=(duration'-P10675199D' add at),id&$select=id",
      "$orderby=(at sub duration'P3652000D'),id&$select=id",
      "$filter=(at add duration'P1D') eq (9999-12-31T23:59:59.999Z add duration'-P0D')&$select=id",
    ]);
  }, 60_000);

  it('a folded Int32 value beyond 32 bits, decimal quotients to 28 digits (MariaDB)', async () => {
    await agree([
      "$filter=startswith(substring('',(2 mul -2147483648),n16),name)&$select=id",
      '$filter=(n32 add (2 mul 2147483647)) eq 4294967294&$select=id',
      "$filter=((99999999999999999999999999999.9 div n64) div indexof(name,'b')) ge (round(9007199254740993) div (n16 sub parent/n16))&$select=id",
      '$filter=ceiling((parent/n16 mod parent/n16)) eq (0.0 div (dec div parent/n64))&$select=id',
      '$filter=(2 div 3.0) eq 0.6666666666666666666666666667&$select=id',
      '$orderby=(dec div -0.7),id&$select=id',
      '$orderby=(12345678901234567890.123456789 mul parent/dec),id desc&$select=id',
    ]);
  }, 60_000);

  it('negated comparisons with NaN, quotients of Int64 -2^63 on SQLite, decimal quotients to 28 digits (PostgreSQL)', async () => {
    await agree([
      '$filter=(not (dec ge ceiling(NaN)))&$select=id',
      '$filter=not (dbl lt NaN)&$select=id',
      '$filter=not (NaN le dbl)&$select=id',
      '$filter=(-(ceiling(dbl))) eq ((n64 mod 1.0) add (n16 sub 0))&$select=id',
      '$filter=(n64 mod 1.0) eq 0&$select=id',
      '$filter=(not ((n64 mod (n64 divby 32767)) lt round((-1 div 1))))&$select=id',
      '$filter=(1 divby 3) mul 3 eq 0.9999999999999999999999999999&$select=id',
      '$orderby=(dec divby 7),id&$select=id',
    ]);
  }, 60_000);

  it('an Int64 compared in Double is rounded first; NaN equals nothing (PostgreSQL); a decimal quotient rounded to zero is not below zero (MariaDB)', async () => {
    await agree([
      '$filter=ceiling((-(9.007199254740993e15))) eq n64&$select=id',
      '$filter=n64 gt -9.007199254740993e15&$select=id',
      '$filter=n64 le 9.007199254740993e15&$select=id',
      '$filter=dbl gt (parent/n16 div 99999999999999999999999999999.9)&$select=id',
      '$filter=(n16 div -99999999999999999999999999999.9) lt 0&$select=id',
      '$filter=(dec mul NaN) eq (dbl mul NaN)&$select=id',
      '$filter=(dec mul NaN) ne (dbl mul NaN)&$select=id',
      '$filter=(dbl mul NaN) eq null&$select=id',
      '$filter=(dbl add INF) eq (dbl sub -INF)&$select=id',
    ]);
  }, 60_000);

  it('a NaN item of an in list matches nothing (PostgreSQL finds NaN = NaN)', async () => {
    await agree([
      '$filter=(NaN divby n16) in (NaN,0e0)&$select=id',
      '$filter=ceiling(NaN) in (NaN)&$select=id',
      '$filter=not (dbl in (NaN))&$select=id',
      '$filter=dbl in (NaN,10.5e0,null)&$select=id',
    ]);
  }, 60_000);

  it('a value computed from a literal finer than a microsecond is refused, not compared as stored (seed 20261126)', async () => {
    await agree([
      "$filter=case((flag):case((name in ('')):null,true:span),true:case((name gt name):span,true:duration'-P3652059DT23H59M59.9999999S')) eq duration'-P3652059DT23H59M59.9999999S'&$select=id",
      '$filter=(span add maxdatetime()) eq maxdatetime()&$select=id',
      '$orderby=(dec div 0.000000000000000001) desc,id&$top=1&$select=id',
      '$filter=at gt 2024-01-01T00:00:00.0000005Z&$select=id',
    ]);
  }, 60_000);
});
