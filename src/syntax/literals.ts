/**
 * Decoding and checking of literal token text. The lexer only recognises the shape of a
 * literal; these functions check its content (a month of 13, a bad base64 group) and compute
 * the value. Each returns the value or throws a LiteralError (the parser adds the position).
 */

/** A literal whose content is invalid; the parser turns it into an `invalid_literal` ODataError. */
export class LiteralError extends Error {
  override readonly name = 'LiteralError';
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export type NumericValue =
  | { readonly type: 'Edm.Int32'; readonly value: number }
  | { readonly type: 'Edm.Int64'; readonly value: bigint }
  | { readonly type: 'Edm.Decimal'; readonly value: string }
  | { readonly type: 'Edm.Double'; readonly value: number };

/** Types a number literal by its text: Int32, then Int64 (exact), then Decimal; exponent means Double. */
export function decodeNumber(text: string): NumericValue {
  // Fast path: up to 9 digits is always an Int32 (the lexer guarantees the shape).
  if (text.length <= 9 && !text.includes('.') && !text.includes('e') && !text.includes('E')) {
    return { type: 'Edm.Int32', value: Number(text) };
  }
  const unsigned = text.startsWith('+') ? text.slice(1) : text;
  if (/[eE]/.test(unsigned)) {
    const value = Number(unsigned);
    if (!Number.isFinite(value)) throw new LiteralError(`'${text}' is out of the range of Edm.Double (use INF or -INF)`);
    return { type: 'Edm.Double', value };
  }
  if (unsigned.includes('.')) return { type: 'Edm.Decimal', value: unsigned };
  const big = BigInt(unsigned);
  if (big >= INT32_MIN && big <= INT32_MAX) return { type: 'Edm.Int32', value: Number(big) };
  if (big >= INT64_MIN && big <= INT64_MAX) return { type: 'Edm.Int64', value: big };
  return { type: 'Edm.Decimal', value: unsigned };
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Checks `[-]YYYY-MM-DD` (ABNF `date`): four-digit-or-more years without superfluous leading zero, real calendar days. */
export function checkDate(text: string): void {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const [yearText = '', monthText = '', dayText = ''] = body.split('-');
  if (yearText.length > 4 && yearText.startsWith('0')) throw new LiteralError(`year '${yearText}' has a leading zero`);
  const year = Number(yearText) * (negative ? -1 : 1);
  const month = Number(monthText);
  const day = Number(dayText);
  if (month < 1 || month > 12) throw new LiteralError(`month '${monthText}' is not between 01 and 12`);
  const days = month === 2 && isLeapYear(Math.abs(year)) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 31);
  if (day < 1 || day > days) throw new LiteralError(`day '${dayText}' does not exist in month ${monthText}`);
}

/** Checks `hh:mm[:ss[.f{1,12}]]` (hours 00-23, seconds up to 60 for leap seconds). */
export function checkTimeOfDay(text: string): void {
  const [hh = '', mm = '', rest] = text.split(':');
  if (Number(hh) > 23) throw new LiteralError(`hour '${hh}' is not between 00 and 23`);
  if (Number(mm) > 59) throw new LiteralError(`minute '${mm}' is not between 00 and 59`);
  if (rest !== undefined) {
    const [ss = '', fraction] = rest.split('.');
    if (Number(ss) > 60) throw new LiteralError(`second '${ss}' is not between 00 and 60`);
    if (fraction !== undefined && fraction.length > 12) throw new LiteralError('fractional seconds have more than 12 digits');
  }
}

/** Checks a DateTimeOffset `date T time (Z | ±hh:mm)`. */
export function checkDateTimeOffset(text: string): void {
  const t = text.search(/[Tt]/);
  checkDate(text.slice(0, t));
  let rest = text.slice(t + 1);
  const last = rest[rest.length - 1];
  if (last === 'Z' || last === 'z') {
    rest = rest.slice(0, -1);
  } else {
    const offset = rest.slice(-6);
    rest = rest.slice(0, -6);
    const [oh = '', om = ''] = offset.slice(1).split(':');
    if (Number(oh) > 23 || Number(om) > 59) throw new LiteralError(`time zone offset '${offset}' is out of range`);
  }
  checkTimeOfDay(rest);
}

/** Checks `[-]P[nD][T[nH][nM][n[.n]S]]` (ABNF `durationValue`: no years or months). */
export function checkDuration(text: string): void {
  if (!/^-?P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?$/.test(text)) {
    throw new LiteralError(`'${text}' is not a duration of the form [-]PnDTnHnMn.nS`);
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Checks base64url (RFC 4648 section 5) with optional `=` padding. */
export function checkBinary(text: string): void {
  const unpadded = text.replace(/={1,2}$/, '');
  if (!BASE64URL.test(unpadded)) throw new LiteralError('binary value is not base64url');
  const rest = unpadded.length % 4;
  if (rest === 1) throw new LiteralError('binary value has a truncated base64 group');
  if (unpadded.length !== text.length && (unpadded.length + (text.length - unpadded.length)) % 4 !== 0) {
    throw new LiteralError('binary value has wrong base64 padding');
  }
}

/** Checks the members of an enum literal: names or (signed) integers, comma-separated. */
export function decodeEnumMembers(text: string): string[] {
  // White space after a comma is tolerated (OData.net accepts `'Green, Red'`).
  const members = text.split(',').map((member, index) => (index === 0 ? member : member.trimStart()));
  for (const member of members) {
    if (!/^(?:[A-Za-z_\u00AA-\uFFFF][A-Za-z0-9_\u00AA-\uFFFF]*|[-+]?\d+)$/.test(member)) {
      throw new LiteralError(`'${member}' is not an enumeration member name or value`);
    }
  }
  return members;
}

/** Decodes the body of a single-quoted literal (`''` stands for `'`). */
export function unquote(quoted: string): string {
  const body = quoted.slice(1, -1);
  return body.includes("''") ? body.replaceAll("''", "'") : body;
}

/** Decodes a JSON string token's text. */
export function decodeJsonString(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    throw new LiteralError(`${quoted} is not a valid JSON string`);
  }
}

// ---------------------------------------------------------------------------------------------
// Well-known text for geography and geometry literals (ABNF `fullPointLiteral` and friends).
// A small recursive-descent checker over the literal's inner text.
// ---------------------------------------------------------------------------------------------

/** Checks `SRID=n;Geometry(…)` as in `geography'SRID=0;Point(142.1 64.1)'`. */
export function checkGeoLiteral(text: string): void {
  const reader = new WktReader(text);
  // The ABNF requires `SRID=n;`; OData.net accepts the bare geometry too (the default SRID then applies).
  if (reader.startsWithWord('SRID')) {
    reader.expectWord('SRID');
    reader.expect('=');
    reader.integer();
    reader.expect(';');
  }
  reader.geometry();
  reader.end();
}

class WktReader {
  private at = 0;
  constructor(private readonly text: string) {}

  private fail(what: string): never {
    throw new LiteralError(`expected ${what} at offset ${this.at} of spatial literal`);
  }

  expect(char: string): void {
    if (this.text[this.at] !== char) this.fail(`'${char}'`);
    this.at++;
  }

  private accept(char: string): boolean {
    if (this.text[this.at] !== char) return false;
    this.at++;
    return true;
  }

  startsWithWord(word: string): boolean {
    return this.text.slice(this.at, this.at + word.length).toUpperCase() === word.toUpperCase();
  }

  expectWord(word: string): void {
    if (this.text.slice(this.at, this.at + word.length).toUpperCase() !== word.toUpperCase()) this.fail(word);
    this.at += word.length;
  }

  integer(): void {
    const start = this.at;
    while (/\d/.test(this.text[this.at] ?? '')) this.at++;
    if (start === this.at) this.fail('a number');
  }

  private number(): void {
    const match = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(this.text.slice(this.at));
    if (!match) this.fail('a coordinate');
    this.at += match[0].length;
  }

  private position(): void {
    this.number();
    this.expect(' ');
    this.number();
    // Optional Z and M coordinates.
    for (let i = 0; i < 2 && this.text[this.at] === ' '; i++) {
      this.at++;
      this.number();
    }
  }

  private list(item: () => void, allowEmpty: boolean): void {
    this.expect('(');
    if (allowEmpty && this.accept(')')) return;
    item();
    while (this.accept(',')) item();
    this.expect(')');
  }

  /** A ring of a polygon: its last position must equal its first (OData.net rejects open rings). */
  private ring = (): void => {
    const start = this.at;
    this.list(() => this.position(), false);
    const positions = this.text
      .slice(start + 1, this.at - 1)
      .split(',')
      .map((p) => p.trim());
    if (positions[0] !== positions[positions.length - 1]) this.fail('a closed ring (the last position equal to the first)');
  };
  private lineString = (): void => this.list(() => this.position(), false);
  private polygonBody = (): void => this.list(this.ring, false);

  geometry(): void {
    const match = /^[A-Za-z]+/.exec(this.text.slice(this.at));
    if (!match) this.fail('a geometry type');
    const kind = match[0].toLowerCase();
    this.at += match[0].length;
    switch (kind) {
      case 'point':
        this.list(() => this.position(), false);
        return;
      case 'linestring':
        this.list(() => this.position(), false);
        return;
      case 'polygon':
        this.polygonBody();
        return;
      case 'multipoint':
        this.list(() => this.list(() => this.position(), false), true);
        return;
      case 'multilinestring':
        this.list(this.lineString, true);
        return;
      case 'multipolygon':
        this.list(this.polygonBody, true);
        return;
      case 'geometrycollection':
      case 'collection':
        this.list(() => this.geometry(), true);
        return;
      default:
        this.fail('Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon or Collection');
    }
  }

  end(): void {
    if (this.at !== this.text.length) this.fail('the end');
  }
}
