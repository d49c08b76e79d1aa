import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const require = createRequire(import.meta.url);

/** Test support modules that start operating-system processes (gateways, memory-measured gateways, nginx, Redis, Prometheus, Chromium). */
const STARTS_PROCESSES = /from '\.\.\/support\/(gateway-process|child-process|memory-process|replica-fleet|redis-server|nginx|chromium)\.js'/;
/** A test or hook given a timeout of its own (`}, 60_000)`): its author expects it to take long. */
const OWN_TIMEOUT = /\}, \d{2,3}_000\)/;

/**
 * Long files first, known from the files themselves: those that start processes or give a test a
 * timeout of its own; then Vitest's own order (longest first once it has timings, by size on a
 * fresh clone). Such files spend seconds waiting on starts and real time while using little CPU:
 * started last (by size they are small), one of them alone made a fresh clone's suite 8-10 s
 * longer. A rule read from the files, not a list kept by hand.
 */
class LongFilesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = new Set(sorted.filter((spec) => {
      const source = readFileSync(spec.moduleId, 'utf8');
      return STARTS_PROCESSES.test(source) || OWN_TIMEOUT.test(source);
    }));
    return [...sorted.filter((spec) => long.has(spec)), ...sorted.filter((spec) => !long.has(spec))];
  }
}

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads its CJS entry for dependencies while Vite
    // would pick the .mjs one for our sources, giving two graphql realms. Use one.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    sequence: { sequencer: LongFilesFirstSequencer },
    // Process starts (tsx, npm, nginx, Redis) and waits on real servers take several times longer
    // on a loaded machine (two busy cores beside the suite): the timeouts hold there too.
    testTimeout: 60_000,
    // One module graph per worker, not per file: evaluating the gateway's imports (Yoga, Pothos,
    // OpenTelemetry) again for every file cost about 1-2 s each. The files share no module state
    // that matters: each builds its own stacks, restores its spies and closes what it starts.
    isolate: false,
    hookTimeout: 60_000,
    // The JSON report feeds the "N passed, N failed" line that CI counts (VITEST_REPORT: the
    // Node 24 run writes its own).
    reporters: ['default', ['json', { outputFile: process.env.VITEST_REPORT ?? '.vitest-report.json' }]],
    include: ['test/**/*.test.ts'],
    // With VITEST_CPU_REPORT set (scripts/test-busy.mjs), a line per file with its CPU-seconds.
    setupFiles: ['test/support/cpu-cost.ts'],
    // Four workers on two cores, not Vitest's default of cores - 1 (one here): these files mostly
    // wait on sockets, timers and child processes, so fewer workers left the cores idle.
    maxWorkers: 4,
  },
});
