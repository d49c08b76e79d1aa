/**
 * Who may ask the gateway to explain an operation (`x-explain: 1`, src/server/limits/explain.ts): the
 * one decision, made here. EXPLAIN (on unless NODE_ENV=production) allows every caller; with
 * sign-in, a caller whose token holds AUTH_EXPLAIN_SCOPE may too. A plan says what a query costs
 * and how much of a tenant's minute is left, which a production gateway tells only where its
 * operator allowed it (and only of tenants the caller may read: explain.ts drops the others).
 */
import type { GatewayConfig } from '../../config.js';
import type { TenantAccess } from '../../identity/access.js';

export function mayExplain(config: Pick<GatewayConfig, 'explain'>, access: TenantAccess | undefined): boolean {
  return config.explain || (access?.mayExplain() ?? false);
}
