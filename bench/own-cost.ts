/**
 * `npm run bench:own-cost`: the gateway's own cost (issue 33). Three contenders, each in a process
 * of its own, over one upstream that answers from memory (bench/memory-upstream.ts: every distinct
 * answer rendered once by the simulator, then written from memory), so that a 100-record page
 * costs the upstream a small fraction of what it costs a contender:
 *
 * - the plain client (bench/own-cost-plain.ts): undici, the gateway's exact upstream calls, the
 *   same answer built and serialized by hand;
 * - the gateway: its production start (`npm run build`, then npm run start:prod's command, `node
 *   --max-semi-space-size=64 dist/server/main.js`, NODE_ENV=production)
 *   at its defaults (metrics on, the access log at info on a pipe this process drains and counts)
 *   but CACHE=false;
 * - Apollo Server 5 + @apollo/datasource-rest (bench/own-cost-apollo.ts), the same schema shape;
 * - Yoga's floor (bench/own-cost-yoga-floor.ts): Yoga with the gateway's compiled execution and
 *   nothing else, the same schema shape and the gateway's node options: what serving GraphQL with
 *   Yoga costs before the gateway's own work.
 *
 * For each latency and workload, the contenders take turns in --slices slices of
 * --seconds / --slices each (drift on a shared machine hits all alike), 10 clients each (a client:
 * one operation at a time; for the servers a keep-alive connection from this process). CPU per
 * request is each contender's process's own (and, beside it, the upstream's for the same requests) (utime + stime from /proc/<pid>/stat) over its
 * slices, divided by the requests it answered. Before measuring, the bench checks that the three
 * answers are equal and that the plain client asks the upstream for exactly the gateway's paths.
 *
 * All three run with NODE_ENV=production.
 *
 * Options: --latencies=0,20 --workloads=a,b,c --seconds=6 --slices=3 --connections=10 --build=false
 *   --gateway-env=LOG_LEVEL=warn (settings for the gateway, comma-separated)
 */
import { execFileSync, spawn, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { Pool } from 'undici';
import { workloads, type Workload } from './own-cost-workloads.js';
import { cpuMs, drive as driveClients, type Run } from './own-cost-load.js';
import { startSimulatorProcess } from './simulator-process.js';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const LATENCIES = (args.get('latencies') ?? '0,20').split(',').map(Number);
const ONLY = (args.get('workloads') ?? 'a,b,c').split(',');
const SECONDS = Number(args.get('seconds') ?? 6);
const SLICES = Number(args.get('slices') ?? 3);
const CONNECTIONS = Number(args.get('connections') ?? 10);
/** Every contender runs as in production: graphql-js's checks meant for development are off there. */
const PRODUCTION = { NODE_ENV: 'production' };
/** --gateway-env=LOG_LEVEL=warn,...: settings for the gateway on top of the table's (e.g. to see what the access log costs). */
const GATEWAY_ENV = Object.fromEntries((args.get('gateway-env') ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
/** --build=false: use the dist/ already built (npm run build) rather than building it first. */
const BUILD = args.get('build') !== 'false';
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');

/** Every child this bench started: ended with it, however it ends. */
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));

/** A child started with `node --import tsx <script>`; resolves on the first stdout line matching `ready`. */
async function start(script: string, env: Record<string, string>, ready: RegExp, nodeOptions: string[] = []): Promise<{ child: ChildProcess; url: string; lines: () => number }> {
  const argv = [...nodeOptions, ...(script.endsWith('.ts') ? ['--import', 'tsx', script] : [script])];
  const child = spawn(process.execPath, argv, { env: { ...process.env, ...PRODUCTION, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let lines = 0;
  let partial = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      const text = partial + d;
      const all = text.split('\n');
      partial = all.pop()!;
      for (const line of all) {
        if (line.includes('"msg":"request"')) lines++;
        const m = ready.exec(line);
        if (m) resolve(m[1]!);
      }
    });
  });
  return { child, url, lines: () => lines };
}

/** CONNECTIONS clients posting the query for `seconds` (own-cost-load.ts). */
const drive = (pool: Pool, path: string, query: string, seconds: number): Promise<Run> => driveClients(pool, path, query, seconds, CONNECTIONS);

