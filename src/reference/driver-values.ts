/**
 * How SQL drivers hand back EDM values, and the one rule that brings each of their forms to what
 * the reference's value domains read: PostgreSQL's `Date`s and intervals (text or node-postgres's
 * object), MariaDB's `YYYY-MM-DD hh:mm:ss.ffffff`, SQLite's and MySQL's 0/1 Booleans. Used by
 * the SQL row reader and by the cross-backend harness's comparison.
 */
import type { ExpressionType } from '../semantic/types.js';

const SECONDS_PER_UNIT: Record<string, number> = { year: 365.25 * 86400, mon: 30 * 86400, day: 86400, hour: 3600, minute: 60, second: 1 };

/**
 * The calendar day of a `Date` read for an Edm.Date: node-postgres makes local midnight of a
 * `date` column, other drivers UTC midnight; a `Date` at local midnight is read in local time.
 */
function dateOfDate(value: Date): string {
  const local = value.getHours() === 0 && value.getMinutes() === 0 && value.getSeconds() === 0 && value.getMilliseconds() === 0;
  if (!local || Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(value.getFullYear(), 4)}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
}

/** Picoseconds (as bigint, like the reference) of a PostgreSQL interval, as text or as node-postgres's object. */
function intervalPicos(value: unknown): bigint | undefined {
  const PICOS = 1_000_000_000_000;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)) {
    const v = value as Record<string, number | undefined>;
    const known = ['years', 'months', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'];
    if (!Object.keys(v).every((k) => known.includes(k) && typeof v[k] === 'number')) return undefined;
    const seconds =
      (v.years ?? 0) * SECONDS_PER_UNIT.year! +
      (v.months ?? 0) * SECONDS_PER_UNIT.mon! +
      (v.days ?? 0) * 86400 +
      (v.hours ?? 0) * 3600 +
      (v.minutes ?? 0) * 60 +
      (v.seconds ?? 0);
    return BigInt(Math.round(seconds * 1000 + (v.milliseconds ?? 0))) * BigInt(PICOS / 1000);
  }
  if (typeof value !== 'string' || value.startsWith('P') || value.startsWith('-P')) return undefined;
  // PostgreSQL's interval output: '1 day', '-2 days -03:00:00', '365 days 00:00:00.001', '12:00:00'.
  const match = /^(?:(-?\d+) years? ?)?(?:(-?\d+) mons? ?)?(?:(-?\d+) days? ?)?(?:(-?)(\d+):(\d\d):(\d\d)(?:\.(\d+))?)?$/.exec(value.trim());
  if (match === null) return undefined;
  const [, years, months, days, sign, h, m, s, fraction] = match;
  let picos =
    BigInt(years ?? 0) * BigInt(SECONDS_PER_UNIT.year! * PICOS) +
    BigInt(months ?? 0) * BigInt(SECONDS_PER_UNIT.mon! * PICOS) +
    BigInt(days ?? 0) * BigInt(86400 * PICOS);
  if (h !== undefined) {
    const time = (BigInt(h) * 3600n + BigInt(m ?? 0) * 60n + BigInt(s ?? 0)) * BigInt(PICOS) + BigInt((fraction ?? '').padEnd(12, '0').slice(0, 12) || '0');
    picos += sign === '-' ? -time : time;
  }
  return picos;
}

/**
 * A driver's representation of a value of `type` brought to what the reference's domains read
 * (other values are returned as they are).
 */
export function driverValue(value: unknown, type: ExpressionType): unknown {
  if (type.kind !== 'primitive') return value;
  switch (type.name) {
    case 'Edm.Boolean':
      return value === 1 || value === 1n || value === '1' || value === 't'
        ? true
        : value === 0 || value === 0n || value === '0' || value === 'f'
          ? false
          : value;
    case 'Edm.Date':
      if (value instanceof Date) return dateOfDate(value);
      return typeof value === 'string' && /^\d{4}-\d\d-\d\d[T ]/.test(value) ? value.slice(0, 10) : value;
    case 'Edm.DateTimeOffset':
      if (value instanceof Date) return value.toISOString();
      if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\d \d\d:\d\d/.test(value)) return value;
      // MariaDB's `2024-01-01 00:30:00.000000` (UTC), PostgreSQL's text `2024-01-01 00:30:00+01`.
      return /[Z+-]\d*:?\d*$/.test(value.slice(19)) ? value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00') : `${value.replace(' ', 'T')}Z`;
    case 'Edm.Duration': {
      const picos = intervalPicos(value);
      return picos === undefined ? value : picos;
    }
    default:
      return value;
  }
}
