/**
 * Who may ask the gateway to explain an operation (`x-explain: 1`, src/server/explain.ts): the
 * one decision, made here. EXPLAIN (on unless NODE_ENV=production) allows every caller; a plan
 * says what a query costs and how much of a tenant's minute is left, which a production gateway
 * tells only where its operator allowed it.
 */
import type { GatewayConfig } from '../config.js';

export function mayExplain(config: Pick<GatewayConfig, 'explain'>, _request: Request | undefined): boolean {
  return config.explain;
}
