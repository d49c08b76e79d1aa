/**
 * The fleet's shared layer on Redis (ioredis): the response cache's second level, the generation
 * tokens that invalidate it, and the client-credentials token with the lock that lets one
 * replica fetch it for all.
 *
 * Redis down or slow must never fail a request: commands are not queued while disconnected and
 * time out after REDIS_TIMEOUT_MS; after a failure the store counts as unavailable for a short
 * pause (callers use their in-process state), the outage is logged once, and the recovery too.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

export interface SharedStore {
  /** Worth asking now: connected, and not paused after a failure. */
  readonly available: boolean;
  /** Connected, paused or not (the token path waits out a slow store rather than skip it). */
  readonly connected: boolean;
  get(key: string): Promise<string | null>;
  /** Several keys in one round trip (null for each one missing). */
  mget(keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** The generation tokens of these keys; a missing one is created with make() (first writer wins). */
  generations(keys: string[], make: () => string, ttlMs: number): Promise<string[]>;
  setGenerations(tokens: ReadonlyMap<string, string>, ttlMs: number): Promise<void>;
  /** Deletes the key only while it still holds this value. */
  deleteIf(key: string, value: string): Promise<void>;
  /** Takes a lock held until released or ttlMs; false when someone else holds it. */
  lock(key: string, id: string, ttlMs: number): Promise<boolean>;
  unlock(key: string, id: string): Promise<void>;
  /** Runs a Lua script atomically (the rate-limit windows, src/upstream/rate-budget-redis.ts). */
  runScript(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  /** Called each time the connection is (re)established. */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

/** After a failed command, the store is left alone this long (the in-process cache answers). */
const PAUSE_AFTER_FAILURE_MS = 1_000;

const DELETE_IF_SCRIPT = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key, so several deployments can share one Redis. */
  keyPrefix: string;
  timeoutMs: number;
  logger: Logger;
}

export class RedisStore implements SharedStore {
  private readonly redis: Redis;
  private pausedUntil = 0;
  private degraded = false;
  private readonly listeners: (() => void)[] = [];
  /** The connection in subscriber mode (a Redis connection that subscribed can do nothing else); made on the first subscribe. */
  private subscriber: Redis | null = null;
  private closing = false;

  constructor(private readonly options: RedisStoreOptions) {
    this.redis = new Redis(options.url, {
      keyPrefix: options.keyPrefix,
      // Concurrent reads of one operation (a page of details) go out as one pipeline.
      enableAutoPipelining: true,
      // Fail at once while disconnected, instead of queueing requests behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs,
      connectTimeout: Math.max(1_000, options.timeoutMs),
      retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
      lazyConnect: false,
    });
    this.redis.on('ready', () => {
      if (this.degraded) options.logger.info('shared cache (Redis) is available again');
      this.degraded = false;
      this.pausedUntil = 0;
      for (const listener of this.listeners) listener();
    });
    this.redis.on('error', (error: Error) => this.failed(error));
    // The server went away: said at once, not at the first failed reconnect (nor when this store closes).
    for (const event of ['close', 'end']) {
      this.redis.on(event, () => {
        if (!this.closing) this.failed(new Error('connection closed'));
      });
    }
  }

  get available(): boolean {
    return this.connected && performance.now() >= this.pausedUntil;
  }

  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  onReconnect(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Resolves true once connected, false after waitMs (start-up goes on either way). */
  whenConnected(waitMs: number): Promise<boolean> {
    if (this.connected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        resolve(false);
      }, waitMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.redis.once('ready', onReady);
    });
  }

  /** Logs the first failure of an outage; later ones are only counted by the pause. */
  private failed(error: Error): void {
    this.pausedUntil = performance.now() + PAUSE_AFTER_FAILURE_MS;
    if (this.degraded) return;
    this.degraded = true;
    this.options.logger.warn('shared cache (Redis) unavailable: answering from the in-process cache', { error: error.message });
  }

  private async guard<T>(command: Promise<T>): Promise<T> {
    try {
      return await command;
    } catch (error) {
      this.failed(error as Error);
      throw error;
    }
  }

  get(key: string): Promise<string | null> {
    return this.guard(this.redis.get(key));
  }

  mget(keys: string[]): Promise<(string | null)[]> {
    return this.guard(this.redis.mget(...keys));
  }

  /** The SHA-1 of each script run: sent as EVALSHA, the script's text only when Redis does not know it (NOSCRIPT). */
  private readonly scriptShas = new Map<string, string>();

  async runScript(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    let sha = this.scriptShas.get(script);
    if (!sha) this.scriptShas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
    // ioredis prefixes the KEYS of EVAL and EVALSHA with keyPrefix like any other key.
    try {
      return await this.redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!/NOSCRIPT/.test((error as Error).message)) {
        this.failed(error as Error);
        throw error;
      }
    }
    return this.guard(this.redis.eval(script, keys.length, ...keys, ...args));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.guard(this.redis.set(key, value, 'PX', Math.max(1, Math.round(ttlMs))));
  }

  async generations(keys: string[], make: () => string, ttlMs: number): Promise<string[]> {
    const found = await this.guard(this.redis.mget(...keys));
    return Promise.all(found.map(async (token, i) => {
      if (token !== null) return token;
      const key = keys[i]!;
      const mine = make();
      // NX: when two replicas create it at once, both end up with the one that was stored first.
      if ((await this.guard(this.redis.set(key, mine, 'PX', ttlMs, 'NX'))) === 'OK') return mine;
      return (await this.guard(this.redis.get(key))) ?? mine;
    }));
  }

  async setGenerations(tokens: ReadonlyMap<string, string>, ttlMs: number): Promise<void> {
    const pipeline = this.redis.multi();
    for (const [key, token] of tokens) pipeline.set(key, token, 'PX', ttlMs);
    await this.guard(pipeline.exec());
  }

  async deleteIf(key: string, value: string): Promise<void> {
    await this.runScript(DELETE_IF_SCRIPT, [key], [value]);
  }

  async lock(key: string, id: string, ttlMs: number): Promise<boolean> {
    return (await this.guard(this.redis.set(key, id, 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async unlock(key: string, id: string): Promise<void> {
    await this.deleteIf(key, id);
  }

  /** Sends a message to every replica subscribed to the channel (the key prefix scopes it to this deployment). */
  async publish(channel: string, message: string): Promise<void> {
    await this.guard(this.redis.publish(`${this.options.keyPrefix}${channel}`, message));
  }

  /**
   * Calls the handler with each message on the channel; resubscribes after a reconnect (ioredis
   * does). A SUBSCRIBE that fails (sent before the connection was up, or timed out on a busy
   * machine) is sent again a second later: ioredis resubscribes only to channels it subscribed.
   */
  subscribe(channel: string, handler: (message: string) => void): void {
    const name = `${this.options.keyPrefix}${channel}`;
    if (!this.subscriber) {
      // Waits for its connection (no retry limit, no command timeout): a subscription is made once, early.
      this.subscriber = this.redis.duplicate({ keyPrefix: undefined, enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined });
      this.subscriber.on('error', () => undefined); // the main connection logs outages
    }
    const subscriber = this.subscriber;
    subscriber.on('message', (from: string, message: string) => {
      if (from === name) handler(message);
    });
    let warned = false;
    const subscribe = (): void => {
      subscriber.subscribe(name).catch((error: Error) => {
        if (this.closing) return;
        if (!warned) this.options.logger.warn('live update channel (Redis) not subscribed yet: trying again', { error: error.message });
        warned = true;
        setTimeout(subscribe, 1_000).unref();
      });
    };
    subscribe();
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.subscriber) {
      this.subscriber.removeAllListeners('message');
      await this.subscriber.quit().catch(() => this.subscriber?.disconnect());
    }
    this.redis.removeAllListeners('error');
    this.redis.on('error', () => undefined);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
