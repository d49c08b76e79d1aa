// The suite as a slower or busier machine sees it (issues 32 and 41: its verdict must not depend
// on how fast or busy the machine is). Runs it BUSY_RUNS times in a row (3) and prints each run's
// outcome, wall time, CPU-seconds and load average, then the files that cost the most; exits 1
// when any run failed.
//
//   npm run test:busy              both cores of a 2-core machine, beside two busy loops
//                                  (`node -e 'for(;;){}'`): a machine busy with other work
//   npm run test:slow              pinned to one core (taskset -c 0): a 2-core machine half as fast
//   BUSY_LOOPS=1 npm run test:slow one core shared with one busy loop: half as fast again
//
// BUSY_RUNS and BUSY_LOOPS change the counts (test:slow has no busy loop unless BUSY_LOOPS says);
// arguments after `--` go to `vitest run` (files, -t). Each run writes .vitest-report-busy-N.json
// (Vitest's JSON report) and .vitest-cpu-busy-N.jsonl (each file's CPU-seconds, test/support/cpu-cost.ts).
//
// CPU-seconds: user + system time of the run's whole process tree (Vitest, its workers, and the
// gateways, nginx, Redis, tsc and Chromium the tests start), read from this process's ended
// children (/proc/self/stat; Linux). Wall time varies with the machine; CPU-seconds much less.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

const oneCore = process.argv.includes('--one-core');
const vitestArgs = process.argv.slice(2).filter((a) => a !== '--one-core' && a !== '--');
const runs = Number(process.env.BUSY_RUNS ?? 3);
const loops = Number(process.env.BUSY_LOOPS ?? (oneCore ? 0 : 2));
/** Pinned to CPU 0 with taskset (util-linux): the suite, and the busy loops beside it, on one core. */
const pinned = (command, args) => (oneCore ? ['taskset', ['-c', '0', command, ...args]] : [command, args]);
if (oneCore && spawnSync('taskset', ['-c', '0', 'true']).status !== 0) {
  console.error('test:slow needs taskset (util-linux) and a CPU 0 to pin to');
  process.exit(1);
}

const busy = Array.from({ length: loops }, () => spawn(...pinned(process.execPath, ['-e', 'for(;;){}']), { stdio: 'ignore' }));
// The busy loops end with this script, however it ends.
process.on('exit', () => { for (const child of busy) child.kill('SIGKILL'); });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** CPU-seconds of this process's ended children (the busy loops run on: not counted until they end). */
function endedChildrenCpuS() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const situation = `${oneCore ? 'one core (taskset -c 0)' : 'all cores'}${loops ? `, beside ${loops} busy loop${loops > 1 ? 's' : ''}` : ''}`;
const results = [];
for (let run = 1; run <= runs; run++) {
  const report = `.vitest-report-busy-${run}.json`;
  const cpuReport = `.vitest-cpu-busy-${run}.jsonl`;
  rmSync(cpuReport, { force: true });
  const loadBefore = load();
  const started = performance.now();
  const cpuBefore = endedChildrenCpuS();
  const outcome = spawnSync(...pinned('npx', ['vitest', 'run', ...vitestArgs]), { stdio: 'inherit', env: { ...process.env, VITEST_REPORT: report, VITEST_CPU_REPORT: cpuReport } });
  const wallS = (performance.now() - started) / 1000;
  const cpuS = endedChildrenCpuS() - cpuBefore;
  let counts = '';
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    counts = `${json.numPassedTests} passed, ${json.numFailedTests} failed, `;
  } catch { /* no report: the outcome says it */ }
  const line = `run ${run}/${runs}: ${outcome.status === 0 ? 'passed' : 'FAILED'} (${counts}${wallS.toFixed(1)} s wall, ${cpuS.toFixed(0)} CPU-seconds), load average ${loadBefore} before, ${load()} after`;
  results.push({ ok: outcome.status === 0, line, report, cpuReport });
  console.log(`\n${line}\n`);
}

/** The files that cost the most in the last run: by CPU-seconds (cpu-cost.ts) and by wall time (Vitest's report). */
function costliest(last) {
  const out = [];
  if (existsSync(last.cpuReport)) {
    const files = readFileSync(last.cpuReport, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const total = files.reduce((s, f) => s + f.cpuS + f.childrenCpuS, 0);
    out.push(`CPU-seconds in the test files: ${total.toFixed(0)} (the rest: Vitest itself, collecting and transforming); the costliest:`);
    for (const f of files.sort((a, b) => b.cpuS + b.childrenCpuS - (a.cpuS + a.childrenCpuS)).slice(0, 8)) {
      out.push(`  ${(f.cpuS + f.childrenCpuS).toFixed(1).padStart(6)} CPU-s${f.childrenCpuS >= 0.5 ? ` (${f.childrenCpuS.toFixed(1)} in child processes)` : ''}, ${f.wallS.toFixed(1)} s wall  ${f.file}`);
    }
  }
  try {
    const json = JSON.parse(readFileSync(last.report, 'utf8'));
    const files = (json.testResults ?? []).map((t) => ({ file: t.name.replace(`${process.cwd()}/`, ''), s: (t.endTime - t.startTime) / 1000 }));
    out.push('the longest in wall time:');
    for (const f of files.sort((a, b) => b.s - a.s).slice(0, 5)) out.push(`  ${f.s.toFixed(1).padStart(6)} s  ${f.file}`);
  } catch { /* no report */ }
  return out.join('\n');
}

console.log(`${situation}:\n${results.map((r) => `  ${r.line}`).join('\n')}`);
if (results.length > 0) console.log(`\nrun ${results.length}: ${costliest(results.at(-1))}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
