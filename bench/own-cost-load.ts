/** What the own-cost benches (own-cost.ts, ab.ts) measure with: a process's CPU, and clients posting one query. */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';

/** Linux's clock ticks per second for /proc/<pid>/stat (getconf CLK_TCK). */
const CLK_TCK = 100;

/** CPU milliseconds a process has used (user + system), from /proc. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

export interface Run { requests: number; seconds: number; p50: number; errors: number }

/** `connections` clients, each posting the query again as soon as its answer is read, for `seconds`; an answer with errors counts in `errors`. */
export async function drive(pool: Pool, path: string, query: string, seconds: number, connections: number): Promise<Run> {
  const body = JSON.stringify({ query });
  const started = performance.now();
  const end = started + seconds * 1000;
  const times: number[] = [];
  let errors = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text.startsWith('{"errors"') || text.includes('"errors":[')) errors++;
      times.push(performance.now() - t);
    }
  }));
  times.sort((x, y) => x - y);
  return { requests: times.length, seconds: (performance.now() - started) / 1000, p50: times[Math.floor(times.length / 2)] ?? NaN, errors };
}
