/**
 * Change detection for live queries: one poller per distinct upstream read (route, path with its
 * query, credential scope), shared by every live operation whose last execution made that read,
 * however many viewers there are. A poll goes through the normal pipeline (scheduler, retries,
 * breaker) and refreshes the response cache entry; only when the hash of the answer changed are
 * the operations that read it woken (they re-run, mostly from that fresh entry). A poller whose
 * last reader left stops. While the upstream fails, the poller backs off (up to MAX_BACKOFF
 * periods) and its readers are told once that their data is stale, and again when it is back.
 *
 * Polls are background work, their periods planned within the tenant's window (poll-plan.ts); a
 * poll the window still cannot cover is skipped, not reported as an outage.
 *
 * With Redis (`fleet`, poll-leases.ts) a read is polled by one replica for the fleet: the others
 * keep their timers, but poll only when they hold the read's lease; what the holder's poll found
 * reaches them as a notice, and a change is taken from the shared cache (no upstream call) before
 * their readers are woken.
 */
import { createHash } from 'node:crypto';
import type { CachedRoute } from '../config.js';
import type { Logger } from '../logger.js';
import { isOutage, isRefusal } from './cache-entry.js';
import type { UpstreamSession, SessionOptions, UpstreamRead } from './session.js';
import { UpstreamError, UpstreamNotFound } from './errors.js';
import { BACKGROUND, type BackgroundBudget } from './rate-window.js';
import { PollPlan, type Planned } from './poll-plan.js';
import { realTimers, type Timers } from '../core/timers.js';
import { PollLeases, type PollNotice } from './poll-leases.js';

/** Backoff while the upstream fails: the period doubles up to this many periods. */
const MAX_BACKOFF = 8;

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
  /** With Redis: one poller per read for the fleet. */
  fleet?: PollLeases | null;
}

interface Poller extends Planned {
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
  /** The read's digest in the fleet's leases and notices. */
  read: string;
}

/** The "hash" of an answer that says the record is gone. */
const NOT_FOUND = 'not-found';

/** A hash of the answer's content: what two polls compare. */
const contentHash = (value: unknown) => createHash('sha1').update(JSON.stringify(value) ?? '').digest('base64url');

export class LivePolls {
  private readonly pollers = new Map<string, Poller>();
  private readonly plan = new PollPlan();
  private readonly now: () => number;
  /** Polls made since start (tests and the bench read it). */
  polls = 0;
  /** The pollers by read digest: the fleet's notices name them so. */
  private readonly byRead = new Map<string, Poller>();

  constructor(private readonly options: LivePollsOptions) {
    this.now = options.now ?? Date.now;
    options.fleet?.listen((notice) => this.heard(notice));
  }

  /** Leases of reads this replica polls for the fleet (with Redis). */
  get leases(): number { return this.options.fleet?.size ?? 0; }

  /**
   * The poll key of a read of the upstream `path` (with its query) made by the caller `credential`
   * (callerKey in passthrough, whose credential the polls carry; one shared identity in the other
   * modes): not the cache scope, which is empty without a cache and would let callers share a poller.
   */
  static keyOf(credential: string, path: string): string {
    return `${credential}|${path}`;
  }

