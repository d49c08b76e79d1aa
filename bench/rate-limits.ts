/**
 * Dashboard views per tenant and minute (issue 29, item 5): one real minute of a dashboard mix
 * asking several times one tenant's (client_1's) documented budget (50 paginated GETs, 500 other
 * GETs a minute), against a simulator throttling at those limits (its own child process), through
 * the gateway at its defaults and through the plain client (the same REST calls, no budget, no
 * cache, no retries). Each contender gets its own minute, starting just after a window boundary of
 * the simulator (the next whole minute of wall time; the windows are refilled there too), after a
 * warm-up on another tenant (client_2) that is not counted.
 *
 * The mix, the same schedule for both: a resources page (15 hosts, applications, 24 h availability)
 * every second (t = 0..57 s; 8 offsets × 3 days: 24 distinct pages, then repeats), a resource
 * summary every 2 s (t = 0.5..56.5 s; 4 filters in turn), three users taking the views in turn
 * (three callers); three live tiles open the whole minute (two summaries, one page of 10 hosts with
 * applications), one per user; the plain client polls each tile every 5 s. Every 5 s a resource of
 * the live page changes at the upstream (uncounted), so a live tile has something to say.
 *
 * With redis-server installed, a third contender (issue 39): three replicas at their defaults on
 * one Redis, taking the views and tiles in turn, against the one gateway with the same demand.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { assembleGateway } from '../src/server/assemble.js';
import { WINDOW_FROM } from './scenarios.js';
import { startSimulatorProcess } from './simulator-process.js';
import { hasRedis, startRedisServer } from '../test/support/redis-server.js';

const MINUTE_MS = 60_000;
const PAGE_SIZE = 15;
const OFFSETS = 8;
const DAYS = 3;
const USERS = 3;
const LIVE_POLL_MS = 5_000;
const PER_OPERATION = 16;
const TENANT = 'client_1';
const SUMMARY_FILTERS: { graphql: string; listings: string[] }[] = [
  { graphql: '', listings: ['active', 'inactive', 'discovered'].map((s) => `state=${s}`) },
  { graphql: '(filter: { type: "DEVICE" })', listings: ['active', 'inactive', 'discovered'].map((s) => `state=${s}&queryString=type%3ADEVICE`) },
  { graphql: '(filter: { hostName: "a" })', listings: ['active', 'inactive', 'discovered'].map((s) => `state=${s}&queryString=hostName%3Aa`) },
  { graphql: '(filter: { state: ACTIVE })', listings: ['state=active'] },
];

interface View { at: number; user: number; query: string; plain: (tenant: string, get: Get) => Promise<void> }
type Get = (path: string) => Promise<any>;

const api = (tenant: string) => `/api/v2/tenants/${tenant}`;
const pageQuery = (tenant: string, offset: number, from: number, size = PAGE_SIZE, availability = true) => `{ tenant(id: "${tenant}") {
  resources(first: ${size}, offset: ${offset}, orderBy: { field: ID, direction: DESC }) { nodes { id hostName aliasName applications { name version }
  ${availability ? `availability(from: ${from}, to: ${from + 86_400}) { availabilityPercent downtimeSeconds }` : ''} } } } }`;
const summaryQuery = (tenant: string, filter: string) =>
  `{ tenant(id: "${tenant}") { resourceSummary${filter} { total byState { state count } byResourceType { resourceType { name } count } } } }`;

/** A page by hand: the search, then each host's applications (and availability), PER_OPERATION in flight. */
async function plainPage(tenant: string, get: Get, offset: number, from: number, size = PAGE_SIZE, availability = true): Promise<void> {
  const page = await get(`${api(tenant)}/resources/search?pageNo=${offset / size + 1}&pageSize=${size}&sortName=id&isDescendingOrder=true`);
  const paths = (page.results as { id: string }[]).flatMap((r) => [
    `${api(tenant)}/resources/${r.id}/applications`,
    ...(availability ? [`${api(tenant)}/resources/${r.id}/availability?startTime=${from}&endTime=${from + 86_400}`] : []),
  ]);
  let next = 0;
  const errors: unknown[] = [];
  // Every call is sent even when one fails (as Promise.allSettled would): the view is lost anyway.
  await Promise.all(Array.from({ length: Math.min(PER_OPERATION, paths.length) }, async () => {
    while (next < paths.length) await get(paths[next++]!).catch((e: unknown) => errors.push(e));
  }));
  if (errors.length) throw errors[0];
}

