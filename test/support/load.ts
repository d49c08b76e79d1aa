/**
 * Load for tests: concurrent clients in closed loops, each sending its next request as soon as
 * its last one is answered (plus any think time the step itself waits). The load tests differ in
 * what a request is and what they record; how clients loop and when they stop is this one place.
 */

/**
 * `clients` concurrent loops calling `step(client)` while `keepGoing()` holds (checked before
 * each step). Resolves once every loop has stopped and its last step has ended.
 */
export async function clientLoops(clients: number, keepGoing: () => boolean, step: (client: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    while (keepGoing()) await step(client);
  }));
}

/** keepGoing for loops that start new steps for `ms` from now. */
export function forMs(ms: number): () => boolean {
  const end = performance.now() + ms;
  return () => performance.now() < end;
}

/** `count` jobs run by `concurrency` closed-loop clients; the results in job order. */
export async function inPool<T>(count: number, concurrency: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await clientLoops(concurrency, () => next < count, async () => {
    const i = next++;
    results[i] = await job(i);
  });
  return results;
}
