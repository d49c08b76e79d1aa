/**
 * npm run bench: the gateway against an ideal hand-written undici client doing the same upstream
 * calls with the same in-flight limit, at several simulated upstream latencies; plus the
 * simulator's own speed and the gateway's heap over 2,000 requests of scenario (b).
 *
 * The simulator runs in a child process so that it does not share an event loop with either
 * contender. Run with --expose-gc (the npm script does) for the memory figures.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { assembleGateway } from '../src/server/assemble.js';
import { scenarios, type Scenario } from './scenarios.js';
import { createTracing } from '../src/observability/tracing.js';
import { startSimulatorProcess } from './simulator-process.js';
import { rateLimitRow } from './rate-limits.js';
import { redisCommandsRow } from './redis-commands.js';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const LATENCIES = (args.get('latencies') ?? '0,20').split(',').map(Number);
const REQUESTS = Number(args.get('requests') ?? 60);
const MEMORY_REQUESTS = Number(args.get('memory') ?? 2000);
const PER_OPERATION = 16;
const THROUGHPUT_SECONDS = Number(args.get('seconds') ?? 5);
/**
 * --overhead: also compare (b)'s throughput with metrics, tracing (exported to a local OTLP
 * receiver) and the access log all on against all off, alternating ROUNDS runs of each;
 * --overhead=only runs just that comparison.
 */
const OVERHEAD = args.get('overhead');
/**
 * The gateway's own cost (issue 23's table), first: at each latency and for (a), (b), (c), the
 * gateway with CACHE=false (metrics and the access log off) against the ideal client, 10
 * connections each, req/s ratio per cell; plus (a) with the defaults' metrics and access log on
 * (still CACHE=false). --table=only runs just that table, --table=false skips it.
 */
const TABLE = args.get('table') ?? 'true';
const TABLE_CONNECTIONS = 10;
/** The table's cells alternate the two contenders in this many slices of --seconds / slices each. */
const TABLE_SLICES = Number(args.get('slices') ?? 3);
const ROUNDS = Number(args.get('rounds') ?? 3);
/** --scenarios=b,c: only these of the table's scenarios (all by default). */
const ONLY = args.get('scenarios')?.split(',');
/** --rate-limits=only|false: the dashboard minute at the documented limits (bench/rate-limits.ts), last by default. */
const RATE_LIMITS = args.get('rate-limits') ?? 'true';
/** --redis=only|false: Redis commands per operation for two replicas on one redis-server (bench/redis-commands.ts), last by default. */
const REDIS = args.get('redis') ?? 'true';

const median = (xs: number[]) => percentile(xs, 50);
function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

async function simConfig(url: string, patch: Record<string, unknown>) {
  await (await fetch(`${url}/__sim/config`, { method: 'POST', body: JSON.stringify(patch) })).text();
}
async function simStats(url: string) {
  return (await (await fetch(`${url}/__sim/stats`)).json()) as { calls: Record<string, number>; totalCalls: number; maxInFlight: number };
}

/** The ideal client: the same calls, at most PER_OPERATION in flight, keep-alive. */
async function idealOperation(agent: Agent, base: string, scenario: Scenario): Promise<void> {
  const get = async (path: string) => {
    const res = await request(`${base}${path}`, { dispatcher: agent });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`ideal client: ${res.statusCode} on ${path}`);
    return body;
  };
  const firstPath = scenario.ideal.first('client_1');
  const first = firstPath ? await get(firstPath) : null;
  const queue = scenario.ideal.then(first, 'client_1');
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PER_OPERATION, queue.length) }, async () => {
      while (next < queue.length) await get(queue[next++]!);
    }),
  );
}

async function timeIdeal(agent: Agent, base: string, scenario: Scenario, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await idealOperation(agent, base, scenario);
    times.push(performance.now() - started);
  }
  return times;
}

async function timeGateway(url: string, scenario: Scenario, runs: number): Promise<number[]> {
  const body = JSON.stringify({ query: scenario.query });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const json = (await res.body.json()) as { errors?: unknown[] };
    if (json.errors) throw new Error(`gateway errors: ${JSON.stringify(json.errors).slice(0, 300)}`);
    times.push(performance.now() - started);
  }
  return times;
}

