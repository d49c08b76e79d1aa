/**
 * Throttling as the real upstream documents it (shared/design/README.md, "Rate limits of the real
 * upstream"): per tenant, per category (`paginated`, `other`, `update`, see routes.ts), a budget of
 * requests per fixed window. Windows are aligned on the epoch: window = floor(nowSeconds / windowSeconds),
 * and it resets at (window + 1) * windowSeconds, which is what X-RateLimit-Reset says (UTC epoch seconds).
 *
 * Where it sits in a request (app.ts): after latency, scripted faults and auth. A request auth refuses
 * (401, 403) is not counted (its answer shows the window as it is); a request auth admits is counted before
 * it is answered, so a 404 of an unknown record or a 400 of a bad parameter spends budget as a 200 does.
 * A request over the limit is answered 429 and is not counted: the budget is spent by admitted requests only.
 *
 * The clock is injected (startSimulator's `now`), so tests move time across a boundary without sleeping.
 */
import { ROUTES } from '../core/routes.js';
import type { Route } from './routes.js';
import { RATE_CATEGORIES, type RateCategory, type RateLimitSettings, type SimulatorSettings } from './settings.js';

/** One category's current window as the headers say it. */
export interface RateWindow { limit: number; remaining: number; reset: number }
export type TenantRateState = Record<RateCategory, RateWindow>;

/** GET /__sim/rate-limits: the settings and every known tenant's current windows. */
export type RateLimitsView = RateLimitSettings & { tenants: Record<string, TenantRateState> };

export interface RateDecision { admitted: boolean; window: RateWindow }

/** The 429 body of the real platform, exactly (no Retry-After is documented, none is sent). */
export const THROTTLED_BODY = { error: 'throttled', error_description: 'Too Many Requests' } as const;

export interface RateLimitRoom {
  /** The category a request of this route is counted in; null when it is not (the token endpoint, or the limits are off). */
  categoryOf(route: Route): RateCategory | null;
  /** Counts one request against its tenant's current window, unless the window is spent: then it is refused and not counted. */
  take(tenantId: string, category: RateCategory): RateDecision;
  /** The current window, without counting. */
  peek(tenantId: string, category: RateCategory): RateWindow;
  state(tenantId: string): TenantRateState;
  /** The settings and the windows of these tenants and of every tenant counted so far. */
  view(tenantIds: Iterable<string>): RateLimitsView;
  /** Every window full again (tests). */
  refill(): void;
}

export interface RateLimitOptions {
  /** The live settings: a change of rateLimit through /__sim/config applies to the next request. */
  settings: SimulatorSettings;
  /** Epoch milliseconds. */
  now?: () => number;
}

/** What a tenant has spent in a category: in which window (of which width) and how much. */
interface Spent { windowSeconds: number; window: number; used: number }

/** Beyond this many tenants counted, tenants whose windows are all over are forgotten. */
const TENANTS_KEPT = 10_000;

export function rateLimitHeaders(window: RateWindow): Record<string, string> {
  return {
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(window.remaining),
    'x-ratelimit-reset': String(window.reset),
  };
}

export function createRateLimits({ settings, now = Date.now }: RateLimitOptions): RateLimitRoom {
  const spent = new Map<string, Partial<Record<RateCategory, Spent>>>();

  /** The current window of the settings' width, and what the tenant has spent in it. */
  function current(tenantId: string, category: RateCategory): { spent: Spent; window: RateWindow } {
    const { windowSeconds, limits } = settings.rateLimit;
    const window = Math.floor(now() / 1000 / windowSeconds);
    const known = spent.get(tenantId)?.[category];
    // A counter of an earlier window (or of another window width) is spent in a window that is over.
    const fresh = known !== undefined && known.window === window && known.windowSeconds === windowSeconds ? known : { windowSeconds, window, used: 0 };
    const limit = limits[category];
    return { spent: fresh, window: { limit, remaining: Math.max(0, limit - fresh.used), reset: (window + 1) * windowSeconds } };
  }

  function forgetIdleTenants(): void {
    const window = (s: Spent) => Math.floor(now() / 1000 / s.windowSeconds);
    for (const [tenantId, categories] of spent) {
      if (Object.values(categories).every((s) => s.window !== window(s))) spent.delete(tenantId);
    }
  }

  const state = (tenantId: string): TenantRateState =>
    Object.fromEntries(RATE_CATEGORIES.map((category) => [category, current(tenantId, category).window])) as TenantRateState;

  return {
    categoryOf(route) {
      // The token endpoint is not throttled; the minimal listing's category is undocumented (rateLimit.minimalCategory decides).
      if (!settings.rateLimit.enabled || route.name === 'token') return null;
      const budget = ROUTES[route.name].budget;
      return budget === 'undocumented' ? settings.rateLimit.minimalCategory : budget;
    },
    take(tenantId, category) {
      const { spent: counter, window } = current(tenantId, category);
      if (window.remaining === 0) return { admitted: false, window };
      if (!spent.has(tenantId) && spent.size >= TENANTS_KEPT) forgetIdleTenants();
      counter.used++;
      const categories = spent.get(tenantId);
      if (categories) categories[category] = counter;
      else spent.set(tenantId, { [category]: counter });
      return { admitted: true, window: { ...window, remaining: window.remaining - 1 } };
    },
    peek: (tenantId, category) => current(tenantId, category).window,
    state,
    view(tenantIds) {
      const tenants = new Set([...tenantIds, ...spent.keys()]);
      return {
        ...settings.rateLimit,
        limits: { ...settings.rateLimit.limits },
        tenants: Object.fromEntries([...tenants].map((tenantId) => [tenantId, state(tenantId)])),
      };
    },
    refill() {
      spent.clear();
    },
  };
}
