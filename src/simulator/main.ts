/** `npm run simulator`: the inventory simulator on its own, configured from the environment. */
import { rateLimitFromEnv, startSimulator, type RateLimitPatch, type SimClient } from './app.js';
import { SimError } from './query.js';

const number = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`Invalid ${name}: expected a non-negative number, got '${raw}'`);
    process.exit(1);
  }
  return value;
};

/** SIMULATOR_CLIENTS: more OAuth2 clients as JSON, e.g. [{"clientId":"a","clientSecret":"...","tenants":["client_1"]}]. */
const clients = (() => {
  const raw = process.env.SIMULATOR_CLIENTS;
  if (raw === undefined || raw === '') return undefined;
  try {
    return JSON.parse(raw) as SimClient[];
  } catch {
    console.error(`Invalid SIMULATOR_CLIENTS: expected a JSON list of { clientId, clientSecret, tenants? }, got '${raw.slice(0, 80)}'`);
    process.exit(1);
  }
})();

/** SIMULATOR_RATE_LIMIT, SIMULATOR_RATE_LIMITS, SIMULATOR_RATE_WINDOW_S, SIMULATOR_MINIMAL_CATEGORY (settings.ts). */
const rateLimit = ((): RateLimitPatch => {
  try {
    return rateLimitFromEnv(process.env);
  } catch (error) {
    console.error(`Invalid setting: ${(error as Error).message}`);
    process.exit(1);
  }
})();

const simulator = await startSimulator({
  port: number('SIMULATOR_PORT', 4010),
  host: process.env.SIMULATOR_HOST ?? '127.0.0.1',
  seed: number('SIMULATOR_SEED', 20261122),
  size: number('SIMULATOR_SIZE', 500),
  latencyMs: number('SIMULATOR_LATENCY_MS', 0),
  jitterMs: number('SIMULATOR_JITTER_MS', 0),
  failureRate: number('SIMULATOR_FAILURE_RATE', 0),
  auth: {
    enabled: process.env.SIMULATOR_AUTH === 'on',
    clientId: process.env.SIMULATOR_CLIENT_ID ?? 'sim-client',
    clientSecret: process.env.SIMULATOR_CLIENT_SECRET ?? 'sim-secret',
    tokenTtlSeconds: number('SIMULATOR_TOKEN_TTL_SECONDS', 3600),
    expiresInAsString: false,
    ...(clients ? { clients } : {}),
  },
  rateLimit,
}).catch((error: unknown) => {
  if (!(error instanceof SimError)) throw error;
  console.error(`Invalid SIMULATOR_CLIENTS: ${error.message}`);
  process.exit(1);
});
console.log(`Inventory simulator listening on ${simulator.url} (tenants: client_1, client_2, client_3; stats at ${simulator.url}/__sim/stats)`);

const stop = () => void simulator.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
