/**
 * The rate-limit windows' rules (src/upstream/rate-window.ts), run on both stores: the in-process
 * one and the Redis script (a real redis-server, through ioredis, as the gateway uses it). The
 * same cases must give the same windows, so the fleet and a single replica count alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { LocalWindows } from '../../src/upstream/rate-budget-local.js';
import { RedisWindows } from '../../src/upstream/rate-budget-redis.js';
import { RedisStore } from '../../src/upstream/shared-store.js';
import { BACKGROUND, type WindowStore } from '../../src/upstream/rate-window.js';
import { hasRedis, startRedisServer, type RedisServer } from '../support/redis-server.js';

const settings = { defaults: { paginated: 50, other: 500, update: 25 }, windowS: 60, backgroundShare: 0.5, callerShare: 0.5 };
/** One caller alone: no share of its own applies. */
const ALONE = { caller: 'a-caller', share: 0.5 };
const T0 = 1_800_000_010; // 10 s into a window that resets at 1_800_000_060

type Store = { name: string; make(): Promise<WindowStore> };

let redis: RedisServer | null = null;
let prefix = 0;

const stores: Store[] = [
  { name: 'in process', make: async () => new LocalWindows(settings) },
  ...(hasRedis ? [{
    name: 'Redis',
    make: async () => {
      // A fresh prefix per case: the cases do not see each other's windows.
      const scoped = new RedisStore({ url: redis!.url, keyPrefix: `t${++prefix}:`, timeoutMs: 2_000, logger: createLogger('silent') });
      await scoped.whenConnected(5_000);
      opened.push(scoped);
      return new RedisWindows(scoped, settings, createLogger('silent'));
    },
  }] : []),
];
const opened: RedisStore[] = [];

beforeAll(async () => {
  if (hasRedis) redis = await startRedisServer();
});
afterAll(async () => {
  for (const s of opened) await s.close();
  await redis?.close();
});

if (!hasRedis) it.skip('the Redis store (needs redis-server: apt-get install redis-server)', () => {});