async function throughput(url: string, scenario: Scenario, connections: number, seconds: number) {
  const started = performance.now();
  const result = await autocannon({
    url, connections, duration: seconds, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: scenario.query }),
  });
  const elapsed = (performance.now() - started) / 1000;
  return { rps: round(result.requests.total / elapsed), requests: result.requests.total, seconds: elapsed, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** The ideal client under the same load as throughput(): `connections` loops of whole operations for `seconds`. */
async function idealThroughput(agent: Agent, base: string, scenario: Scenario, connections: number, seconds: number) {
  const started = performance.now();
  const end = started + seconds * 1000;
  const times: number[] = [];
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await idealOperation(agent, base, scenario);
      times.push(performance.now() - t);
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  return { rps: round(times.length / elapsed), requests: times.length, seconds: elapsed, p50: round(median(times)) };
}

/** An OTLP/HTTP receiver that accepts and drops spans (what a collector costs the gateway: the export). */
async function startOtlpSink(): Promise<{ url: string; spans: () => number; close: () => void }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => requests, close: () => server.close() };
}

type Mode = 'off' | 'metrics' | 'all' | 'all-sampled';
const MODES: Record<Mode, string> = {
  off: 'all off',
  metrics: 'metrics + access log (the default)',
  all: 'metrics + access log + tracing, every trace',
  'all-sampled': 'metrics + access log + tracing, 10% of traces (parentbased_traceidratio 0.1)',
};

/** A gateway on its own port, the response cache off, with the observability of `mode` (the access log at info goes to a null sink). */
async function startGateway(simUrl: string, mode: Mode, otlpUrl: string) {
  const on = mode !== 'off';
  // CACHE=false: every request makes its 201 upstream calls (and spans); with the cache on a
  // repeated (b) makes none, and the comparison would leave out what tracing costs most.
  const env = { INVENTORY_API_URL: simUrl, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: on ? 'info' : 'warn', UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION: String(PER_OPERATION), METRICS: String(on), CACHE: 'false' };
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel, () => {});
  const tracing = mode === 'all' || mode === 'all-sampled'
    ? createTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl, ...(mode === 'all-sampled' ? { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } : {}) })
    : null;
  const { gateway, close } = await assembleGateway({ config, baseUrl: simUrl, logger, tracing });
  const server = http.createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async close() {
      server.closeAllConnections();
      server.close();
      await close();
    },
  };
}

async function overhead(simUrl: string, scenario: Scenario, log: (line: string) => void): Promise<void> {
  const sink = await startOtlpSink();
  const modes = (args.get('modes') ?? 'off,metrics,all,all-sampled').split(',') as Mode[];
  const gateways = await Promise.all(modes.map((mode) => startGateway(simUrl, mode, sink.url)));
  log('');
  log(`Observability overhead, (${scenario.name}) with CACHE=false and 4 connections, ${ROUNDS} rounds of ${THROUGHPUT_SECONDS} s per mode, modes alternating (medians; CPU: this process, gateway and load generator, per request):`);
  log('| latency | observability | req/s (each round) | req/s vs off | CPU ms per request | CPU vs off |');
  log('|---|---|---|---|---|---|');
  const pct = (x: number, y: number) => `${y >= x ? '+' : ''}${round(((y - x) / x) * 100, 1)}%`;
  for (const latency of LATENCIES) {
    await simConfig(simUrl, { latencyMs: latency, jitterMs: 0 });
    for (const g of gateways) await timeGateway(g.url, scenario, 5);
    const rps = modes.map((): number[] => []);
    const cpu = modes.map((): number[] => []);
    for (let i = 0; i < ROUNDS; i++) {
      for (const [k, g] of gateways.entries()) {
        const before = process.cpuUsage();
        const result = await throughput(g.url, scenario, 4, THROUGHPUT_SECONDS);
        const used = process.cpuUsage(before);
        rps[k]!.push(result.rps);
        cpu[k]!.push(round((used.user + used.system) / 1000 / Math.max(1, result.rps * THROUGHPUT_SECONDS), 2));
      }
    }
    const base = { rps: median(rps[0]!), cpu: median(cpu[0]!) };
    for (const [k, mode] of modes.entries()) {
      const r = median(rps[k]!);
      const c = median(cpu[k]!);
      log(`| ${latency} ms | ${MODES[mode]} | ${r} (${rps[k]!.join(', ')}) | ${k === 0 ? '' : pct(base.rps, r)} | ${c} | ${k === 0 ? '' : pct(base.cpu, c)} |`);
    }
  }
  log(`(OTLP export requests received by the sink: ${sink.spans()})`);
  for (const g of gateways) await g.close();
  sink.close();
}

