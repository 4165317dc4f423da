/**
 * Exact temporal values: instants and durations in picoseconds (`bigint`), so that the 12 digits
 * of fractional seconds OData allows survive, and date parts in the value's own offset.
 */

const PICOS_PER_SECOND = 1_000_000_000_000n;
const PICOS_PER_MINUTE = 60n * PICOS_PER_SECOND;
const PICOS_PER_DAY = 86_400n * PICOS_PER_SECOND;

/** A DateTimeOffset: its instant, and its wall-clock parts in its own offset. */
export interface Instant {
  readonly kind: 'instant';
  /** Picoseconds since 1970-01-01T00:00:00Z. */
  readonly picos: bigint;
  readonly offsetMinutes: number;
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Fraction of the second, in picoseconds (0 to 10^12 − 1). */
  readonly fractionPicos: bigint;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day number (inverse of {@link daysFromCivil}). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const DATE = /^(-?\d{4,})-(\d\d)-(\d\d)$/;
const TIME = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,12}))?)?$/;
const DATE_TIME = /^(-?\d{4,})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?(?:([Zz])|([+-])(\d\d):?(\d\d))?$/;

function fractionToPicos(fraction: string | undefined): bigint {
  if (fraction === undefined || fraction === '') return 0n;
  return BigInt(fraction.slice(0, 12).padEnd(12, '0'));
}

/** Days since the epoch of an `Edm.Date` (`YYYY-MM-DD` text, or a `Date` read in UTC). */
export function parseDate(value: unknown): number | undefined {
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? undefined : daysFromCivil(value.getUTCFullYear(), value.getUTCMonth() + 1, value.getUTCDate());
  if (typeof value !== 'string') return undefined;
  const match = DATE.exec(value);
  if (match === null) return undefined;
  return daysFromCivil(Number(match[1]), Number(match[2]), Number(match[3]));
}

export function formatDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const y = year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0');
  return `${y}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** An `Edm.DateTimeOffset` from ISO text (offset kept; none means UTC) or a `Date` (UTC). */
export function parseInstant(value: unknown): Instant | undefined {
  if (typeof value === 'object' && value !== null && (value as Instant).kind === 'instant') return value as Instant;
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) return undefined;
    return instantFromPicos(BigInt(ms) * 1_000_000_000n, 0);
  }
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const offsetMinutes = zulu !== undefined || sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const fractionPicos = fractionToPicos(fraction);
  const localPicos = BigInt(daysFromCivil(year, month, day)) * PICOS_PER_DAY + BigInt(hour * 3600 + minute * 60 + second) * PICOS_PER_SECOND + fractionPicos;
  return {
    kind: 'instant',
    picos: localPicos - BigInt(offsetMinutes) * PICOS_PER_MINUTE,
    offsetMinutes,
    year,
    month,
    day,
    hour,
    minute,
    second,
    fractionPicos,
  };
}

/** The instant at `picos` (UTC), shown in the given offset. */
export function instantFromPicos(picos: bigint, offsetMinutes: number): Instant {
  const local = picos + BigInt(offsetMinutes) * PICOS_PER_MINUTE;
  let days = local / PICOS_PER_DAY;
  let rest = local % PICOS_PER_DAY;
  if (rest < 0n) {
    rest += PICOS_PER_DAY;
    days -= 1n;
  }
  const { year, month, day } = civilFromDays(Number(days));
  const seconds = Number(rest / PICOS_PER_SECOND);
  return {
    kind: 'instant',
    picos,
    offsetMinutes,
    year,
    month,
    day,
    hour: Math.floor(seconds / 3600),
    minute: Math.floor((seconds % 3600) / 60),
    second: seconds % 60,
    fractionPicos: rest % PICOS_PER_SECOND,
  };
}

/** Picoseconds since midnight of an `Edm.TimeOfDay` text. */
export function parseTimeOfDay(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'string') return undefined;
  const match = TIME.exec(value);
  if (match === null) return undefined;
  const [, h, m, s, fraction] = match;
  return BigInt(Number(h) * 3600 + Number(m) * 60 + (s === undefined ? 0 : Number(s))) * PICOS_PER_SECOND + fractionToPicos(fraction);
}

export function formatTimeOfDay(picos: bigint): string {
  const seconds = Number(picos / PICOS_PER_SECOND);
  const fraction = picos % PICOS_PER_SECOND;
  const base = `${String(Math.floor(seconds / 3600)).padStart(2, '0')}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
  return fraction === 0n ? base : `${base}.${fraction.toString().padStart(12, '0').replace(/0+$/, '')}`;
}

