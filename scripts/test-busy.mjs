// `npm run test:busy`: the whole suite three times in a row while two busy-looping processes keep
// both cores of a 2-core machine occupied (issue 32: the suite must not depend on the machine's
// mood). Prints each run's outcome, time and load average; exits 1 when any run failed.
// BUSY_RUNS and BUSY_LOOPS change the counts; each run writes .vitest-report-busy-N.json.
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

const runs = Number(process.env.BUSY_RUNS ?? 3);
const loops = Number(process.env.BUSY_LOOPS ?? 2);
const busy = Array.from({ length: loops }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
// The busy loops end with this script, however it ends.
process.on('exit', () => { for (const child of busy) child.kill('SIGKILL'); });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const results = [];
for (let run = 1; run <= runs; run++) {
  const started = performance.now();
  const outcome = spawnSync('npx', ['vitest', 'run'], { stdio: 'inherit', env: { ...process.env, VITEST_REPORT: `.vitest-report-busy-${run}.json` } });
  const line = `run ${run}/${runs}: ${outcome.status === 0 ? 'passed' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`;
  results.push({ ok: outcome.status === 0, line });
  console.log(`\n${line}\n`);
}
console.log(`beside ${loops} busy loops:\n${results.map((r) => `  ${r.line}`).join('\n')}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
