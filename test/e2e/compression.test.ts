/**
 * Compression both ways over a real port, at the defaults: answers in br, gzip and deflate decode
 * to the identity answer; request bodies in gzip, deflate and br are executed; MAX_BODY_BYTES
 * holds for the inflated size while inflating (a bomb gets 413 and is never inflated in memory);
 * an unknown encoding gets 415.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarios } from '../../bench/scenarios.js';
import { startHarness, type Harness } from '../support/harness.js';
import { testClock } from '../support/test-clock.js';
import { rawRequest, type RawRequest } from '../support/raw-http.js';

let h: Harness;
beforeAll(async () => {
  // On a test clock that stays still: the repeats of the first answer come from the cache fresh
  // however long a busy machine takes between them (in real time they outlived the search's 5 s
  // TTL there and came back flagged stale).
  const clock = testClock(Date.now());
  h = await startHarness({ clock: clock.now, timers: clock.timers });
});
afterAll(async () => {
  await h?.close();
});

/** A POST on a connection of its own (the body as sent: fetch would decode it). */
const raw = (url: string, options: RawRequest = {}) => rawRequest(url, { method: 'POST', freshConnection: true, ...options });

const post = (body: Buffer, headers: Record<string, string> = {}) =>
  raw(h.url, { body, headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers } });

const DECODE: Record<string, (b: Buffer) => Buffer> = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync, deflate: zlib.inflateSync };
const ENCODE: Record<string, (b: Buffer) => Buffer> = { br: zlib.brotliCompressSync, gzip: zlib.gzipSync, deflate: zlib.deflateSync };

describe('compressed answers', () => {
  it('answers the bench\'s query (b) in br (preferred), gzip and deflate, each decoding to the identity answer', async () => {
    const query = Buffer.from(JSON.stringify({ query: scenarios([]).find((s) => s.name === 'b')!.query }));
    const plain = await post(query);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const expected = JSON.parse(plain.body.toString('utf8'));
    expect(expected.errors).toBeUndefined();
    expect(expected.data.tenant.resources.nodes).toHaveLength(100);
    const sizes = [`identity ${plain.body.length}`];
    for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['br', 'br'], ['gzip, deflate', 'gzip'], ['deflate', 'deflate']] as const) {
      const res = await post(query, { 'accept-encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expect(JSON.parse(DECODE[encoding]!(res.body).toString('utf8'))).toEqual(expected);
      expect(res.body.length).toBeLessThan(plain.body.length / 4);
      sizes.push(`${encoding} ${res.body.length}`);
    }
    console.log(`query (b) answer bytes: ${sizes.join(', ')}`);
  });
});

describe('compressed request bodies', () => {
  const QUERY = Buffer.from(JSON.stringify({ query: '{ tenant(id: "client_1") { resources(first: 1) { totalCount } } }' }));

  it.each(['gzip', 'deflate', 'br'])('executes a %s body', async (encoding) => {
    const res = await post(ENCODE[encoding]!(QUERY), { 'content-encoding': encoding });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ data: { tenant: { resources: { totalCount: 500 } } } });
  });

  it('answers an unknown encoding 415, and data that does not decode 400, with codes', async () => {
    const unknown = await post(QUERY, { 'content-encoding': 'zstd' });
    expect(unknown.status).toBe(415);
    expect(JSON.parse(unknown.body.toString('utf8')).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const broken = await post(QUERY, { 'content-encoding': 'gzip' });
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body.toString('utf8')).errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a gzip bomb with 413 without inflating it: memory does not grow with it', async () => {
    // About 100 MB of JSON-looking text in under MAX_BODY_BYTES (100 000) of gzip.
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"query": "'), Buffer.alloc(100_000_000, 0x20)]), { level: 9 });
    expect(bomb.length).toBeLessThan(h.config.limits.maxBodyBytes);
    global.gc?.();
    const base = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.arrayBuffers - base.arrayBuffers, now.external - base.external);
    }, 1);
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(bomb, { 'content-encoding': 'gzip' })));
      for (const res of answers) {
        expect(res.status).toBe(413);
        expect(JSON.parse(res.body.toString('utf8')).errors[0].extensions.code).toBe('OPERATION_TOO_EXPENSIVE');
      }
    } finally {
      clearInterval(sampler);
    }
    // Five bombs inflated would hold 500 MB; stopped at the limit, each holds at most 100 kB.
    expect(peak).toBeLessThan(50 * 1024 * 1024);
  });
});
