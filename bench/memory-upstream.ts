/**
 * An upstream that answers from memory, for the own-cost table (bench/own-cost.ts): the embedded
 * simulator renders each distinct answer once (the first GET of a path), and every later GET of
 * that path is the same status, headers and bytes written from memory after `latencyMs`. A
 * 100-record page then costs this process a write of 136 KB, not the simulator's ~7 ms of
 * rendering, so the contenders and not the upstream are what is measured.
 *
 * Run as a child process (startSimulatorProcess({ memory: true }) in bench/simulator-process.ts; it
 * prints "listening on <url>"). The simulator's admin paths the benches use are this front's own:
 * `POST /__sim/config {"latencyMs":20}` sets the latency, `GET /__sim/stats` answers
 * { totalCalls, rendered }, `POST /__sim/stats/reset` starts counting again, and
 * `GET /__sim/stats/served` lists the paths asked since.
 * The simulator's rate limits are off (the bench measures the gateway, not the throttle).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator } from '../src/simulator/app.js';
import { readBody } from '../src/simulator/http-io.js';

interface Rendered { status: number; headers: Record<string, string>; body: Buffer }

const sim = await startSimulator({ port: 0, rateLimit: { enabled: false } });
const simUrl = sim.url;
const rendered = new Map<string, Rendered>();
const pending = new Map<string, Promise<Rendered>>();
let latencyMs = 0;
let calls = 0;
/** The paths asked since the last reset (the first 10,000), so the bench can check that contenders make the same calls. */
const served: string[] = [];

async function render(path: string, authorization: string | undefined): Promise<Rendered> {
  const res = await fetch(`${simUrl}${path}`, { headers: { accept: 'application/json', ...(authorization ? { authorization } : {}), 'x-simulator-uncounted': '1' } });
  const body = Buffer.from(await res.arrayBuffer());
  // Only what a client reads: the body's type (the simulator behind runs with its limits off and
  // these requests uncounted, so there are no rate-limit headers to keep).
  const headers: Record<string, string> = { 'content-type': res.headers.get('content-type') ?? 'application/json', 'content-length': String(body.length) };
  return { status: res.status, headers, body };
}

const server = http.createServer((req, res) => {
  const path = req.url ?? '/';
  // The simulator's admin paths that the benches use, answered for this front: its latency, its counts.
  if (path.startsWith('/__sim/')) {
    readBody(req).then((text) => {
      const reply = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (path === '/__sim/config') {
        latencyMs = Number((JSON.parse(text) as { latencyMs?: number }).latencyMs ?? 0);
        return reply({ latencyMs });
      }
      if (path === '/__sim/stats/reset') {
        calls = 0;
        served.length = 0;
      }
      if (path === '/__sim/stats/served') return reply(served);
      reply({ totalCalls: calls, rendered: rendered.size });
    }, () => res.writeHead(413).end());
    return;
  }
  if (req.method !== 'GET') {
    res.writeHead(405).end();
    return;
  }
  calls++;
  if (served.length < 10_000) served.push(path);
  const answer = (r: Rendered) => {
    const send = () => res.writeHead(r.status, r.headers).end(r.body);
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  };
  const hit = rendered.get(path);
  if (hit) return answer(hit);
  let once = pending.get(path);
  if (!once) {
    once = render(path, req.headers.authorization).then((r) => {
      rendered.set(path, r);
      pending.delete(path);
      return r;
    });
    pending.set(path, once);
  }
  req.resume();
  void once.then(answer, () => res.writeHead(502).end());
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`memory upstream listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.close();
  void sim.close().finally(() => process.exit(0));
});
