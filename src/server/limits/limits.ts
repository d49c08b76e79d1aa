/**
 * Operation limits, all checked before any resolver runs: tokens (at parse), depth, aliases and
 * fragment expansions (validation, in time linear in the document: see document-walk.ts), and
 * the estimated upstream calls (before execution, with the variables; a batched request's operations
 * also together, against the same limit).
 * Each refusal is OPERATION_TOO_EXPENSIVE with the estimate and the limit.
 */
import {
  GraphQLError, NoSchemaIntrospectionCustomRule, parse, type DocumentNode, type SelectionSetNode, type ValidationContext,
} from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { GatewayConfig } from '../../config.js';
import type { GatewayContext } from '../../context.js';
import { estimateUpstreamCalls, type CostSettings, type UpstreamEstimate } from '../../schema/cost.js';
import { ASSUMED_SIZES } from '../../schema/field-costs.js';
import { callsByWindow } from '../../core/call-count.js';
import type { RateCategory, RouteName } from '../../core/routes.js';
import { documentWalk, operationOf } from '../../schema/document-walk.js';
import { refusal } from '../edge/content-encoding.js';
import { trustedDocumentOf } from '../edge/trusted-documents.js';


export function tooExpensive(kind: 'tokens' | 'depth' | 'aliases' | 'fragmentExpansions' | 'upstreamCalls' | 'bodyBytes', estimate: number, limit: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'OPERATION_TOO_EXPENSIVE', limitKind: kind, estimate, limit } });
}

/**
 * An operation (or a batch) that would need more calls of one category for one tenant than the
 * upstream allows in a whole window: no wait can let it through.
 */
export function overWindowError(subject: 'operation' | 'batch', calls: number, category: RateCategory, limit: number, tenant?: string): GraphQLError {
  const error = tooExpensive('upstreamCalls', calls, limit, `The ${subject} could make about ${calls} ${category} upstream calls for ${tenant ? `tenant ${tenant}` : 'one tenant'}; the inventory API allows ${limit} a window. Ask for fewer items or fewer nested fields.`);
  error.extensions.category = category;
  return error;
}

/** Adds a code to an error that has none (errors raised by graphql-js itself). */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return error.extensions.code ? error : recode(error, code);
}

function recode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/** Refusals at the HTTP layer (CSRF, batching, media types) get a code from their status. */
export function httpErrorCodesPlugin(): Plugin {
  const byStatus: Record<number, string> = { 400: 'BAD_USER_INPUT', 403: 'FORBIDDEN', 405: 'BAD_USER_INPUT', 406: 'BAD_USER_INPUT', 413: 'OPERATION_TOO_EXPENSIVE', 415: 'BAD_USER_INPUT' };
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || Symbol.asyncIterator in Object(result)) return;
      const single = result as { errors?: readonly GraphQLError[] };
      if (!single.errors?.some((e) => !e.extensions?.code || e.extensions.code === 'BAD_REQUEST')) return;
      setResult({
        ...(result as object),
        errors: single.errors.map((e) => {
          if (!(e instanceof GraphQLError)) return e;
          // Yoga's own request errors say BAD_REQUEST; the contract's codes are more specific.
          if (e.extensions.code === 'BAD_REQUEST') return recode(e, /batching is limited/i.test(e.message) ? 'OPERATION_TOO_EXPENSIVE' : 'BAD_USER_INPUT');
          const status = (e.extensions?.http as { status?: number } | undefined)?.status;
          return status && byStatus[status] ? withCode(e, byStatus[status]) : e;
        }),
      } as never);
    },
  };
}

function shapeRule(config: GatewayConfig) {
  return (context: ValidationContext) => ({
    OperationDefinition(node: { selectionSet: SelectionSetNode }) {
      const { depth, aliases, expansions } = documentWalk(context.getDocument()).shape(node.selectionSet);
      const { maxDepth, maxAliases, maxFragmentExpansions } = config.limits;
      if (expansions > maxFragmentExpansions) {
        context.reportError(tooExpensive('fragmentExpansions', expansions, maxFragmentExpansions, `The operation expands fragments ${expansions} times; the limit is ${maxFragmentExpansions}.`));
      }
      if (depth > maxDepth) context.reportError(tooExpensive('depth', depth, maxDepth, `The operation is nested ${depth} levels deep; the limit is ${maxDepth}.`));
      if (aliases > maxAliases) context.reportError(tooExpensive('aliases', aliases, maxAliases, `The operation uses ${aliases} aliases; the limit is ${maxAliases}.`));
    },
  });
}

