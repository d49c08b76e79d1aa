/**
 * Explain: a request with the header `x-explain: 1` is answered, instead of run, with its cost plan
 * (src/schema/cost-plan.ts) in `extensions.explain` and `data: null`, with no upstream call: the
 * estimate admission and the rate-limit claim use (same walk, same settings), where its calls come
 * from, the tenant's windows now (limit, remaining, reset), and whether it would be answered in
 * full, on the cache alone, or refused. The operation is parsed and validated as any other (its
 * errors are answered as usual). Who may ask: explain-access.ts. With introspection off the plan
 * names no schema element the request did not name (schema-exposure.ts).
 */
import type { GraphQLError } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { GatewayConfig } from '../../config.js';
import { gatewayError } from '../../core/errors.js';
import { RATE_CATEGORIES, type RateCategory } from '../../core/routes.js';
import { estimateUpstreamCalls } from '../../schema/cost.js';
import { operationOf } from '../../schema/document-walk.js';
import { planOf, type WindowNow } from '../../schema/cost-plan.js';
import { CostTrace } from '../../schema/cost-trace.js';
import type { RateBudget } from '../../upstream/rate-budget.js';
import { available } from '../../upstream/rate-window.js';
import { mayExplain } from './explain-access.js';
import type { TenantAccess } from '../../identity/access.js';
import { batchPlanOf, costRefusal, costSettingsOf } from './limits.js';
import { withoutUnnamedSchemaNames } from '../edge/schema-exposure.js';

/** The request header that asks for the plan. */
export const EXPLAIN_HEADER = 'x-explain';

type ExplainConfig = Pick<GatewayConfig, 'explain' | 'introspection' | 'maxUpstreamCallsPerOperation' | 'defaultPageSize' | 'maxPageSize' | 'maxAvailabilityWindowDays'>;

/** The windows the estimate spends, as the budget knows them now (read only: nothing is claimed). */
async function windowsNow(budget: RateBudget, tenants: Iterable<string | null>): Promise<Map<string, WindowNow>> {
  const out = new Map<string, WindowNow>();
  for (const tenant of tenants) {
    if (tenant === null) continue;
    for (const category of RATE_CATEGORIES) {
      const window = await budget.window(tenant, category);
      if (!window) continue;
      out.set(`${tenant}\u0000${category}`, {
        limit: window.limit,
        remaining: Math.max(0, available(window)),
        resetAt: window.reset > 0 ? new Date(window.reset * 1000).toISOString() : null,
      });
    }
  }
  return out;
}

/** Before the limits plugin: an explained operation too expensive to run gets its plan, with verdict refused. */
export function explainPlugin(config: ExplainConfig, budget: RateBudget): Plugin {
  const settings = costSettingsOf(config);
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as { request?: Request; params?: GraphQLParams; access?: TenantAccess };
      if (ctx.request?.headers.get(EXPLAIN_HEADER) !== '1') return;
      if (!mayExplain(config, ctx.access)) {
        setResultAndStopExecution({
          errors: [gatewayError('FORBIDDEN', `This gateway does not explain operations to this caller (the ${EXPLAIN_HEADER} header); its operator allows it with EXPLAIN=on, or with sign-in a token holding the explain scope.`, { http: { status: 403 } })],
        });
        return;
      }
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      const trace = new CostTrace();
      const raw = estimateUpstreamCalls(args.document, args.operationName, variables, settings, trace);
      // Tenants the caller may not read: no plan of theirs, no window told.
      const estimate = ctx.access?.grantedOnly(raw) ?? raw;
      if (estimate.problems.length > 0) {
        setResultAndStopExecution({ errors: estimate.problems as GraphQLError[] });
        return;
      }
      const windows = await windowsNow(budget, estimate.byTenant.keys());
      const refusal = costRefusal(estimate, config, budget, batchPlanOf(ctx.request));
      const plan = planOf({
        operationName: operationOf(args.document, args.operationName)?.name?.value ?? null,
        estimate,
        parts: trace.parts.filter((part) => part.tenant === null || (ctx.access?.mayRead(part.tenant) ?? true)),
        categoryOf: budget.categoryOf,
        windowOf: (tenant: string | null, category: RateCategory) => (tenant === null ? null : windows.get(`${tenant}\u0000${category}`) ?? null),
        refusal: refusal?.message ?? null,
      });
      const explain = config.introspection ? plan : withoutUnnamedSchemaNames(plan, args.schema, args.document, args.variableValues);
      setResultAndStopExecution({ data: null, extensions: { explain } });
    },
  };
}
