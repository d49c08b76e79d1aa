/**
 * graphql-jit against the executor Yoga uses, on the bench's scenarios, in one process: CPU per
 * execution (upstream calls, parsing and all), the same context as a request's. Evaluation only:
 * run with graphql-jit installed outside the project (it is not a dependency), e.g.
 * `JIT_MODULE=/tmp/jit/node_modules/graphql-jit node --import tsx bench/jit-eval.ts 200`, its `graphql`
 * a link to the project's (one graphql instance).
 */
import { createRequire } from 'node:module';
import { parse } from 'graphql';
import { normalizedExecutor } from '@graphql-tools/executor';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { assembleGateway } from '../src/server/assemble.js';
import { schema } from '../src/schema/index.js';
import { InventoryDataSource } from '../src/datasource/data-source.js';
import { OperationStats } from '../src/core/operation-stats.js';
import { scenarios } from './scenarios.js';
import { startSimulatorProcess } from './simulator-process.js';

const require = createRequire(import.meta.url);
const jit = require(process.env.JIT_MODULE ?? 'graphql-jit') as { compileQuery: (s: unknown, d: unknown) => { query: (root: unknown, ctx: unknown, vars: unknown) => unknown } | { errors: unknown[] } };

const sim = await startSimulatorProcess();
const config = loadConfig({ INVENTORY_API_URL: sim.url, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn', CACHE: 'false', METRICS: 'false', UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION: '16' });
const logger = createLogger('warn');
const { client, close } = await assembleGateway({ config, baseUrl: sim.url, logger });
const page = (await (await fetch(`${sim.url}/api/v2/tenants/client_1/resources/search?pageSize=20&queryString=type:DEVICE`)).json()) as { results: { id: string }[] };
const contextValue = () => {
  const stats = new OperationStats();
  const session = client.session({ authorization: null, stats });
  return { session, value: { config, session, inventory: new InventoryDataSource(session, config, logger, stats), stats, logger } };
};
const N = Number(process.argv[2] ?? 300);
for (const scenario of scenarios(page.results.map((r) => r.id))) {
  const document = parse(scenario.query);
  const compiled = jit.compileQuery(schema, document);
  if (!('query' in compiled)) throw new Error(JSON.stringify(compiled.errors));
  const engines = {
    executor: (ctx: unknown) => normalizedExecutor({ schema, document, contextValue: ctx }),
    jit: (ctx: unknown) => compiled.query(undefined, ctx, {}),
  };
  const n = scenario.name === 'b' ? Math.ceil(N / 10) : N;
  const results: string[] = [];
  for (let round = 0; round < 3; round++) {
    for (const [name, run] of Object.entries(engines)) {
      let cpu = 0;
      for (let i = 0; i < n; i++) {
        const { session, value } = contextValue();
        const before = process.cpuUsage();
        const result = (await run(value)) as { errors?: unknown[] };
        const used = process.cpuUsage(before);
        session.close();
        if (result.errors) throw new Error(`${name}: ${JSON.stringify(result.errors).slice(0, 300)}`);
        cpu += used.user + used.system;
      }
      results.push(`${name} ${(cpu / 1000 / n).toFixed(3)} ms`);
    }
  }
  console.log(`(${scenario.name}) CPU per execution, 3 rounds alternating: ${results.join(', ')}`);
}
await close();
sim.stop();
