/**
 * The gateway as a process for memory measurements (test/e2e/memory-bounds.test.ts and
 * `npm run bench:memory`): `node --expose-gc --max-semi-space-size=64 --import tsx --import
 * ./test/support/heap-probe.mjs src/server/main.ts` (or the build, `dist/server/main.js`, under
 * plain node), main.ts exactly as production starts it, on the embedded simulator unless the env
 * names another upstream, with heap figures asked over the child's IPC channel (heap-probe.mjs),
 * never over HTTP. Also the loads they send: distinct documents, distinct tenants, and live
 * operations opened and closed over SSE and WebSocket.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { watchProcess, type WatchedProcess } from './child-process.js';
import { root } from './gateway-process.js';

export interface HeapReading {
  /** V8 heap in use after full collections (bytes). */
  heapUsed: number;
  /** Resident set size at that moment (bytes). */
  rss: number;
  external: number;
  arrayBuffers: number;
}

export interface MemoryProcess extends WatchedProcess {
  /** The gateway's /graphql, on 127.0.0.1. */
  url: string;
  /** The heap after full collections. */
  heap(): Promise<HeapReading>;
  /** Resident size now, without collecting. */
  rss(): Promise<number>;
  /** Writes a heap snapshot (after full collections) to `path`. */
  snapshot(path: string): Promise<string>;
  /** A metric's value from /metrics (the first series of that name). */
  metric(name: string): Promise<number>;
}

/**
 * `entry`: the gateway's main module, `src/server/main.ts` (under tsx, as `npm start`) or a build's
 * `dist/server/main.js` (plain node); `nodeOptions`: more node options (e.g. --max-old-space-size).
 */
export async function startMemoryProcess(env: Record<string, string> = {}, entry = 'src/server/main.ts', nodeOptions: string[] = []): Promise<MemoryProcess> {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, ['--expose-gc', '--max-semi-space-size=64', ...nodeOptions, ...loader, '--import', './test/support/heap-probe.mjs', entry], {
    cwd: root,
    // The simulator's throttle stays at the documented limits, as `npm start` runs it; every
    // client here comes from 127.0.0.1.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', MAX_CONNECTIONS_PER_ADDRESS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const watched = watchProcess(child);
  let next = 0;
  const ask = <T>(cmd: string, extra: Record<string, unknown> = {}) => new Promise<T>((resolve, reject) => {
    const id = ++next;
    const onMessage = (message: { id?: number }) => {
      if (message.id !== id) return;
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.send({ id, cmd, ...extra }, (error) => error && reject(error));
  });
  const started = Date.now();
  let url = '';
  while (!url) {
    const m = /ready at (http:\/\/\S+\/graphql)/.exec(watched.output().stdout);
    if (m) url = m[1]!.replace('localhost', '127.0.0.1');
    else if (!watched.running) throw new Error(`the gateway exited: ${watched.output().stderr}`);
    else if (Date.now() - started > 60_000) throw new Error('the gateway did not start within 60 s');
    else await sleep(20);
  }
  return Object.assign(watched, {
    url,
    heap: () => ask<HeapReading>('heap'),
    rss: async () => (await ask<{ rss: number }>('rss')).rss,
    snapshot: async (path: string) => (await ask<{ path: string }>('snapshot', { path })).path,
    async metric(name: string) {
      const text = await (await fetch(url.replace(/\/graphql$/, '/metrics'))).text();
      const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
      if (!m) throw new Error(`no metric ${name}`);
      return Number(m[1]);
    },
  });
}

/** Keep-alive connections for the loads (at most `connections` requests in flight). */
export function loadAgent(connections = 8): Agent {
  return new Agent({ connections, keepAliveTimeout: 30_000 });
}

/** POSTs one operation; the parsed answer. */
export async function post(agent: Agent, url: string, body: unknown): Promise<{ data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] }> {
  const res = await request(url, {
    dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body),
  });
  return (await res.body.json()) as never;
}

/**
 * Runs `send(i)` for i in [from, to) with `concurrency` in flight; with `perSecond`, paced at that
 * rate (the 20 distinct documents a second).
 */
export async function run(from: number, to: number, send: (i: number) => Promise<void>, options: { concurrency?: number; perSecond?: number } = {}): Promise<void> {
  let i = from;
  const start = Date.now();
  const { concurrency = 8, perSecond } = options;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (i < to) {
      const mine = i++;
      if (perSecond) {
        const due = start + ((mine - from) * 1000) / perSecond;
        if (due > Date.now()) await sleep(due - Date.now());
      }
      await send(mine);
    }
  }));
}

/** A query document made distinct by an alias, answered from the cache after the first (client_1's first page). */
export const distinctDocument = (i: number) => ({ query: `{ d${i}: tenant(id: "client_1") { resources(first: 2) { totalCount nodes { id hostName } } } }` });

/** One document, a distinct tenant each time (the simulator knows three: the others answer NOT_FOUND after one upstream call). */
export const distinctTenant = (i: number) => ({
  query: 'query Tenant($tenant: ID!) { tenant(id: $tenant) { resources(first: 2) { totalCount nodes { id hostName } } } }',
  variables: { tenant: `tenant_${i}` },
});

/** The live query the live loads open: client_1's resource count. */
export const LIVE_QUERY = 'query Tile @live { tenant(id: "client_1") { resourceSummary { total } } }';

/** Opens the live query over SSE, reads its first result, and closes the stream. */
export async function liveOverSse(url: string): Promise<void> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST', signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: LIVE_QUERY }),
  });
  const reader = res.body!.getReader();
  let text = '';
  try {
    while (!/event: next\ndata: .*\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the live stream ended before its first result: ${text}`);
      text += Buffer.from(value).toString();
    }
    if (!text.includes('"total"')) throw new Error(`not a result: ${text}`);
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Opens a WebSocket (graphql-transport-ws), subscribes to the live query, reads its first result,
 * completes it and closes the connection: a connection and a live operation opened and closed.
 */
export function liveOverWebSocket(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    let answered = false;
    const timer = setTimeout(() => fail(new Error('no result over WebSocket within 10 s')), 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.terminate();
      reject(error);
    };
    socket.on('error', fail);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: unknown };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: LIVE_QUERY } }));
      } else if (message.type === 'next') {
        if (!JSON.stringify(message.payload).includes('"total"')) return fail(new Error(`not a result: ${JSON.stringify(message.payload)}`));
        answered = true;
        socket.send(JSON.stringify({ id: '1', type: 'complete' }));
        socket.close(1000);
      } else if (message.type === 'error') {
        fail(new Error(`refused: ${JSON.stringify(message.payload)}`));
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (answered) resolve();
      else reject(new Error('the WebSocket closed before a result'));
    });
  });
}
