import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, type Row } from '../../src/index.js';
import { edgeModel, edgeRows } from '../fixtures/edge-data.js';

const data = { items: edgeRows };

function run(query: string): Row[] {
  const bound = bindQuery(query, { model: edgeModel, entitySet: 'items', maxNodeCount: 1000, maxAnyAllExpressionDepth: 3 });
  return compileQuery(bound, { data }).apply(edgeRows).value;
}

const ids = (query: string): unknown[] => run(query).map((row) => row.id);
const where = (filter: string): unknown[] => ids(`$filter=${encodeURIComponent(filter)}&$select=id`);

describe('in-memory $filter semantics (hand-checked on the edge data)', () => {
  const cases: [string, number[]][] = [
    // null semantics
    ['price eq null', [3]],
    ['price ne null', [1, 2, 4, 5, 6]],
    ['price ne 50', [1, 2, 3, 5]],
    ['price gt 10', [1, 2, 4, 6]],
    ['price lt 10', [5]],
    // gt with a null operand is false, not null (URL 5.1.1.1.3), so `not` keeps the null row.
    ['not (price gt 10)', [3, 5]],
    ['active eq true and price gt 10', [1, 4, 6]],
    ['active eq false or price eq null', [2, 3, 5]],
    ['not active', [2, 5]],
    ['name eq null', []],
    ['constructor eq null', [2, 3, 4, 5, 6]],
    ["constructor eq 'c1'", [1]],
    // strings: case-sensitive, literal matching of %, _, ', \
    ["name eq 'alpha'", [6]],
    ["tolower(name) eq 'alpha'", [1, 6]],
    ["contains(name,'%')", [2]],
    ["contains(name,'_')", [3]],
    ["contains(name,'''')", [3]],
    ["contains(name,'\\')", [3]],
    ["startswith(name,'A')", [1]],
    ["endswith(name,'😀')", [4]],
    ["name eq ''", [5]],
    ['length(name) eq 9', [2, 4]],
    ["indexof(name,'lpha') eq 1", [1, 6]],
    ["substring(name,1,3) eq 'lph'", [1, 6]],
    ["substring(name,8) eq '😀'", [4]],
    ["substring(name,-1) eq '😀'", [4]],
    ["toupper(name) eq 'ÜNÏCÖDÉ 😀'", [4]],
    ["trim(concat(' ',name)) eq 'Alpha'", [1]],
    ["matchesPattern(name,'^[ab]')", [2, 6]],
    ["name gt 'Z'", [2, 4, 6]],
    // numbers: exact Int64 and Decimal, promotion
    ['big eq 9223372036854775807', [1]],
    ['big lt 0', [2]],
    ['big eq 9007199254740993', [4]],
    ['big eq 9007199254740992', []],
    ['amount gt 12345678901234567890.123456788', [1]],
    ['amount eq 50', [4]],
    ['amount lt 0', [5, 6]],
    ['price add 0.5 eq 11', [1]],
    ['price mul 2 gt 100', [2]],
    ['big div 4 eq 10', [3]],
    ['big mod 5 eq 2', [1, 3]],
    ['big mod -5 eq -3', [2]],
    ['-7 mod 5 eq -2', [1, 2, 3, 4, 5, 6]],
    ['-big eq -42', [3]],
    ['round(price) eq 11', [1]],
    ['round(price) eq -1', [5]],
    ['floor(price) eq 10', [1]],
    ['ceiling(price) eq 0', [5]],
    // GUIDs compare case-insensitively
    ['guid eq aaaaaaaa-0000-0000-0000-000000000001', [1]],
    ['guid eq BBBBBBBB-0000-0000-0000-000000000002', [2]],
    // dates, times, offsets
    ['at lt 2024-01-01T00:00:00Z', [1, 2]],
    ['year(at) eq 2024', [1, 4]],
    ['day(at) eq 31', [2]],
    ['hour(at) eq 0', [1]],
    ['hour(at) eq 12', [4]],
    ['totaloffsetminutes(at) eq -300', [4]],
    ['date(at) eq 2024-01-01', [1]],
    ['time(at) eq 00:30:00', [1]],
    ['fractionalseconds(at) eq 0.123456789012', [4]],
    ['born eq 2024-02-29', [4]],
    ['month(born) eq 2', [1, 4]],
    ['born lt 2000-01-01', [2]],
    ["at add duration'PT1H' gt 2024-01-01T00:00:00Z", [1, 2, 4]],
    ["at sub duration'PT1H' lt 2023-12-31T23:00:00Z", [1, 2]],
    ['time gt 12:00:00', [2]],
    ["span gt duration'PT1H'", [1, 2]],
    ["span lt 'PT0S'", [4]],
    ['totalseconds(span) eq 43200', [2]],
    // enums and flags
    ["status eq 'active'", [1, 6]],
    ["status ne 'active'", [2, 3, 4, 5]],
    ["status gt 'draft'", [1, 2, 6]],
    ["colors has 'blue'", [1, 4, 6]],
    ["colors has Edge.Colors'red,blue'", [1, 4]],
    ["status in ('draft','retired')", [2, 4]],
    // in, collections, lambdas
    ['id in (1,3,99)', [1, 3]],
    ['price in (null, 50)', [3, 4, 6]],
    ["tags/any(t:t eq 'x')", [1, 5]],
    ["tags/all(t:t eq 'y')", [2, 3, 4, 6]],
    ['tags/any()', [1, 4, 5]],
    ['tags/$count eq 1', [4, 5]],
    // navigation through referential constraints and partners
    ["parent/name eq 'Alpha'", [2, 3]],
    ["children/any(c:c/name eq 'beta 100%')", [1]],
    ['children/$count eq 2', [1]],
    ["children/any(c:c/children/any(g:startswith(g/name,'Ü')))", [1]],
  ];
  for (const [filter, expected] of cases) {
    it(filter, () => {
      expect(where(filter)).toEqual(expected);
    });
  }
});

