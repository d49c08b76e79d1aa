/** `npm start`: settings from the environment; the embedded simulator when INVENTORY_API_URL is unset. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type GatewayConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { startSimulator, type Simulator } from '../simulator/app.js';
import { createUpstreamAuth } from '../upstream/auth.js';
import { createDispatcher, InventoryClient } from '../upstream/client.js';
import { createGateway } from './yoga.js';

const SHUTDOWN_GRACE_MS = 10_000;

let config: GatewayConfig;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Invalid setting: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.logLevel);
logger.addSecret(config.clientSecret);
let simulator: Simulator | null = null;
let baseUrl = config.inventoryApiUrl;
if (baseUrl === null) {
  simulator = await startSimulator({ port: 0 });
  baseUrl = simulator.url;
}
const dispatcher = createDispatcher(config);
const client = new InventoryClient({ baseUrl, auth: createUpstreamAuth(config, baseUrl, dispatcher, logger), settings: config, logger, dispatcher });
const gateway = createGateway({ config, client, logger });
const server = http.createServer({ requestTimeout: config.operationTimeoutMs + 5_000 }, gateway);

server.on('error', (error: NodeJS.ErrnoException) => {
  console.error(error.code === 'EADDRINUSE' ? `Invalid setting: PORT ${config.port} is already in use` : `Server error: ${error.message}`);
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  const upstream = simulator ? `embedded simulator at ${simulator.url}` : baseUrl;
  console.log(`Inventory GraphQL gateway ready at http://localhost:${port}/graphql (upstream: ${upstream}, auth: ${config.authMode})`);
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down: draining in-flight requests', { signal });
  const forced = setTimeout(() => {
    logger.warn('drain timed out; closing remaining connections');
    server.closeAllConnections();
  }, SHUTDOWN_GRACE_MS);
  forced.unref();
  // close() stops accepting and resolves once in-flight requests have finished.
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await client.close();
  await dispatcher.close();
  await simulator?.close();
  clearTimeout(forced);
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
