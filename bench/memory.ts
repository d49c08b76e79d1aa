/**
 * `npm run bench:memory`: the resident size of the gateway process (the README's "Memory"), as an
 * orchestrator sees it (RSS, sampled every 250 ms, no forced collection), and its heap after full
 * collections, under each load that arrives without limit:
 *
 * - start: the gateway started, one query, 5 s idle.
 * - bench load: `npm run bench`'s scenarios (a), (b), (c), 10 connections, --seconds each (cache on).
 * - documents: the first --first distinct documents (the same query made distinct by an alias) at
 *   full speed, then --then more at --rate a second; the growth is RSS after them minus RSS after the first.
 * - tenants: the same with one document and a distinct tenant each (the upstream knows three: the
 *   others answer NOT_FOUND after one upstream call).
 * - live: the same with live operations opened and closed, one SSE stream or one WebSocket
 *   connection each, in turn.
 * - many documents: --many distinct documents at full speed (8 in flight): the most RSS reached.
 *
 * Each phase has a gateway process of its own (`node --expose-gc --max-semi-space-size=64
 * [--import tsx] --import test/support/heap-probe.mjs <entry>`, --entry=dist/server/main.js for
 * the build after `npm run build`), at its defaults, over the simulator in another process (its
 * rate limits on, as documented), so that the figures are the gateway's alone.
 * --phases=start,load,documents,tenants,live,many picks phases; --node-options=--max-old-space-size=384
 * adds node options (comma-separated).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulatorProcess } from './simulator-process.js';
import { scenarios } from './scenarios.js';
import {
  distinctDocument, distinctTenant, liveOverSse, liveOverWebSocket, loadAgent, post, run, startMemoryProcess, type MemoryProcess,
} from '../test/support/memory-process.js';

const args = new Map(process.argv.slice(2).map((a) => {
  const [name, ...value] = a.replace(/^--/, '').split('=');
  return [name!, value.join('=')] as const;
}));
const ENTRY = args.get('entry') ?? 'src/server/main.ts';
const PHASES = (args.get('phases') ?? 'start,load,documents,tenants,live,many').split(',');
const FIRST = Number(args.get('first') ?? 900);
const THEN = Number(args.get('then') ?? 3_000);
const RATE = Number(args.get('rate') ?? 20);
const MANY = Number(args.get('many') ?? 50_000);
const SECONDS = Number(args.get('seconds') ?? 20);
const NODE_OPTIONS = args.get('node-options')?.split(',') ?? [];

const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round(bytes / MB);

const sim = await startSimulatorProcess({ rateLimit: true });
process.on('exit', () => sim.stop());
const env = { INVENTORY_API_URL: sim.url, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'error' };

/** A gateway process whose RSS is sampled every 250 ms while it runs (the peak an orchestrator would see). */
async function gateway(extra: Record<string, string> = {}): Promise<{ process: MemoryProcess; peak(): number; resetPeak(): void; stop(): Promise<void> }> {
  const gw = await startMemoryProcess({ ...env, ...extra }, ENTRY, NODE_OPTIONS);
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling && gw.running) {
      peak = Math.max(peak, await gw.rss().catch(() => 0));
      await sleep(250);
    }
  })();
  return {
    process: gw,
    peak: () => peak,
    resetPeak: () => { peak = 0; },
    async stop() {
      sampling = false;
      await sampler;
      await gw.stop();
    },
  };
}

function check(result: Awaited<ReturnType<typeof post>>, allowed: string[] = []): void {
  const unexpected = result.errors?.filter((e) => !allowed.includes(e.extensions?.code ?? ''));
  if (unexpected?.length) throw new Error(`unexpected errors: ${JSON.stringify(unexpected).slice(0, 500)}`);
}

