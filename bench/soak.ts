/**
 * npm run soak: the gateway as a process (default settings) over the simulator (its own
 * process, 20 ms latency), 200 clients sending a nested query (a page of 20 with applications
 * and a 24 h availability window) for 60 s, then an idle minute. Prints throughput, latency
 * percentiles, the answers by outcome, and the gateway's resident memory before, during and
 * after. Options: --clients=200 --seconds=60 --idle=60 --latency=20.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const CLIENTS = Number(args.get('clients') ?? 200);
const SECONDS = Number(args.get('seconds') ?? 60);
const IDLE_SECONDS = Number(args.get('idle') ?? 60);
const LATENCY = Number(args.get('latency') ?? 20);

const QUERY = `{ tenant(id: "client_1") { resources(first: 20) { nodes { id hostName applications { name }
  availability(from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z") { downtimeSeconds } } } } }`;

function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
  });
}

/** Resident memory of a process, MiB. */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

const simulator = await start(['src/simulator/main.ts'], { SIMULATOR_PORT: '0', SIMULATOR_LATENCY_MS: String(LATENCY), SIMULATOR_RATE_LIMIT: 'off' }, /listening on (http:\/\/\S+)/);
const gateway = await start(['src/server/main.ts'], { PORT: '0', HOST: '127.0.0.1', INVENTORY_API_URL: simulator.match[1]!, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn' }, /ready at (http:\/\/\S+\/graphql)/);
const url = gateway.match[1]!.replace('localhost', '127.0.0.1');
const pid = gateway.child.pid!;

const memory: Record<string, number> = { before: rssMiB(pid) };
const during: number[] = [];
const sampler = setInterval(() => during.push(rssMiB(pid)), 1000);
const outcomes: Record<string, number> = {};

const result = await autocannon({
  url,
  method: 'POST',
  connections: CLIENTS,
  duration: SECONDS,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: QUERY }),
  setupClient(client) {
    client.on('body', (body: Buffer) => {
      const text = body.toString();
      const code = /"code":"([A-Z_]+)"/.exec(text)?.[1] ?? (text.includes('"errors"') ? 'error' : 'data');
      outcomes[code] = (outcomes[code] ?? 0) + 1;
    });
  },
});
clearInterval(sampler);
memory.duringMax = Math.max(...during);
await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
memory.afterIdle = rssMiB(pid);

console.log(JSON.stringify({
  clients: CLIENTS, seconds: SECONDS, upstreamLatencyMs: LATENCY,
  requestsPerSecond: result.requests.average, requests: result.requests.total,
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
  statusCodes: { '2xx': result['2xx'], non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts },
  outcomes, rssMiB: memory,
}, null, 2));
gateway.child.kill('SIGTERM');
simulator.child.kill('SIGTERM');
