/**
 * The shape of a query text (issue 15): the text with each replaceable literal turned into a
 * marker of its class, so that requests which differ only in such literals share one plan.
 *
 * A literal is replaceable (a *slot*) only where its value cannot change the query's typing or
 * limits, and the marker says everything about the value that a compile may depend on:
 * - a string of letters, digits and spaces (`'milk'`); its class says which of lower-case,
 *   upper-case letters, digits, inner, leading and trailing spaces it has (`tolower(x) eq 'A'`
 *   matches nothing, `'a'` may match);
 * - an Int32 in canonical form, by the range it lies in between the edges of the integer types
 *   (Byte, SByte, Int16, Int32); a value within 2 of an edge stays exact;
 * - a decimal (`2.5`) by its sign and its numbers of digits (precision and scale checks);
 * - a date of the years 1900–2099 (its validity is checked by the parser's own `checkDate`).
 *
 * Everything else stays exact in the key: `null`, booleans, enums, durations, doubles, Int64,
 * other strings, `$top`/`$skip`/`$levels` (any literal after `=`), literals in `$search`,
 * `$select`, JSON and aliases (a text with an alias option or a `"` has no shape).
 *
 * The scan is not the full lexer (it costs a fraction of it): it only marks a literal that the
 * lexer reads as one token whatever its value, a quoted plain string or a number or date with a
 * delimiter (start, blank, `(`, `,`) before it and one (end, blank, `)`, `,`, `;`) after it, and
 * everything else of the text stays in the key as written, so two texts with one key lex alike
 * but for those literals (test/cache/shape-cache.test.ts checks the slots against `lex`).
 */
import { checkDate, decodeNumber } from '../syntax/literals.js';

/** The classes of slots. */
export type SlotKind = 'string' | 'int32' | 'decimal' | 'date';

/** One replaceable literal of a query text. */
export interface Slot {
  readonly kind: SlotKind;
  /** Index of its part (`name=value`) among the query string's parts. */
  readonly part: number;
  /** The canonical name of its option (`filter`, `orderby`, `expand`). */
  readonly option: string;
  /** Offset of the token in the percent-decoded option value (where the parser's spans count). */
  readonly offset: number;
  /** The token as written. */
  readonly image: string;
  /** The literal's value as the parser reads it (`decodeNumber`, the string's body). */
  readonly value: string | number;
  /** The class written into the key. */
  readonly marker: string;
}

/** One `name=value` part of the text; `name` and `value` are the decoded name and value of a scanned option. */
interface ShapePart {
  readonly raw: string;
  readonly rawName: string;
  readonly name?: string;
  readonly value?: string;
}

/**
 * A query text's shape: its slots, and what rebuilds the text with other literals. Two texts have
 * one shape when their `key`s (the text with every slot replaced by its marker) are equal; the
 * cache finds a shape by its `hash` and {@link sameShape}, without building the key.
 */
export class QueryShape {
  #key: string | undefined;
  constructor(
    /** A hash of the key (equal keys, equal hashes). */
    readonly hash: number,
    readonly slots: readonly Slot[],
    readonly parts: readonly ShapePart[],
    readonly prefix: string,
  ) {}