/** A summary by hand: the same minimal listings as the gateway, and the resource types, every time. */
async function plainSummary(tenant: string, get: Get, filter: number): Promise<void> {
  const paths = [...SUMMARY_FILTERS[filter]!.listings.map((q) => `${api(tenant)}/resources/minimal?${q}`), `${api(tenant)}/resourceType/minimal`];
  const results = await Promise.allSettled(paths.map(get));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

function mix(tenant: string, seconds: number): { views: View[]; tiles: { user: number; query: string; plain: (get: Get) => Promise<void> }[] } {
  const views: View[] = [];
  for (let i = 0; i * 1000 < seconds * 1000 - 2_000; i++) {
    const offset = (i % OFFSETS) * PAGE_SIZE;
    const from = WINDOW_FROM - (Math.floor(i / OFFSETS) % DAYS) * 86_400;
    views.push({ at: i * 1000, user: i % USERS, query: pageQuery(tenant, offset, from), plain: (t, get) => plainPage(t, get, offset, from) });
  }
  for (let i = 0; i * 2000 + 500 < seconds * 1000 - 3_000; i++) {
    const filter = i % SUMMARY_FILTERS.length;
    views.push({ at: i * 2000 + 500, user: (i + 1) % USERS, query: summaryQuery(tenant, SUMMARY_FILTERS[filter]!.graphql), plain: (t, get) => plainSummary(t, get, filter) });
  }
  const tiles = [
    { user: 0, query: summaryQuery(tenant, ''), plain: (get: Get) => plainSummary(tenant, get, 0) },
    { user: 1, query: summaryQuery(tenant, SUMMARY_FILTERS[1]!.graphql), plain: (get: Get) => plainSummary(tenant, get, 1) },
    { user: 2, query: pageQuery(tenant, 0, WINDOW_FROM, 10, false), plain: (get: Get) => plainPage(tenant, get, 0, WINDOW_FROM, 10, false) },
  ].map((t) => ({ ...t, query: t.query.replace(/^\{/, 'query Tile @live {') }));
  return { views: views.sort((a, b) => a.at - b.at), tiles };
}

export interface Outcome {
  asked: number; complete: number; stale: number; refused: number; failed: number;
  sent: number; byCategory: Record<string, number>; throttled: number; wasted: number; payloads: number; liveStale: number;
  /** Per tile: payloads received, and the pollSeconds its payloads said. */
  tiles: { payloads: number; pollSeconds: Set<number> }[]; sample?: string;
}
const emptyOutcome = (): Outcome => ({ asked: 0, complete: 0, stale: 0, refused: 0, failed: 0, sent: 0, byCategory: {}, throttled: 0, wasted: 0, payloads: 0, liveStale: 0, tiles: [] });

interface Contender {
  name: string;
  view(view: View, out: Outcome): Promise<void>;
  /** Opens a tile for the minute; resolves when `signal` aborts. */
  tile(tile: ReturnType<typeof mix>['tiles'][number], out: Outcome, mine: Outcome['tiles'][number], signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** The gateway at its defaults: one, or (`redisUrl`) `replicas` of them on one Redis, taking the views and tiles in turn. */
async function gatewayContender(simUrl: string, agent: Agent, fleet?: { replicas: number; redisUrl: string }): Promise<Contender> {
  const started: { server: http.Server; close: () => Promise<void>; url: string }[] = [];
  for (let i = 0; i < (fleet?.replicas ?? 1); i++) {
    const config = loadConfig({ INVENTORY_API_URL: simUrl, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn', METRICS: 'false', ...(fleet ? { REDIS_URL: fleet.redisUrl } : {}) });
    const { gateway, close } = await assembleGateway({ config, baseUrl: simUrl, logger: createLogger(config.logLevel), redisWaitMs: fleet ? 5_000 : undefined });
    const server = http.createServer(gateway);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    started.push({ server, close, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` });
  }
  let turn = 0;
  const next = () => started[turn++ % started.length]!.url;
  const headers = (user: number, extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', authorization: `Bearer user-${user}`, ...extra });
  return {
    name: fleet ? `${fleet.replicas} replicas on one Redis (defaults)` : 'gateway (defaults)',
    async view(view, out) {
      out.asked++;
      const res = await request(next(), { dispatcher: agent, method: 'POST', headers: headers(view.user, { 'x-upstream-stats': '1' }), body: JSON.stringify({ query: view.query }) });
      const json = (await res.body.json()) as { errors?: { extensions?: { code?: string } }[]; extensions?: { stale?: unknown; upstream?: { totalCalls?: number } } };
      if (json.errors?.some((e) => e.extensions?.code === 'RATE_LIMITED')) {
        out.refused++;
        out.wasted += json.extensions?.upstream?.totalCalls ?? 0;
      } else if (json.errors) {
        out.failed++;
        out.sample ??= JSON.stringify(json.errors).slice(0, 300);
      } else if (json.extensions?.stale) out.stale++;
      else out.complete++;
    },
    async tile(tile, out, mine, signal) {
      const res = await request(next(), {
        dispatcher: agent, method: 'POST', signal, headers: headers(tile.user, { accept: 'text/event-stream' }), body: JSON.stringify({ query: tile.query }),
      });
      let buffer = '';
      try {
        for await (const chunk of res.body) {
          buffer += String(chunk);
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!/^event: next$/m.test(event)) continue;
            const data = JSON.parse(/^data: (.*)$/m.exec(event)?.[1] ?? '{}') as { errors?: unknown[]; extensions?: { stale?: unknown; live?: { pollSeconds?: number } } };
            out.payloads++;
            mine.payloads++;
            if (data.errors) out.sample ??= `live: ${JSON.stringify(data.errors).slice(0, 300)}`;
            if (data.extensions?.stale) out.liveStale++;
            if (data.extensions?.live?.pollSeconds !== undefined) mine.pollSeconds.add(data.extensions.live.pollSeconds);
          }
        }
      } catch (error) {
        if (!signal.aborted) throw error;
      }
    },
    async close() {
      for (const { server, close } of started) {
        server.closeAllConnections();
        server.close();
        await close();
      }
    },
  };
}

class Throttled extends Error {}

function plainContender(simUrl: string, agent: Agent): Contender {
  /** A get that counts what it sends for one view (or one poll), and throws on a 429 (no retry). */
  const counted = (tally: { sent: number; throttled: number }): Get => async (path) => {
    tally.sent++;
    const res = await request(`${simUrl}${path}`, { dispatcher: agent });
    const body = await res.body.json();
    if (res.statusCode === 429) {
      tally.throttled++;
      throw new Throttled(path);
    }
    if (res.statusCode !== 200) throw new Error(`plain client: ${res.statusCode} on ${path}`);
    return body;
  };
  const run = async (work: (get: Get) => Promise<void>, out: Outcome): Promise<boolean> => {
    const tally = { sent: 0, throttled: 0 };
    try {
      await work(counted(tally));
      return true;
    } catch (error) {
      if (!(error instanceof Throttled)) throw error;
      out.wasted += tally.sent;
      return false;
    }
  };
  return {
    name: 'plain client',
    async view(view, out) {
      out.asked++;
      if (await run((get) => view.plain(TENANT, get), out)) out.complete++;
      else out.refused++;
    },
    async tile(tile, out, mine, signal) {
      while (!signal.aborted) {
        const started = Date.now();
        if (await run(tile.plain, out)) {
          out.payloads++;
          mine.payloads++;
        }
        await sleep(Math.max(0, LIVE_POLL_MS - (Date.now() - started)), undefined, { signal }).catch(() => undefined);
      }
    },
    close: async () => {},
  };
}

type SimStats = { byTenant: Record<string, Record<string, { calls: number; throttled: number }>> };

/** One minute of the mix through one contender, from just after the next whole minute of wall time. */
async function minute(simUrl: string, contender: Contender, changed: string): Promise<Outcome> {
  const warmUp = mix('client_2', 6);
  await Promise.all(warmUp.views.slice(0, 4).map((v) => contender.view({ ...v, plain: (_t, get) => v.plain('client_2', get) }, emptyOutcome())));
  const start = Math.ceil((Date.now() + 1_000) / MINUTE_MS) * MINUTE_MS + 250;
  await sleep(start - Date.now());
  await fetch(`${simUrl}/__sim/rate-limits/reset`, { method: 'POST' });
  await fetch(`${simUrl}/__sim/stats/reset`, { method: 'POST' });
  const out = emptyOutcome();
  const { views, tiles } = mix(TENANT, 60);
  const stop = new AbortController();
  out.tiles = tiles.map(() => ({ payloads: 0, pollSeconds: new Set<number>() }));
  const open = tiles.map((tile, i) => contender.tile(tile, out, out.tiles[i]!, stop.signal));
  let n = 0;
  const changer = setInterval(() => {
    void fetch(`${simUrl}${api(TENANT)}/resources/${changed}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-simulator-uncounted': '1' }, body: JSON.stringify({ aliasName: `bench-${++n}` }),
    }).then((r) => r.text());
  }, LIVE_POLL_MS);
  const done = views.map(async (view) => {
    await sleep(start + view.at - Date.now());
    await contender.view(view, out);
  });
  await sleep(start + MINUTE_MS - Date.now());
  clearInterval(changer);
  stop.abort();
  await Promise.all([...done, ...open]);
  await sleep(500);
  const stats = (await (await fetch(`${simUrl}/__sim/stats`)).json()) as SimStats;
  for (const [name, category] of Object.entries(stats.byTenant[TENANT] ?? {})) {
    out.byCategory[name] = category.calls + category.throttled;
    out.sent += category.calls + category.throttled;
    out.throttled += category.throttled;
  }
  // The plain client counts its 429s among its failed views' calls; the gateway's come on top of its refused answers'.
  if (contender.name !== 'plain client') out.wasted += out.throttled;
  return out;
}

/** Runs the row: its own simulator (limits on, the documented ones), the gateway's minute, then the plain client's. */
export async function rateLimitRow(log: (line: string) => void): Promise<void> {
  const sim = await startSimulatorProcess({ rateLimit: true });
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  try {
    const limits = (await (await fetch(`${sim.url}/__sim/rate-limits`)).json()) as { limits: Record<string, number>; windowSeconds: number };
    const first = (await (await fetch(`${sim.url}${api(TENANT)}/resources/search?pageNo=1&pageSize=10&sortName=id&isDescendingOrder=true`, { headers: { 'x-simulator-uncounted': '1' } })).json()) as { results: { id: string }[] };
    const changed = first.results[0]!.id;
    const { views, tiles } = mix(TENANT, 60);
    const pages = views.filter((v) => v.query.includes('resources(')).length;
    log('');
    log(`Dashboard views per tenant and minute: the simulator at its documented limits (${JSON.stringify(limits.limits)} per ${limits.windowSeconds} s and tenant), ` +
      `one minute of ${TENANT} per contender from a window boundary: ${pages} resource pages (${PAGE_SIZE} hosts + applications + 24 h availability; ${OFFSETS * DAYS} distinct), ` +
      `${views.length - pages} summaries (${SUMMARY_FILTERS.length} filters), ${USERS} users; ${tiles.length} live tiles open the minute (plain client: a poll every ${LIVE_POLL_MS / 1000} s); a change at the upstream every ${LIVE_POLL_MS / 1000} s.`);
    log('| contender | views asked | complete | stale | refused | other errors | upstream calls sent (paginated / other) | upstream 429s | calls wasted | live payloads (stale-flagged) | per tile: payloads (pollSeconds said) |');
    log('|---|---|---|---|---|---|---|---|---|---|---|');
    const samples: string[] = [];
    // Issue 39: three replicas on one Redis beside the one gateway, with the same demand (skipped without redis-server).
    const redis = hasRedis ? await startRedisServer() : null;
    const served: number[] = [];
    const contenders = [() => gatewayContender(sim.url, agent), ...(redis ? [() => gatewayContender(sim.url, agent, { replicas: 3, redisUrl: redis.url })] : []), async () => plainContender(sim.url, agent)];
    for (const make of contenders) {
      const contender = await make();
      const o = await minute(sim.url, contender, changed);
      served.push(o.complete + o.stale);
      await contender.close();
      if (o.sample) samples.push(`${contender.name}: ${o.sample}`);
      log(`| ${contender.name} | ${o.asked} | ${o.complete} | ${o.stale} | ${o.refused} | ${o.failed} | ${o.sent} (${o.byCategory.paginated ?? 0} / ${o.byCategory.other ?? 0}) | ${o.throttled} | ${o.wasted} | ${o.payloads} (${o.liveStale}) | ${o.tiles.map((t) => `${t.payloads}${t.pollSeconds.size ? ` (${[...t.pollSeconds].join('/')} s)` : ''}`).join(', ')} |`);
    }
    for (const sample of samples) log(`(first other error, ${sample})`);
    if (redis) {
      log(`Three replicas against one gateway, views answered (complete or stale) per tenant-minute: ${served[1]} / ${served[0]} = ${(served[1]! / served[0]!).toFixed(2)}× (target: at least 0.9×)`);
      await redis.close();
    }
  } finally {
    await agent.close();
    sim.stop();
  }
}
