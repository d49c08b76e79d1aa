/**
 * Prints the schema: schema/schema.graphql (the API the endpoint serves, printSchema) and
 * schema/subgraph.graphql (the federation SDL with its directives, printSubgraphSchema; without @live, which a router does not serve).
 * With --check, fails when either checked-in file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { schema, subgraphSchema } from '../src/schema/index.js';

const files: [string, string][] = [
  [fileURLToPath(new URL('../schema/schema.graphql', import.meta.url)), `${printSchema(schema)}\n`],
  [fileURLToPath(new URL('../schema/subgraph.graphql', import.meta.url)), `${printSubgraphSchema(subgraphSchema)}\n`],
];

if (process.argv.includes('--check')) {
  const stale = files.filter(([path, printed]) => {
    try {
      return readFileSync(path, 'utf8') !== printed;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    for (const [path] of stale) console.error(`${path} is stale: run \`npm run schema:print\` and commit the result.`);
    process.exit(1);
  }
  console.log('schema/schema.graphql and schema/subgraph.graphql are up to date.');
} else {
  for (const [path, printed] of files) writeFileSync(path, printed);
  console.log(`Wrote ${files.map(([path]) => path).join(', ')}`);
}
