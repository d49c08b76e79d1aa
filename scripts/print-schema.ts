/** Prints the Pothos schema to schema/schema.graphql; with --check, fails when the checked-in file is stale. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from '../src/schema/index.js';

const target = fileURLToPath(new URL('../schema/schema.graphql', import.meta.url));
const printed = `${printSchema(schema)}\n`;

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== printed) {
    console.error('schema/schema.graphql is stale: run `npm run schema:print` and commit the result.');
    process.exit(1);
  }
  console.log('schema/schema.graphql is up to date.');
} else {
  writeFileSync(target, printed);
  console.log(`Wrote ${target}`);
}
