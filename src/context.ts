/** What every resolver gets: the caller-bound upstream session, fresh loaders, settings, stats. */
import type { GatewayConfig } from './config.js';
import type { Loaders } from './loaders/index.js';
import type { Logger } from './logger.js';
import type { InventorySession } from './upstream/client.js';
import type { OperationStats } from './upstream/stats.js';

export interface GatewayContext {
  config: GatewayConfig;
  session: InventorySession;
  loaders: Loaders;
  stats: OperationStats;
  logger: Logger;
  /** Upstream calls the operation may make, estimated before execution (set by the limits plugin). */
  estimatedUpstreamCalls?: number;
}
