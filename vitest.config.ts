import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads its CJS entry for dependencies while Vite
    // would pick the .mjs one for our sources, giving two graphql realms. Use one.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
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
    // Four workers on two cores, not Vitest's default of cores - 1 (one here): these files mostly
    // wait on sockets, timers and child processes, so fewer workers left the cores idle.
    maxWorkers: 4,
  },
});
