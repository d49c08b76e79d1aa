import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report feeds the "N passed, N failed" line that CI counts.
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
  },
});