/** Whether the operation that runs declares variables (validation refuses a use of an undeclared one). */
function hasVariables(document: DocumentNode, operationName: string | null | undefined): boolean {
  return (operationOf(document, operationName)?.variableDefinitions?.length ?? 0) > 0;
}

type ExecuteHooks = Exclude<Awaited<ReturnType<NonNullable<Plugin['onExecute']>>>, void>;

/**
 * A batched HTTP request's operations, estimated together when the request is read: the
 * upstream-call limit and the rate-limit budgets judge the request as a whole.
 */
export interface BatchPlan {
  /** Upstream calls of all the operations. */
  total: number;
  /**
   * Each operation's estimate, with the key of its parameters (Yoga's context carries them; a
   * persisted-operations plugin replaces the object, so they are matched by what they ask).
   */
  parts: { key: string; estimate: UpstreamEstimate }[];
}

/** What an operation of a batch asks: its name, document and variables. */
export function paramsKey(params: GraphQLParams): string {
  return `${params.operationName ?? ''}\u0000${params.query ?? ''}\u0000${JSON.stringify(params.variables ?? {})}`;
}

const batchPlans = new WeakMap<Request, BatchPlan>();

/** The plan of a batched request (two operations or more), when it is one. */
export function batchPlanOf(request: Request | undefined): BatchPlan | undefined {
  return request ? batchPlans.get(request) : undefined;
}

/** What the limits read of the upstream's rate limits (src/upstream/rate-budget.ts). */
export interface WindowLimits {
  /** Each route's category (the undocumented one as the budget learned it). */
  categoryOf(route: RouteName): RateCategory;
  /** A window's limit of the category as the upstream said it; null: not budgeted. */
  windowLimit(category: RateCategory): number | null;
}

/**
 * The first tenant and budgeted category whose estimated calls exceed what one window of the
 * upstream allows (its headers' limit, UPSTREAM_RATE_LIMITS until then): such an operation can
 * never be answered, so it is refused before admission. The undocumented category (the minimal
 * listing) is counted where the budget learned it.
 */
function overWindow(estimates: Iterable<UpstreamEstimate>, windows: WindowLimits) {
  const sums = new Map<string, number>();
  for (const estimate of estimates) {
    for (const { tenant, category, n } of callsByWindow(estimate, (route) => windows.categoryOf(route))) {
      const limit = windows.windowLimit(category);
      if (limit === null) continue;
      const key = `${category}\u0000${tenant ?? ''}`;
      const sum = (sums.get(key) ?? 0) + n;
      sums.set(key, sum);
      if (sum > limit) return { category, calls: sum, limit };
    }
  }
  return null;
}

/** The estimate's settings from the gateway's (admission, the rate-limit claim and explain read the same). */
export function costSettingsOf(config: Pick<GatewayConfig, 'defaultPageSize' | 'maxPageSize' | 'maxAvailabilityWindowDays'>): CostSettings {
  return {
    defaultPageSize: config.defaultPageSize,
    maxPageSize: config.maxPageSize,
    minimalListSize: config.maxPageSize,
    // Assumed for nested pages under resourceTypes; not a bound (the schema's @listSize says the same).
    resourceTypeCount: ASSUMED_SIZES.resourceTypes,
    maxAvailabilityWindowDays: config.maxAvailabilityWindowDays,
  };
}

/**
 * Why an operation with this estimate is refused before it runs, or null: over MAX_UPSTREAM_CALLS
 * (alone or with its batch), or over what one window of the upstream allows.
 */
export function costRefusal(found: UpstreamEstimate, config: Pick<GatewayConfig, 'maxUpstreamCallsPerOperation'>, windows: WindowLimits | null, batch?: BatchPlan): GraphQLError | null {
  const maxCost = config.maxUpstreamCallsPerOperation;
  const calls = found.estimate;
  if (calls > maxCost) {
    return tooExpensive('upstreamCalls', calls, maxCost, `The operation could make about ${calls} upstream calls; the limit is ${maxCost}. Ask for fewer items or fewer nested fields.`);
  }
  if (batch && batch.total > maxCost) {
    return tooExpensive('upstreamCalls', batch.total, maxCost, `The batch's ${batch.parts.length} operations could make about ${batch.total} upstream calls together; the limit per request is ${maxCost}. Send fewer or smaller operations.`);
  }
  const over = windows && overWindow(batch ? batch.parts.map((p) => p.estimate) : [found], windows);
  return over ? overWindowError(batch ? 'batch' : 'operation', over.calls, over.category, over.limit) : null;
}