describe.each(stores)('rate-limit windows, $name', ({ make }) => {
  it('reserves up to the default limit before any answer, all wants or none', async () => {
    const windows = await make();
    expect(await windows.claim([{ tenant: 'a', category: 'paginated', n: 30 }], ALONE, T0)).toEqual({ ok: true });
    const refused = await windows.claim([{ tenant: 'a', category: 'other', n: 10 }, { tenant: 'a', category: 'paginated', n: 21 }], ALONE, T0);
    expect(refused).toMatchObject({ ok: false, short: { category: 'paginated', n: 21 }, window: { limit: 50, remaining: 50, pending: 30, reset: 0 } });
    // Nothing of the refused claim was kept: the other window is whole.
    expect(await windows.window('a', 'other', T0)).toMatchObject({ limit: 500, remaining: 500, reset: 0, pending: 0 });
    expect(await windows.claim([{ tenant: 'a', category: 'paginated', n: 20 }], ALONE, T0)).toEqual({ ok: true });
    // Two wants of one window are checked together (a batch's operations).
    expect((await windows.claim([{ tenant: 'c', category: 'other', n: 300 }, { tenant: 'c', category: 'other', n: 300 }], ALONE, T0)).ok).toBe(false);
    // Another tenant has its own windows.
    expect(await windows.claim([{ tenant: 'b', category: 'paginated', n: 50 }], ALONE, T0)).toEqual({ ok: true });
  });

  it('takes the upstream\'s word: the lower remaining within a window, a later reset as it is', async () => {
    const windows = await make();
    await windows.claim([{ tenant: 'a', category: 'paginated', n: 3 }], ALONE, T0);
    // Answers overtake each other: 47 then 48; the lower stands. Each settles its reserved call.
    await windows.settle('a', 'paginated', 1, 'a-caller', false, { category: 'paginated', announcement: { limit: 50, remaining: 47, reset: 1_800_000_060 }, throttled: false }, T0);
    await windows.settle('a', 'paginated', 1, 'a-caller', false, { category: 'paginated', announcement: { limit: 50, remaining: 48, reset: 1_800_000_060 }, throttled: false }, T0);
    expect(await windows.window('a', 'paginated', T0)).toMatchObject({ limit: 50, remaining: 47, reset: 1_800_000_060, pending: 1 });
    // Another client spent 40: the next answer says so.
    await windows.settle('a', 'paginated', 1, 'a-caller', false, { category: 'paginated', announcement: { limit: 50, remaining: 6, reset: 1_800_000_060 }, throttled: false }, T0);
    expect(await windows.claim([{ tenant: 'a', category: 'paginated', n: 7 }], ALONE, T0)).toMatchObject({ ok: false, window: { remaining: 6, pending: 0 } });
    expect(await windows.claim([{ tenant: 'a', category: 'paginated', n: 6 }], ALONE, T0)).toEqual({ ok: true });
    // An answer of the next window is taken as it is.
    await windows.settle('a', 'paginated', 1, 'a-caller', false, { category: 'paginated', announcement: { limit: 50, remaining: 49, reset: 1_800_000_120 }, throttled: false }, 1_800_000_061);
    expect(await windows.window('a', 'paginated', 1_800_000_061)).toMatchObject({ limit: 50, remaining: 49, reset: 1_800_000_120, pending: 5 });
  });

  it('closes a window on a 429 until its reset, then opens it whole with the calls still pending counted', async () => {
    const windows = await make();
    await windows.claim([{ tenant: 'a', category: 'other', n: 2 }], ALONE, T0);
    await windows.settle('a', 'other', 1, 'a-caller', false, { category: 'other', announcement: { limit: 500, remaining: 120, reset: 1_800_000_060 }, throttled: true }, T0);
    expect(await windows.window('a', 'other', T0)).toMatchObject({ limit: 500, remaining: 0, reset: 1_800_000_060, pending: 1 });
    expect((await windows.claim([{ tenant: 'a', category: 'other', n: 1 }], ALONE, 1_800_000_059)).ok).toBe(false);
    expect(await windows.window('a', 'other', 1_800_000_060)).toMatchObject({ limit: 500, remaining: 500, reset: 1_800_000_120, pending: 1 });
    // Two windows later without news: the reset moves on by whole windows.
    expect((await windows.window('a', 'other', 1_800_000_185)).reset).toBe(1_800_000_240);
    // A 429 without headers and no known reset closes one window from now.
    await windows.settle('c', 'update', 0, 'a-caller', false, { category: 'update', announcement: null, throttled: true }, T0);
    expect(await windows.window('c', 'update', T0)).toMatchObject({ limit: 25, remaining: 0, reset: T0 + 60, pending: 0 });
  });

  it('holds background work to its share always, and one caller to its share while another caller is there', async () => {
    const windows = await make();
    const background = { caller: BACKGROUND, share: 0.5 };
    expect((await windows.claim([{ tenant: 'a', category: 'paginated', n: 25 }], background, T0)).ok).toBe(true);
    expect(await windows.claim([{ tenant: 'a', category: 'paginated', n: 1 }], background, T0)).toMatchObject({ ok: false, byShare: true });
    // A caller alone may spend more than its share: all the window has.
    const other = (n: number) => [{ tenant: 'b', category: 'other' as const, n }];
    expect((await windows.claim(other(300), ALONE, T0)).ok).toBe(true);
    // A second caller arrives: from now on the first may hold no more than half (250).
    const second = { caller: 'b-caller', share: 0.5 };
    expect((await windows.claim(other(10), second, T0 + 1)).ok).toBe(true);
    expect(await windows.claim(other(1), ALONE, T0 + 2)).toMatchObject({ ok: false, byShare: true });
    expect((await windows.claim(other(180), second, T0 + 2)).ok).toBe(true);
    // Calls answered stay spent; calls given back unsent return to the caller's share.
    await windows.settle('b', 'other', 100, 'a-caller', false, null, T0 + 3);
    expect(await windows.claim(other(1), ALONE, T0 + 3)).toMatchObject({ ok: false, byShare: true });
    await windows.settle('b', 'other', 100, 'a-caller', true, null, T0 + 3);
    expect((await windows.claim(other(40), ALONE, T0 + 3)).ok).toBe(true);
    expect(await windows.claim(other(11), ALONE, T0 + 3)).toMatchObject({ ok: false, byShare: true });
    // A new window starts every share at zero; the second caller still counts as there.
    await windows.settle('b', 'other', 140, 'a-caller', false, { category: 'other', announcement: { limit: 500, remaining: 500, reset: 1_800_000_060 }, throttled: false }, T0 + 3);
    await windows.settle('b', 'other', 190, 'b-caller', false, null, T0 + 3);
    const next = await windows.window('b', 'other', 1_800_000_061);
    expect(next).toMatchObject({ remaining: 500, pending: 0, byCaller: {} });
    expect(Object.keys(next.seen).sort()).toEqual(['a-caller', 'b-caller']);
    expect(await windows.claim(other(251), ALONE, 1_800_000_061)).toMatchObject({ ok: false, byShare: true });
    expect((await windows.claim(other(250), ALONE, 1_800_000_061)).ok).toBe(true);
    // Two windows without the second caller: the first is alone again.
    await windows.settle('b', 'other', 250, 'a-caller', false, null, 1_800_000_061);
    expect((await windows.claim(other(251), ALONE, 1_800_000_185)).ok).toBe(true);
  });

  it('keeps the two callers seen last, whatever the number of callers, and decides the shares as with all of them', async () => {
    const windows = await make();
    const other = (n: number) => [{ tenant: 'm', category: 'other' as const, n }];
    const caller = (i: number) => ({ caller: `caller-${i}`, share: 0.5 });
    for (let i = 0; i < 200; i++) expect((await windows.claim(other(1), caller(i), T0 + i / 100)).ok).toBe(true);
    const window = await windows.window('m', 'other', T0 + 5);
    expect(Object.keys(window.seen).sort()).toEqual(['caller-198', 'caller-199']);
    // Others are there for the latest caller, for the one before and for an older one: each holds at most half.
    for (const i of [199, 198, 3]) expect(await windows.claim(other(250), caller(i), T0 + 5)).toMatchObject({ ok: false, byShare: true });
    // Two windows later only the latest is left: alone, it may spend more than half (all 300 not pending).
    await windows.claim(other(0), caller(7), T0 + 6);
    expect((await windows.claim(other(260), caller(7), T0 + 200)).ok).toBe(true);
  });

  it('gives back reserved calls never sent, never below zero', async () => {
    const windows = await make();
    await windows.claim([{ tenant: 'a', category: 'update', n: 25 }], ALONE, T0);
    expect((await windows.claim([{ tenant: 'a', category: 'update', n: 1 }], ALONE, T0)).ok).toBe(false);
    await windows.settle('a', 'update', 10, 'a-caller', true, null, T0);
    expect(await windows.window('a', 'update', T0)).toMatchObject({ pending: 15 });
    await windows.settle('a', 'update', 100, 'a-caller', true, null, T0);
    expect(await windows.window('a', 'update', T0)).toMatchObject({ pending: 0, remaining: 25 });
  });
});