const DURATION = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?)?$/;

/** Picoseconds of an `Edm.Duration` (`-P1DT2H3M4.5S`). */
export function parseDuration(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value);
  if (match === null) return undefined;
  const [, negative, d, h, m, s, fraction] = match;
  const seconds = BigInt(d ?? 0) * 86_400n + BigInt(h ?? 0) * 3600n + BigInt(m ?? 0) * 60n + BigInt(s ?? 0);
  const total = seconds * PICOS_PER_SECOND + fractionToPicos(fraction);
  return negative === undefined ? total : -total;
}

export { PICOS_PER_DAY, PICOS_PER_MINUTE, PICOS_PER_SECOND };

/** ISO 8601 text of an instant in its own offset (`2024-01-01T00:30:00+01:00`, `…Z` for UTC). */
export function formatInstant(instant: Instant): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const fraction = instant.fractionPicos === 0n ? '' : `.${instant.fractionPicos.toString().padStart(12, '0').replace(/0+$/, '')}`;
  const offset = instant.offsetMinutes;
  const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const year = instant.year < 0 ? `-${pad(-instant.year, 4)}` : pad(instant.year, 4);
  return `${year}-${pad(instant.month)}-${pad(instant.day)}T${pad(instant.hour)}:${pad(instant.minute)}:${pad(instant.second)}${fraction}${zone}`;
}

/** ISO 8601 text of a duration in picoseconds (`P1DT2H`, `-PT0.5S`). */
export function formatDuration(picos: bigint): string {
  const negative = picos < 0n;
  let rest = negative ? -picos : picos;
  const days = rest / PICOS_PER_DAY;
  rest %= PICOS_PER_DAY;
  const seconds = rest / PICOS_PER_SECOND;
  const fraction = rest % PICOS_PER_SECOND;
  const h = seconds / 3600n;
  const m = (seconds % 3600n) / 60n;
  const s = seconds % 60n;
  let time = '';
  if (h > 0n) time += `${h}H`;
  if (m > 0n) time += `${m}M`;
  if (s > 0n || fraction > 0n) time += `${s}${fraction === 0n ? '' : `.${fraction.toString().padStart(12, '0').replace(/0+$/, '')}`}S`;
  const body = `${days > 0n ? `${days}D` : ''}${time === '' ? '' : `T${time}`}`;
  return `${negative ? '-' : ''}P${body === '' ? '0D' : body}`;
}

/** Days since the epoch of 0001-01-01 and of 9999-12-31: the years every backend stores. */
export const FIRST_STORED_DAY = daysFromCivil(1, 1, 1);
export const LAST_STORED_DAY = daysFromCivil(9999, 12, 31);

/**
 * Whether an `Edm.Date` or `Edm.DateTimeOffset` literal lies in the years 1 to 9999, as written and
 * (for an instant) in UTC: the range .NET, PostgreSQL's ISO input, MySQL/MariaDB and the reference's
 * results share (a computed value outside it is null).
 */
export function inStoredYears(type: 'Edm.Date' | 'Edm.DateTimeOffset', text: string): boolean {
  if (type === 'Edm.Date') {
    const days = parseDate(text);
    return days !== undefined && days >= FIRST_STORED_DAY && days <= LAST_STORED_DAY;
  }
  const instant = parseInstant(text);
  if (instant === undefined || instant.year < 1 || instant.year > 9999) return false;
  return instant.picos >= BigInt(FIRST_STORED_DAY) * PICOS_PER_DAY && instant.picos < BigInt(LAST_STORED_DAY + 1) * PICOS_PER_DAY;
}

/**
 * The largest Edm.Duration magnitude: .NET's TimeSpan (2^63 - 1 ticks of 100 ns, about 29 000
 * years), what OData.net parses. Every backend stores and computes such a duration (PostgreSQL's
 * interval holds 2^31 days, its microseconds 2^63).
 */
export const MAX_DURATION_PICOS = (2n ** 63n - 1n) * 100_000n;

/** Whether an `Edm.Duration` literal lies within {@link MAX_DURATION_PICOS} either way. */
export function inDurationRange(text: string): boolean {
  const picos = parseDuration(text);
  return picos !== undefined && picos <= MAX_DURATION_PICOS && picos >= -MAX_DURATION_PICOS;
}
