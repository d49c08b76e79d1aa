/**
 * Memory stays bounded whatever documents, tenants and live operations arrive (issue 42): the
 * gateway as production starts it (main.ts, its defaults, the embedded simulator) in a process
 * started with --expose-gc, its heap read after full collections over the child's IPC channel
 * (test/support/heap-probe.ts). After a few hundred of each kind, the heap is read; after many
 * more, it may have grown by no more than the bounded caches still allow.
 *
 * Each distinct document used to leave its parsed form and compiled code for good (Yoga's parse
 * cache held 1,024 documents of about 95 KB each, and V8's compilation cache the code of every one
 * since): here they are bounded by DOCUMENT_CACHE_MAX_BYTES, set small so that the cache is full
 * after the first hundred and the test stays short. What `npm run bench:memory` measures at the
 * defaults is in the README ("Memory").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from 'undici';
import {
  distinctDocument, distinctTenant, liveOverSse, liveOverWebSocket, loadAgent, post, run, startMemoryProcess, type MemoryProcess,
} from '../support/memory-process.js';

const MiB = 1024 * 1024;
/** The document cache's bound here (the default is 32 MiB): full after about 80 documents of this shape. */
const DOCUMENT_CACHE = 8 * MiB;
/**
 * Growth that is not a cache filling up: code V8 compiles and optimizes as the load warms up,
 * the allocator's pages. Measured: 1 to 3 MiB for each load below.
 */
const SLACK = 8 * MiB;

let gateway: MemoryProcess;
let agent: Agent;

beforeAll(async () => {
  gateway = await startMemoryProcess({ DOCUMENT_CACHE_MAX_BYTES: String(DOCUMENT_CACHE) });
  agent = loadAgent(8);
});

afterAll(async () => {
  await agent?.close();
  await gateway?.stop();
});

/** What the gateway says its document cache holds (estimated bytes); 0 when it does not say. */
async function documentCacheBytes(): Promise<number> {
  return gateway.metric('gateway_document_cache_bytes').catch(() => 0);
}

/** Sends the operation; anything but data (or, for an unknown tenant, NOT_FOUND) fails the test. */
async function answered(body: unknown): Promise<void> {
  const result = await post(agent, gateway.url, body);
  const unexpected = result.errors?.filter((e) => e.extensions?.code !== 'NOT_FOUND');
  if (unexpected?.length) throw new Error(`unexpected errors: ${JSON.stringify(unexpected)}`);
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

describe('memory stays bounded', () => {
  it('distinct documents (the same query made distinct by an alias): the heap grows by no more than the document cache still allows', async () => {
    await run(0, 200, (i) => answered(distinctDocument(i)));
    const before = await gateway.heap();
    const cached = await documentCacheBytes();
    await run(200, 900, (i) => answered(distinctDocument(i)));
    const after = await gateway.heap();
    const allowed = Math.max(0, DOCUMENT_CACHE - cached) + SLACK;
    expect(
      after.heapUsed - before.heapUsed,
      `heap ${mib(before.heapUsed)} after 200 documents, ${mib(after.heapUsed)} after 900 (the cache held ${mib(cached)} of ${mib(DOCUMENT_CACHE)})`,
    ).toBeLessThan(allowed);
    expect(await documentCacheBytes()).toBeLessThanOrEqual(DOCUMENT_CACHE);
  });

  it('distinct tenants with one document: a few hundred bytes each at most, not a copy of anything per tenant', async () => {
    await run(0, 200, (i) => answered(distinctTenant(i)));
    const before = await gateway.heap();
    await run(200, 1_000, (i) => answered(distinctTenant(i)));
    const after = await gateway.heap();
    expect(after.heapUsed - before.heapUsed, `heap ${mib(before.heapUsed)} after 200 tenants, ${mib(after.heapUsed)} after 1,000`).toBeLessThan(SLACK);
  });

  it('live operations opened and closed over SSE and WebSocket (a connection each): nothing of them stays', async () => {
    const open = (i: number) => (i % 2 === 0 ? liveOverSse(gateway.url) : liveOverWebSocket(gateway.url));
    await run(0, 100, open);
    const before = await gateway.heap();
    await run(100, 500, open);
    // Closed by the clients: the gateway learns it from the sockets, within moments.
    for (let i = 0; i < 50 && (await gateway.metric('gateway_live_operations')) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await gateway.metric('gateway_live_operations')).toBe(0);
    expect(await gateway.metric('gateway_live_pollers')).toBe(0);
    const after = await gateway.heap();
    expect(after.heapUsed - before.heapUsed, `heap ${mib(before.heapUsed)} after 100 live operations, ${mib(after.heapUsed)} after 500`).toBeLessThan(SLACK);
  });
});