describe('in-memory $orderby, paging, $count, $select, $expand', () => {
  it('$orderby=price: nulls first ascending, stable', () => {
    expect(ids('$orderby=price&$select=id')).toEqual([3, 5, 1, 4, 6, 2]);
  });

  it('$orderby=price desc: nulls last descending', () => {
    expect(ids('$orderby=price desc&$select=id')).toEqual([2, 4, 6, 1, 5, 3]);
  });

  it('$orderby=name: ordinal by code point (uppercase before lowercase, emoji last)', () => {
    expect(ids('$orderby=name&$select=id')).toEqual([5, 1, 3, 6, 2, 4]);
  });

  it('$orderby=amount: exact decimals', () => {
    expect(ids('$orderby=amount&$select=id')).toEqual([3, 6, 5, 2, 4, 1]);
  });

  it('$orderby=big desc: exact Int64', () => {
    expect(ids('$orderby=big desc&$select=id')).toEqual([1, 4, 3, 6, 5, 2]);
  });

  it('$orderby=active desc,id desc: true before false descending', () => {
    expect(ids('$orderby=active desc,id desc&$select=id')).toEqual([6, 4, 1, 5, 2, 3]);
  });

  it('paging without a unique order appends the key, so pages never overlap', () => {
    const pages = [0, 2, 4].flatMap((skip) => ids(`$orderby=active&$top=2&$skip=${skip}&$select=id`));
    expect(pages).toEqual([3, 2, 5, 1, 4, 6]);
    expect(new Set(pages).size).toBe(6);
  });

  it('$count counts after $filter and before paging', () => {
    const bound = bindQuery('$filter=price gt 0&$top=1&$count=true', { model: edgeModel, entitySet: 'items' });
    const result = compileQuery(bound, { data }).apply(edgeRows);
    expect(result.count).toBe(4);
    expect(result.value).toHaveLength(1);
  });

  it('$select projects only the selected properties, constructor included as data', () => {
    expect(run('$select=id,constructor&$top=1')).toEqual([{ id: 1, constructor: 'c1' }]);
    const [row] = run('$select=id,constructor&$filter=id eq 2');
    expect(row).toEqual({ id: 2, constructor: null });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it('$expand=parent($select=name),children($select=id;$orderby=id desc;$count=true)', () => {
    const [one, two] = run('$select=id&$expand=parent($select=name),children($select=id;$orderby=id desc;$count=true)&$top=2');
    expect(one).toEqual({ id: 1, parent: null, children: [{ id: 3 }, { id: 2 }], 'children@odata.count': 2 });
    expect(two).toEqual({ id: 2, parent: { name: 'Alpha' }, children: [{ id: 4 }], 'children@odata.count': 1 });
  });

  it('$search matches every term case-insensitively in string properties', () => {
    const model = edgeModel;
    const bound = bindQuery('$search=ALPHA&$select=id', { model, entitySet: 'items' });
    expect(
      compileQuery(bound)
        .apply(edgeRows)
        .value.map((r) => r.id),
    ).toEqual([1, 6]);
    const grammar = bindQuery('$search=alpha NOT Alpha&$select=id', { model, entitySet: 'items', parse: { search: 'grammar' } });
    expect(compileQuery(grammar).apply(edgeRows).value).toEqual([]);
  });

  it('division by zero yields null for the row, integer and double alike (failed operations yield null)', () => {
    // A literal zero divisor of an integer is refused at bind time (invalid_argument); a computed one is null for the row.
    expect(where('big div (big sub big) eq 1')).toEqual([]);
    expect(where('price div 0 eq INF')).toEqual([]);
    expect(where('price div 0 eq null')).toEqual(where('true'));
    expect(where('(big mod (big sub big)) eq null')).toEqual(where('true'));
  });
});

describe('__proto__, constructor and prototype are ordinary properties', () => {
  const model = defineModel({
    namespace: 'Proto',
    entityTypes: {
      Thing: { key: ['id'], properties: { id: 'Edm.Int32', ['__proto__']: 'Edm.String', prototype: 'Edm.String', constructor: 'Edm.String' } },
    },
    entitySets: { things: { type: 'Thing' } },
  });
  const rows = JSON.parse('[{"id":1,"__proto__":"x","prototype":"p","constructor":"c"},{"id":2}]') as Row[];

  it("$filter=__proto__ eq 'x' reads the row's own property", () => {
    const query = compileQuery(bindQuery("$filter=__proto__ eq 'x' or constructor eq null", { model, entitySet: 'things' }));
    expect(query.apply(rows).value.map((r) => r.id)).toEqual([1, 2]);
    const none = compileQuery(bindQuery("$filter=constructor eq 'c' and prototype eq 'p'", { model, entitySet: 'things' }));
    expect(none.apply(rows).value.map((r) => r.id)).toEqual([1]);
  });

  it('projection writes __proto__ as an own property and never changes a prototype', () => {
    const [first, second] = compileQuery(bindQuery('$select=id,__proto__,constructor', { model, entitySet: 'things' })).apply(rows).value;
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(Object.hasOwn(first!, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(first))).toEqual(JSON.parse('{"id":1,"__proto__":"x","constructor":"c"}'));
    expect(second).toEqual({ id: 2, constructor: null, ...JSON.parse('{"__proto__":null}') });
  });
});

describe('cast to Edm.Double', () => {
  it('rounds an Int64 beyond 2^53 to the nearest double, as the engines do (found by the generated-model campaign)', () => {
    const model = defineModel({
      namespace: 'Casts',
      entityTypes: { T: { key: ['id'], properties: { id: 'Edm.Int32', n: 'Edm.Int64' } } },
      entitySets: { ts: { type: 'T' } },
    });
    const rows: Row[] = [
      { id: 1, n: 9223372036854775807n },
      { id: 2, n: -9007199254740993n },
    ];
    const bound = bindQuery('$compute=cast(n,Edm.Double) as d,cast(cast(n,Edm.Double),Edm.Int64) as c&$select=id,d,c', { model, entitySet: 'ts' });
    expect(compileQuery(bound, { data: { ts: rows } }).apply(rows).value).toEqual([
      { id: 1, d: 9223372036854775808, c: null },
      { id: 2, d: -9007199254740992, c: -9007199254740992n },
    ]);
  });
});
