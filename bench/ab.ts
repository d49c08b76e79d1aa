/**
 * A/B of built gateways, back to back: `node --import tsx bench/ab.ts --variants='[{...},{...}]'`.
 * Each variant is a gateway process over bench/memory-upstream.ts with CACHE=false: `dist` (a
 * build directory, default dist; e.g. a copy of the previous commit's build), `node` (node options,
 * e.g. "--max-semi-space-size=64") and any other key as a setting (e.g. "LOG_LEVEL": "warn").
 * For each workload of bench/own-cost-workloads.ts, the variants take turns for --rounds rounds of
 * --seconds, 10 clients each; printed: CPU per request of each variant's process and its req/s.
 *
 * Options: --workloads=a --rounds=3 --seconds=3 --latency=0 --before=b (workloads run for
 * --before-seconds=2 first, e.g. to see (a) after a burst of (b))
 */
import { spawn } from 'node:child_process';
import { Pool } from 'undici';
import { startSimulatorProcess } from './simulator-process.js';
import { workloads } from './own-cost-workloads.js';
import { cpuMs, drive as driveClients } from './own-cost-load.js';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2) as [string, string]));
const VARIANTS = JSON.parse(args.get('variants') ?? '[{}]') as Record<string, string>[];
const WORKLOADS = (args.get('workloads') ?? 'a').split(',');
const ROUNDS = Number(args.get('rounds') ?? 3);
const SECONDS = Number(args.get('seconds') ?? 3);
const BEFORE = (args.get('before') ?? '').split(',').filter(Boolean);
const CONNECTIONS = 10;

const upstream = await startSimulatorProcess({ memory: true });
const ids = ((await (await fetch(`${upstream.url}/api/v2/tenants/client_1/resources/search?pageSize=20&queryString=type:DEVICE`)).json()) as { results: { id: string }[] }).results.map((r) => r.id);
const all = workloads(ids);
await fetch(`${upstream.url}/__sim/config`, { method: 'POST', body: JSON.stringify({ latencyMs: Number(args.get('latency') ?? 0) }) });

const gateways = await Promise.all(VARIANTS.map(async ({ dist = 'dist', node = '', ...settings }) => {
  const env = { ...process.env, NODE_ENV: 'production', INVENTORY_API_URL: upstream.url, INVENTORY_AUTH_MODE: 'none', CACHE: 'false', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...settings };
  const child = spawn(process.execPath, [...node.split(/\s+/).filter(Boolean), `${dist}/server/main.js`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill('SIGKILL'));
  const url = new URL(await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
      if (out.length > 100_000) out = out.slice(-1000);
    });
  }));
  return { name: JSON.stringify({ dist, node, ...settings }), pid: child.pid!, pool: new Pool(url.origin, { connections: CONNECTIONS }), path: url.pathname };
}));

/** The variant's clients for `seconds` (own-cost-load.ts); an answer with errors ends the bench. */
async function drive(gateway: (typeof gateways)[number], query: string, seconds: number): Promise<number> {
  const run = await driveClients(gateway.pool, gateway.path, query, seconds, CONNECTIONS);
  if (run.errors > 0) throw new Error(`${gateway.name}: ${run.errors} answers with errors`);
  return run.requests;
}

for (const name of BEFORE) for (const g of gateways) await drive(g, all.find((w) => w.name === name)!.query, Number(args.get('before-seconds') ?? 2));
for (const w of all.filter((w) => WORKLOADS.includes(w.name))) {
  for (const g of gateways) await drive(g, w.query, 1);
  const totals = gateways.map(() => ({ requests: 0, cpu: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, g] of gateways.entries()) {
      const before = cpuMs(g.pid);
      totals[k]!.requests += await drive(g, w.query, SECONDS);
      totals[k]!.cpu += cpuMs(g.pid) - before;
    }
  }
  for (const [k, g] of gateways.entries()) {
    const t = totals[k]!;
    console.log(`(${w.name}) ${g.name}: ${(t.cpu / t.requests).toFixed(3)} ms CPU per request, ${(t.requests / (ROUNDS * SECONDS)).toFixed(0)} req/s`);
  }
}
for (const g of gateways) await g.pool.close();
upstream.stop();
process.exit(0);
