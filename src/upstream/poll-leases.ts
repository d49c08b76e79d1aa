/**
 * One poller per live read for the whole fleet (with Redis): each replica with viewers of a read
 * keeps its timer, but at each tick only the holder of the read's lease polls; the others hear
 * what its polls found on a pub/sub channel (live-polls.ts wakes their viewers, who read the
 * answer from the shared cache). Used by live-polls.ts.
 *
 * - The holder's last notice is kept beside the lease, and a replica that does not hold it reads
 *   it at each of its ticks: a notice lost on pub/sub (a subscription not yet made, a reconnect)
 *   delays a change by a period at most, instead of hiding it until the lease moves.
 * - The lease expires a little after the holder's next poll is due, and every poll renews it: a
 *   replica that dies or stalls (SIGKILL) loses its leases within about a period, and the next
 *   tick of another replica with viewers takes them (so a read goes at most about two periods
 *   without a poll). A replica shutting down (SIGTERM) releases its leases and says so: the others
 *   take over at once.
 * - Redis unavailable or failing: every replica polls for itself (take answers true), as it does
 *   without Redis; the store logs the outage and the recovery once each.
 * - Keys and messages carry a digest of the read's poll key (it holds a caller's credential digest
 *   in passthrough), never the key itself.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';

/** What the leases need of the shared store (RedisStore). */
export interface LeaseStore {
  readonly available: boolean;
  runScript(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  deleteIf(key: string, value: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): void;
}

/** What the holder's poll of a read found, told to the other replicas. */
export interface PollNotice {
  /** The read's digest (PollLeases.idOf). */
  read: string;
  /** The content hash of the answer; absent when the poll had no answer (outage, refusal). */
  hash?: string;
  news: 'changed' | 'outage' | 'recovered' | 'refused' | null;
  /** Epoch ms of the answer. */
  at: number;
  /** The holder let the lease go (shutdown, or no viewer left there): take it now. */
  released?: boolean;
}

/**
 * KEYS: the lease, the holder's last notice, the budget's demand (a sorted set of `read|polls per
 * window`, scored by when each expires). ARGV: holder, lease ms ('': leave the lease alone),
 * read, its polls per window, now, demand ms ('': no budget). Returns {1 when this holder holds
 * the lease (renewed, or taken), the holder's last notice when another holds it, the fleet's
 * demand on the budget}.
 */
const TAKE = `
local turn = { 0, false, false }
if ARGV[6] ~= '' then
  local now, keep = tonumber(ARGV[5]), tonumber(ARGV[6])
  redis.call('ZADD', KEYS[3], now + keep, ARGV[3] .. '|' .. ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  redis.call('PEXPIRE', KEYS[3], keep)
  local sum = 0
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do sum = sum + tonumber(string.match(member, '|(.+)$')) end
  turn[3] = tostring(sum)
end
if ARGV[2] ~= '' then
  local holder = redis.call('GET', KEYS[1])
  if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) turn[1] = 1
  elseif not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) turn[1] = 1
  else turn[2] = redis.call('GET', KEYS[2]) end
end
return turn
`;

/** KEYS[1]: a budget's demand; ARGV[1]: the member of a read no viewer here reads any more. */
const FORGET = "return redis.call('ZREM', KEYS[1], ARGV[1])";

const CHANNEL = 'live:polled';
const leaseKey = (read: string) => `live:lease:${read}`;
const lastKey = (read: string) => `live:last:${read}`;

const demandKey = (budget: string) => `live:demand:${encodeURIComponent(budget)}`;

/** A replica's turn at a read: it polls (`mine`), or it reads what the holder's last poll found; and the fleet's demand on its budget (null: not known). */
export interface Turn { mine: boolean; last: PollNotice | null; fleetDemand: number | null }

/** A read's demand on its background budget, counted for the fleet until `keepMs` after now unless renewed. */
export interface Demand { budget: string; polls: number; now: number; keepMs: number }

export class PollLeases {
  private readonly holder = randomUUID();
  /** The leases this replica holds (by read digest). */
  private readonly held = new Set<string>();
  private listener: ((notice: PollNotice) => void) | null = null;
  private readonly releasing = new Set<Promise<void>>();
  /** The demand members this replica counted, by read. */
  private readonly demands = new Map<string, string>();

