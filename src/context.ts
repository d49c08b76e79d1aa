/** What every resolver gets: the request's data source (bound to the caller), settings, stats. */
import type { GatewayConfig } from './config.js';
import type { InventoryDataSource } from './datasource/data-source.js';
import type { Logger } from './logger.js';
import type { ObservedOperation } from './observability/plugin.js';
import type { UpstreamSession } from './upstream/client.js';
import type { OperationStats } from './core/operation-stats.js';
import type { UpstreamEstimate } from './core/call-count.js';
import type { Identity, TenantAccess } from './identity/access.js';

export interface GatewayContext {
  config: GatewayConfig;
  /** The one way to the inventory: resolvers and federation references call only this. */
  inventory: InventoryDataSource;
  /** The caller-bound upstream session, for the request's lifecycle (deadline, close); not for resolvers. */
  session: UpstreamSession;
  stats: OperationStats;
  /** Who the operation comes from (core/caller.ts callerKey), digested once per operation: admission and live-query bounds key on it. */
  callerKey: string;
  /** The signed-in caller (src/identity/); null without inbound identity. */
  identity: Identity | null;
  /** What the caller may do to which tenant: the session checks it before the cache and every call. */
  access: TenantAccess;
  logger: Logger;
  /** Upstream calls the operation may make, estimated before execution (set by the limits plugin). */
  estimatedUpstreamCalls?: number;
  /** The same estimate by tenant and route, for the upstream's rate-limit budgets (set by the limits plugin). */
  upstreamEstimate?: UpstreamEstimate;
  /** The operation's span and what the access log and metrics need (src/observability/plugin.ts). */
  observed?: ObservedOperation;
}
