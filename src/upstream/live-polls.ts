/**
 * Change detection for live queries: one poller per distinct upstream read (route, path with its
 * query, credential scope), shared by every live operation whose last execution made that read,
 * however many viewers there are. A poll goes through the normal pipeline (scheduler, retries,
 * breaker) and refreshes the response cache entry; only when the hash of the answer changed are
 * the operations that read it woken (they re-run, mostly from that fresh entry). A poller whose
 * last reader left stops. While the upstream fails, the poller backs off (up to MAX_BACKOFF
 * periods) and its readers are told once that their data is stale, and again when it is back.
 *
 * Polls are background work: a tenant's polls of one rate-limit category fit within a share of
 * its window (POLL_SHARE of the background's share, the rest left to cache refreshes). When the
 * open reads would poll more often, every period of that tenant and category stretches by the same
 * factor (forty tiles polled every 5 s alone may each be polled every 20 s together). A poll the
 * window still cannot cover is skipped, not reported as an outage.
 */
import { createHash } from 'node:crypto';
import type { CachedRoute } from '../config.js';
import type { Logger } from '../logger.js';
import { isOutage, isRefusal } from './cache-entry.js';
import type { UpstreamSession, SessionOptions, UpstreamRead } from './session.js';
import { UpstreamError, UpstreamNotFound } from './errors.js';
import { BACKGROUND } from './rate-window.js';
import type { BackgroundBudget } from './rate-window.js';
import { realTimers, type Timers } from '../core/timers.js';

/** Backoff while the upstream fails: the period doubles up to this many periods. */
const MAX_BACKOFF = 8;

/** The part of the background's share of a window that polls may plan to use (the rest: cache refreshes, timing). */
const POLL_SHARE = 0.8;

/** What a poll's answer may take, on top of its period, before its entry counts as late. */
const POLL_ANSWER_MS = 2_000;

/** Why a poller woke its readers. */
export type PollNews = 'changed' | 'outage' | 'recovered' | 'refused';

export interface PolledRead {
  /** The read's identity: the credential scope and the upstream path with its query. */
  key: string;
  read: UpstreamRead;
  /** The credential the polls carry (the readers' own: same scope, same credential). */
  authorization: string | null;
  /** The answer the reader got, the baseline of the first poll. */
  value: unknown;
}

export interface LivePollsOptions {
  session(options: SessionOptions): UpstreamSession;
  /** The period per route (config.live.pollIntervalMs). */
  intervalMs: Record<CachedRoute, number>;
  /** The readers of `key` must re-run. */
  wake(key: string, news: PollNews): void;
  /** The read's resource is gone (404): its cached reads must go before its readers re-run. */
  gone(tenantId: string, resourceId: string): Promise<void>;
  /** The background budget of a read's tenant and category (null: not rate-limited). */
  backgroundBudget?(tenantId: string, route: UpstreamRead['route']): BackgroundBudget | null;
  logger: Logger;
  now?: () => number;
  /** The poll timers (on the clock of `now`). */
  timers?: Timers;
}

interface Poller {
  target: PolledRead;
  readers: number;
  hash: string;
  /** Cancels the next poll. */
  cancel: () => void;
  failures: number;
  /** Epoch ms of the last answer (the age a stale payload reports). */
  answeredAt: number;
  /** Since when the upstream fails for this read, or null. */
  failingSince: number | null;
  polling: boolean;
  /** The read's period at rest, the budget its polls count against (null: none) and the polls per window it adds there. */
  basePeriodMs: number;
  budgetKey: string | null;
  demand: number;
}

/** The "hash" of an answer that says the record is gone. */
const NOT_FOUND = 'not-found';

/** A hash of the answer's content: what two polls compare. */
const contentHash = (value: unknown) => createHash('sha1').update(JSON.stringify(value) ?? '').digest('base64url');

export class LivePolls {
  private readonly pollers = new Map<string, Poller>();
  /** Polls per window the open reads would make at their base periods, by background budget. */
  private readonly demand = new Map<string, number>();
  private readonly now: () => number;
  /** Polls made since start (tests and the bench read it). */
  polls = 0;

