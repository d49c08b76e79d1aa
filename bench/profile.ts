/**
 * The gateway's own CPU per request, and where it goes: `node --import tsx bench/profile.ts`.
 *
 * The simulator runs in a child process (as in bench/run.ts) and so does the load generator
 * (autocannon, driven over IPC), so that this process is the gateway alone, built as
 * bench/run.ts main() builds it (the product defaults: metrics on, tracing off, access log off
 * at LOG_LEVEL=warn). After a warm-up it measures process.cpuUsage() around ROUNDS runs of
 * REQUESTS requests (no profiler attached), then records one CPU profile (node:inspector) over
 * another run and prints self and inclusive time grouped by package / source file, and the top
 * functions. The profile is written to bench/profiles/ for a closer look in DevTools.
 *
 * Options: --scenario=a (a, b or c) --latency=0 --requests=3000 --connections=4 --rounds=3
 *   --warmup=1000 --profile=true --heap=false (allocation sampling) --ideal=false (also the ideal
 *   client's CPU per operation, in this process) --top=30 --cache=true (false: CACHE=false, the
 *   gateway's own cost) --upstream=memory (bench/memory-upstream.ts: answers rendered once, then
 *   from memory); --analyse=<file.cpuprofile> prints the tables of a saved profile
 *
 * Allocation per request: one more run under v8.GCProfiler, whose every GC reports the heap used
 * before and after it; what was allocated is what each GC found minus what the previous one left.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import autocannon from 'autocannon';
import { startSimulatorProcess } from './simulator-process.js';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));

// ---- the load generator (a child process) ---------------------------------------------------

interface LoadOrder { url: string; body: string; amount: number; connections: number }
interface LoadResult { requests: number; non2xx: number; errors: number; seconds: number; p50: number }

// ---- the profile's analysis ---------------------------------------------------------------

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** The group a frame belongs to: a package, one of our source files, node's internals, or V8's own (GC, program). */
function groupOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName.startsWith('(')) return functionName; // (garbage collector), (program), (idle), (root)
    return `native ${functionName || '(anonymous)'}`; // builtins the profiler names: JSON.parse is "parse", etc.
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    if (pkg === 'graphql') return `graphql/${rest[1]}`; // graphql/execution, graphql/validation, ...
    return pkg;
  }
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node:').replace(/\/.*$/, '');
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url;
}

/** Coarse layers, for the first table. */
function layerOf(frame: CallFrame): string {
  if (frame.functionName === 'profiledJsonParse') return 'JSON.parse (the upstream page, the request body)';
  if (frame.functionName === 'profiledJsonStringify') return 'JSON.stringify (the response)';
  const group = groupOf(frame);
  if (group === '(garbage collector)') return 'GC';
  if (/^graphql\/|^@graphql-tools\/|^@pothos\//.test(group)) return 'graphql execution (graphql-js, @graphql-tools/executor, Pothos)';
  if (/^graphql-yoga|^@graphql-yoga\/|^@envelop\/|^@whatwg-node\/|^lru-cache/.test(group)) return 'yoga / envelop / whatwg-node';
  if (group.startsWith('src/')) return 'our code (src/*)';
  if (group === 'undici' || group.startsWith('wasm://')) return 'undici (upstream requests, llhttp)';
  if (group.startsWith('node:') || group.startsWith('native ')) return 'node (http, net, streams, events, timers, promises, builtins)';
  return `other: ${group}`;
}

const fnName = (frame: CallFrame) => `${frame.functionName || '(anonymous)'} ${groupOf(frame)}:${frame.lineNumber + 1}`;

function printProfile(profile: CpuProfile, top: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfByLayer = new Map<string, number>();
  const selfByGroup = new Map<string, number>();
  const inclByGroup = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclByFn = new Map<string, number>();
  let total = 0;
  let idle = 0;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (let i = 0; i < profile.samples.length; i++) {
    // timeDeltas[i] is the time before sample i; the sample stands for the interval after it.
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    total += dt;
    add(selfByLayer, layerOf(leaf.callFrame), dt);
    add(selfByGroup, groupOf(leaf.callFrame), dt);
    add(selfByFn, fnName(leaf.callFrame), dt);
    const groups = new Set<string>();
    const fns = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(root)') continue;
      groups.add(groupOf(frame));
      fns.add(fnName(frame));
    }
    for (const g of groups) add(inclByGroup, g, dt);
    for (const f of fns) add(inclByFn, f, dt);
  }
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(1)}%`.padStart(6);
  const table = (title: string, m: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${pct(ms)} ${ms.toFixed(0).padStart(6)} ms  ${k}`);
  };
  console.log(`\nProfile: ${total.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle (${profile.samples.length} samples)`);
  table('Self time by layer', selfByLayer, top);
  table('Self time by group', selfByGroup, top);
  table('Inclusive time by group (a group counts once per sample)', inclByGroup, top);
  table('Self time by function', selfByFn, top);
  table('Inclusive time by function', inclByFn, top);
}

