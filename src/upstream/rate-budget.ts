/**
 * The upstream's rate limits as the gateway knows them, per tenant and category (paginated GETs,
 * other GETs, updates): what each window has left, from every answer's X-RateLimit-* headers
 * (other clients of the tenant spend the same budget: only the headers tell), minus the calls
 * this gateway has reserved since. Operations claim their estimated calls before they run and
 * calls without a claim reserve one each, so a call the budget cannot cover is never sent; a 429
 * that still comes closes the window until its reset, on every replica.
 *
 * The windows live in Redis when REDIS_URL is set (one script per change, so the replicas
 * together never reserve more than the tenant has), else in process; while Redis is unavailable
 * each replica keeps its own. The window rules are rate-window.ts.
 */
import { DOCUMENTED_RATE_LIMITS, RATE_CATEGORIES, ROUTES, type RateCategory, type RouteName } from '../core/routes.js';
import type { Logger } from '../logger.js';
import {
  announcementOf, available, BACKGROUND, windowKey, type Announcement, type BackgroundBudget, type ClaimOutcome, type News, type RateBudgetSettings, type RateWindow, type Want, type WindowStore,
} from './rate-window.js';
import { RedisWindows, type ScriptRunner } from './rate-budget-redis.js';
import { LocalWindows } from './rate-budget-local.js';
import type { ResetTime } from './errors.js';

export { BACKGROUND } from './rate-window.js';
export type { ClaimOutcome, RateBudgetSettings, Want } from './rate-window.js';

export interface RateBudgetOptions {
  /** null: the gateway keeps no budget (UPSTREAM_RATE_LIMITS=off). */
  settings: RateBudgetSettings | null;
  /** The fleet's Redis, when REDIS_URL is set. */
  shared?: ScriptRunner | null;
  logger: Logger;
  /** Epoch milliseconds (the upstream's resets are epoch seconds). */
  now?: () => number;
}

export interface CategorySnapshot {
  limit: number;
  remaining: number;
  /** When the window resets, ISO 8601. */
  resetAt: string;
}

export class RateBudget {
  readonly settings: RateBudgetSettings | null;
  private readonly local: LocalWindows | null;
  private readonly redis: RedisWindows | null;
  private readonly now: () => number;
  /** The category the upstream counts the route of undocumented category in, once its answers told. */
  private undocumentedAs: RateCategory | null = null;
  /** The limit each category's answers said last (process-wide: the upstream's limits are the same for every tenant). */
  private readonly limits: Record<RateCategory, number>;
  /** Categories whose answers carry no rate-limit headers: that upstream does not throttle them. */
  private readonly silent = new Set<RateCategory>();
  /** What the upstream's answers to this replica said last, per category and tenant (/metrics); at most 10,000, the least recently heard go first. */
  private readonly heard = new Map<string, { category: RateCategory; tenant: string; remaining: number; reset: number }>();
  /** 429s of the upstream's throttle, per category. */
  readonly throttled: Record<RateCategory, number> = { paginated: 0, other: 0, update: 0 };

  constructor(options: RateBudgetOptions) {
    this.settings = options.settings;
    this.now = options.now ?? Date.now;
    this.local = options.settings ? new LocalWindows(options.settings) : null;
    this.redis = options.settings && options.shared ? new RedisWindows(options.shared, options.settings, options.logger) : null;
    this.limits = { ...(options.settings?.defaults ?? DOCUMENTED_RATE_LIMITS) };
  }

  private nowS(): number {
    return this.now() / 1000;
  }

  /** The category a route's calls are counted in (the undocumented one: paginated, the scarcer, until learned). */
  readonly categoryOf = (route: RouteName): RateCategory => {
    const budget = ROUTES[route].budget;
    return budget === 'undocumented' ? this.undocumentedAs ?? 'paginated' : budget;
  };

  /** What background work may spend of a tenant's window for a route's category (live polls plan with it); null: not budgeted. */
  backgroundBudget(tenant: string, route: RouteName): BackgroundBudget | null {
    const category = this.categoryOf(route);
    if (!this.settings || !this.tracks(category)) return null;
    return { key: windowKey(tenant, category), callsPerWindow: Math.floor(this.limits[category] * this.settings.backgroundShare), windowMs: this.settings.windowS * 1000 };
  }

  /** A window's limit of the category as the upstream last said it (the setting until then); null: not budgeted. */
  windowLimit(category: RateCategory): number | null {
    return this.tracks(category) ? this.limits[category] : null;
  }

  /** Whether calls of this category are budgeted. */
  tracks(category: RateCategory): boolean {
    return this.local !== null && !this.silent.has(category);
  }