  constructor(private readonly store: LeaseStore, private readonly logger: Logger) {
    store.subscribe(CHANNEL, (message) => {
      const notice = parsed(message);
      if (!notice) logger.warn('unreadable live poll notice');
      else if (notice.from !== this.holder) this.listener?.(notice);
    });
  }

  /** The digest that names a read (its poll key) in Redis and in notices. */
  static idOf(pollKey: string): string {
    return createHash('sha1').update(pollKey).digest('base64url');
  }

  /** Leases held now (/metrics). */
  get size(): number {
    return this.held.size;
  }

  /** Calls `listener` with the notices of the other replicas' polls. */
  listen(listener: (notice: PollNotice) => void): void {
    this.listener = listener;
  }

  /**
   * Whether this replica polls the read now: it holds (and renews) or takes the lease; Redis away:
   * yes. `leaseMs` null: only the demand is counted (a read's first run).
   */
  async take(read: string, leaseMs: number | null, demand: Demand | null): Promise<Turn> {
    if (!this.store.available) return { mine: true, last: null, fleetDemand: null };
    let reply: [number, string | null, string | null];
    try {
      reply = (await this.store.runScript(TAKE, [leaseKey(read), lastKey(read), demandKey(demand?.budget ?? '')], [
        this.holder, leaseMs === null ? '' : Math.max(1, Math.round(leaseMs)), read, demand?.polls ?? 0, demand?.now ?? 0, demand ? Math.max(1, Math.round(demand.keepMs)) : '',
      ])) as [number, string | null, string | null];
    } catch {
      return { mine: true, last: null, fleetDemand: null };
    }
    if (demand) this.demands.set(read, `${read}|${demand.polls}`);
    const fleetDemand = typeof reply[2] === 'string' ? Number(reply[2]) : null;
    if (leaseMs === null) return { mine: false, last: null, fleetDemand };
    const mine = Number(reply[0]) === 1;
    if (mine) this.held.add(read);
    else this.held.delete(read);
    return { mine, last: mine || typeof reply[1] !== 'string' ? null : parsed(reply[1]), fleetDemand };
  }

  /** Tells the other replicas what this replica's poll found (kept beside the lease for `keepMs` too). */
  tell(notice: PollNotice, keepMs = 0): Promise<void> {
    if (!this.store.available) return Promise.resolve();
    const message = JSON.stringify({ from: this.holder, ...notice });
    return Promise.all([
      this.store.publish(CHANNEL, message),
      keepMs > 0 ? this.store.set(lastKey(notice.read), message, keepMs) : undefined,
    ]).then(() => undefined, () => undefined);
  }

  /** This replica's viewers of the read left: its demand no longer counts (the others' may still). */
  forget(read: string, budget: string | null): void {
    const member = this.demands.get(read);
    this.demands.delete(read);
    if (member && budget !== null && this.store.available) this.store.runScript(FORGET, [demandKey(budget)], [member]).catch(() => undefined);
  }

  /** Lets the lease go (no viewer left here), and tells the others, who may still have viewers. */
  release(read: string, now: number): Promise<void> {
    if (!this.held.delete(read) || !this.store.available) return Promise.resolve();
    const done = (async () => {
      await this.store.deleteIf(leaseKey(read), this.holder).catch(() => undefined);
      await this.tell({ read, news: null, at: now, released: true });
    })();
    this.releasing.add(done);
    void done.finally(() => this.releasing.delete(done));
    return done;
  }

  /** Every lease held, and the releases under way (shutdown): the other replicas take them over at once. */
  async releaseAll(now: number): Promise<void> {
    await Promise.all([...[...this.held].map((read) => this.release(read, now)), ...this.releasing]);
  }
}

function parsed(message: string): (PollNotice & { from?: string }) | null {
  try {
    const notice = JSON.parse(message) as PollNotice & { from?: string };
    return typeof notice.read === 'string' && typeof notice.at === 'number' ? notice : null;
  } catch {
    return null;
  }
}
