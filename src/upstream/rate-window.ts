/**
 * One tenant's rate-limit window in one category, as the gateway knows it: the upstream's last
 * word (limit, remaining, reset from the X-RateLimit-* headers) and the calls the gateway has
 * reserved since (claimed by operations, or in flight) that the upstream may not have counted yet.
 *
 * The rules are pure functions of the window, shared by the in-process store and, line by line,
 * the Redis script (rate-budget-redis.ts); test/unit/rate-window.test.ts runs the same cases on both.
 *
 * - Calls are reserved before they are sent: `remaining - pending` is what may still be spent.
 * - Within a window the upstream's remaining only goes down: an answer that says more than we
 *   know is older news (answers overtake each other), so the lower figure stands. An answer with
 *   a later reset opens the next window and is taken as it is.
 * - A call reserved and then answered leaves `pending`, whatever the answer: the upstream's
 *   figure has counted it (or it never reached the upstream). Reserved calls never sent go back.
 * - When the reset passes without news, the window is the limit again (fixed windows), and the
 *   next reset one window later; the calls still pending stay counted.
 * - A 429 closes the window: remaining 0 until its reset (the headers', else the known one, else
 *   one window from now).
 * - Shares: background work (live polls, stale-while-revalidate refreshes) may hold at most its
 *   share of a window, always; an interactive caller at most its share while another caller of
 *   the tenant was there within the last two windows (alone, it may spend the whole window).
 */
import type { RateCategory } from '../core/routes.js';

/** What a tenant's window of one category allows background work (live polls): its key and its calls per window. */
export interface BackgroundBudget {
  key: string;
  callsPerWindow: number;
  windowMs: number;
}

export interface RateWindow {
  limit: number;
  remaining: number;
  /** UTC epoch seconds at which the upstream's window resets; 0: not known yet. */
  reset: number;
  /** Calls reserved (claimed or in flight) that the upstream's figure may not count yet. */
  pending: number;
  /** Calls each caller reserved in this window (the background's under BACKGROUND); a new window starts empty. */
  byCaller: Record<string, number>;
  /** When the interactive callers seen last (at most two: noticed) last asked of the window (epoch s): who is there. */
  seen: Record<string, number>;
}

/** The caller that background work (live polls, cache refreshes) reserves as. */
export const BACKGROUND = '~background';

/** Who a claim reserves for, and the share of a window that caller may hold. */
export interface Spender {
  caller: string;
  /** 0-1; 1: no cap of its own. */
  share: number;
}

/** What an answer's X-RateLimit-Limit, -Remaining and -Reset headers said. */
export interface Announcement {
  limit: number;
  remaining: number;
  reset: number;
}

/** A window's identity: its category and tenant. */
export const windowKey = (tenant: string, category: RateCategory): string => `${category}\u0000${tenant}`;

/** Wants of the same tenant and category as one (a claim checks each window once, with all it asks of it). */
export function mergedWants(wants: readonly Want[]): Want[] {
  const merged = new Map<string, Want>();
  for (const want of wants) {
    const key = windowKey(want.tenant, want.category);
    const known = merged.get(key);
    merged.set(key, known ? { ...known, n: known.n + want.n } : want);
  }
  return [...merged.values()];
}

/** A window no answer has described yet: the configured default limit, whole. */
export function freshWindow(defaultLimit: number): RateWindow {
  return { limit: defaultLimit, remaining: defaultLimit, reset: 0, pending: 0, byCaller: {}, seen: {} };
}

/** The window as it stands at nowS: rolled over when its reset passed (callers gone two windows are forgotten). */
export function rolled(window: RateWindow, nowS: number, windowS: number): RateWindow {
  if (window.reset === 0 || nowS < window.reset) return window;
  const windows = Math.floor((nowS - window.reset) / windowS) + 1;
  const seen = Object.fromEntries(Object.entries(window.seen).filter(([, at]) => at > nowS - 2 * windowS));
  return { ...window, remaining: window.limit, reset: window.reset + windows * windowS, byCaller: {}, seen };
}

/** What may still be reserved in all. */
export function available(window: RateWindow): number {
  return window.remaining - window.pending;
}

/** Whether another interactive caller asked of the window within the last two windows. */
function othersThere(window: RateWindow, caller: string, nowS: number, windowS: number): boolean {
  return Object.entries(window.seen).some(([other, at]) => other !== caller && at > nowS - 2 * windowS);
}