  /** Distinct reads polled now. */
  get size(): number { return this.pollers.size; }

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
        ...this.plan.add(basePeriodMs, budget), read: PollLeases.idOf(target.key),
      };
      this.byRead.set(poller.read, poller);
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
      this.byRead.delete(poller.read);
      this.options.fleet?.forget(poller.read, poller.budgetKey);
      void this.options.fleet?.release(poller.read, this.now());
      this.plan.remove(poller);
    }
  }

  /** For a read whose polls fail: since when its answer is the last good one (epoch ms), else null. */
  failingSince(key: string): { answeredAt: number } | null {
    const poller = this.pollers.get(key);
    return poller && poller.failingSince !== null ? { answeredAt: poller.answeredAt } : null;
  }

  /** The read's period now: its base period, stretched so that the polls of its budget fit (poll-plan.ts). */
  periodOf(poller: Poller): number {
    const budget = poller.budgetKey === null ? null : this.options.backgroundBudget?.(poller.target.read.tenantId, poller.target.read.route) ?? null;
    return this.plan.periodOf(poller, budget);
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

  /** Stops every poller (shutdown); the fleet's other replicas take over this one's leases at once. */
  async close(): Promise<void> {
    for (const poller of this.pollers.values()) poller.cancel();
    this.pollers.clear();
    this.byRead.clear();
    await this.options.fleet?.releaseAll(this.now());
  }

  private delayOf(poller: Poller): number {
    return this.periodOf(poller) * Math.min(MAX_BACKOFF, 2 ** poller.failures);
  }

  private schedule(poller: Poller, delay = this.delayOf(poller)): void {
    poller.cancel = (this.options.timers ?? realTimers).schedule(delay, () => this.tick(poller));
  }

  /** A poller's timer: it polls when it is this replica's turn (always without Redis), else waits for the next. */
  private async tick(poller: Poller): Promise<void> {
    if (!this.options.fleet) return this.poll(poller);
    if (this.pollers.get(poller.target.key) !== poller) return;
    // The lease lasts until just after the next poll is due (a holder gone is replaced within about a
    // period); the read's demand counts in the fleet's plan until three periods without a tick.
    const demand = poller.budgetKey === null ? null : { budget: poller.budgetKey, polls: poller.demand, now: this.now(), keepMs: 3 * this.delayOf(poller) };
    const turn = poller.polling ? null : await this.options.fleet.take(poller.read, this.delayOf(poller) + POLL_ANSWER_MS, demand);
    if (this.pollers.get(poller.target.key) !== poller) return;
    if (poller.budgetKey !== null && turn) this.plan.fleet(poller.budgetKey, turn.fleetDemand);
    // Busy taking another replica's answer (a notice came meanwhile): this tick has nothing to add.
    if (turn?.mine && !poller.polling) return this.poll(poller);
    // The holder's last poll, in case its notice did not arrive.
    if (turn?.last && turn.last.at > poller.answeredAt) this.heard(turn.last);
    this.schedule(poller);
  }

  /** Another replica polled a read: its readers here learn what it found (a change from the shared cache). */
  private heard(notice: PollNotice): void {
    const poller = this.byRead.get(notice.read);
    if (!poller || poller.polling) return;
    // Its holder let it go while this replica has readers: take it over now.
    if (notice.released) return (poller.cancel(), this.schedule(poller, 0));
    if (notice.news === 'outage' || notice.news === 'refused') {
      // Told once (the holder's last notice is read again at each tick).
      if (notice.news === 'outage' && poller.failingSince !== null) return;
      if (notice.news === 'outage') poller.failingSince = notice.at;
      return this.options.wake(poller.target.key, notice.news);
    }
    if (notice.hash === poller.hash && poller.failingSince === null) poller.answeredAt = notice.at;
    else void this.poll(poller, notice.at);
  }

  /**
   * A poll of the read: its upstream answer now, or (`since`: another replica's poll answered then)
   * that answer, from the shared cache. Readers are woken when the answer changed.
   */
  private async poll(poller: Poller, since?: number): Promise<void> {
    if (this.pollers.get(poller.target.key) !== poller || poller.polling) return;
    poller.polling = true;
    if (since === undefined) this.polls++;
    const askedAt = since ?? this.now();
    // Polls are background work: they spend at most the background's share of the tenant's window.
    const session = this.options.session({ authorization: poller.target.authorization, caller: BACKGROUND });
    let news: PollNews | null = null;
    let answered = false;
    try {
      // A record that is gone is an answer too: its readers re-run and learn it (null, NOT_FOUND).
      const hash = await session.poll(poller.target.read, since).then(
        (fetched) => contentHash(fetched.value),
        async (error: unknown) => {
          if (!(error instanceof UpstreamNotFound)) throw error;
          const { tenantId, resourceId } = poller.target.read;
          if (resourceId !== undefined && poller.hash !== NOT_FOUND) await this.options.gone(tenantId, resourceId);
          return NOT_FOUND;
        },
      );
      poller.answeredAt = since ?? this.now();
      answered = true;
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
    // The fleet's other replicas with readers of the read learn what this poll found.
    if (since === undefined && (answered || news)) void this.options.fleet?.tell({ read: poller.read, hash: answered ? poller.hash : undefined, news, at: askedAt }, 2 * this.delayOf(poller));
    // Released meanwhile: nobody to tell, nothing to schedule.
    if (this.pollers.get(poller.target.key) !== poller) return;
    if (news) this.options.wake(poller.target.key, news);
    // A poll taken from another replica's answer leaves this replica's timer as it was.
    if (since === undefined && this.pollers.get(poller.target.key) === poller) this.schedule(poller);
  }
}
