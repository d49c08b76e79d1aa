/**
 * A real Redis (Debian package `redis-server`, installed by .ci/run) for tests: loopback only, a
 * free port, a temporary directory, no persistence (`--save '' --appendonly no`). It can be
 * stopped and started again on the same port, to play an outage and the recovery.
 * Commands go over a raw RESP socket, so this needs no Redis client library.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnWatched, waitFor, type WatchedProcess } from './child-process.js';

export const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export interface RedisServer {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** True while the server process runs. */
  readonly running: boolean;
  /** SIGTERM, and wait for the exit (an outage: clients get connection refused). */
  stop(): Promise<void>;
  /** Start again on the same port, empty (nothing was persisted), and wait until it answers PING. */
  start(): Promise<void>;
  flushAll(): Promise<void>;
  /** SIGSTOP / SIGCONT: a Redis that hangs (connections stay open, nothing is answered). */
  pause(): void;
  resume(): void;
  /** One command, e.g. command('DBSIZE'), command('KEYS', '*'): its reply (text, number, list or null). */
  command(...args: string[]): Promise<RespValue>;
  /** What the server printed (its log goes to stdout), for failure messages. */
  output(): string;
  /** Stop and remove the temporary directory. */
  close(): Promise<void>;
}

/** A port that was free a moment ago: Redis refuses `--port 0`, so one is chosen here. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export type RespValue = string | number | null | RespValue[];

/** One RESP reply from `text` at `at`: [value, next offset], or undefined while it is incomplete. */
function parseReply(text: Buffer, at: number): [RespValue | Error, number] | undefined {
  const end = text.indexOf('\r\n', at);
  if (end < 0) return undefined;
  const head = text.toString('utf8', at + 1, end);
  switch (String.fromCharCode(text[at]!)) {
    case '+': return [head, end + 2];
    case '-': return [new Error(head), end + 2];
    case ':': return [Number(head), end + 2];
    case '$': {
      const length = Number(head);
      if (length < 0) return [null, end + 2];
      if (text.length < end + 2 + length + 2) return undefined;
      return [text.toString('utf8', end + 2, end + 2 + length), end + 2 + length + 2];
    }
    case '*': {
      const count = Number(head);
      if (count < 0) return [null, end + 2];
      const items: RespValue[] = [];
      let next = end + 2;
      for (let i = 0; i < count; i++) {
        const item = parseReply(text, next);
        if (!item) return undefined;
        if (item[0] instanceof Error) return item;
        items.push(item[0]);
        next = item[1];
      }
      return [items, next];
    }
    default: return [new Error(`unexpected reply ${JSON.stringify(text.toString('utf8', at, at + 40))}`), text.length];
  }
}

/** Sends one command as a RESP array of bulk strings and reads its reply. */
export function respCommand(port: number, args: string[], timeoutMs = 2_000): Promise<RespValue> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`redis ${args[0]}: no answer in ${timeoutMs} ms`)); }, timeoutMs);
    let buffer = Buffer.alloc(0);
    const finish = (error: Error | null, value: RespValue = null) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    socket.once('error', (error) => finish(error));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const reply = parseReply(buffer, 0);
      if (!reply) return;
      if (reply[0] instanceof Error) finish(new Error(`redis ${args[0]}: ${reply[0].message}`));
      else finish(null, reply[0]);
    });
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-redis-'));
  let server: WatchedProcess | null = null;
  let log = '';

  async function start(): Promise<void> {
    if (server) throw new Error('redis-server is already running');
    const proc = spawnWatched('redis-server', [
      '--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no',
      '--daemonize', 'no', '--logfile', '', '--loglevel', 'warning', '--databases', '1',
    ]);
    server = proc;
    // Its log goes to stdout; kept across restarts (each start's process has its own output).
    const before = log;
    const output = () => `${before}${proc.output().stdout}${proc.output().stderr}`;
    void proc.exited.then(() => { log = output(); if (server === proc) server = null; });
    await waitFor('redis-server to answer PING', async () => ((await respCommand(port, ['PING'], 500)) === 'PONG' ? true : undefined), {
      timeoutMs: 30_000,
      gaveUp: () => (server !== proc ? `exited at start: ${output().trim().slice(-500)}` : undefined),
    });
  }

  async function stop(): Promise<void> {
    await server?.stop(5_000);
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() { return server !== null; },
    pause() { server?.child.kill('SIGSTOP'); },
    resume() { server?.child.kill('SIGCONT'); },
    stop,
    start,
    async flushAll() { await respCommand(port, ['FLUSHALL']); },
    command: (...args) => respCommand(port, args),
    output: () => (server ? `${log}${server.output().stdout}${server.output().stderr}` : log),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
