/**
 * The harness compares values by their EDM type whatever representation a driver chose, and finds
 * every real difference.
 */
import { describe, expect, it } from 'vitest';
import { compareValue } from '../../src/testing/compare-values.js';
import type { ExpressionType } from '../../src/semantic/types.js';

const t = (name: string): ExpressionType => ({ kind: 'primitive', name }) as ExpressionType;

describe('compareValue', () => {
  it.each([
    ['Edm.Duration', 'P1D', '1 day'],
    ['Edm.Duration', 'P1DT2H', '1 day 02:00:00'],
    ['Edm.Duration', 'PT0.001S', '00:00:00.001'],
    ['Edm.Duration', '-PT1M', '-00:01:00'],
    ['Edm.Duration', 'PT12H', { hours: 12 }],
    ['Edm.Duration', 'PT0S', {}],
    ['Edm.DateTimeOffset', '2024-01-01T00:30:00Z', new Date('2024-01-01T00:30:00Z')],
    ['Edm.DateTimeOffset', '2024-01-01T00:30:00Z', '2024-01-01 00:30:00.000000'],
    ['Edm.DateTimeOffset', '2024-01-01T00:30:00Z', '2024-01-01T00:30:00.000000000000Z'],
    ['Edm.Date', '2000-02-29', new Date('2000-02-29T00:00:00Z')],
    ['Edm.Boolean', true, 1],
    ['Edm.Int64', 9223372036854775807n, '9223372036854775807'],
    ['Edm.Int64', 9223372036854775807n, 9223372036854775807],
    ['Edm.Decimal', '0.1', '0.100000000000000000'],
    ['Edm.Decimal', '12345678901234567890.123456789', 12345678901234567000],
    ['Edm.Double', Number.NaN, Number.NaN],
    ['Edm.Double', -0, 0],
    ['Edm.Guid', 'AAAAAAAA-0000-0000-0000-000000000001', 'aaaaaaaa-0000-0000-0000-000000000001'],
    ['Edm.TimeOfDay', '08:00:00', '08:00:00.000000'],
  ])('%s: %s equals %o', (type, expected, actual) => {
    expect(compareValue(t(type), expected, actual)).toBeUndefined();
  });

  it.each([
    ['Edm.Duration', 'P1D', '1 day 00:00:01'],
    ['Edm.DateTimeOffset', '2024-01-01T00:30:00Z', '2024-01-01 00:30:01.000000'],
    ['Edm.Int64', 9223372036854775807n, '9223372036854775806'],
    ['Edm.Decimal', '0.1', '0.10000000000000000001'],
    ['Edm.Double', 0.1, 0.30000000000000004],
    ['Edm.String', 'a', 'A'],
    ['Edm.Boolean', true, null],
    ['Edm.Date', '2000-02-29', '2000-03-01'],
  ])('%s: %s differs from %o', (type, expected, actual) => {
    expect(compareValue(t(type), expected, actual)).toBeTypeOf('string');
  });
});
