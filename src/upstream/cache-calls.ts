/**
 * The calls the response cache makes for its misses and refreshes: one per key at a time in this
 * process (identical reads in flight wait for it) and, with Redis, one per key in the fleet
 * (fleet-fetch.ts). Storage and policy stay in response-cache.ts, which says how to make and keep
 * an entry (`Keeper`).
 */
import type { Logger } from '../logger.js';
import type { RouteName } from '../core/operation-stats.js';
import { deserialize, type CacheReadIo, type Entry } from './cache-entry.js';
import { UpstreamError } from './errors.js';
import { FleetFetches } from './fleet-fetch.js';
import type { SharedStore } from './shared-store.js';

export type CallResult = 'miss' | 'coalesced' | 'awaited';

/** What the calls need of the cache: keeping an entry another replica stored, and counting. */
export interface Keeper {
  remember(key: string, entry: Entry): void;
  count(route: RouteName, result: CallResult): void;
  logger: Logger;
}

/** A key's call: the entry's key, whether it depends on generations, and the route (for counts). */
export interface KeyedCall { key: string; generational: boolean; route: RouteName }

export class CacheCalls {
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly fleet: FleetFetches | null;

  constructor(shared: SharedStore | null, private readonly keeper: Keeper) {
    this.fleet = shared ? new FleetFetches(shared) : null;
  }

  /** Reads answered by another replica's call. */
  get awaited(): number {
    return this.fleet?.answered ?? 0;
  }

  /**
   * One upstream call per key at a time; a caller whose leader stopped for its own reasons calls
   * itself. `make` calls and stores. `fleetMay`: what another replica's answer must be for this
   * read to take it (null: it may not, the read calls itself).
   */
  async load(at: KeyedCall, io: CacheReadIo, make: () => Promise<Entry>, fleetMay: ((found: Entry) => boolean) | null): Promise<Entry> {
    const { key, route } = at;
    for (;;) {
      const pending = this.inFlight.get(key);
      if (!pending) break;
      try {
        const entry = await io.wait(pending);
        io.coalesced();
        this.keeper.count(route, 'coalesced');
        return entry;
      } catch (error) {
        // A leader's call that settled has left the map (forget, below, runs first). Still there:
        // the failure is this operation's own stop. Gone with a local error: the leader's client
        // left, or its deadline or budget ran out, or the rate-limit budget refused its call (this
        // operation's claim may cover it), which says nothing of the upstream: call again.
        if (!(error instanceof UpstreamError && (error.local || error.budgetRefusal)) || this.inFlight.get(key) === pending) throw error;
      }
    }
    const own = (): Promise<Entry> => {
      io.miss();
      this.keeper.count(route, 'miss');
      return make();
    };
    const fleet = this.fleet;
    const call = fleet?.available && fleetMay
      ? fleet.once(key, acceptor(at.generational, fleetMay), own, (p) => io.wait(p)).then(({ value, by }) => {
        if (by === 'fleet') {
          this.keeper.remember(key, value);
          io.coalesced();
          this.keeper.count(route, 'awaited');
        }
        return value;
      })
      : own();
    this.inFlight.set(key, call);
    const forget = () => {
      if (this.inFlight.get(key) === call) this.inFlight.delete(key);
    };
    call.then(forget, forget);
    return call;
  }

  /**
   * A background refresh of the entry `served` (stale): none when a call for the key is in flight
   * here; with Redis, made by the replica that takes the key's lock, skipped by the others (their
   * next read finds its answer in the shared store).
   */
  refresh(at: KeyedCall, make: () => Promise<Entry>, served: Entry): void {
    const { key } = at;
    if (this.inFlight.has(key)) return;
    const fleet = this.fleet;
    const call: Promise<Entry | null> = fleet?.available
      ? fleet.unlessTaken(key, acceptor(at.generational, (found) => found.storedAt > served.storedAt), make).then((answered) => {
        if (answered?.by === 'fleet') this.keeper.remember(key, answered.value);
        return answered?.value ?? null;
      })
      : make();
    // Skipped for another replica's refresh: a read that joins it gets the entry it would have served.
    const tracked = call.then((entry) => entry ?? served);
    this.inFlight.set(key, tracked);
    tracked
      .catch((error: unknown) => this.keeper.logger.debug('background refresh failed', { route: at.route, code: (error as UpstreamError).code }))
      .finally(() => {
        if (this.inFlight.get(key) === tracked) this.inFlight.delete(key);
      });
  }
}

/** What of the shared store's text for a key is good enough: parsed, and as `good` says. */
function acceptor(generational: boolean, good: (found: Entry) => boolean): (raw: string) => Entry | null {
  return (raw) => {
    const found = deserialize(raw, generational);
    return found && good(found) ? found : null;
  };
}
