/**
 * The rate-limit windows of this process (and of a replica while Redis is away), by the rules of
 * rate-window.ts; rate-budget-redis.ts keeps the fleet's. test/unit/rate-window.test.ts runs the
 * same cases against both.
 */
import type { RateCategory } from '../core/routes.js';
import {
  announced, available, closed, freshWindow, mergedWants, noticed, released, reserved, rolled, room, windowKey,
  type ClaimOutcome, type News, type RateBudgetSettings, type RateWindow, type Spender, type Want, type WindowStore,
} from './rate-window.js';

/** The windows of this process (and of a replica while Redis is away). */
export class LocalWindows implements WindowStore {
  private readonly windows = new Map<string, RateWindow>();
  private changes = 0;

  constructor(private readonly settings: RateBudgetSettings) {}

  window(tenant: string, category: RateCategory, nowS: number): RateWindow {
    const known = this.windows.get(windowKey(tenant, category));
    return rolled(known ?? freshWindow(this.settings.defaults[category]), nowS, this.settings.windowS);
  }

  claim(wants: readonly Want[], spender: Spender, nowS: number): ClaimOutcome {
    const next: [string, RateWindow][] = [];
    for (const want of mergedWants(wants)) {
      const window = this.window(want.tenant, want.category, nowS);
      if (room(window, spender, nowS, this.settings.windowS) < want.n) {
        // A caller refused is there all the same: the others' shares apply from now on.
        this.windows.set(windowKey(want.tenant, want.category), noticed(window, spender.caller, nowS));
        return { ok: false, short: want, window, byShare: available(window) >= want.n };
      }
      next.push([windowKey(want.tenant, want.category), noticed(reserved(window, want.n, spender.caller), spender.caller, nowS)]);
    }
    for (const [key, window] of next) this.windows.set(key, window);
    this.sweep(nowS);
    return { ok: true };
  }

  settle(tenant: string, charged: RateCategory, n: number, caller: string, unsent: boolean, news: News | null, nowS: number): void {
    this.sweep(nowS);
    if (n > 0) this.windows.set(windowKey(tenant, charged), released(this.window(tenant, charged, nowS), n, caller, unsent));
    if (!news) return;
    let window = this.window(tenant, news.category, nowS);
    if (news.announcement) window = announced(window, news.announcement);
    if (news.throttled) window = closed(window, nowS, this.settings.windowS);
    this.windows.set(windowKey(tenant, news.category), window);
  }

  /**
   * Windows of tenants gone quiet are forgotten (every 1,000 claims and answers): a fresh window is
   * the default again. Quiet: nothing pending, and a window over for a whole window, or (no answer
   * ever said its reset) no caller there within two windows.
   */
  private sweep(nowS: number): void {
    if (++this.changes % 1_000 !== 0) return;
    const { windowS } = this.settings;
    for (const [key, window] of this.windows) {
      if (window.pending !== 0) continue;
      const quiet = window.reset !== 0 ? window.reset + windowS < nowS : Object.values(window.seen).every((at) => at <= nowS - 2 * windowS);
      if (quiet) this.windows.delete(key);
    }
  }
}