interface HeapNode { callFrame: CallFrame; selfSize: number; children: HeapNode[] }
interface HeapProfile { head: HeapNode }

/** Bytes allocated per request, by the allocating function and by its group (sampled). */
function printHeapProfile(profile: HeapProfile, requests: number, top: number): void {
  const byFn = new Map<string, number>();
  const byGroup = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode) => {
    if (node.selfSize > 0) {
      total += node.selfSize;
      byFn.set(fnName(node.callFrame), (byFn.get(fnName(node.callFrame)) ?? 0) + node.selfSize);
      byGroup.set(groupOf(node.callFrame), (byGroup.get(groupOf(node.callFrame)) ?? 0) + node.selfSize);
    }
    for (const c of node.children) visit(c);
  };
  visit(profile.head);
  const kb = (bytes: number) => `${(bytes / requests / 1024).toFixed(1).padStart(7)} kB`;
  console.log(`\nAllocated (sampled): ${kb(total)} per request`);
  for (const [title, m] of [['by group', byGroup], ['by function', byFn]] as const) {
    console.log(`\nAllocation per request ${title}`);
    for (const [k, bytes] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${kb(bytes)}  ${k}`);
  }
}

// ---- the measurement ------------------------------------------------------------------------

async function startLoadGenerator(): Promise<{ run: (order: LoadOrder) => Promise<LoadResult>; stop: () => void }> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, PROFILE_LOAD_GENERATOR: '1' } });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  return {
    run: (order) => new Promise((resolve) => {
      child.once('message', (r) => resolve(r as LoadResult));
      child.send(order);
    }),
    stop: () => child.kill('SIGTERM'),
  };
}

async function main() {
  const SCENARIO = args.get('scenario') ?? 'a';
  const LATENCY = Number(args.get('latency') ?? 0);
  const REQUESTS = Number(args.get('requests') ?? 3000);
  const CONNECTIONS = Number(args.get('connections') ?? 4);
  const ROUNDS = Number(args.get('rounds') ?? 3);
  const WARMUP = Number(args.get('warmup') ?? 1000);
  const PROFILE = (args.get('profile') ?? 'true') !== 'false';
  const TOP = Number(args.get('top') ?? 30);
  const HEAP = args.get('heap') === 'true';
  const IDEAL = args.get('ideal') === 'true';
  const CACHE = args.get('cache') ?? 'true';
  const MEMORY = args.get('upstream') === 'memory';

  // The gateway modules are loaded here, not by the load generator.
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { assembleGateway } = await import('../src/server/assemble.js');
  const { scenarios } = await import('./scenarios.js');

  const sim = await startSimulatorProcess({ memory: MEMORY });
  const load = await startLoadGenerator();
  // As bench/run.ts main(): the product's defaults, metrics on, tracing off.
  const config = loadConfig({ INVENTORY_API_URL: sim.url, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn', UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION: '16', CACHE: CACHE });
  const logger = createLogger('warn');
  const { gateway, close, poolStats } = await assembleGateway({ config, baseUrl: sim.url, logger });
  const server = http.createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  await fetch(`${sim.url}/__sim/config`, { method: 'POST', body: JSON.stringify({ latencyMs: LATENCY, jitterMs: 0 }) }).then((r) => r.text());

  const page = (await (await fetch(`${sim.url}/api/v2/tenants/client_1/resources/search?pageSize=20&queryString=type:DEVICE`)).json()) as { results: { id: string }[] };
  const scenario = scenarios(page.results.map((r) => r.id)).find((s) => s.name === SCENARIO);
  if (!scenario) throw new Error(`no scenario ${SCENARIO}`);
  // With the memory upstream, the own-cost table's query of that name (bench/own-cost-workloads.ts: the default order's 136 KB page).
  const { workloads } = await import('./own-cost-workloads.js');
  const query = MEMORY ? workloads(page.results.map((r) => r.id)).find((w) => w.name === SCENARIO)!.query : scenario.query;
  const body = JSON.stringify({ query });
  const check = (r: LoadResult) => {
    if (r.non2xx || r.errors) throw new Error(`load: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  };

  console.log(`Scenario (${scenario.name}) at ${LATENCY} ms upstream latency, ${CONNECTIONS} connections, CACHE=${CACHE}, node ${process.version}`);
  const callsPerRequest = await upstreamCallsOf(sim.url, url, body);
  console.log(`upstream calls per request: ${callsPerRequest}`);

  if (IDEAL) {
    // The floor: bench/run.ts's ideal client (the same upstream calls, JSON parsed), CONNECTIONS
    // operations at a time, in this process; its CPU per operation.
    const { Agent, request } = await import('undici');
    const agent = new Agent({ connections: config.upstreamMaxInFlight, keepAliveTimeout: 10_000 });
    const get = async (path: string) => {
      const res = await request(`${sim.url}${path}`, { dispatcher: agent });
      return res.body.json();
    };
    const operation = async () => {
      const firstPath = scenario.ideal.first('client_1');
      const first = firstPath ? await get(firstPath) : null;
      const queue = scenario.ideal.then(first, 'client_1');
      let next = 0;
      await Promise.all(Array.from({ length: Math.min(16, queue.length) }, async () => {
        while (next < queue.length) await get(queue[next++]!);
      }));
    };
    const runIdeal = async (n: number) => {
      let left = n;
      await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
        while (left-- > 0) await operation();
      }));
    };
    await runIdeal(WARMUP);
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      const before = process.cpuUsage();
      await runIdeal(REQUESTS);
      const used = process.cpuUsage(before);
      const seconds = (performance.now() - started) / 1000;
      console.log(`ideal client round ${i + 1}: ${(REQUESTS / seconds).toFixed(1)} op/s; CPU ${((used.user + used.system) / 1000 / REQUESTS).toFixed(3)} ms per operation`);
    }
    await agent.close();
  }
  check(await load.run({ url, body, amount: WARMUP, connections: CONNECTIONS }));

  const perRequest: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const before = process.cpuUsage();
    const r = await load.run({ url, body, amount: REQUESTS, connections: CONNECTIONS });
    const used = process.cpuUsage(before);
    check(r);
    const ms = (used.user + used.system) / 1000 / r.requests;
    perRequest.push(ms);
    console.log(`round ${i + 1}: ${r.requests} requests in ${r.seconds.toFixed(2)} s (${(r.requests / r.seconds).toFixed(1)} req/s, p50 ${r.p50} ms); gateway CPU ${ms.toFixed(3)} ms per request (user ${(used.user / 1000 / r.requests).toFixed(3)}, system ${(used.system / 1000 / r.requests).toFixed(3)})`);
  }
  const sorted = [...perRequest].sort((a, b) => a - b);
  console.log(`gateway CPU per request, median of ${ROUNDS}: ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} ms, lowest ${sorted[0]!.toFixed(3)} ms`);
  const cpuMedian = sorted[Math.floor(sorted.length / 2)]!;
  if (callsPerRequest > 0) console.log(`gateway CPU per upstream call: ${(cpuMedian / callsPerRequest).toFixed(4)} ms`);
  {
    const profiler = new v8.GCProfiler();
    const startUsed = v8.getHeapStatistics().used_heap_size;
    profiler.start();
    const r = await load.run({ url, body, amount: REQUESTS, connections: CONNECTIONS });
    const endUsed = v8.getHeapStatistics().used_heap_size;
    const { statistics } = profiler.stop();
    check(r);
    let allocated = 0;
    let left = startUsed;
    for (const gc of statistics) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - left;
      left = gc.afterGC.heapStatistics.usedHeapSize;
    }
    allocated += endUsed - left;
    const byType = new Map<string, number>();
    for (const gc of statistics) byType.set(gc.gcType, (byType.get(gc.gcType) ?? 0) + 1);
    const types = [...byType].map(([type, n]) => `${n} ${type}`).join(', ');
    console.log(`allocated per request: ${(allocated / r.requests / 1024).toFixed(1)} KiB${callsPerRequest > 0 ? ` (${(allocated / r.requests / callsPerRequest / 1024).toFixed(2)} KiB per upstream call)` : ''}; ${statistics.length} GCs over ${r.requests} requests (${types}); old space after: ${(endUsed / 1024 / 1024).toFixed(1)} MiB used`);
  }
  // Connection reuse: the upstream connections the dispatcher holds after all those requests.
  console.log(`upstream connections (undici): ${JSON.stringify(poolStats())}`);

  if (PROFILE) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    // JSON.parse and JSON.stringify are builtins the profiler folds into their callers' self
    // time: named wrappers make them a row of their own for this run.
    const { parse, stringify } = JSON;
    JSON.parse = function profiledJsonParse(text: string, reviver?: Parameters<typeof parse>[1]) {
      return parse(text, reviver);
    };
    JSON.stringify = function profiledJsonStringify(...a: Parameters<typeof stringify>) {
      return stringify(...a);
    } as typeof stringify;
    await session.post('Profiler.start');
    check(await load.run({ url, body, amount: REQUESTS, connections: CONNECTIONS }));
    Object.assign(JSON, { parse, stringify });
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    session.disconnect();
    mkdirSync('bench/profiles', { recursive: true });
    const file = `bench/profiles/${scenario.name}-${LATENCY}ms-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`profile written to ${file}`);
    printProfile(profile, TOP);
  }

  if (HEAP) {
    // Every allocation is sampled, also those collected since (not only what is still live).
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    const r = await load.run({ url, body, amount: REQUESTS, connections: CONNECTIONS });
    check(r);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: HeapProfile };
    session.disconnect();
    mkdirSync('bench/profiles', { recursive: true });
    const file = `bench/profiles/${scenario.name}-${LATENCY}ms-${new Date().toISOString().replace(/[:.]/g, '-')}.heapprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`allocation profile written to ${file}`);
    printHeapProfile(profile, r.requests, TOP);
  }

  load.stop();
  server.closeAllConnections();
  server.close();
  await close();
  sim.stop();
}

