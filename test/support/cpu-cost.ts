/**
 * Each test file's CPU cost, when VITEST_CPU_REPORT names a file (scripts/test-busy.mjs sets it):
 * a line per test file with the CPU-seconds its worker process spent on it (Vitest's forks run one
 * file at a time each) and those of the child processes it started and ended (gateways, nginx,
 * Redis, tsc, Chromium: reaped children count in /proc/self/stat), beside its wall time. A file's
 * wall time says how long it waited; its CPU-seconds what it costs a machine, however fast.
 * Without VITEST_CPU_REPORT it does nothing.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const report = process.env.VITEST_CPU_REPORT;

/** CPU-seconds of this process's children that have ended and been waited for (Linux; 0 elsewhere). */
function endedChildrenCpuS(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3; cutime, cstime are 16, 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

if (report) {
  let start = { self: process.cpuUsage(), children: 0, wall: 0 };
  beforeAll(() => {
    start = { self: process.cpuUsage(), children: endedChildrenCpuS(), wall: performance.now() };
  });
  // Registered first, so it runs after the file's own afterAll hooks (after hooks run in reverse):
  // the processes those end are counted.
  afterAll(() => {
    const self = process.cpuUsage(start.self);
    const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
    const line = {
      file,
      cpuS: Math.round(((self.user + self.system) / 1e6) * 100) / 100,
      childrenCpuS: Math.round((endedChildrenCpuS() - start.children) * 100) / 100,
      wallS: Math.round(performance.now() - start.wall) / 1000,
    };
    appendFileSync(report, `${JSON.stringify(line)}\n`);
  });
}
