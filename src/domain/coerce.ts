/**
 * Tolerant readers for untrusted upstream JSON. None of them throws: a value of the wrong
 * type, '' or null reads as null (or [] for lists), so one odd record never fails a query.
 */

export type WireRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is WireRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown): WireRecord | null {
  return isRecord(value) ? value : null;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Strings; '' (the upstream's "no value") becomes null; numbers and booleans are stringified. */
export function str(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return null;
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim())) return Number(value);
  return null;
}

export function num(value: unknown): number | null {
  return toNumber(value);
}

const INT32_MAX = 2 ** 31 - 1;
/** GraphQL Int is 32-bit: a larger upstream integer would fail serialization, so it reads as null. */
export function int32(value: unknown): number | null {
  const n = toNumber(value);
  return n !== null && Number.isInteger(n) && n >= -INT32_MAX - 1 && n <= INT32_MAX ? n : null;
}

export function safeInt(value: unknown): number | null {
  const n = toNumber(value);
  return n !== null && Number.isSafeInteger(n) ? n : null;
}

export function bool(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 1) return true;
  if (value === 'false' || value === 0) return false;
  return null;
}

const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
/** Epoch values above this are milliseconds (year 5138 in seconds): the synthetic ts is ms. */
const EPOCH_MS_THRESHOLD = 1e11;

/**
 * Upstream timestamps: `yyyy-MM-ddTHH:mm:ss+hhmm` with any offset (also `Z`, `+hh:mm`, `+hh`,
 * fractions, no offset = UTC), or epoch seconds (milliseconds when too large for seconds).
 */
export function time(value: unknown): Date | null {
  if (typeof value === 'number') return epoch(value);
  if (typeof value !== 'string') return null;
  const fast = upstreamFormat(value);
  if (fast !== undefined) return fast;
  const text = value.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) return epoch(Number(text));
  const m = TIME_RE.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(Number(y), month) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return null;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const sign = digits[0] === '-' ? -1 : 1;
    const hours = Number(digits.slice(1, 3));
    const minutes = digits.length > 3 ? Number(digits.slice(3, 5)) : 0;
    if (hours > 18 || minutes > 59) return null;
    offsetMinutes = sign * (hours * 60 + minutes);
  }
  const ms = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0').slice(0, 3)));
  const date = new Date(ms - offsetMinutes * 60_000);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** 2026-02-30 is not a date, although Date.UTC would roll it over to March. */
function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const digit = (text: string, i: number) => text.charCodeAt(i) - 48;
const two = (text: string, i: number) => digit(text, i) * 10 + digit(text, i + 1);

/**
 * Fast path for the upstream's own form, yyyy-MM-ddTHH:mm:ss±hhmm (24 characters), which is
 * most timestamps on a page; undefined hands anything else to the general parser.
 */
function upstreamFormat(text: string): Date | null | undefined {
  if (text.length !== 24 || text[10] !== 'T' || text[4] !== '-' || text[7] !== '-' || text[13] !== ':' || text[16] !== ':') return undefined;
  const sign = text[19] === '+' ? 1 : text[19] === '-' ? -1 : 0;
  if (sign === 0) return undefined;
  for (const i of [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22, 23]) {
    const d = text.charCodeAt(i);
    if (d < 48 || d > 57) return undefined;
  }
  const month = two(text, 5);
  const day = two(text, 8);
  const hours = two(text, 11);
  const minutes = two(text, 14);
  const seconds = two(text, 17);
  const offsetHours = two(text, 20);
  const offsetMinutes = two(text, 22);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60 || offsetHours > 18 || offsetMinutes > 59) return null;
  const year = two(text, 0) * 100 + two(text, 2);
  if (day > daysIn(year, month)) return null;
  const ms = Date.UTC(year, month - 1, day, hours, minutes, seconds) - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(ms);
}

function epoch(value: number): Date | null {
  if (!Number.isFinite(value) || value <= 0) return null;
  const date = new Date(value >= EPOCH_MS_THRESHOLD ? value : value * 1000);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Splits the upstream's joined lists ('a,b', 'x;y'), trimming and dropping empties. */
export function splitList(value: unknown, separator: string | RegExp): string[] {
  const text = str(value);
  return text === null ? [] : text.split(separator).map((s) => s.trim()).filter((s) => s !== '');
}

/** Maps each element, dropping elements that are not objects or that the mapper rejects (null). */
export function mapRecords<T>(value: unknown, map: (item: WireRecord) => T | null): T[] {
  const out: T[] = [];
  for (const item of list(value)) {
    if (!isRecord(item)) continue;
    const mapped = map(item);
    if (mapped !== null) out.push(mapped);
  }
  return out;
}

export function stringList(value: unknown): string[] {
  return list(value).map(str).filter((s): s is string => s !== null);
}
