/**
 * wholeBodies (src/server/edge/http-server.ts): a POST body that states its length within the limit
 * reaches the handler read whole; anything else reaches it untouched, unread.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wholeBodies } from '../../src/server/edge/http-server.js';

const LIMIT = 1_000;
const seen: { method: string; body: string | null; readable: boolean }[] = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer(wholeBodies(LIMIT, (req, res) => {
    const body = (req as { body?: Buffer }).body;
    seen.push({ method: req.method!, body: body ? body.toString() : null, readable: !req.readableEnded });
    if (req.readableEnded) return void res.end('ok');
    req.resume();
    req.on('end', () => res.end('ok'));
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('wholeBodies', () => {
  it('hands a POST body within the limit over whole, as a Buffer', async () => {
    seen.length = 0;
    const body = JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(500) });
    expect(await (await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).text()).toBe('ok');
    expect(seen).toEqual([{ method: 'POST', body, readable: false }]);
  });

  it('leaves unread a body over the limit, one without a length (chunked) and a GET', async () => {
    seen.length = 0;
    await (await fetch(url, { method: 'POST', body: 'x'.repeat(LIMIT + 1) })).text();
    const chunked = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('{"query":"{ __typename }"}')); c.close(); } });
    await (await fetch(url, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit)).text();
    await (await fetch(url)).text();
    expect(seen).toEqual([
      { method: 'POST', body: null, readable: true },
      { method: 'POST', body: null, readable: true },
      { method: 'GET', body: null, readable: true },
    ]);
  });

  it('calls nothing for a client that leaves before its body is complete', async () => {
    seen.length = 0;
    const { port } = server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
  });
});