export function operationLimitsPlugin(config: GatewayConfig, windows: WindowLimits | null = null): Plugin {
  const { maxTokens } = config.limits;
  const settings = costSettingsOf(config);
  /**
   * Estimates of operations without variables, which depend on the document alone: by document
   * (Yoga's parse cache hands out one document object per text; a batch's plan parses its own,
   * so its operations are estimated there and again here) and operation name.
   */
  const fixedEstimates = new WeakMap<DocumentNode, Map<string, UpstreamEstimate>>();
  const estimate = (document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown>): UpstreamEstimate => {
    const key = operationName ?? '';
    const known = fixedEstimates.get(document)?.get(key);
    if (known !== undefined) return known;
    const result = estimateUpstreamCalls(document, operationName, variables, settings);
    if (result.problems.length === 0 && !hasVariables(document, operationName)) {
      let byName = fixedEstimates.get(document);
      if (!byName) fixedEstimates.set(document, (byName = new Map()));
      byName.set(key, result);
    }
    return result;
  };
  const planBatch = (batch: GraphQLParams[]): BatchPlan => {
    const parts: BatchPlan['parts'] = [];
    let total = 0;
    for (const sent of batch) {
      // With TRUSTED_DOCUMENTS an operation is sent by hash: its document is the manifest's.
      const query = typeof sent.query === 'string' ? sent.query : config.trustedDocuments ? trustedDocumentOf(config.trustedDocuments, sent.extensions) : undefined;
      if (query === undefined) continue;
      let document: DocumentNode;
      try {
        document = parse(query, { maxTokens });
      } catch {
        continue; // refused at its own parse, with its own error
      }
      const found = estimate(document, sent.operationName, (sent.variables ?? {}) as Record<string, unknown>);
      parts.push({ key: paramsKey({ ...sent, query }), estimate: found });
      total += found.estimate;
    }
    return { total, parts };
  };
  return {
    onRequestParse({ request }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult) && requestParserResult.length > 1) batchPlans.set(request, planBatch(requestParserResult));
        },
      };
    },
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        try {
          return parseFn(source, { ...options, maxTokens });
        } catch (error) {
          if (error instanceof GraphQLError && /more tha[nt] \d+ tokens/.test(error.message)) {
            throw tooExpensive('tokens', maxTokens + 1, maxTokens, `The operation has more than ${maxTokens} tokens.`);
          }
          if (error instanceof GraphQLError && !error.extensions.code) {
            throw new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
          }
          throw error;
        }
      });
    },
    onValidate({ addValidationRule }) {
      addValidationRule(shapeRule(config));
      if (!config.introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
      return ({ result, setResult }) => {
        if (result.length > 0) setResult(result.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')));
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      const ctx = args.contextValue as Pick<GatewayContext, 'estimatedUpstreamCalls' | 'upstreamEstimate'> & { request?: Request };
      const stop = (error: GraphQLError | readonly GraphQLError[]) => {
        setResultAndStopExecution({ errors: Array.isArray(error) ? error : [error as GraphQLError] });
        return undefined;
      };
      const checks: ExecuteHooks = {
        // Variables that do not fit their types fail before any field runs, without a path.
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in Object(result)) return;
          const single = result as { data?: unknown; errors?: readonly GraphQLError[] };
          if (single.data === undefined && single.errors?.length) setResult({ ...single, errors: single.errors.map((e) => withCode(e, 'BAD_USER_INPUT')) } as never);
        },
      };
      // Tenants the caller may not read cost nothing (src/identity/access.ts).
      const raw = estimate(args.document, args.operationName, variables);
      const found = (ctx as Partial<GatewayContext>).access?.grantedOnly(raw) ?? raw;
      const { estimate: calls, problems } = found;
      if (problems.length > 0) return stop(problems);
      ctx.estimatedUpstreamCalls = calls;
      ctx.upstreamEstimate = found;
      const refused = costRefusal(found, config, windows, batchPlanOf(ctx.request));
      return refused ? stop(refused) : checks;
    },
  };
}

/** Bodies over the limit are refused before they are read; a POST must say how long it is. */
export function bodyLimitPlugin(maxBytes: number): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (request.method !== 'POST') return;
      const length = request.headers.get('content-length');
      const refuse = (status: number, message: string) =>
        endResponse(refusal(fetchAPI, status, status === 413 ? 'OPERATION_TOO_EXPENSIVE' : 'BAD_USER_INPUT', message));
      if (length === null) return refuse(411, 'A POST body needs a Content-Length header.');
      if (!/^\d+$/.test(length) || Number(length) > maxBytes) return refuse(413, `The request body is larger than ${maxBytes} bytes.`);
    },
  };
}