/** The upstream calls one request makes, from the simulator's stats (the warm-up has filled any cache: with the cache on this counts what a repeat costs). */
async function upstreamCallsOf(simUrl: string, url: string, body: string): Promise<number> {
  await fetch(`${simUrl}/__sim/stats/reset`, { method: 'POST' }).then((r) => r.text());
  await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
  const stats = (await (await fetch(`${simUrl}/__sim/stats`)).json()) as { totalCalls: number };
  return stats.totalCalls;
}

// ---- dispatch (last: everything above is initialised) -----------------------------------

if (process.env.PROFILE_LOAD_GENERATOR === '1') {
  process.on('message', (order: LoadOrder) => {
    const started = performance.now();
    void autocannon({ url: order.url, connections: order.connections, amount: order.amount, method: 'POST', headers: { 'content-type': 'application/json' }, body: order.body })
      .then((r) => process.send!({ requests: r.requests.total, non2xx: r.non2xx, errors: r.errors, seconds: (performance.now() - started) / 1000, p50: r.latency.p50 } satisfies LoadResult));
  });
  process.send!('ready');
} else if (args.has('analyse')) {
  printProfile(JSON.parse(readFileSync(args.get('analyse')!, 'utf8')) as CpuProfile, Number(args.get('top') ?? 30));
} else {
  await main();
}
