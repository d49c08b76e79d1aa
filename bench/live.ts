/**
 * `npm run bench:live`: viewers per core on one live dashboard at a 2 s poll period, and what
 * they cost the upstream. The simulator and the gateway (`npm start`'s main.ts) run in child
 * processes; this process holds the viewers (SSE, one caller each) and changes one resource of
 * the dashboard at the upstream every period, so every viewer gets a payload each period (the
 * worst case: a quiet dashboard costs only the polls). The gateway's CPU is its own
 * `process_cpu_seconds_total` from /metrics.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startSimulatorProcess } from './simulator-process.js';

const PERIOD_S = 2;
const WINDOW_S = Number(process.env.LIVE_BENCH_SECONDS ?? 20);
const SIZES = (process.env.LIVE_BENCH_VIEWERS ?? '100,500,1000').split(',').map(Number);

const DASHBOARD = `query Dashboard @live { tenant(id: "client_1") { resources(first: 20, orderBy: { field: ID, direction: DESC }) {
  totalCount nodes { id hostName aliasName state applications { name version } } } } }`;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

async function startGateway(simUrl: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: {
      ...process.env, PORT: '0', INVENTORY_API_URL: simUrl, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn',
      LIVE_POLL_INTERVAL_S: String(PERIOD_S), MAX_LIVE_OPERATIONS: '100000',
      // Every viewer here connects from 127.0.0.1 (real viewers come from many addresses).
      MAX_CONNECTIONS_PER_ADDRESS: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /ready at (http:\/\/\S+\/graphql)/.exec(out);
      if (m) resolve(m[1]!.replace('localhost', '127.0.0.1'));
    });
  });
  return { url, stop: () => new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}

async function cpuSeconds(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gatewayUrl))).text();
  const m = /^process_cpu_seconds_total (\S+)$/m.exec(text);
  if (!m) throw new Error('no process_cpu_seconds_total in /metrics');
  return Number(m[1]);
}

/** One viewer: an SSE stream (one caller each, as people are), counting the payloads. */
function openViewer(agent: Agent, url: string, index: number, counts: { payloads: number; errors: number; sample?: string }, firsts: Set<number>) {
  const controller = new AbortController();
  const done = (async () => {
    const res = await request(url, {
      dispatcher: agent, method: 'POST', signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer viewer-${index}` },
      body: JSON.stringify({ query: DASHBOARD }),
    });
    for await (const chunk of res.body) {
      const text = String(chunk);
      const events = text.split('event: next').length - 1;
      if (events > 0) {
        firsts.add(index);
        counts.payloads += events;
        counts.errors += text.split('"errors"').length - 1;
        if (text.includes('"errors"') && !counts.sample) counts.sample = text.slice(0, 600);
      }
    }
  })().catch(() => undefined);
  return { close: () => controller.abort(), done };
}

async function main() {
  const sim = await startSimulatorProcess();
  const gateway = await startGateway(sim.url);
  const agent = new Agent({ connections: null, pipelining: 0, keepAliveTimeout: 60_000 });
  const page = (await (await fetch(`${sim.url}/api/v2/tenants/client_1/resources/search?pageSize=20&sortName=id&isDescendingOrder=true`, { headers: { 'x-simulator-uncounted': '1' } })).json()) as { results: { id: string }[] };
  const changed = page.results[0]!.id;
  console.log(`One live dashboard (20 resources with applications: 21 upstream reads), ${PERIOD_S} s poll period, one change at the upstream every period, ${WINDOW_S} s per row:`);
  console.log('| viewers | gateway CPU (share of one core) | viewers per core | upstream calls per minute | payloads per viewer per period |');
  console.log('|---|---|---|---|---|');
  for (const size of SIZES) {
    const counts: { payloads: number; errors: number; sample?: string } = { payloads: 0, errors: 0 };
    const firsts = new Set<number>();
    // Viewers arrive 50 at a time (a burst of hundreds at the same instant is admission control's
    // business: beyond MAX_ADMISSION_QUEUE it sheds first executions with OVERLOADED).
    const viewers: ReturnType<typeof openViewer>[] = [];
    const deadline = performance.now() + 120_000;
    while (viewers.length < size) {
      const batch = Math.min(50, size - viewers.length);
      for (let i = 0; i < batch; i++) viewers.push(openViewer(agent, gateway.url, viewers.length, counts, firsts));
      while (firsts.size < viewers.length && performance.now() < deadline) await sleep(20);
    }
    if (firsts.size < size || counts.errors > 0) throw new Error(`${firsts.size} of ${size} viewers got a first payload, ${counts.errors} with errors: ${counts.sample}`);
    await sleep(PERIOD_S * 1000);
    await fetch(`${sim.url}/__sim/stats/reset`, { method: 'POST' });
    const payloadsBefore = counts.payloads;
    const cpuBefore = await cpuSeconds(gateway.url);
    const started = performance.now();
    for (let tick = 0; performance.now() - started < WINDOW_S * 1000; tick++) {
      await fetch(`${sim.url}/api/v2/tenants/client_1/resources/${changed}`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-simulator-uncounted': '1' }, body: JSON.stringify({ aliasName: `tick-${size}-${tick}` }),
      });
      await sleep(PERIOD_S * 1000);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = (await cpuSeconds(gateway.url)) - cpuBefore;
    const calls = ((await (await fetch(`${sim.url}/__sim/stats`)).json()) as { totalCalls: number }).totalCalls;
    const share = cpu / seconds;
    const periods = seconds / PERIOD_S;
    console.log(`| ${size} | ${round(share * 100)}% | ${Math.round(size / share)} | ${Math.round((calls / seconds) * 60)} | ${round((counts.payloads - payloadsBefore) / size / periods, 2)} |`);
    if (counts.errors > 0) console.log(`(${counts.errors} payloads with errors, e.g. ${counts.sample})`);
    for (const viewer of viewers) viewer.close();
    await Promise.all(viewers.map((v) => v.done));
    await sleep(1_000);
  }
  await agent.close();
  await gateway.stop();
  sim.stop();
}

await main();
