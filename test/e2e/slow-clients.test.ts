/**
 * Slow clients against the gateway as an operator runs it (a real process, NODE_ENV=production,
 * the defaults): 200 connections from one address that send their headers a byte a second are
 * answered 408 and closed within HEADERS_TIMEOUT_MS (plus the one-second check), while 20 normal
 * queries from another address keep their median latency; and one address holds at most
 * MAX_CONNECTIONS_PER_ADDRESS connections.
 */
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

const ENV = { NODE_ENV: 'production', INVENTORY_API_URL: 'simulator', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
/** The settings the process runs with: the production defaults. */
const { connections } = loadConfig(ENV);
/** Normal clients come from another loopback address than the slow ones (Linux routes all of 127/8 to lo). */
const OTHER_ADDRESS = '127.0.0.2';
const QUERY = JSON.stringify({ query: '{ tenant(id: "client_1") { resources(first: 10) { totalCount nodes { id hostName } } } }' });

let gateway: GatewayProcess;
let url: URL;
beforeAll(async () => {
  gateway = startGatewayProcess(ENV);
  url = await gateway.ready;
}, 60_000);
afterAll(async () => {
  gateway?.child.kill('SIGKILL');
});

interface SlowClient { closedAt: Promise<number>; answer: () => string; socket: net.Socket }

/** A connection that starts a request and sends one more header byte a second, never finishing. */
function slowClient(started: number): SlowClient {
  const socket = net.connect({ host: url.hostname, port: Number(url.port) });
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  socket.once('connect', () => socket.write(`POST /graphql HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `));
  const drip = setInterval(() => socket.writable && socket.write('a'), 1_000);
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => {
    clearInterval(drip);
    resolve(performance.now() - started);
  }));
  return { closedAt, answer: () => answer, socket };
}

/** 20 queries one after another from OTHER_ADDRESS on one keep-alive connection: their median latency in ms. */
async function medianLatency(): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: OTHER_ADDRESS } as http.AgentOptions);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(QUERY) } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c));
          res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`status ${res.statusCode}: ${text}`))));
        });
        req.on('error', reject);
        req.end(QUERY);
      });
      expect(JSON.parse(body).data.tenant.resources.totalCount).toBe(500);
      latencies.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  return latencies.sort((a, b) => a - b)[10]!;
}

describe('slow clients', () => {
  it('closes 200 connections that send headers slowly within the headers timeout, while normal queries keep their latency', async () => {
    // Warm-up (first queries compile and fill the cache), then the baseline.
    await medianLatency();
    const alone = await medianLatency();
    const started = performance.now();
    const slow = Array.from({ length: 200 }, () => slowClient(started));
    await sleep(500);
    const withSlow = await medianLatency();
    const closedAfter = await Promise.all(slow.map((c) => c.closedAt));
    const latest = Math.max(...closedAfter);
    console.log(`200 slow connections closed after ${Math.round(Math.min(...closedAfter))}-${Math.round(latest)} ms (headers timeout ${connections.headersTimeoutMs} ms); median latency of 20 queries: ${alone.toFixed(1)} ms alone, ${withSlow.toFixed(1)} ms beside them`);
    for (const client of slow) expect(client.answer()).toMatch(/^HTTP\/1\.1 408 /);
    // Node checks every second: closed within the timeout plus that second, and then some for a
    // busy machine's late timers; Node's own defaults would take 30-60 s. Halfway to 30 s tells
    // the two apart on any machine (the bound was the timeout + 3 s, a quiet machine's room).
    expect(latest).toBeLessThan(connections.headersTimeoutMs + (30_000 - connections.headersTimeoutMs) / 2);
    expect(Math.min(...closedAfter)).toBeGreaterThan(connections.headersTimeoutMs - 1_000);
    // Medians of 20, measured at two moments of a machine that runs other files meanwhile: a
    // bound that holds under their load and still catches queries held up behind the slow ones.
    expect(withSlow).toBeLessThan(Math.max(3 * alone, alone + 100));
  }, 60_000);

  it(`holds at most MAX_CONNECTIONS_PER_ADDRESS (${connections.maxConnectionsPerAddress}) connections from one address; another address is served meanwhile`, async () => {
    const extra = 10;
    const alone = await medianLatency();
    const sockets = Array.from({ length: connections.maxConnectionsPerAddress + extra }, () => {
      const socket = net.connect({ host: url.hostname, port: Number(url.port) });
      socket.on('error', () => undefined);
      const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
      return { socket, closed };
    });
    try {
      // The extra ones are closed as they connect: waited for (1 s was enough on a quiet machine),
      // then a moment more in which no other may close.
      const closedNow = async () => (await Promise.all(sockets.map((s) => Promise.race([s.closed, Promise.resolve(false)])))).filter(Boolean).length;
      const waitFrom = performance.now();
      while ((await closedNow()) < extra && performance.now() - waitFrom < 30_000) await sleep(50);
      await sleep(500);
      expect(await closedNow()).toBe(extra);
      // Another address is served meanwhile, as fast as before them (as in the case above; the
      // bound was 1 s, a quiet machine's figure): refused or queued behind them, it would not be.
      const meanwhile = await medianLatency();
      expect(meanwhile).toBeLessThan(Math.max(3 * alone, alone + 100));
    } finally {
      for (const { socket } of sockets) socket.destroy();
    }
  }, 60_000);
});
