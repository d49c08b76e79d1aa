/**
 * The rate-limit windows in Redis, shared by the replicas: each change is one Lua script, so a
 * claim checks and reserves every window it needs atomically (three replicas together never
 * reserve more than the tenant has). The scripts apply the rules of rate-window.ts, step by step;
 * test/unit/rate-window.test.ts runs the same cases against both.
 */
import type { Logger } from '../logger.js';
import type { RateCategory } from '../core/routes.js';
import { BACKGROUND, mergedWants, type ClaimOutcome, type Spender, type News, type RateBudgetSettings, type RateWindow, type Want, type WindowStore } from './rate-window.js';

/** What the windows need of the shared store (src/upstream/shared-store.ts). */
export interface ScriptRunner {
  readonly available: boolean;
  runScript(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
}

/**
 * Loads a window (fresh at the default limit when absent), rolled over when its reset passed. The
 * hash holds limit, remaining, reset, pending, `cw` (the reset the callers' counts belong to),
 * `c:<caller>` (reserved this window) and `s:<caller>` (last seen, epoch s; the two callers seen
 * last, as rate-window.ts's noticed keeps them). `w.stored` keeps the hash as read, so save()
 * writes only the fields that changed (a claim changes two or three).
 */
const LOAD = `
local function load(key, default, now, win)
  local flat = redis.call('HGETALL', key)
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  local w = { limit = tonumber(h.limit) or default, byCaller = {}, seen = {}, stored = h }
  w.remaining = tonumber(h.remaining) or w.limit
  w.reset = tonumber(h.reset) or 0
  w.pending = tonumber(h.pending) or 0
  local cw = tonumber(h.cw) or 0
  for field, value in pairs(h) do
    local kind, caller = string.sub(field, 1, 2), string.sub(field, 3)
    if kind == 'c:' and cw == w.reset then w.byCaller[caller] = tonumber(value) end
    if kind == 's:' then w.seen[caller] = tonumber(value) end
  end
  if w.reset > 0 and now >= w.reset then
    w.reset = w.reset + (math.floor((now - w.reset) / win) + 1) * win
    w.remaining = w.limit
    w.byCaller = {}
    for caller, at in pairs(w.seen) do if at <= now - 2 * win then w.seen[caller] = nil end end
  end
  return w
end
local function save(key, w, win)
  local want = { limit = w.limit, remaining = w.remaining, reset = w.reset, pending = w.pending, cw = w.reset }
  for caller, n in pairs(w.byCaller) do want['c:' .. caller] = n end
  for caller, at in pairs(w.seen) do want['s:' .. caller] = at end
  local set, gone = {}, {}
  for field, value in pairs(want) do
    if tonumber(w.stored[field]) ~= value then table.insert(set, field); table.insert(set, value) end
  end
  for field in pairs(w.stored) do if want[field] == nil then table.insert(gone, field) end end
  if #set == 0 and #gone == 0 then return end
  if #set > 0 then redis.call('HSET', key, unpack(set)) end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
  redis.call('EXPIRE', key, 3 * win)
end
local function room(w, caller, share, now, win)
  local all = w.remaining - w.pending
  if share >= 1 then return all end
  if caller ~= '${BACKGROUND}' then
    local others = false
    for other, at in pairs(w.seen) do if other ~= caller and at > now - 2 * win then others = true end end
    if not others then return all end
  end
  return math.min(all, math.floor(share * w.limit) - (w.byCaller[caller] or 0))
end
local function notice(w, caller, now)
  if caller == '${BACKGROUND}' then return end
  local other, otherAt = nil, nil
  for name, at in pairs(w.seen) do if name ~= caller and (otherAt == nil or at > otherAt) then other, otherAt = name, at end end
  w.seen = {}
  if other then w.seen[other] = otherAt end
  w.seen[caller] = now
end
`;

/**
 * KEYS: one window per want; ARGV: now, window, caller, share, then n and default limit per want.
 * Returns {0} or {i, limit, remaining, reset, pending, whole-window-room}.
 */
const CLAIM = `${LOAD}
local now, win, caller, share = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local next = {}
for i = 1, #KEYS do
  local n, default = tonumber(ARGV[3 + 2 * i]), tonumber(ARGV[4 + 2 * i])
  local w = load(KEYS[i], default, now, win)
  if room(w, caller, share, now, win) < n then
    notice(w, caller, now)
    save(KEYS[i], w, win)
    return { i, w.limit, w.remaining, w.reset, w.pending, w.remaining - w.pending }
  end
  w.pending = w.pending + n
  w.byCaller[caller] = (w.byCaller[caller] or 0) + n
  notice(w, caller, now)
  next[i] = w
end
for i = 1, #KEYS do save(KEYS[i], next[i], win) end
return { 0 }
`;

/**
 * KEYS[1]: the charged window, KEYS[2]: the window the news is about. ARGV: now, window, n,
 * charged default, news default, has news, has announcement, limit, remaining, reset, throttled, caller, unsent.
 */
const SETTLE = `${LOAD}
local now, win, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local charged = nil
if n > 0 then
  charged = load(KEYS[1], tonumber(ARGV[4]), now, win)
  charged.pending = math.max(0, charged.pending - n)
  local caller = ARGV[12]
  if ARGV[13] == '1' and charged.byCaller[caller] then charged.byCaller[caller] = math.max(0, charged.byCaller[caller] - n) end
end
if ARGV[6] == '1' then
  -- Mostly the news is about the charged window: it is loaded and saved once.
  local w = (charged and KEYS[2] == KEYS[1]) and charged or load(KEYS[2], tonumber(ARGV[5]), now, win)
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
  if w ~= charged then save(KEYS[2], w, win) end
end
if charged then save(KEYS[1], charged, win) end
return 0
`;

/** KEYS[1]; ARGV: now, window, default. Returns {limit, remaining, reset, pending, caller, n, ..., '|', caller, seen, ...}. */
const READ = `${LOAD}
local w = load(KEYS[1], tonumber(ARGV[3]), tonumber(ARGV[1]), tonumber(ARGV[2]))
local out = { w.limit, w.remaining, w.reset, w.pending }
for caller, n in pairs(w.byCaller) do table.insert(out, caller); table.insert(out, n) end
table.insert(out, '|')
for caller, at in pairs(w.seen) do table.insert(out, caller); table.insert(out, at) end
return out
`;

const toWindow = (values: unknown[]): RateWindow => {
  const [limit, remaining, reset, pending] = values.slice(0, 4).map(Number) as [number, number, number, number];
  const window: RateWindow = { limit, remaining, reset, pending, byCaller: {}, seen: {} };
  let into = window.byCaller;
  for (let i = 4; i < values.length; i++) {
    if (values[i] === '|') {
      into = window.seen;
      continue;
    }
    into[String(values[i])] = Number(values[++i]);
  }
  return window;
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

  async claim(wants: readonly Want[], spender: Spender, nowS: number): Promise<ClaimOutcome> {
    const list = mergedWants(wants);
    const args: (string | number)[] = [nowS, this.settings.windowS, spender.caller, spender.share];
    for (const want of list) args.push(want.n, this.settings.defaults[want.category]);
    const result = (await this.run(CLAIM, list.map((w) => this.key(w.tenant, w.category)), args)) as unknown[];
    const index = Number(result[0]);
    if (index === 0) return { ok: true };
    const short = list[index - 1]!;
    return { ok: false, short, window: toWindow(result.slice(1, 5)), byShare: Number(result[5]) >= short.n };
  }

  async settle(tenant: string, charged: RateCategory, n: number, caller: string, unsent: boolean, news: News | null, nowS: number): Promise<void> {
    const about = news?.category ?? charged;
    const a = news?.announcement;
    await this.run(SETTLE, [this.key(tenant, charged), this.key(tenant, about)], [
      nowS, this.settings.windowS, n, this.settings.defaults[charged], this.settings.defaults[about],
      news ? '1' : '0', a ? '1' : '0', a?.limit ?? 0, a?.remaining ?? 0, a?.reset ?? 0, news?.throttled ? '1' : '0', caller, unsent ? '1' : '0',
    ]);
  }

  async window(tenant: string, category: RateCategory, nowS: number): Promise<RateWindow> {
    return toWindow((await this.run(READ, [this.key(tenant, category)], [nowS, this.settings.windowS, this.settings.defaults[category]])) as unknown[]);
  }
}
