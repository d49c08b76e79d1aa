import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { noAuth } from '../../src/upstream/auth.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { checkMockUpstreams, mockUpstream } from '../support/upstream-client.js';

const DETAIL = '/base/api/v2/tenants/t/resources/r';

describe('one attempt', () => {
  let server: Server | undefined;
  afterEach(checkMockUpstreams);
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(null)));
    server = undefined;
  });

  /** A real server on a loopback port, and a client with its own pool talking to it. */
  async function clientOf(handler: Parameters<typeof createServer>[1], env: Record<string, string>) {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = loadConfig({ INVENTORY_API_URL: base, INVENTORY_AUTH_MODE: 'none', ...env });
    return new UpstreamClient({ baseUrl: base, auth: noAuth, settings: config, logger: createLogger('silent') });
  }

  it('ends an upstream that does not answer with UPSTREAM_TIMEOUT', async () => {
    // A real server that never answers, and the client's own pool: undici's timeout is the real one.
    const client = await clientOf(() => {}, { UPSTREAM_TIMEOUT_MS: '200', UPSTREAM_RETRIES: '0' });
    const session = client.session({ authorization: null });
    try {
      await expect(session.detail('t', 'r')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT', status: null });
    } finally {
      session.close();
      await client.close();
    }
  });

  it('holds one abort listener for all of an operation\'s calls in flight, and close() still ends every one of them', async () => {
    // A real server that holds every request until the client goes away.
    const held: { closed: boolean }[] = [];
    const client = await clientOf((req) => {
      const entry = { closed: false };
      held.push(entry);
      req.socket.on('close', () => (entry.closed = true));
    }, { UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION: '8', UPSTREAM_RETRIES: '0' });
    const session = client.session({ authorization: null });
    try {
      const calls = Array.from({ length: 8 }, (_, i) => session.detail('t', `r${i}`).then(() => 'answered', (error: { code?: string }) => error.code));
      while (held.length < 8) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(getEventListeners(session.signal, 'abort')).toHaveLength(1);
      session.close();
      expect(await Promise.all(calls)).toEqual(Array.from({ length: 8 }, () => 'CLIENT_CLOSED_REQUEST'));
      while (held.some((h) => !h.closed)) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(held.every((h) => h.closed)).toBe(true);
    } finally {
      session.close();
      await client.close();
    }
  });

  it.each([
    [404, { message: 'no such resource' }, 'NOT_FOUND', false],
    [400, { message: 'bad sort' }, 'BAD_USER_INPUT', false],
    [401, {}, 'UNAUTHENTICATED', false],
    [403, {}, 'FORBIDDEN', false],
    [500, 'oops', 'UPSTREAM_UNAVAILABLE', false],
  ] as const)('classifies a %i answer', async (status, body, code, retried) => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL }).reply(status, typeof body === 'string' ? body : JSON.stringify(body));
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', 'r')).rejects.toMatchObject({ code, status, extensions: { code, upstreamStatus: status } });
    expect(session.stats.retries > 0).toBe(retried);
    session.close();
  });

  it('keeps the upstream reason of a 400, stripped of URLs', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL }).reply(400, { message: 'see https://inventory.test/secret' });
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', 'r')).rejects.toThrow('The inventory API rejected the request for resource r: see [url]');
    session.close();
  });

  it('classifies a 2xx that is not JSON as UPSTREAM_BAD_RESPONSE, and an empty one as null', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL }).reply(200, '<html>');
    up.pool.intercept({ path: '/base/api/v2/tenants/t/resources/e' }).reply(200, '');
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', 'r')).rejects.toMatchObject({ code: 'UPSTREAM_BAD_RESPONSE', status: 200 });
    await expect(session.detail('t', 'e')).resolves.toBeNull();
    session.close();
  });

  it('sends accept: application/json and, for a body, its content type', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL, method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' } }).reply(200, {});
    const session = up.client.session({ authorization: null });
    await expect(session.update('t', 'r', { a: 1 })).resolves.toEqual({});
    session.close();
  });

  it('stops at the operation\'s call budget with OPERATION_TOO_EXPENSIVE', async () => {
    const up = mockUpstream({ MAX_UPSTREAM_CALLS: '1' });
    up.pool.intercept({ path: DETAIL }).reply(200, { id: 'r' });
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', 'r')).resolves.toEqual({ id: 'r' });
    await expect(session.applications('t', 'r')).rejects.toMatchObject({ code: 'OPERATION_TOO_EXPENSIVE' });
    session.close();
  });
});
