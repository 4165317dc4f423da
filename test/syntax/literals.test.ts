import { describe, expect, it } from 'vitest';
import { ODataError, parseFilter, type Literal } from '../../src/index.js';

function literal(text: string): Literal {
  const node = parseFilter(text);
  if (node.kind !== 'literal') throw new Error(`${text} parsed as ${node.kind}`);
  return node;
}

describe('literals carry their EDM type and decoded value', () => {
  const cases: [string, Literal['type'], unknown][] = [
    ['null', 'null', null],
    ['true', 'Edm.Boolean', true],
    ['FALSE', 'Edm.Boolean', false],
    ['42', 'Edm.Int32', 42],
    ['-2147483648', 'Edm.Int32', -2147483648],
    ['2147483648', 'Edm.Int64', 2147483648n],
    ['9223372036854775807', 'Edm.Int64', 9223372036854775807n],
    ['-9223372036854775808', 'Edm.Int64', -9223372036854775808n],
    ['9007199254740993', 'Edm.Int64', 9007199254740993n],
    ['9223372036854775808', 'Edm.Decimal', '9223372036854775808'],
    ['3.14', 'Edm.Decimal', '3.14'],
    ['0.1000000000000000000000000001', 'Edm.Decimal', '0.1000000000000000000000000001'],
    ['+42', 'Edm.Int32', 42],
    ['-0.314e1', 'Edm.Double', -3.14],
    ['1e-101', 'Edm.Double', 1e-101],
    ['INF', 'Edm.Double', Infinity],
    ['-INF', 'Edm.Double', -Infinity],
    ['NaN', 'Edm.Double', NaN],
    ["'O''Neil'", 'Edm.String', "O'Neil"],
    ["''", 'Edm.String', ''],
    ["'a&b;c)d'", 'Edm.String', 'a&b;c)d'],
    ['01234567-89ab-cdef-0123-456789abcdef', 'Edm.Guid', '01234567-89ab-cdef-0123-456789abcdef'],
    ['ABCDEF01-89AB-CDEF-0123-456789ABCDEF', 'Edm.Guid', 'ABCDEF01-89AB-CDEF-0123-456789ABCDEF'],
    ['2012-09-03', 'Edm.Date', '2012-09-03'],
    ['2000-02-29', 'Edm.Date', '2000-02-29'],
    ['-10000-04-01', 'Edm.Date', '-10000-04-01'],
    ['2012-09-03T13:52Z', 'Edm.DateTimeOffset', '2012-09-03T13:52Z'],
    ['2012-09-03T14:53:01.123+02:00', 'Edm.DateTimeOffset', '2012-09-03T14:53:01.123+02:00'],
    ['1972-06-30T23:59:60Z', 'Edm.DateTimeOffset', '1972-06-30T23:59:60Z'],
    ['07:59:59.999', 'Edm.TimeOfDay', '07:59:59.999'],
    ["duration'P1DT2H'", 'Edm.Duration', 'P1DT2H'],
    ["duration'-P6DT23H59M59.9999S'", 'Edm.Duration', '-P6DT23H59M59.9999S'],
    ["binary'Zm9vYg=='", 'Edm.Binary', 'Zm9vYg=='],
    ["geography'SRID=0;Point(142.1 64.1)'", 'Edm.Geography', 'SRID=0;Point(142.1 64.1)'],
    ["geography'POINT(10 30)'", 'Edm.Geography', 'POINT(10 30)'],
    ["geometry'SRID=0;Polygon((1 1,1 1),(1 1,2 2,3 3,1 1))'", 'Edm.Geometry', 'SRID=0;Polygon((1 1,1 1),(1 1,2 2,3 3,1 1))'],
  ];
  for (const [input, type, value] of cases) {
    it(input, () => {
      const node = literal(input);
      expect(node.type).toBe(type);
      expect(node.value).toEqual(value);
    });
  }

  it("Sales.Pattern'Solid,Yellow'", () => {
    expect(literal("Sales.Pattern'Solid,Yellow'")).toMatchObject({ type: 'enum', enumType: 'Sales.Pattern', value: ['Solid', 'Yellow'] });
  });
});

describe('invalid literals give invalid_literal with the literal position', () => {
  const cases = [
    'Birth eq 2012-13-01',
    'Birth eq 2011-02-29',
    'Birth eq 2012-09-03T24:00Z',
    'Birth eq 2012-09-03T23:60Z',
    "Span eq duration'P1Y'",
    "Data eq binary'Z'",
    "Data eq binary'Zm9v!'",
    "Loc eq geography'SRID=0;Point(1)'",
    "Color eq Pattern'Red'",
    "Color eq Ns.Pattern'Red Blue'",
  ];
  for (const input of cases) {
    it(input, () => {
      let error: unknown;
      try {
        parseFilter(input);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ODataError);
      const odata = error as ODataError;
      expect(odata.code).toBe('invalid_literal');
      expect(odata.position).toBe(input.indexOf(' eq ') + 4);
      expect(odata.option).toBe('$filter');
    });
  }
});