/** What this spender may still reserve: the window's room, within the spender's share where it applies. */
export function room(window: RateWindow, spender: Spender, nowS: number, windowS: number): number {
  const all = available(window);
  if (spender.share >= 1 || (spender.caller !== BACKGROUND && !othersThere(window, spender.caller, nowS, windowS))) return all;
  return Math.min(all, Math.floor(spender.share * window.limit) - (window.byCaller[spender.caller] ?? 0));
}

/**
 * The caller was there (it asked, whether or not the window had room). Only the two callers seen
 * last are kept: whether another caller than any given one was there within two windows depends
 * on them alone (the latest, or for the latest itself the one before it), so a tenant with
 * thousands of callers keeps two entries, not thousands, and the answer is the same.
 */
export function noticed(window: RateWindow, caller: string, nowS: number): RateWindow {
  if (caller === BACKGROUND) return window;
  let other: string | null = null;
  for (const [name, at] of Object.entries(window.seen)) if (name !== caller && (other === null || at > window.seen[other]!)) other = name;
  return { ...window, seen: other === null ? { [caller]: nowS } : { [other]: window.seen[other]!, [caller]: nowS } };
}

export function reserved(window: RateWindow, n: number, caller: string): RateWindow {
  return { ...window, pending: window.pending + n, byCaller: { ...window.byCaller, [caller]: (window.byCaller[caller] ?? 0) + n } };
}

/**
 * Reserved calls leave `pending`: answered (the upstream's figure counts them; the caller spent
 * them) or, `unsent`, given back (they leave the caller's count too).
 */
export function released(window: RateWindow, n: number, caller: string, unsent: boolean): RateWindow {
  const held = window.byCaller[caller];
  const byCaller = !unsent || held === undefined ? window.byCaller : { ...window.byCaller, [caller]: Math.max(0, held - n) };
  return { ...window, pending: Math.max(0, window.pending - n), byCaller };
}

export function announced(window: RateWindow, news: Announcement): RateWindow {
  if (news.reset > window.reset) return { ...window, limit: news.limit, remaining: news.remaining, reset: news.reset };
  if (news.reset === window.reset) return { ...window, limit: news.limit, remaining: Math.min(window.remaining, news.remaining) };
  return window;
}

export function closed(window: RateWindow, nowS: number, windowS: number): RateWindow {
  return { ...window, remaining: 0, reset: window.reset > nowS ? window.reset : Math.ceil(nowS) + windowS };
}

/** The three headers of an answer, when it has all three as numbers. */
export function announcementOf(limit: unknown, remaining: unknown, reset: unknown): Announcement | null {
  const numbers = [limit, remaining, reset].map((v) => (Array.isArray(v) ? v[0] : v)).map((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN));
  if (numbers.some((n) => !Number.isSafeInteger(n))) return null;
  const [l, r, s] = numbers as [number, number, number];
  return { limit: l, remaining: Math.min(r, l), reset: s };
}

export interface RateBudgetSettings {
  /** The limit of each category until an answer says it (UPSTREAM_RATE_LIMITS). */
  defaults: Readonly<Record<RateCategory, number>>;
  /** The length of the upstream's fixed windows, in seconds. */
  windowS: number;
  /** The share of a window (0-1) background work may hold. */
  backgroundShare: number;
  /** The share of a window (0-1) one caller may hold while other callers of the tenant are there. */
  callerShare: number;
}

/** So many calls of a tenant's category. */
export interface Want {
  tenant: string;
  category: RateCategory;
  n: number;
}

/** A refused claim says which want did not fit, in which window, and whether the window or the caller's share was short. */
export type ClaimOutcome = { ok: true } | { ok: false; short: Want; window: RateWindow; byShare: boolean };

/** Where the windows are kept: this process, or Redis for the fleet. */
export interface WindowStore {
  /** Reserves every want for the spender, or none when one does not fit (the first that does not is returned). */
  claim(wants: readonly Want[], spender: Spender, nowS: number): ClaimOutcome | Promise<ClaimOutcome>;
  /** Releases n calls the caller reserved (answered, or `unsent`) and applies what an answer said (news: announcement and/or 429). */
  settle(tenant: string, charged: RateCategory, n: number, caller: string, unsent: boolean, news: News | null, nowS: number): void | Promise<void>;
  window(tenant: string, category: RateCategory, nowS: number): RateWindow | Promise<RateWindow>;
}

/** What an answer said about one category's window. */
export interface News {
  category: RateCategory;
  announcement: Announcement | null;
  throttled: boolean;
}

