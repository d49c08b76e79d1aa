/**
 * npm run schema:diff [-- --base=REF] [--report-only]
 * Compares schema/schema.graphql at REF (default HEAD~1, the previous commit) with the schema the
 * code builds now, and lists breaking, dangerous and safe changes. Exits 1 on a breaking change
 * unless --report-only.
 */
import { execFileSync } from 'node:child_process';
import { printSchema } from 'graphql';
import { schema } from '../src/schema/index.js';
import { compareSchemas } from '../src/tools/schema-diff.js';

const base = process.argv.find((a) => a.startsWith('--base='))?.slice('--base='.length) ?? 'HEAD~1';
const reportOnly = process.argv.includes('--report-only');

let previous: string;
try {
  previous = execFileSync('git', ['show', `${base}:schema/schema.graphql`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
} catch {
  console.log(`schema:diff: no schema/schema.graphql at ${base}; nothing to compare.`);
  process.exit(0);
}

const report = await compareSchemas(previous, printSchema(schema));
const show = (title: string, changes: { message: string; path?: string }[]) => {
  if (changes.length === 0) return;
  console.log(`${title} (${changes.length}):`);
  for (const change of changes) console.log(`  - ${change.message}`);
};
console.log(`schema:diff against ${base}: ${report.breaking.length} breaking, ${report.dangerous.length} dangerous, ${report.safe.length} safe change(s).`);
show('Breaking', report.breaking);
show('Dangerous', report.dangerous);
show('Safe', report.safe);
if (report.breaking.length > 0 && !reportOnly) process.exit(1);