describe.runIf(hasRedis)('rate-limit windows shared by replicas', () => {
  it('lets three replicas together reserve no more than the tenant has', async () => {
    const scoped = () => new RedisStore({ url: redis!.url, keyPrefix: 'fleet:', timeoutMs: 2_000, logger: createLogger('silent') });
    const replicas = [scoped(), scoped(), scoped()];
    opened.push(...replicas);
    await Promise.all(replicas.map((r) => r.whenConnected(5_000)));
    const windows = replicas.map((r) => new RedisWindows(r, settings, createLogger('silent')));
    const outcomes = await Promise.all(Array.from({ length: 90 }, (_, i) => windows[i % 3]!.claim([{ tenant: 'a', category: 'paginated', n: 1 }], ALONE, T0)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(50);
  });
});

describe.runIf(hasRedis)('rate-limit windows in Redis: what a claim and a settle cost', () => {
  /** Calls per command since the last CONFIG RESETSTAT (commands run by scripts included). */
  async function commandCalls(): Promise<Record<string, number>> {
    const text = String(await redis!.command('INFO', 'commandstats'));
    return Object.fromEntries([...text.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
  }

  it('sends each as one script call by its hash, reads a window once and writes only the fields that changed', async () => {
    const store = new RedisStore({ url: redis!.url, keyPrefix: 'cost:', timeoutMs: 2_000, logger: createLogger('silent') });
    opened.push(store);
    await store.whenConnected(5_000);
    const windows = new RedisWindows(store, settings, createLogger('silent'));
    const news = (remaining: number) => ({ category: 'other' as const, announcement: { limit: 500, remaining, reset: 1_800_000_060 }, throttled: false });
    // Redis learns each script here (its text is sent once, then only its hash).
    await windows.claim([{ tenant: 'a', category: 'other', n: 5 }], ALONE, T0);
    await windows.settle('a', 'other', 1, 'a-caller', false, news(499), T0);

    await redis!.command('CONFIG', 'RESETSTAT');
    await windows.claim([{ tenant: 'a', category: 'other', n: 2 }], ALONE, T0 + 1);
    // Before: the whole hash deleted and written again (DEL, HSET of every field).
    expect(await commandCalls()).toMatchObject({ evalsha: 1, hgetall: 1, hset: 1, expire: 1 });
    expect((await commandCalls()).del).toBeUndefined();

    await redis!.command('CONFIG', 'RESETSTAT');
    // Its news is about the window it releases: loaded and saved once (before: twice each).
    await windows.settle('a', 'other', 1, 'a-caller', false, news(498), T0 + 1);
    const settled = await commandCalls();
    expect(settled).toMatchObject({ evalsha: 1, hgetall: 1, hset: 1, expire: 1 });
    expect([settled.del, settled.eval]).toEqual([undefined, undefined]);

    // Nothing changed (the same news again, nothing released): nothing written.
    await redis!.command('CONFIG', 'RESETSTAT');
    await windows.settle('a', 'other', 0, 'a-caller', false, news(498), T0 + 1);
    expect((await commandCalls()).hset).toBeUndefined();

    // A new window: the callers' counts of the last one leave the hash (HDEL), not only the reading.
    await windows.claim([{ tenant: 'a', category: 'other', n: 1 }], { caller: 'b-caller', share: 0.5 }, 1_800_000_061);
    const fields = (await redis!.command('HGETALL', 'cost:ratelimit:other:a')) as string[];
    const names = fields.filter((_, i) => i % 2 === 0).sort();
    expect(names).toEqual(['c:b-caller', 'cw', 'limit', 'pending', 'remaining', 'reset', 's:a-caller', 's:b-caller']);
  });
});