  /** The text with every slot replaced by its marker (built when first read). */
  get key(): string {
    return (this.#key ??= keyOf(this));
  }
}

function keyOf(shape: QueryShape): string {
  let key = '';
  let s = 0;
  shape.parts.forEach((part, index) => {
    if (part.value === undefined) {
      key += `${MARK}&${part.raw}`;
      return;
    }
    key += `${MARK}&${part.name as string}=`;
    let at = 0;
    for (; s < shape.slots.length && (shape.slots[s] as Slot).part === index; s++) {
      const slot = shape.slots[s] as Slot;
      key += `${part.value.slice(at, slot.offset)}${MARK}${slot.marker}${MARK}`;
      at = slot.offset + slot.image.length;
    }
    key += part.value.slice(at);
  });
  return key;
}

/** Whether `a` and `b` have `length` equal characters from `i` and from `j`. */
function regionEquals(a: string, i: number, b: string, j: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
}

/** Whether two shapes are one (their keys are equal), compared part by part without building the keys. */
export function sameShape(a: QueryShape, b: QueryShape): boolean {
  if (a === b) return true;
  if (a.hash !== b.hash || a.parts.length !== b.parts.length || a.slots.length !== b.slots.length) return false;
  let s = 0;
  for (let p = 0; p < a.parts.length; p++) {
    const x = a.parts[p] as ShapePart;
    const y = b.parts[p] as ShapePart;
    if (x.value === undefined || y.value === undefined) {
      if (x.value !== y.value || x.raw !== y.raw) return false;
      continue;
    }
    if (x.name !== y.name) return false;
    let ax = 0;
    let ay = 0;
    for (; s < a.slots.length && (a.slots[s] as Slot).part === p; s++) {
      const sx = a.slots[s] as Slot;
      const sy = b.slots[s] as Slot;
      const length = sx.offset - ax;
      if (sy.part !== p || sx.marker !== sy.marker || sy.offset - ay !== length || !regionEquals(x.value, ax, y.value, ay, length)) return false;
      ax = sx.offset + sx.image.length;
      ay = sy.offset + sy.image.length;
    }
    if (s < b.slots.length && (b.slots[s] as Slot).part === p) return false;
    const rest = x.value.length - ax;
    if (y.value.length - ay !== rest || !regionEquals(x.value, ax, y.value, ay, rest)) return false;
  }
  return true;
}

const mix = (h: number, v: number): number => Math.imul(h ^ v, 16777619);

/** Mixes the length of `text`'s region [from, to) and up to 4 characters spread over it into `h` (a collision costs a comparison). */
function mixRegion(h: number, text: string, from: number, to: number): number {
  const length = to - from;
  h = mix(h, length);
  const step = length <= 4 ? 1 : length >>> 2;
  for (let i = to - 1; i >= from; i -= step) h = mix(h, text.charCodeAt(i));
  return h;
}

/** Options whose values are expressions scanned for slots (canonical names). */
const SCANNED = new Set(['filter', 'orderby', 'expand']);
/** Edges of the integer types' ranges: a class is the range between two of them. */
const EDGES = [-2147483648, -32768, -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2147483647];
/** Markers cannot occur in a scanned option (a `"`, a NUL or a nested `$search` is not scanned). */
const MARK = '\u0000';
const UNSCANNABLE = /["\u0000]|search=/i;

/** Before a slot: the start, a blank, `(` or `,`. */
const isBefore = (c: number): boolean => c === 32 || c === 9 || c === 40 || c === 44;
/** After a slot: the end (`NaN`), a blank, `)`, `,` or `;`. */
const isAfter = (c: number): boolean => Number.isNaN(c) || c === 32 || c === 9 || c === 41 || c === 44 || c === 59;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
/** The markers of plain strings by class bits, and of Int32s by range (made once, not per slot). */
const STRING_MARKERS = Array.from({ length: 64 }, (_, bits) => `s${bits}`);
const INT_MARKERS = Array.from({ length: EDGES.length + 1 }, (_, range) => `i${range}`);

function decode(text: string, plusAsSpace: boolean): string | undefined {
  if (!text.includes('%') && !(plusAsSpace && text.includes('+'))) return text;
  try {
    return decodeURIComponent(plusAsSpace ? text.replaceAll('+', ' ') : text);
  } catch {
    return undefined;
  }
}

/**
 * The class of a plain string (letters, digits, spaces; at most 64, not only spaces) as bits:
 * 1 lower-case, 2 upper-case, 4 digits, 8 inner, 16 leading, 32 trailing spaces; -1 when not plain.
 */
function stringBits(text: string): number {
  if (text.length === 0 || text.length > 64) return -1;
  let bits = 0;
  let first = -1;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) bits |= 1;
    else if (c >= 65 && c <= 90) bits |= 2;
    else if (c >= 48 && c <= 57) bits |= 4;
    else if (c !== 32) return -1;
    if (c !== 32) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first < 0) return -1;
  if (first > 0) bits |= 16;
  if (last < text.length - 1) bits |= 32;
  if (text.slice(first, last + 1).includes(' ')) bits |= 8;
  return bits;
}

/** The range class of an Int32, or `undefined` within 2 of an edge (then it stays exact). */
function intClass(value: number): number | undefined {
  let below = 0;
  for (const edge of EDGES) {
    if (Math.abs(value - edge) <= 2) return undefined;
    if (edge < value) below++;
  }
  return below;
}

/** The class of a decimal `[-]whole.fraction`: sign, digit counts, zero or trailing-zero fraction. */
function decimalClass(image: string): string {
  const negative = image.charCodeAt(0) === 45;
  const dot = image.indexOf('.');
  const whole = dot - (negative ? 1 : 0);
  const fraction = image.length - dot - 1;
  let zeros = true;
  for (let i = dot + 1; i < image.length; i++) if (image.charCodeAt(i) !== 48) zeros = false;
  const wholeZero = whole === 1 && image.charCodeAt(dot - 1) === 48;
  return `${negative ? '-' : '+'}${wholeZero ? 0 : whole}.${fraction}${zeros ? 'z' : image.endsWith('0') ? '0' : ''}`;
}

