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
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report feeds the "N passed, N failed" line that CI counts.
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
  },
});