const print = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`);

console.log(`gateway: ${ENTRY} ${NODE_OPTIONS.join(' ')}, Node ${process.version}; MB = MiB\n`);
print(['phase', 'RSS at start', 'RSS after the first', 'RSS at the end', 'growth', 'peak RSS', 'heap after GC (first → end)', 'document cache (estimated)']);
print(['---', '---', '---', '---', '---', '---', '---', '---']);

if (PHASES.includes('start')) {
  const gw = await gateway();
  const agent = loadAgent(1);
  check(await post(agent, gw.process.url, { query: scenarios([])[0]!.query }));
  await sleep(5_000);
  const rss = await gw.process.rss();
  const heap = await gw.process.heap();
  print(['start (one query, 5 s idle)', mb(rss), '', '', '', mb(gw.peak()), `${mb(heap.heapUsed)}`, '']);
  await agent.close();
  await gw.stop();
}

if (PHASES.includes('load')) {
  const gw = await gateway();
  const start = await gw.process.rss();
  const search = await (await fetch(`${sim.url}/api/v2/tenants/client_1/resources/search?pageNo=1&pageSize=20&sortName=id&isDescendingOrder=false`, { headers: { 'x-simulator-uncounted': '1' } })).json() as { results: { id: string }[] };
  const agent = loadAgent(10);
  for (const scenario of scenarios(search.results.map((r) => r.id))) {
    const until = Date.now() + SECONDS * 1000;
    let n = 0;
    await Promise.all(Array.from({ length: 10 }, async () => {
      while (Date.now() < until) {
        check(await post(agent, gw.process.url, { query: scenario.query }));
        n++;
      }
    }));
    console.error(`bench load (${scenario.name}): ${n} requests in ${SECONDS} s`);
  }
  const end = await gw.process.rss();
  const heap = await gw.process.heap();
  print([`bench load: (a), (b), (c), 10 connections, ${SECONDS} s each`, mb(start), '', mb(end), mb(end - start), mb(gw.peak()), `${mb(heap.heapUsed)}`, '']);
  await agent.close();
  await gw.stop();
}

/** The first `FIRST` at full speed, then `THEN` more at RATE a second: RSS growth after the first. */
async function steady(name: string, send: (agent: ReturnType<typeof loadAgent>, url: string, i: number) => Promise<void>): Promise<void> {
  const gw = await gateway();
  const agent = loadAgent(8);
  const start = await gw.process.rss();
  await run(0, FIRST, (i) => send(agent, gw.process.url, i));
  const first = await gw.process.rss();
  const firstHeap = await gw.process.heap();
  const began = Date.now();
  await run(FIRST, FIRST + THEN, (i) => send(agent, gw.process.url, i), { perSecond: RATE, concurrency: 4 });
  const seconds = (Date.now() - began) / 1000;
  const end = await gw.process.rss();
  const endHeap = await gw.process.heap();
  const cache = await gw.process.metric('gateway_document_cache_bytes').catch(() => NaN);
  print([
    `${name}: ${FIRST} at full speed, then ${THEN} at ${Math.round(THEN / seconds)}/s`, mb(start), mb(first), mb(end), mb(end - first), mb(gw.peak()),
    `${mb(firstHeap.heapUsed)} → ${mb(endHeap.heapUsed)}`, mb(cache),
  ]);
  await agent.close();
  await gw.stop();
}

if (PHASES.includes('documents')) {
  await steady('distinct documents', async (agent, url, i) => check(await post(agent, url, distinctDocument(i))));
}
if (PHASES.includes('tenants')) {
  await steady('distinct tenants, one document', async (agent, url, i) => check(await post(agent, url, distinctTenant(i)), ['NOT_FOUND']));
}
if (PHASES.includes('live')) {
  await steady('live operations opened and closed (SSE, WebSocket)', async (_agent, url, i) => (i % 2 === 0 ? liveOverSse(url) : liveOverWebSocket(url)));
}

if (PHASES.includes('many')) {
  const gw = await gateway();
  const agent = loadAgent(8);
  const start = await gw.process.rss();
  const began = Date.now();
  await run(0, MANY, async (i) => check(await post(agent, gw.process.url, distinctDocument(i))));
  const seconds = (Date.now() - began) / 1000;
  const end = await gw.process.rss();
  const heap = await gw.process.heap();
  const cache = await gw.process.metric('gateway_document_cache_bytes').catch(() => NaN);
  print([`${MANY} distinct documents at ${Math.round(MANY / seconds)}/s`, mb(start), '', mb(end), mb(end - start), mb(gw.peak()), `${mb(heap.heapUsed)}`, mb(cache)]);
  await agent.close();
  await gw.stop();
}

sim.stop();
