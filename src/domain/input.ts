/**
 * The one place that checks caller input before it can reach the upstream: tenant ids,
 * resource ids, filter text, IP addresses, dates and availability windows. Every refusal is
 * BAD_USER_INPUT naming the argument, and costs no upstream call.
 */
import { badUserInput } from '../core/errors.js';

export const MAX_FILTER_VALUE_LENGTH = 200;

const TENANT_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export function checkTenantId(id: string, field = 'id'): string {
  if (!TENANT_RE.test(id)) throw badUserInput("tenant id must be letters, digits, '-' or '_' (at most 64), e.g. client_1", field);
  return id;
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export function checkId(value: string, field: string): string {
  if (!ID_RE.test(value)) throw badUserInput(`${field} must be an id of letters, digits, '-' or '_' (at most 128)`, field);
  return value;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Filter text: the queryString syntax cannot carry '+', ':' (outside fields that need it), ',' in list items, or control characters. */
export function checkFilterText(value: string, field: string, options: { allowColon?: boolean; allowComma?: boolean } = {}): string {
  if (value.length > MAX_FILTER_VALUE_LENGTH) throw badUserInput(`${field} is longer than ${MAX_FILTER_VALUE_LENGTH} characters`, field);
  const text = value.trim();
  if (text === '') throw badUserInput(`${field} must not be empty`, field);
  if (CONTROL.test(text)) throw badUserInput(`${field} must not contain control characters or line breaks`, field);
  if (text.includes('+')) throw badUserInput(`${field} must not contain '+': the upstream uses it to separate filter keys`, field);
  if (!options.allowColon && text.includes(':')) throw badUserInput(`${field} must not contain ':': the upstream uses it between key and value`, field);
  if (!options.allowComma && text.includes(',')) throw badUserInput(`${field} items must not contain ',': the upstream uses it to separate list items`, field);
  return text;
}

const IP_RE = /^[0-9A-Fa-f.:]{2,45}$/;
export function checkIp(value: string, field: string): string {
  const text = value.trim();
  if (!IP_RE.test(text)) throw badUserInput(`${field} must be an IPv4 or IPv6 address`, field);
  return text;
}

export function checkDate(value: Date, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw badUserInput(`${field} is not a valid date`, field);
  return value;
}

/** The availability window in whole epoch seconds; checked at run time and before execution. */
export function availabilityWindowSeconds(from: Date, to: Date, maxDays: number): { start: number; end: number } {
  const start = Math.floor(from.getTime() / 1000);
  const end = Math.floor(to.getTime() / 1000);
  if (end <= start) throw badUserInput('availability: `to` must be after `from`', 'to');
  if (end - start > maxDays * 86_400) throw badUserInput(`availability: the window may span at most ${maxDays} days`, 'to');
  return { start, end };
}
