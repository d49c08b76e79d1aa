/**
 * Heap figures of a gateway process for its parent, over the child's IPC channel only (nothing of
 * it is reachable over HTTP): preloaded by memory-process.ts into `node --expose-gc --import
 * ./test/support/heap-probe.mjs src/server/main.ts` (under tsx) or `dist/server/main.js` (the
 * build), for the memory test and `npm run bench:memory`. The gateway is main.ts as production
 * runs it; this module only listens. Plain JavaScript, so that the build can preload it too.
 *
 * - `{ id, cmd: 'heap' }`: full collections until the heap stops shrinking, then
 *   `{ id, heapUsed, rss, external, arrayBuffers }` (bytes).
 * - `{ id, cmd: 'rss' }`: `{ id, rss }` without collecting (what the orchestrator sees).
 * - `{ id, cmd: 'snapshot', path }`: after the same collections, a heap snapshot written to `path`
 *   (`{ id, path }`): what to diff when a bound is exceeded.
 */
import { setImmediate } from 'node:timers';
import v8 from 'node:v8';

const { gc } = globalThis;
if (typeof gc !== 'function' || !process.send) throw new Error('heap-probe needs node --expose-gc and an IPC channel');

/** Full collections until the heap stops shrinking (weak maps and finalizers settle across a few). */
async function collected() {
  let last = Infinity;
  for (let i = 0; i < 10; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.memoryUsage().heapUsed;
    if (used > last - 256 * 1024) break;
    last = used;
  }
  return process.memoryUsage();
}

process.on('message', (/** @type {{ id: number; cmd: string; path?: string }} */ message) => {
  void (async () => {
    if (message.cmd === 'heap') {
      const { heapUsed, rss, external, arrayBuffers } = await collected();
      process.send({ id: message.id, heapUsed, rss, external, arrayBuffers });
    } else if (message.cmd === 'rss') {
      process.send({ id: message.id, rss: process.memoryUsage.rss() });
    } else if (message.cmd === 'usage') {
      process.send({ id: message.id, ...process.memoryUsage(), spaces: v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]) });
    } else if (message.cmd === 'snapshot') {
      await collected();
      process.send({ id: message.id, path: v8.writeHeapSnapshot(message.path) });
    }
  })();
});
// The IPC channel must not keep a gateway that was told to stop (SIGTERM) alive.
process.channel?.unref();