/**
 * Appends the slots of one decoded expression option to `slots`; `false` when the option cannot
 * be scanned safely (an unterminated string, a `"`, a nested `$search`, an invalid date).
 */
function scan(text: string, part: number, option: string, slots: Slot[]): boolean {
  if (UNSCANNABLE.test(text)) return false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    // Most characters (names, operators, blanks) start no slot: one comparison each.
    if (c !== 39 && c !== 45 && (c < 48 || c > 57)) {
      i++;
      continue;
    }
    const delimited = i === 0 || isBefore(text.charCodeAt(i - 1));
    if (c === 39) {
      let j = i + 1;
      for (;;) {
        j = text.indexOf("'", j);
        if (j < 0) return false;
        if (text.charCodeAt(j + 1) !== 39) break;
        j += 2;
      }
      if (delimited && isAfter(text.charCodeAt(j + 1))) {
        const body = text.slice(i + 1, j);
        const bits = stringBits(body);
        if (bits >= 0)
          slots.push({ kind: 'string', part, option, offset: i, image: text.slice(i, j + 1), value: body, marker: STRING_MARKERS[bits] as string });
      }
      i = j + 1;
      continue;
    }
    const negative = c === 45;
    if (delimited && (c !== 45 || isDigit(text.charCodeAt(i + 1)))) {
      let j = negative ? i + 1 : i;
      while (isDigit(text.charCodeAt(j))) j++;
      const digits = j - i - (negative ? 1 : 0);
      let slot: Slot | undefined;
      if (text.charCodeAt(j) === 45) {
        // `dddd-dd-dd` of the years 1900–2099, else a longer token (a date-time, a GUID…).
        const image = text.slice(i, j + 6);
        if (!negative && digits === 4 && /^(?:19|20)\d\d-\d\d-\d\d$/.test(image) && isAfter(text.charCodeAt(j + 6))) {
          try {
            checkDate(image);
          } catch {
            return false;
          }
          slot = { kind: 'date', part, option, offset: i, image, value: image, marker: 'd' };
          j += 6;
        }
      } else if (text.charCodeAt(j) === 46 && isDigit(text.charCodeAt(j + 1))) {
        let k = j + 1;
        while (isDigit(text.charCodeAt(k))) k++;
        const image = text.slice(i, k);
        if (isAfter(text.charCodeAt(k)) && digits <= 15 && k - j - 1 <= 15 && (digits === 1 || text.charCodeAt(negative ? i + 1 : i) !== 48)) {
          const number = decodeNumber(image);
          if (number.type === 'Edm.Decimal') slot = { kind: 'decimal', part, option, offset: i, image, value: number.value, marker: `m${decimalClass(image)}` };
        }
        j = k;
      } else if (isAfter(text.charCodeAt(j)) && digits <= 10) {
        const image = text.slice(i, j);
        const number = decodeNumber(image);
        const value = number.type === 'Edm.Int32' && String(number.value) === image ? number.value : undefined;
        const range = value === undefined ? undefined : intClass(value);
        if (value !== undefined && range !== undefined) slot = { kind: 'int32', part, option, offset: i, image, value, marker: INT_MARKERS[range] as string };
      }
      if (slot !== undefined) slots.push(slot);
      i = j;
      continue;
    }
    i++;
  }
  return true;
}

/**
 * The shape of a query string, or `undefined` when it has none (no slot, an alias, a `#`, an
 * undecodable part, an option that cannot be scanned): such a text is cached by its exact text only.
 */
export function shapeOf(query: string, plusAsSpace: boolean): QueryShape | undefined {
  if (query.includes('#')) return undefined;
  const prefix = query.startsWith('?') ? '?' : '';
  const parts: ShapePart[] = [];
  const slots: Slot[] = [];
  let hash = 0x811c9dc5;
  // The parts as `splitQueryString` splits them: at `&`, empty ones dropped, each at its first `=`.
  let start = prefix.length;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    if (end > start) {
      const raw = query.slice(start, end);
      const equals = raw.indexOf('=');
      const rawName = equals < 0 ? raw : raw.slice(0, equals);
      const name = decode(rawName, plusAsSpace);
      if (name === undefined || name.startsWith('@')) return undefined;
      const canonical = (name.startsWith('$') ? name.slice(1) : name).toLowerCase();
      const value = equals < 0 || !SCANNED.has(canonical) ? undefined : decode(raw.slice(equals + 1), plusAsSpace);
      if (value === undefined) {
        parts.push({ raw, rawName });
        hash = mixRegion(mix(hash, 1), raw, 0, raw.length);
      } else {
        const first = slots.length;
        if (!scan(value, parts.length, canonical, slots)) return undefined;
        parts.push({ raw, rawName, name, value });
        hash = mixRegion(mix(hash, 2), name, 0, name.length);
        let at = 0;
        for (let s = first; s < slots.length; s++) {
          const slot = slots[s] as Slot;
          hash = mixRegion(mixRegion(hash, value, at, slot.offset), slot.marker, 0, slot.marker.length);
          at = slot.offset + slot.image.length;
        }
        hash = mixRegion(hash, value, at, value.length);
      }
    }
    start = end + 1;
  }
  return slots.length === 0 ? undefined : new QueryShape(hash, slots, parts, prefix);
}