  /**
   * The fleet's windows (Redis) when `shared` and available, else this replica's. A caller whose
   * credential the upstream never accepted for the tenant counts in this replica only: a guessed
   * token writes nothing to Redis.
   */
  private store(shared = true): WindowStore | null {
    if (!this.local) return null;
    return shared && this.redis?.available ? this.redis : this.local;
  }

  /**
   * Reserves all the wants for the caller or none; wants of categories not budgeted are left out.
   * A success says what it reserved and where: the calls are released there, and only those.
   */
  async claim(wants: readonly Want[], as: ClaimAs): Promise<Claimed> {
    const store = this.store(as.shared);
    const tracked = wants.filter((w) => w.n > 0 && this.tracks(w.category));
    if (!store || tracked.length === 0) return { ok: true, reserved: [], shared: false };
    this.replayReleases();
    const settings = this.settings!;
    const spender = { caller: as.caller, share: as.caller === BACKGROUND ? settings.backgroundShare : settings.callerShare };
    const shared = store === this.redis;
    try {
      const outcome = await store.claim(tracked, spender, this.nowS());
      return outcome.ok ? { ok: true, reserved: tracked, shared } : outcome;
    } catch {
      // Redis failed mid-way: this replica's own windows answer (the store is paused meanwhile).
      const outcome = this.local!.claim(tracked, spender, this.nowS());
      return outcome.ok ? { ok: true, reserved: tracked, shared: false } : outcome;
    }
  }

  /** Reserved calls never sent go back. */
  refund(tenant: string, charge: Charge, n: number): void {
    if (n <= 0) return;
    void this.apply(tenant, charge, n, true, null, false);
  }

  /**
   * An answer of the route arrived (or the call failed without one: status 0): its reserved call
   * is released and its headers update the window of the category they describe; `closes`: a 429
   * of the upstream's throttle, which closes that window until its reset.
   * `charged`: where the call was reserved (null: it was not); `unsent`: the call provably never left
   * (its place goes back to the caller's share too).
   */
  settle(tenant: string, route: RouteName, charged: Charge | null, headers: RateLimitHeaders | null, status: number, closes: boolean, unsent = false): void {
    if (!this.local) return;
    const raw = headers ? announcementOf(headers.limit, headers.remaining, headers.reset) : null;
    // Seconds from now rather than an epoch time are read as such; a reset beyond two windows (an
    // epoch in milliseconds, a clock far ahead) would close a window for good: it is cut to one.
    const nowS = Math.ceil(this.nowS());
    const windowS = this.settings?.windowS ?? 60;
    const reset = raw ? (raw.reset < 1_000_000_000 ? nowS + raw.reset : raw.reset > nowS + 2 * windowS ? nowS + windowS : raw.reset) : 0;
    const announcement = raw ? { ...raw, reset } : null;
    const budget = ROUTES[route].budget;
    if (budget === 'undocumented' && announcement) this.learnUndocumented(announcement);
    const category = budget === 'undocumented' ? this.undocumentedAs : budget;
    if (category && status > 0 && status < 500) {
      if (announcement) {
        this.silent.delete(category);
        this.limits[category] = announcement.limit;
      } else if (status !== 429) {
        this.silent.add(category);
      }
    }
    const news = category && (announcement || closes) ? { category, announcement, throttled: closes } : null;
    if (category && closes) this.throttled[category]++;
    if (category && announcement) this.hear(tenant, category, closes ? { ...announcement, remaining: 0 } : announcement);
    // A refused credential's answer says nothing the fleet should keep (a guessed token writes nothing to Redis).
    if (charged || news) void this.apply(tenant, charged, 1, unsent, news, status !== 401 && status !== 403);
  }

  private hear(tenant: string, category: RateCategory, announcement: Announcement): void {
    const key = windowKey(tenant, category);
    const known = this.heard.get(key);
    if (known && known.reset === announcement.reset && known.remaining <= announcement.remaining) return;
    this.heard.delete(key);
    this.heard.set(key, { category, tenant, remaining: announcement.remaining, reset: announcement.reset });
    if (this.heard.size <= 10_000) return;
    const nowS = this.nowS();
    // Past windows go; then, still more tenants heard of within one window, the least recently heard.
    for (const [k, v] of this.heard) if (v.reset <= nowS || this.heard.size > 9_000) this.heard.delete(k);
  }

  /**
   * The remaining budget per category as the upstream last told this replica: for each listed
   * tenant, and the lowest of all tenants (tenant "lowest"); windows past their reset count whole.
   */
  remainingReadings(listed: readonly string[]): { category: RateCategory; tenant: string; remaining: number }[] {
    if (!this.local) return [];
    const nowS = this.nowS();
    const out: { category: RateCategory; tenant: string; remaining: number }[] = [];
    for (const category of RATE_CATEGORIES) {
      if (!this.tracks(category)) continue;
      let lowest = this.limits[category];
      for (const tenant of listed) {
        const heard = this.heard.get(windowKey(tenant, category));
        out.push({ category, tenant, remaining: heard && heard.reset > nowS ? heard.remaining : this.limits[category] });
      }
      for (const heard of this.heard.values()) if (heard.category === category && heard.reset > nowS) lowest = Math.min(lowest, heard.remaining);
      out.push({ category, tenant: 'lowest', remaining: lowest });
    }
    return out;
  }

