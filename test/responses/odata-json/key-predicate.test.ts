/**
 * Key predicates of canonical URLs (URL Conventions §4.3.1, §5.1.1.14.1 literals) and the
 * names of control information and types by version (JSON Format §4.5, §4.5.3).
 */
import { describe, expect, it } from 'vitest';
import { defineModel, ODataError, type StructuredType } from '../../../src/index.js';
import { controlName, keyLiteral, keyPredicate, typeAnnotation } from '../../../src/responses/odata-json/index.js';
import { trippin } from './models.js';

const keys = defineModel({
  namespace: 'Keys',
  enumTypes: { Color: ['Red', 'Green'] },
  entityTypes: {
    Thing: {
      key: ['Id'],
      properties: {
        Id: 'Edm.Guid',
        Day: 'Edm.Date',
        At: 'Edm.DateTimeOffset',
        Span: 'Edm.Duration',
        Big: 'Edm.Int64',
        Color: 'Color',
        Ratio: 'Edm.Double',
        Raw: 'Edm.Binary',
      },
    },
  },
  entitySets: { Things: { type: 'Thing' } },
});
const thing = keys.types.get('Keys.Thing') as StructuredType;
const literal = (name: string, value: unknown) => keyLiteral(thing.properties.get(name)!, value);

describe('keyLiteral', () => {
  it('each type as its URL literal', () => {
    expect(literal('Id', 'c0ffee00-0000-4000-8000-000000000000')).toBe('c0ffee00-0000-4000-8000-000000000000');
    expect(literal('Day', '2024-02-29')).toBe('2024-02-29');
    expect(literal('At', '2024-02-29T12:00:00Z')).toBe('2024-02-29T12:00:00Z');
    expect(literal('Span', 'P1DT2H')).toBe("duration'P1DT2H'");
    expect(literal('Big', '9223372036854775807')).toBe('9223372036854775807');
    expect(literal('Color', 'Green')).toBe("Keys.Color'Green'");
    expect(literal('Ratio', 1e21)).toBe('1e21');
    expect(literal('Raw', 'AQID')).toBe("binary'AQID'");
  });

  it('a missing key value is an invalid result (500)', () => {
    expect(() => literal('Id', null)).toThrow(ODataError);
  });
});

describe('keyPredicate', () => {
  const person = trippin.types.get('Trippin.Person') as StructuredType;
  const line = trippin.types.get('Trippin.OrderLine') as StructuredType;

  it('a single key without its name, a compound key with names, quotes doubled', () => {
    expect(keyPredicate(person, { UserName: 'russellwhyte', FirstName: 'Russell' })).toBe("('russellwhyte')");
    expect(keyPredicate(line, { Line: "O'Neil", OrderId: 1 })).toBe("(OrderId=1,Line='O''Neil')");
  });

  it('encoded for a URL: spaces, slashes, colons, # and non-ASCII; quotes and parentheses kept', () => {
    expect(keyPredicate(person, { UserName: 'a b/c:d#é(1)' }, { encode: true })).toBe("('a%20b%2Fc%3Ad%23%C3%A9(1)')");
    expect(keyPredicate(thing, { Id: 'c0ffee00-0000-4000-8000-000000000000' }, { encode: true })).toBe('(c0ffee00-0000-4000-8000-000000000000)');
  });

  it('a key property without a value is an invalid result', () => {
    expect(() => keyPredicate(line, { OrderId: 1 })).toThrow(/Line/);
  });
});

describe('names by version', () => {
  it('control information: @odata. in 4.0 or with odataPrefix, @ in 4.01', () => {
    expect(controlName('context', { version: '4.0' })).toBe('@odata.context');
    expect(controlName('context', { version: '4.01' })).toBe('@context');
    expect(controlName('nextLink', { odataPrefix: true })).toBe('@odata.nextLink');
    expect(controlName('navigationLink', {}, 'Friends')).toBe('Friends@navigationLink');
  });

  it('types: built-in primitive types without Edm. (with # in 4.0), others as fragments', () => {
    expect(typeAnnotation('Edm.Int64', { version: '4.0' })).toBe('#Int64');
    expect(typeAnnotation('Edm.Int64')).toBe('Int64');
    expect(typeAnnotation('Trippin.Person')).toBe('#Trippin.Person');
    expect(typeAnnotation('Trippin.Location', { version: '4.0' }, true)).toBe('#Collection(Trippin.Location)');
    expect(typeAnnotation('Edm.String', { version: '4.0' }, true)).toBe('#Collection(String)');
  });
});
