/**
 * The own-cost table's plain client (bench/own-cost.ts), in a process of its own so that its CPU
 * is its own: an undici pool (64 connections, the gateway's default UPSTREAM_MAX_IN_FLIGHT), the
 * upstream calls of a workload made by hand (bench/own-cost-workloads.ts), the answer built and
 * serialized as the gateway would send it. Driven over IPC:
 *   { run: 'a', connections, seconds } → { requests, seconds, p50 }   (connections loops of operations)
 *   { answer: 'a' } → { body }                                         (one operation's answer)
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { workloads, type Get } from './own-cost-workloads.js';

const upstream = process.env.UPSTREAM_URL!;
const all = workloads(JSON.parse(process.env.DEVICE_IDS!) as string[]);
const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
const get: Get = async (path) => {
  const res = await request(`${upstream}${path}`, { dispatcher: agent });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`plain client: ${res.statusCode} on ${path}`);
  }
  return res.body.json();
};
const operation = async (name: string) => JSON.stringify({ data: await all.find((w) => w.name === name)!.plain(get) });

interface Order { run?: string; answer?: string; connections?: number; seconds?: number }
process.on('message', (order: Order) => {
  void (async () => {
    if (order.answer) return process.send!({ body: await operation(order.answer) });
    const started = performance.now();
    const end = started + order.seconds! * 1000;
    const times: number[] = [];
    await Promise.all(Array.from({ length: order.connections! }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await operation(order.run!);
        times.push(performance.now() - t);
      }
    }));
    times.sort((x, y) => x - y);
    process.send!({ requests: times.length, seconds: (performance.now() - started) / 1000, p50: times[Math.floor(times.length / 2)] ?? NaN });
  })();
});
process.send!('ready');