  constructor(private readonly options: LivePollsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The poll key of a read of the upstream `path` (with its query) made by the caller `credential`
   * (callerKey in passthrough, whose credential the polls carry; one shared identity in the other
   * modes): not the cache scope, which is empty without a cache and would let callers share a poller.
   */
  static keyOf(credential: string, path: string): string {
    return `${credential}|${path}`;
  }

  /** Distinct reads polled now. */
  get size(): number {
    return this.pollers.size;
  }

  /** One more reader of each target (a poller starts for a new one). */
  acquire(targets: Iterable<PolledRead>): void {
    for (const target of targets) {
      const existing = this.pollers.get(target.key);
      if (existing) {
        existing.readers++;
        continue;
      }
      const basePeriodMs = this.options.intervalMs[target.read.route as CachedRoute] ?? this.options.intervalMs.search;
      const budget = this.options.backgroundBudget?.(target.read.tenantId, target.read.route) ?? null;
      const poller: Poller = {
        target, readers: 1, hash: contentHash(target.value), cancel: () => undefined, failures: 0, answeredAt: this.now(), failingSince: null, polling: false,
        basePeriodMs, budgetKey: budget?.key ?? null, demand: budget ? budget.windowMs / basePeriodMs : 0,
      };
      if (budget) this.demand.set(budget.key, (this.demand.get(budget.key) ?? 0) + poller.demand);
      // The reader's value is only the baseline: the poller does not hold it.
      target.value = undefined;
      this.pollers.set(target.key, poller);
      this.schedule(poller);
    }
  }

  /** One reader fewer of each key; a poller with none left stops. */
  release(keys: Iterable<string>): void {
    for (const key of keys) {
      const poller = this.pollers.get(key);
      if (!poller) continue;
      if (--poller.readers > 0) continue;
      poller.cancel();
      this.pollers.delete(key);
      if (poller.budgetKey !== null) {
        const left = (this.demand.get(poller.budgetKey) ?? 0) - poller.demand;
        if (left > 1e-9) this.demand.set(poller.budgetKey, left);
        else this.demand.delete(poller.budgetKey);
      }
    }
  }

  /** For a read whose polls fail: since when its answer is the last good one (epoch ms), else null. */
  failingSince(key: string): { answeredAt: number } | null {
    const poller = this.pollers.get(key);
    return poller && poller.failingSince !== null ? { answeredAt: poller.answeredAt } : null;
  }

  /**
   * The read's period now: its base period, stretched so that the polls of its tenant and category
   * fit the background's share of the window.
   */
  periodOf(poller: Poller): number {
    const budget = poller.budgetKey === null ? null : this.options.backgroundBudget?.(poller.target.read.tenantId, poller.target.read.route) ?? null;
    if (!budget) return poller.basePeriodMs;
    const planned = Math.max(1, Math.floor(budget.callsPerWindow * POLL_SHARE));
    // The demand is kept under the key the poller was counted in (acquire/release), which stays
    // put when the budget later learns another category for the route (the minimal listing).
    return poller.basePeriodMs * Math.max(1, (this.demand.get(poller.budgetKey!) ?? 0) / planned);
  }

  /**
   * How long a re-run of the read's viewers may take its cache entry as fresh: the period it is
   * polled at, and a little for the poll's own answer (undefined: the read is not polled).
   */
  freshForMs(key: string): number | undefined {
    const poller = this.pollers.get(key);
    return poller && poller.failingSince === null ? this.periodOf(poller) + POLL_ANSWER_MS : undefined;
  }

  /**
   * For the payloads of the reads' readers: how often the data that changes most is polled (the
   * reads of the shortest period at rest, e.g. a summary's counts, not its hourly resource types)
   * and the age of the oldest of their answers.
   */
  freshness(keys: Iterable<string>): { periodMs: number; ageMs: number } | null {
    const pollers = [...keys].map((key) => this.pollers.get(key)).filter((p): p is Poller => p !== undefined);
    if (pollers.length === 0) return null;
    const base = Math.min(...pollers.map((p) => p.basePeriodMs));
    const volatile = pollers.filter((p) => p.basePeriodMs === base);
    return {
      periodMs: Math.max(...volatile.map((p) => this.periodOf(p))),
      ageMs: Math.max(...volatile.map((p) => this.now() - p.answeredAt)),
    };
  }

  /** Stops every poller (shutdown). */
  close(): void {
    for (const poller of this.pollers.values()) poller.cancel();
    this.pollers.clear();
  }

  private schedule(poller: Poller): void {
    const delay = this.periodOf(poller) * Math.min(MAX_BACKOFF, 2 ** poller.failures);
    poller.cancel = (this.options.timers ?? realTimers).schedule(delay, () => this.poll(poller));
  }

  private async poll(poller: Poller): Promise<void> {
    if (this.pollers.get(poller.target.key) !== poller || poller.polling) return;
    poller.polling = true;
    this.polls++;
    // Polls are background work: they spend at most the background's share of the tenant's window.
    const session = this.options.session({ authorization: poller.target.authorization, caller: BACKGROUND });
    let news: PollNews | null = null;
    try {
      // A record that is gone is an answer too: its readers re-run and learn it (null, NOT_FOUND).
      const hash = await session.poll(poller.target.read).then(
        (fetched) => contentHash(fetched.value),
        async (error: unknown) => {
          if (!(error instanceof UpstreamNotFound)) throw error;
          const { tenantId, resourceId } = poller.target.read;
          if (resourceId !== undefined && poller.hash !== NOT_FOUND) await this.options.gone(tenantId, resourceId);
          return NOT_FOUND;
        },
      );
      poller.answeredAt = this.now();
      if (poller.failingSince !== null) news = 'recovered';
      else if (hash !== poller.hash) news = 'changed';
      poller.hash = hash;
      poller.failures = 0;
      poller.failingSince = null;
    } catch (error) {
      if (error instanceof UpstreamError && error.budgetRefusal) {
        // The window had no room for this poll (it was never sent): the next one comes a period later.
        this.options.logger.debug('live poll skipped: rate-limit budget', { route: poller.target.read.route });
      } else if (isRefusal(error)) {
        news = 'refused';
        // Its readers end when they re-run; until then the refused credential is tried less often.
        poller.failures++;
      } else {
        poller.failures++;
        if (isOutage(error) && poller.failingSince === null) {
          poller.failingSince = this.now();
          news = 'outage';
        }
        this.options.logger.debug('live poll failed', { route: poller.target.read.route, code: (error as UpstreamError).code, failures: poller.failures });
      }
    } finally {
      session.close();
      poller.polling = false;
    }
    // Released meanwhile: nobody to tell, nothing to schedule.
    if (this.pollers.get(poller.target.key) !== poller) return;
    if (news) this.options.wake(poller.target.key, news);
    if (this.pollers.get(poller.target.key) === poller) this.schedule(poller);
  }
}
