/**
 * The members of the GraphQL context (src/context.ts) made for each execution of an operation: its upstream session (deadline, call budget,
 * the client's signal), its statistics and its data source (loaders). Built per request by Yoga's
 * context factory (src/server/yoga.ts), and afresh for each re-run of a live query
 * (src/server/live/live-query.ts): a data source's loaders hold the answers of its own run.
 */
import type { GatewayConfig } from '../config.js';
import { OperationStats } from '../core/operation-stats.js';
import { InventoryDataSource } from '../datasource/data-source.js';
import type { Logger } from '../logger.js';
import type { UpstreamClient, UpstreamSession } from '../upstream/client.js';
import type { SessionOptions } from '../upstream/session.js';
import { budgetCaller } from '../core/caller.js';
import type { TenantAccess } from '../identity/access.js';

export interface OperationContext {
  session: UpstreamSession;
  stats: OperationStats;
  inventory: InventoryDataSource;
  callerKey: string;
}

export function operationContext(
  { client, config, logger }: { client: UpstreamClient; config: GatewayConfig; logger: Logger },
  options: Omit<SessionOptions, 'stats' | 'caller' | 'access'> & { callerKey: string; access: TenantAccess },
  stats = new OperationStats(),
): OperationContext {
  const { callerKey, ...sessionOptions } = options;
  const caller = budgetCaller(callerKey, config.cache?.scopeSecret ?? 'inventory-gateway');
  const session = client.session({ ...sessionOptions, caller, stats });
  return { session, stats, inventory: new InventoryDataSource(session, config, logger, stats), callerKey };
}