async function post(url: string, path: string, body: unknown): Promise<any> {
  return (await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
}

async function main() {
  console.log(`Own cost: node ${process.version}, load average at start ${load()}`);
  const upstream = await startSimulatorProcess({ memory: true });
  process.on('exit', upstream.stop);
  const memUrl = upstream.url;
  const devices = (await (await fetch(`${memUrl}/api/v2/tenants/client_1/resources/search?pageSize=20&queryString=type:DEVICE`)).json()) as { results: { id: string }[] };
  const ids = devices.results.map((r) => r.id);
  const all: Workload[] = workloads(ids).filter((w) => ONLY.includes(w.name));

  // The gateway as the README's production start runs it: compiled (no TypeScript loader), NODE_ENV=production.
  if (BUILD) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  // Its node options are npm run start:prod's (the README's production start).
  const startProd = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod']!;
  const gatewayNodeOptions = startProd.split(/\s+/).filter((arg) => arg.startsWith('--'));
  const gateway = await start('dist/server/main.js', { INVENTORY_API_URL: memUrl, INVENTORY_AUTH_MODE: 'none', CACHE: 'false', PORT: '0', HOST: '127.0.0.1', ...GATEWAY_ENV }, /ready at (http:\/\/\S+)/, gatewayNodeOptions);
  const apollo = await start('bench/own-cost-apollo.ts', { UPSTREAM_URL: memUrl }, /listening on (http:\/\/\S+)/);
  // The floor is the gateway's measuring stick: the same node options.
  const floor = await start('bench/own-cost-yoga-floor.ts', { UPSTREAM_URL: memUrl }, /listening on (http:\/\/\S+)/, gatewayNodeOptions);
  const plainChild = fork('bench/own-cost-plain.ts', [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...PRODUCTION, UPSTREAM_URL: memUrl, DEVICE_IDS: JSON.stringify(ids) } });
  children.push(plainChild);
  await new Promise((resolve) => plainChild.once('message', resolve));
  const ask = <T>(order: object) => new Promise<T>((resolve) => {
    plainChild.once('message', (m) => resolve(m as T));
    plainChild.send(order);
  });
  const gatewayUrl = new URL(gateway.url);
  const apolloUrl = new URL(apollo.url);
  const gatewayPool = new Pool(gatewayUrl.origin, { connections: CONNECTIONS });
  const apolloPool = new Pool(apolloUrl.origin, { connections: CONNECTIONS });
  const floorUrl = new URL(floor.url);
  const floorPool = new Pool(floorUrl.origin, { connections: CONNECTIONS });

  type Name = 'plain client' | 'this gateway' | 'Apollo Server + RESTDataSource' | 'Yoga floor (Yoga + graphql-jit, nothing else)';
  /** Requests sent to the gateway from the table's start (each must leave one access-log line). */
  let gatewayRequests = 0;
  const contenders: { name: Name; pid: number; run: (w: Workload, seconds: number) => Promise<Run> }[] = [
    { name: 'plain client', pid: plainChild.pid!, run: async (w, seconds) => ({ ...(await ask<Omit<Run, 'errors'>>({ run: w.name, connections: CONNECTIONS, seconds })), errors: 0 }) },
    {
      name: 'this gateway', pid: gateway.child.pid!,
      run: async (w, seconds) => {
        const r = await drive(gatewayPool, gatewayUrl.pathname, w.query, seconds);
        gatewayRequests += r.requests;
        return r;
      },
    },
    { name: 'Apollo Server + RESTDataSource', pid: apollo.child.pid!, run: (w, seconds) => drive(apolloPool, apolloUrl.pathname || '/', w.query, seconds) },
    { name: 'Yoga floor (Yoga + graphql-jit, nothing else)', pid: floor.child.pid!, run: (w, seconds) => drive(floorPool, floorUrl.pathname, w.query, seconds) },
  ];

  // The same answer, from the same upstream calls.
  await post(memUrl, '/__sim/config', { latencyMs: 0 });
  for (const w of all) {
    const answer = async (url: string) => (await post(url, '', { query: w.query })) as unknown;
    await post(memUrl, '/__sim/stats/reset', {});
    const fromGateway = await answer(gateway.url);
    const gatewayPaths = ((await (await fetch(`${memUrl}/__sim/stats/served`)).json()) as string[]).sort();
    await post(memUrl, '/__sim/stats/reset', {});
    const fromPlain = JSON.parse((await ask<{ body: string }>({ answer: w.name })).body) as unknown;
    const plainPaths = ((await (await fetch(`${memUrl}/__sim/stats/served`)).json()) as string[]).sort();
    await post(memUrl, '/__sim/stats/reset', {});
    const fromApollo = await answer(apollo.url);
    const apolloCalls = ((await (await fetch(`${memUrl}/__sim/stats/served`)).json()) as string[]).length;
    await post(memUrl, '/__sim/stats/reset', {});
    const fromFloor = await answer(floor.url);
    const floorPaths = ((await (await fetch(`${memUrl}/__sim/stats/served`)).json()) as string[]).sort();
    if (!isDeepStrictEqual(gatewayPaths, plainPaths)) throw new Error(`(${w.name}): the plain client's calls differ from the gateway's: ${gatewayPaths.slice(0, 3).join(' ')} / ${plainPaths.slice(0, 3).join(' ')}`);
    if (!isDeepStrictEqual(fromGateway, fromPlain)) throw new Error(`(${w.name}): the plain client's answer differs from the gateway's: ${JSON.stringify(fromPlain).slice(0, 300)} / ${JSON.stringify(fromGateway).slice(0, 300)}`);
    if (!isDeepStrictEqual(fromApollo, fromPlain)) throw new Error(`(${w.name}): Apollo's answer differs: ${JSON.stringify(fromApollo).slice(0, 300)}`);
    if (!isDeepStrictEqual(fromFloor, fromPlain)) throw new Error(`(${w.name}): Yoga floor's answer differs: ${JSON.stringify(fromFloor).slice(0, 300)}`);
    if (!isDeepStrictEqual(floorPaths, plainPaths)) throw new Error(`(${w.name}): Yoga floor's calls differ from the gateway's: ${floorPaths.slice(0, 3).join(' ')}`);
    console.log(`(${w.name}) ${w.description}: the four answers are equal; upstream calls: gateway, plain client and Yoga floor ${gatewayPaths.length} (the same paths), Apollo ${apolloCalls}`);
  }
  const logLinesBefore = gateway.lines();
  gatewayRequests = 0;

  console.log('');
  console.log(`${CONNECTIONS} clients per contender, ${SECONDS} s each per cell in ${SLICES} alternating slices; CPU: each contender's own process; ×: ÷ the plain client's`);
  console.log('| latency | workload | contender | req/s | × | p50 ms | CPU ms per request | × | upstream CPU ms per request | load average (1, 5, 15 min) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const latency of LATENCIES) {
    await post(memUrl, '/__sim/config', { latencyMs: latency });
    for (const w of all) {
      for (const c of contenders) await c.run(w, 1); // warm-up
      const sums = contenders.map(() => ({ requests: 0, seconds: 0, cpu: 0, upstreamCpu: 0, errors: 0, p50: [] as number[] }));
      for (let slice = 0; slice < SLICES; slice++) {
        for (const [k, c] of contenders.entries()) {
          const before = cpuMs(c.pid);
          const upstreamBefore = cpuMs(upstream.pid);
          const r = await c.run(w, SECONDS / SLICES);
          const s = sums[k]!;
          s.cpu += cpuMs(c.pid) - before;
          s.upstreamCpu += cpuMs(upstream.pid) - upstreamBefore;
          s.requests += r.requests;
          s.seconds += r.seconds;
          s.errors += r.errors;
          s.p50.push(r.p50);
        }
      }
      const rows = sums.map((s) => ({ rps: s.requests / s.seconds, p50: [...s.p50].sort((x, y) => x - y)[Math.floor(s.p50.length / 2)]!, cpu: s.cpu / s.requests, upstreamCpu: s.upstreamCpu / s.requests, errors: s.errors }));
      const plain = rows[0]!;
      const avg = load();
      for (const [k, c] of contenders.entries()) {
        const r = rows[k]!;
        const vs = (x: number, y: number) => (k === 0 ? '' : `${round(x / y, 2)}×`);
        console.log(`| ${latency} ms | (${w.name}) | ${c.name} | ${round(r.rps)}${r.errors ? ` (${r.errors} errors)` : ''} | ${vs(r.rps, plain.rps)} | ${round(r.p50)} | ${round(r.cpu, 2)} | ${vs(r.cpu, plain.cpu)} | ${round(r.upstreamCpu, 2)} | ${avg} |`);
      }
    }
  }
  // Give the pipe a moment: every answered request wrote its access-log line.
  await new Promise((resolve) => setTimeout(resolve, 500));
  console.log(`\nThe gateway's access log during the table: ${gateway.lines() - logLinesBefore} lines for ${gatewayRequests} requests`);
  console.log(`load average at end ${load()}`);

  await gatewayPool.close();
  await apolloPool.close();
  await floorPool.close();
  // The gateway drains and exits on SIGTERM (so that, e.g., NODE_OPTIONS=--cpu-prof in
  // --gateway-env writes its profile); the rest end with this process.
  await new Promise((resolve) => {
    gateway.child.once('exit', resolve);
    gateway.child.kill('SIGTERM');
    setTimeout(resolve, 15_000).unref();
  });
}

await main();
process.exit(0);
