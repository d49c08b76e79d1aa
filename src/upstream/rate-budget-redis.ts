/**
 * The rate-limit windows in Redis, shared by the replicas: each change is one Lua script, so a
 * claim checks and reserves every window it needs atomically (three replicas together never
 * reserve more than the tenant has). The scripts apply the rules of rate-window.ts, step by step;
 * test/unit/rate-window.test.ts runs the same cases against both.
 */
import type { Logger } from '../logger.js';
import type { RateCategory } from '../core/routes.js';
import { mergedWants, type ClaimOutcome, type News, type RateBudgetSettings, type RateWindow, type Want, type WindowStore } from './rate-window.js';

/** What the windows need of the shared store (src/upstream/shared-store.ts). */
export interface ScriptRunner {
  readonly available: boolean;
  runScript(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
}

/** Loads a window (fresh at the default limit when absent) and rolls it over when its reset passed. */
const LOAD = `
local function load(key, default, now, win)
  local h = redis.call('HMGET', key, 'limit', 'remaining', 'reset', 'pending')
  local w = { limit = tonumber(h[1]) or default }
  w.remaining = tonumber(h[2]) or w.limit
  w.reset = tonumber(h[3]) or 0
  w.pending = tonumber(h[4]) or 0
  if w.reset > 0 and now >= w.reset then
    w.reset = w.reset + (math.floor((now - w.reset) / win) + 1) * win
    w.remaining = w.limit
  end
  return w
end
local function save(key, w, win)
  redis.call('HSET', key, 'limit', w.limit, 'remaining', w.remaining, 'reset', w.reset, 'pending', w.pending)
  redis.call('EXPIRE', key, 3 * win)
end
`;

/** KEYS: one window per want; ARGV: now, window, then n and default limit per want. Returns {0} or {i, limit, remaining, reset, pending}. */
const CLAIM = `${LOAD}
local now, win = tonumber(ARGV[1]), tonumber(ARGV[2])
local next = {}
for i = 1, #KEYS do
  local n, default = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  local w = load(KEYS[i], default, now, win)
  if w.remaining - w.pending < n then return { i, w.limit, w.remaining, w.reset, w.pending } end
  w.pending = w.pending + n
  next[i] = w
end
for i = 1, #KEYS do save(KEYS[i], next[i], win) end
return { 0 }
`;

/**
 * KEYS[1]: the charged window, KEYS[2]: the window the news is about. ARGV: now, window, n,
 * charged default, news default, has news, has announcement, limit, remaining, reset, throttled.
 */
const SETTLE = `${LOAD}
local now, win, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if n > 0 then
  local w = load(KEYS[1], tonumber(ARGV[4]), now, win)
  w.pending = math.max(0, w.pending - n)
  save(KEYS[1], w, win)
end
if ARGV[6] == '1' then
  local w = load(KEYS[2], tonumber(ARGV[5]), now, win)
  if ARGV[7] == '1' then
    local limit, remaining, reset = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
    if reset > w.reset then
      w.limit, w.remaining, w.reset = limit, remaining, reset
    elseif reset == w.reset then
      w.limit, w.remaining = limit, math.min(w.remaining, remaining)
    end
  end
  if ARGV[11] == '1' then
    w.remaining = 0
    if w.reset <= now then w.reset = math.ceil(now) + win end
  end
  save(KEYS[2], w, win)
end
return 0
`;

/** KEYS[1]; ARGV: now, window, default. Returns {limit, remaining, reset, pending}. */
const READ = `${LOAD}
local w = load(KEYS[1], tonumber(ARGV[3]), tonumber(ARGV[1]), tonumber(ARGV[2]))
return { w.limit, w.remaining, w.reset, w.pending }
`;

const toWindow = (values: unknown[]): RateWindow => {
  const [limit, remaining, reset, pending] = values.map(Number) as [number, number, number, number];
  return { limit, remaining, reset, pending };
};

export class RedisWindows implements WindowStore {
  private warned = false;

  constructor(private readonly redis: ScriptRunner, private readonly settings: RateBudgetSettings, private readonly logger: Logger) {}

  get available(): boolean {
    return this.redis.available;
  }

  private key(tenant: string, category: RateCategory): string {
    return `ratelimit:${category}:${tenant}`;
  }

  private async run(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await this.redis.runScript(script, keys, args);
    } catch (error) {
      if (!this.warned) this.logger.warn('rate-limit windows: Redis failed, this replica counts alone meanwhile', { error });
      this.warned = true;
      throw error;
    }
  }

  async claim(wants: readonly Want[], nowS: number): Promise<ClaimOutcome> {
    const list = mergedWants(wants);
    const args: (string | number)[] = [nowS, this.settings.windowS];
    for (const want of list) args.push(want.n, this.settings.defaults[want.category]);
    const result = (await this.run(CLAIM, list.map((w) => this.key(w.tenant, w.category)), args)) as unknown[];
    const index = Number(result[0]);
    if (index === 0) return { ok: true };
    return { ok: false, short: list[index - 1]!, window: toWindow(result.slice(1)) };
  }

  async settle(tenant: string, charged: RateCategory, n: number, news: News | null, nowS: number): Promise<void> {
    const about = news?.category ?? charged;
    const a = news?.announcement;
    await this.run(SETTLE, [this.key(tenant, charged), this.key(tenant, about)], [
      nowS, this.settings.windowS, n, this.settings.defaults[charged], this.settings.defaults[about],
      news ? '1' : '0', a ? '1' : '0', a?.limit ?? 0, a?.remaining ?? 0, a?.reset ?? 0, news?.throttled ? '1' : '0',
    ]);
  }

  async window(tenant: string, category: RateCategory, nowS: number): Promise<RateWindow> {
    return toWindow((await this.run(READ, [this.key(tenant, category)], [nowS, this.settings.windowS, this.settings.defaults[category]])) as unknown[]);
  }
}