/** A gateway in this process on its own port, with the product's defaults plus `env`. */
async function benchGateway(simUrl: string, name: string, env: Record<string, string>) {
  const config = loadConfig({ INVENTORY_API_URL: simUrl, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn', UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION: String(PER_OPERATION), ...env });
  // The access log (at info) goes to a null sink: its cost is the gateway's, not the terminal's.
  const logger = createLogger(config.logLevel, config.logLevel === 'info' ? () => {} : undefined);
  const { gateway, client, close } = await assembleGateway({ config, baseUrl: simUrl, logger });
  const server = http.createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    config,
    client,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async close() {
      server.closeAllConnections();
      server.close();
      await close();
    },
  };
}

/** Issue 23's table: the gateway with the cache off ÷ the ideal client, req/s, 10 connections each. */
async function ownCostTable(simUrl: string, all: Scenario[], agent: Agent, log: (line: string) => void): Promise<void> {
  const bare = await benchGateway(simUrl, 'CACHE=false, metrics and access log off', { CACHE: 'false', METRICS: 'false' });
  // The defaults' observability: metrics on, the access log at info (written to a null sink).
  const observed = await benchGateway(simUrl, 'CACHE=false, metrics + access log on (the defaults)', { CACHE: 'false', METRICS: 'true', LOG_LEVEL: 'info' });
  log('');
  log(`The gateway's own cost: CACHE=false ÷ the ideal client, ${TABLE_CONNECTIONS} connections, ${THROUGHPUT_SECONDS} s each in ${TABLE_SLICES} alternating slices, ${PER_OPERATION} upstream calls in flight per query (p50: median of the slices'):`);
  log('| latency | scenario | gateway | gateway req/s | gateway p50 | ideal req/s | ideal p50 | ratio req/s |');
  log('|---|---|---|---|---|---|---|---|');
  for (const latency of LATENCIES) {
    await simConfig(simUrl, { latencyMs: latency, jitterMs: 0 });
    const cells = all.filter((s) => !ONLY || ONLY.includes(s.name)).map((scenario) => ({ scenario, gateway: bare }));
    if (latency > 0 && (!ONLY || ONLY.includes('a'))) cells.push({ scenario: all[0]!, gateway: observed });
    for (const { scenario, gateway } of cells) {
      await throughput(gateway.url, scenario, TABLE_CONNECTIONS, 1); // warm-up
      await idealThroughput(agent, simUrl, scenario, TABLE_CONNECTIONS, 1);
      // Short slices, alternating, summed: on a shared machine the load drifts over a cell, and
      // alternating makes the drift hit both contenders alike.
      const gw = { requests: 0, seconds: 0, errors: 0, p50: [] as number[] };
      const ideal = { requests: 0, seconds: 0, p50: [] as number[] };
      for (let slice = 0; slice < TABLE_SLICES; slice++) {
        const tp = await throughput(gateway.url, scenario, TABLE_CONNECTIONS, THROUGHPUT_SECONDS / TABLE_SLICES);
        Object.assign(gw, { requests: gw.requests + tp.requests, seconds: gw.seconds + tp.seconds, errors: gw.errors + tp.errors });
        gw.p50.push(tp.p50);
        const itp = await idealThroughput(agent, simUrl, scenario, TABLE_CONNECTIONS, THROUGHPUT_SECONDS / TABLE_SLICES);
        Object.assign(ideal, { requests: ideal.requests + itp.requests, seconds: ideal.seconds + itp.seconds });
        ideal.p50.push(itp.p50);
      }
      const rps = round(gw.requests / gw.seconds);
      const idealRps = round(ideal.requests / ideal.seconds);
      log(`| ${latency} ms | (${scenario.name}) | ${gateway.name} | ${rps}${gw.errors ? ` (${gw.errors} errors)` : ''} | ${median(gw.p50)} ms | ${idealRps} | ${median(ideal.p50)} ms | ${round(rps / idealRps, 2)}x |`);
    }
  }
  await bare.close();
  await observed.close();
}

async function main() {
  if (RATE_LIMITS === 'only') return rateLimitRow((line) => console.log(line));
  if (REDIS === 'only') return redisCommandsRow((line) => console.log(line));
  const sim = await startSimulatorProcess();
  // The product's defaults (metrics on, tracing off, the response cache on), and the same
  // gateway with the cache off: the latter's ratio to the ideal client is the gateway's own cost.
  const gateways = [await benchGateway(sim.url, 'defaults', {}), await benchGateway(sim.url, 'cache off', { CACHE: 'false' })];
  const { url, client, config } = gateways[0]!;
  const agent = new Agent({ connections: config.upstreamMaxInFlight, keepAliveTimeout: 10_000 });

  // Devices: their detail holds every field scenario (c) selects, as the ideal client assumes.
  const page = (await (await fetch(`${sim.url}/api/v2/tenants/client_1/resources/search?pageSize=20&queryString=type:DEVICE`)).json()) as { results: { id: string }[] };
  const all = scenarios(page.results.map((r) => r.id));
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    console.log(line);
  };

  const closeAll = async () => {
    for (const g of gateways) await g.close();
    await agent.close();
    sim.stop();
  };
  if (TABLE !== 'false') {
    await ownCostTable(sim.url, all, agent, log);
    if (TABLE === 'only') {
      await closeAll();
      return;
    }
  }
  if (OVERHEAD === 'only') {
    await overhead(sim.url, all[1]!, log);
    await closeAll();
    return;
  }

  // Simulator speed: one page of 100 search records.
  const simTimes: number[] = [];
  for (let i = 0; i < 300; i++) {
    const started = performance.now();
    const res = await request(`${sim.url}/api/v2/tenants/client_1/resources/search?pageSize=100&pageNo=${(i % 5) + 1}`, { dispatcher: agent });
    await res.body.text();
    simTimes.push(performance.now() - started);
  }
  log(`Simulator, search page of 100 records (300 sequential calls): median ${round(median(simTimes), 2)} ms, p99 ${round(percentile(simTimes, 99), 2)} ms`);
  log('');

  // Upstream call counts per scenario, from the simulator's own stats.
  for (const scenario of all) {
    await fetch(`${sim.url}/__sim/stats/reset`, { method: 'POST' });
    await timeGateway(gateways[1]!.url, scenario, 1);
    const stats = await simStats(sim.url);
    log(`(${scenario.name}) ${scenario.description}: ${stats.totalCalls} upstream calls ${JSON.stringify(stats.calls)}, max in flight ${stats.maxInFlight}`);
  }
  log('');
  log('| latency | scenario | gateway | gateway p50 | gateway p99 | ideal p50 | ideal p99 | ratio p50 | gateway req/s (4 conns) | ideal req/s (4 conns) | ratio req/s |');
  log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const latency of LATENCIES) {
    await simConfig(sim.url, { latencyMs: latency, jitterMs: 0 });
    for (const scenario of all) for (const { url, name } of gateways) {
      await timeGateway(url, scenario, 5); // warm-up
      await timeIdeal(agent, sim.url, scenario, 5);
      // Alternate the two so that drift on the machine hits both alike.
      const gateway: number[] = [];
      const ideal: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        gateway.push(...(await timeGateway(url, scenario, 1)));
        ideal.push(...(await timeIdeal(agent, sim.url, scenario, 1)));
      }
      const tp = await throughput(url, scenario, 4, THROUGHPUT_SECONDS);
      const itp = await idealThroughput(agent, sim.url, scenario, 4, THROUGHPUT_SECONDS);
      log(
        `| ${latency} ms | (${scenario.name}) | ${name} | ${round(median(gateway))} ms | ${round(percentile(gateway, 99))} ms | ${round(median(ideal))} ms | ${round(percentile(ideal, 99))} ms | ${round(median(gateway) / median(ideal), 2)}x | ${tp.rps}${tp.errors ? ` (${tp.errors} errors)` : ''} | ${itp.rps} | ${round(tp.rps / itp.rps, 2)}x |`,
      );
    }
  }

  // Ten people opening the same dashboard (b) at once, again and again: the defaults against the
  // ideal client (no cache), 10 connections each.
  log('');
  log(`Ten clients on the same dashboard (b), 10 connections, ${THROUGHPUT_SECONDS} s each, from a cold cache:`);
  log('| latency | gateway req/s | ideal req/s | ratio | gateway p50 | ideal p50 | upstream calls per query, gateway | ideal | ratio | cache: hit, coalesced, stale, miss (hit ratio) |');
  log('|---|---|---|---|---|---|---|---|---|---|');
  const dashboard = all[1]!;
  for (const latency of LATENCIES) {
    await simConfig(sim.url, { latencyMs: latency, jitterMs: 0 });
    client.clearCache();
    const before = client.cacheCounts();
    await fetch(`${sim.url}/__sim/stats/reset`, { method: 'POST' });
    const tp = await throughput(url, dashboard, 10, THROUGHPUT_SECONDS);
    const gatewayCalls = (await simStats(sim.url)).totalCalls / Math.max(1, tp.requests);
    const counts = client.cacheCounts();
    const c = { hit: counts.hit - before.hit, coalesced: counts.coalesced - before.coalesced, stale: counts.stale - before.stale, miss: counts.miss - before.miss };
    const served = c.hit + c.coalesced + c.stale;
    await fetch(`${sim.url}/__sim/stats/reset`, { method: 'POST' });
    const itp = await idealThroughput(agent, sim.url, dashboard, 10, THROUGHPUT_SECONDS);
    const idealCalls = (await simStats(sim.url)).totalCalls / Math.max(1, itp.requests);
    log(
      `| ${latency} ms | ${tp.rps}${tp.errors ? ` (${tp.errors} errors)` : ''} | ${itp.rps} | ${round(tp.rps / itp.rps, 1)}x | ${tp.p50} ms | ${itp.p50} ms | ${round(gatewayCalls, 2)} | ${round(idealCalls, 1)} | ${round(gatewayCalls / idealCalls, 3)}x | ${c.hit}, ${c.coalesced}, ${c.stale}, ${c.miss} (${round((served / Math.max(1, served + c.miss)) * 100, 1)}%) |`,
    );
  }

  if (OVERHEAD !== undefined) await overhead(sim.url, all[1]!, log);

  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc && MEMORY_REQUESTS > 0) {
    await simConfig(sim.url, { latencyMs: 0 });
    const scenarioB = all[1]!;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed / 1024 / 1024;
    };
    const body = JSON.stringify({ query: scenarioB.query });
    const fire = async (n: number) => {
      await autocannon({ url, connections: 4, amount: n, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    };
    await fire(200);
    const after200 = heap();
    await fire(MEMORY_REQUESTS - 200);
    const afterAll = heap();
    log('');
    log(`Memory over ${MEMORY_REQUESTS} requests of (b): heap after GC ${round(after200)} MiB after 200, ${round(afterAll)} MiB after ${MEMORY_REQUESTS} (${round(((afterAll - after200) / after200) * 100)}%)`);
  }

  await closeAll();
  if (RATE_LIMITS !== 'false') await rateLimitRow(log);
  if (REDIS !== 'false') await redisCommandsRow(log);
}

await main();