/** The query text of `shape` with `images` in place of its slots' tokens. */
export function withImages(shape: QueryShape, images: readonly string[]): string {
  const texts = shape.parts.map((part, index) => {
    if (part.value === undefined) return part.raw;
    let value = '';
    let at = 0;
    shape.slots.forEach((slot, s) => {
      if (slot.part !== index) return;
      value += `${part.value!.slice(at, slot.offset)}${images[s]}`;
      at = slot.offset + slot.image.length;
    });
    return `${part.rawName}=${encodeURIComponent(value + part.value!.slice(at))}`;
  });
  return shape.prefix + texts.join('&');
}

const LOWER = 'qzxjwvkbmfhgpdyrnctslaoeiu';
const DIGITS = '7391502846';

/**
 * Another token of the same class as `slot` (so another text of the same shape), different from
 * it and, for different `seed`s, from each other: the probes a shape's plan is learned from.
 * `undefined` when the class has no other value.
 */
export function probeImage(slot: Slot, seed: number): string | undefined {
  const pick = (alphabet: string, k: number): string => alphabet[(seed * 7 + k * 3) % alphabet.length] as string;
  switch (slot.kind) {
    case 'string': {
      const bits = stringBits(slot.value as string);
      const pools = [bits & 1 ? LOWER : '', bits & 2 ? LOWER.toUpperCase() : '', bits & 4 ? DIGITS : ''].filter((p) => p !== '');
      const length = (slot.value as string).replaceAll(' ', '').length + 1 + (seed % 3);
      let core = '';
      for (let k = 0; k < Math.max(length, pools.length, bits & 8 ? 2 : 1); k++) core += pick(pools[k % pools.length] as string, k + seed);
      if (bits & 8) core = `${core.slice(0, 1)} ${core.slice(1)}`;
      return `'${bits & 16 ? ' ' : ''}${core}${bits & 32 ? ' ' : ''}'`;
    }
    case 'int32': {
      const range = intClass(slot.value as number) as number;
      const low = (range === 0 ? -2147483648 : (EDGES[range - 1] as number)) + 3;
      const high = (range === EDGES.length ? 2147483647 : (EDGES[range] as number)) - 3;
      if (high - low < 4) return undefined;
      for (let k = 0; k < 8; k++) {
        const value = low + ((seed * 7919 + k * 104729 + 13) % (high - low + 1));
        if (value !== slot.value && intClass(value) === range) return String(value);
      }
      return undefined;
    }
    case 'decimal': {
      const negative = slot.image.startsWith('-');
      const [whole = '', fraction = ''] = (negative ? slot.image.slice(1) : slot.image).split('.');
      const digits = (count: number, k0: number, nonZeroFirst: boolean): string =>
        Array.from({ length: count }, (_, k) => {
          const d = pick(DIGITS, k + k0);
          return k === 0 && nonZeroFirst && d === '0' ? '5' : d;
        }).join('');
      const newWhole = whole === '0' ? '0' : digits(whole.length, seed, true);
      let newFraction = /^0+$/.test(fraction) ? fraction : digits(fraction.length, seed + 5, false);
      if (!/^0+$/.test(fraction)) {
        newFraction = fraction.endsWith('0')
          ? `${newFraction.slice(0, -1)}0`
          : `${newFraction.slice(0, -1)}${newFraction.endsWith('0') ? '4' : newFraction.slice(-1)}`;
        if (/^0+$/.test(newFraction)) newFraction = `${'0'.repeat(newFraction.length - 1)}${fraction.endsWith('0') ? '0' : '6'}`;
      }
      const image = `${negative ? '-' : ''}${newWhole}.${newFraction}`;
      return image === slot.image || decimalClass(image) !== decimalClass(slot.image) ? undefined : image;
    }
    case 'date': {
      const year = 1901 + ((seed * 37 + 11) % 198);
      const month = 1 + ((seed * 5) % 12);
      const day = 1 + ((seed * 11) % 28);
      const image = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
      return image === slot.image ? undefined : image;
    }
  }
}