  private learnUndocumented(announcement: Announcement): void {
    const matching = RATE_CATEGORIES.filter((c) => c !== 'update' && this.limits[c] === announcement.limit);
    if (matching.length === 1) this.undocumentedAs = matching[0]!;
  }

  /**
   * Releases n calls where they were reserved (`charged`; null: none) and applies the news to this
   * replica's windows and, when `shareNews`, to the fleet's. A release Redis could not take is
   * kept and replayed once it is back (else the fleet would count the calls forever).
   */
  private async apply(tenant: string, charged: Charge | null, n: number, unsent: boolean, news: News | null, shareNews: boolean): Promise<void> {
    const local = this.local;
    if (!local) return;
    const nowS = this.nowS();
    const category = charged?.category ?? news?.category;
    if (!category) return;
    const caller = charged?.caller ?? BACKGROUND;
    const localN = charged && !charged.shared ? n : 0;
    if (localN > 0 || news) local.settle(tenant, category, localN, caller, unsent, news, nowS);
    const redis = this.redis;
    if (!redis) return;
    const release = charged?.shared ? { tenant, category, n, caller, unsent } : null;
    const sharedNews = shareNews ? news : null;
    if (!release && !sharedNews) return;
    if (!redis.available) {
      if (release) this.keepRelease(release);
      return;
    }
    try {
      await redis.settle(tenant, category, release?.n ?? 0, caller, unsent, sharedNews, nowS);
    } catch {
      if (release) this.keepRelease(release);
    }
  }

  /** Releases Redis could not take (it was away): replayed once it is back, the oldest dropped past 10,000. */
  private readonly unreleased: { tenant: string; category: RateCategory; n: number; caller: string; unsent: boolean }[] = [];

  private keepRelease(release: (typeof this.unreleased)[number]): void {
    this.unreleased.push(release);
    if (this.unreleased.length > 10_000) this.unreleased.shift();
  }

  private replayReleases(): void {
    if (this.unreleased.length === 0 || !this.redis?.available) return;
    for (const r of this.unreleased.splice(0)) void this.apply(r.tenant, { category: r.category, shared: true, caller: r.caller }, r.n, r.unsent, null, false);
  }

  async window(tenant: string, category: RateCategory): Promise<RateWindow | null> {
    const store = this.store();
    if (!store || !this.tracks(category)) return null;
    try {
      return await store.window(tenant, category, this.nowS());
    } catch {
      return this.local!.window(tenant, category, this.nowS());
    }
  }

  /** When a window resets (its reset, else one window from now). */
  resetOf(window: RateWindow): ResetTime {
    const windowS = this.settings?.windowS ?? 60;
    const atMs = (window.reset > 0 ? window.reset : Math.ceil(this.nowS()) + windowS) * 1000;
    return { atMs, untilMs: Math.max(0, atMs - this.now()) };
  }

  /** A pause of `ms` from now, on the budget's clock. */
  resetIn(ms: number): ResetTime {
    return { atMs: this.now() + ms, untilMs: ms };
  }

  /** What a tenant has left per budgeted category whose window an answer described (`x-upstream-stats`). */
  async snapshot(tenant: string): Promise<Partial<Record<RateCategory, CategorySnapshot>>> {
    const out: Partial<Record<RateCategory, CategorySnapshot>> = {};
    for (const category of RATE_CATEGORIES) {
      const window = await this.window(tenant, category);
      if (!window || window.reset === 0) continue;
      out[category] = { limit: window.limit, remaining: Math.max(0, available(window)), resetAt: new Date(window.reset * 1000).toISOString() };
    }
    return out;
  }
}

/** A claim's outcome: what was reserved (the wants of budgeted categories) and in which windows, or what did not fit. */
export type Claimed = { ok: true; reserved: readonly Want[]; shared: boolean } | Extract<ClaimOutcome, { ok: false }>;

/** Whom a claim reserves for: in the fleet's windows or this replica's, and which caller (BACKGROUND: background work). */
export interface ClaimAs {
  shared: boolean;
  caller: string;
}

/** Where a call was reserved: its category, the windows and the caller. */
export interface Charge extends ClaimAs {
  category: RateCategory;
}

/** The raw X-RateLimit-* header values of an answer. */
export interface RateLimitHeaders {
  limit: unknown;
  remaining: unknown;
  reset: unknown;
}
