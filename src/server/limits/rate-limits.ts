/**
 * Whole answers within the upstream's rate limits. Before an operation runs, its estimated calls
 * per tenant and category are claimed of the tenants' windows (src/upstream/rate-budget.ts), all
 * or none. When the windows cannot cover them, the operation runs on the cache alone: answered
 * when every read it needs is there, fresh or stale (flagged `rate-limited` in extensions.stale),
 * else refused as a whole, with no upstream call spent on it. An answer never carries a page of
 * per-field RATE_LIMITED errors: a result with any is replaced by one error that says when the
 * window resets (HTTP 429 with Retry-After for a single operation).
 */
import type { GraphQLError } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../context.js';
import { callsByWindow, type UpstreamEstimate } from '../../core/call-count.js';
import { gatewayError } from '../../core/errors.js';
import type { Logger } from '../../logger.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { ClaimAs, Claimed, RateBudget, Want } from '../../upstream/rate-budget.js';
import { rateLimited } from '../../upstream/errors.js';
import { clientSignalOf } from '../edge/client-signal.js';
import { batchPlanOf, overWindowError, paramsKey, type BatchPlan } from './limits.js';
import { operationOf } from '../../schema/document-walk.js';

type RequestContext = GatewayContext & { request?: Request; params?: GraphQLParams; liveOperation?: boolean };

/** A batched request's claim: made once for all its operations; each takes its part, the rest goes back when the response is made. */
interface BatchClaim {
  outcome: Promise<Claimed>;
  as: ClaimAs;
  /** Each operation's wants; `picked`: an operation of the request took this part; `used`: its claims were added. */
  parts: { key: string; wants: Want[]; picked: boolean; used: boolean }[];
}

/** How often a claim blocked only by other operations' pending calls is tried again while it waits. */
const CLAIM_RETRY_MS = 25;
/** The pause between tries grows to this (each try is a Redis script with REDIS_URL). */
const CLAIM_RETRY_MAX_MS = 200;

/** The estimate's calls per tenant and budgeted category (tenants known before execution only). */
export function wantsOf(estimate: UpstreamEstimate, budget: RateBudget): Want[] {
  return callsByWindow(estimate, budget.categoryOf).filter((w): w is Want => w.tenant !== null && budget.tracks(w.category));
}

/**
 * Claims the wants; while only calls other operations reserved and have not settled stand in the
 * way (the window itself has room), waits for them up to waitMs.
 */
