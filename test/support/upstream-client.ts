/**
 * A real UpstreamClient over undici's MockAgent (no network: every request must match an
 * interceptor), with settings from loadConfig so the defaults are the product's.
 */
import { MockAgent } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { noAuth } from '../../src/upstream/auth.js';
import { UpstreamClient } from '../../src/upstream/client.js';

export const UPSTREAM = 'http://inventory.test';

/** Agents made since the last check: each test file runs `afterEach(checkMockUpstreams)`. */
const open: MockAgent[] = [];

export function mockUpstream(env: Record<string, string> = {}, base = `${UPSTREAM}/base`) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  open.push(agent);
  const config = loadConfig({ INVENTORY_API_URL: base, INVENTORY_AUTH_MODE: 'none', ...env });
  const client = new UpstreamClient({ baseUrl: base, auth: noAuth, settings: config, logger: createLogger('silent'), dispatcher: agent });
  return { agent, pool: agent.get(UPSTREAM), client, config };
}

/** Every interceptor a test set up was used, and its agents are closed. */
export async function checkMockUpstreams(): Promise<void> {
  const agents = open.splice(0);
  try {
    for (const agent of agents) agent.assertNoPendingInterceptors();
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
}
