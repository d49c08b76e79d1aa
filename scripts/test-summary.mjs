// Prints "N passed, N failed" from Vitest's JSON report: the line CI counts.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-report.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A suite that failed to load has no failed tests of its own; count it so it cannot pass silently.
const brokenSuites = (report.testResults ?? []).filter((s) => s.status === 'failed' && (s.assertionResults ?? []).length === 0).length;
console.log(`${passed} passed, ${failed + brokenSuites} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed + brokenSuites > 0 || passed === 0 ? 1 : 0);