async function claimWithin(budget: RateBudget, wants: Want[], as: ClaimAs, waitMs: number, signal: AbortSignal | undefined) {
  const until = Date.now() + waitMs;
  for (let pause = CLAIM_RETRY_MS; ; pause = Math.min(CLAIM_RETRY_MAX_MS, pause * 2)) {
    const outcome = await budget.claim(wants, as);
    // Refused by the caller's share, or by the upstream's own figure: waiting would not help.
    if (outcome.ok || outcome.byShare || outcome.window.remaining < outcome.short.n || Date.now() + pause > until || signal?.aborted) return outcome;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** One RATE_LIMITED error for a whole operation: when to come back, and HTTP 429 with Retry-After. */
function operationRateLimited(retryAfter: number, resetAt: string | undefined, detail: string, upstreamStatus?: number): GraphQLError {
  return gatewayError('RATE_LIMITED', `${detail} Retry after ${retryAfter} s.`, {
    retryAfter,
    ...(resetAt ? { resetAt } : {}),
    ...(upstreamStatus ? { upstreamStatus } : {}),
    http: { status: 429, headers: { 'retry-after': String(retryAfter) } },
  });
}

/** A result's RATE_LIMITED errors as one for the whole operation, or null when it has none. */
export function oneRateLimitRefusal(errors: readonly GraphQLError[] | undefined): GraphQLError | null {
  const limited = errors?.filter((e) => e.extensions?.code === 'RATE_LIMITED') ?? [];
  if (limited.length === 0) return null;
  const retryAfter = Math.max(...limited.map((e) => Number(e.extensions.retryAfter) || 1));
  const resetAt = limited.map((e) => e.extensions.resetAt).filter((v): v is string => typeof v === 'string').sort().at(-1);
  // The upstream's own 429 (another client spent the window) says so, as every upstream error does.
  const upstreamStatus = limited.some((e) => e.extensions.upstreamStatus === 429) ? 429 : undefined;
  return operationRateLimited(retryAfter, resetAt, 'The inventory API\'s rate limit for this tenant is spent and the cache cannot answer the operation.', upstreamStatus);
}

export function rateLimitPlugin(budget: RateBudget, waitMs: number, logger: Logger, metrics: GatewayMetrics | null): Plugin {
  const batchClaims = new WeakMap<BatchPlan, BatchClaim>();
  /** The batch's claim, made by its first operation to run. */
  const batchClaimOf = (batch: BatchPlan, ctx: RequestContext): BatchClaim => {
    let claim = batchClaims.get(batch);
    if (!claim) {
      const parts = batch.parts.map(({ key, estimate }) => ({ key, wants: wantsOf(estimate, budget), picked: false, used: false }));
      const all = parts.flatMap((p) => p.wants);
      const as = ctx.session.claimAs(all.map((w) => w.tenant));
      claim = { outcome: claimWithin(budget, all, as, waitMs, ctx.request ? clientSignalOf(ctx.request) : undefined), as, parts };
      batchClaims.set(batch, claim);
    }
    return claim;
  };
  return {
    onResponse({ request }) {
      const batch = batchPlanOf(request);
      const claim = batch && batchClaims.get(batch);
      if (!claim) return;
      void claim.outcome.then((outcome) => {
        if (!outcome.ok) return;
        for (const part of claim.parts) {
          if (part.used) continue;
          for (const want of part.wants) budget.refund(want.tenant, { category: want.category, shared: outcome.shared, caller: claim.as.caller }, want.n);
        }
      });
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as unknown as RequestContext;
      if (!budget.settings || ctx.liveOperation) return undefined;
      const batch = batchPlanOf(ctx.request);
      const inBatch = batch && ctx.params ? batchClaimOf(batch, ctx) : null;
      // This operation's part of the batch, taken at once (two alike operations take one part each).
      const key = ctx.params ? paramsKey(ctx.params) : '';
      const part = inBatch?.parts.find((p) => !p.picked && p.key === key);
      if (part) part.picked = true;
      const wants = part ? part.wants : ctx.upstreamEstimate ? wantsOf(ctx.upstreamEstimate, budget) : [];
      let cacheOnly = false;
      if (wants.length > 0) {
        const as = part ? inBatch!.as : ctx.session.claimAs(wants.map((w) => w.tenant));
        // A batch is judged as a whole: its operations run on its one claim, or all on the cache alone.
        const outcome = part ? await inBatch!.outcome : await claimWithin(budget, wants, as, waitMs, ctx.request ? clientSignalOf(ctx.request) : undefined);
        if (part && outcome.ok) part.used = true;
        if (outcome.ok) {
          ctx.session.addClaims(wants, outcome.shared);
        } else if (outcome.short.n > outcome.window.limit) {
          const { short, window } = outcome;
          // The upstream's own limit (learned from its headers) can be below UPSTREAM_RATE_LIMITS.
          setResultAndStopExecution({ errors: [overWindowError('operation', short.n, short.category, window.limit, short.tenant)] });
          return undefined;
        } else {
          const { short, window } = outcome;
          const reset = budget.resetOf(window);
          logger.debug('rate limit: answering from the cache only', { tenant: short.tenant, category: short.category, wanted: short.n, available: window.remaining - window.pending });
          const whose = outcome.byShare ? `this caller's share of tenant ${short.tenant}'s budget of ${short.category} calls (other callers of the tenant are waiting)` : `the inventory API's budget of ${short.category} calls for tenant ${short.tenant}`;
          ctx.session.answerFromCacheOnly(() => rateLimited(`${whose[0]!.toUpperCase()}${whose.slice(1)} cannot cover the operation`, reset));
          cacheOnly = true;
        }
      }
      // A mutation whose update went through must say so: its errors are not merged into one refusal.
      const mutation = operationOf(args.document, args.operationName)?.operation === 'mutation';
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in Object(result) || mutation) return;
          const single = result as { data?: unknown; errors?: readonly GraphQLError[]; extensions?: Record<string, unknown> };
          const refusal = oneRateLimitRefusal(single.errors);
          if (refusal) {
            metrics?.rateLimitedOperation('refused');
            setResult({ errors: [refusal] } as never);
          } else if (cacheOnly) {
            metrics?.rateLimitedOperation('cached');
          }
        },
      };
    },
  };
}
