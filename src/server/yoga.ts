/** createGateway: the Yoga instance (no listening); src/server/main.ts serves it. */
import { GraphQLError } from 'graphql';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, maskError, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { GatewayConfig } from '../config.js';
import type { GatewayContext } from '../context.js';
import type { Logger } from '../logger.js';
import { schema } from '../schema/index.js';
import type { UpstreamClient, UpstreamSession } from '../upstream/client.js';
import { OperationStats } from '../core/operation-stats.js';
import { callerKey } from '../core/caller.js';
import type { IncomingMessage } from 'node:http';
import { csrfPreventionPlugin } from './edge/csrf.js';
import { graphiqlOptions, landingRedirectPlugin, renderInventoryGraphiQL } from './edge/graphiql.js';
import { compressionPlugin, requestDecodingPlugin } from './edge/content-encoding.js';
import { bodyLimitPlugin, httpErrorCodesPlugin, operationLimitsPlugin } from './limits/limits.js';
import { AdmissionController, admissionPlugin } from './limits/admission.js';
import { rateLimitPlugin } from './limits/rate-limits.js';
import { explainPlugin } from './limits/explain.js';
import { byCategory, plus } from '../core/call-count.js';
import { LiveQueries } from './live/live-query.js';
import { operationContext } from './operation-context.js';
import { clientSignalOf } from './edge/client-signal.js';
import { noEchoPlugin } from './edge/no-echo.js';
import { compiledExecutionPlugin } from './compiled-execution.js';
import { DocumentCache } from './document-cache.js';
import { schemaExposurePlugin } from './edge/schema-exposure.js';
import { trustedDocumentsPlugin } from './edge/trusted-documents.js';
import { onFinalResult } from './result-extensions.js';
import { staleDataPlugin } from './stale-data.js';
import { refusedCredentialPlugin } from './refused-credential.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { Observability } from '../observability/plugin.js';
import type { Tracing } from '../observability/tracing.js';
import { Authentication, streamsEndWithTokenPlugin } from './edge/authentication.js';
import { healthPlugin, type Lifecycle } from './edge/health.js';

export type { Lifecycle } from './edge/health.js';

export interface GatewayOptions {
  config: GatewayConfig;
  client: UpstreamClient;
  logger: Logger;
  /** Set by main.ts on SIGTERM: /readyz then answers 503 at once. */
  lifecycle?: Lifecycle;
  /** Admission control; one is made from the config when absent. */
  admission?: AdmissionController;
  /**
   * Prometheus metrics (served at /metrics when config.metrics); null: none. The client's
   * upstream metrics go to the one given to UpstreamClient's telemetry: pass the same one.
   */
  metrics?: GatewayMetrics | null;
  /** OpenTelemetry tracing (src/observability/tracing.ts); absent: off. */
  tracing?: Tracing | null;
  /** Live queries (`@live`), made and wired (updates, shutdown) by the composition root. */
  live: LiveQueries;
  /** Inbound identity (src/server/edge/authentication.ts); absent: none. */
  authentication?: Authentication;
}


export type Gateway = YogaServerInstance<Record<string, unknown>, GatewayContext>;

/** Errors the gateway raised on purpose (a GraphQLError all the way down) pass unmasked. */
function isOwnGraphQLError(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null || isOwnGraphQLError(error.originalError);
}

/**
 * With `x-upstream-stats: 1`, the response extensions carry what the operation cost upstream (in
 * all and per rate-limit category, made and estimated) and what its tenants have left.
 */
function upstreamStatsPlugin(client: UpstreamClient): Plugin<GatewayContext> {
  const { budget } = client;
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as GatewayContext & { request?: Request };
      if (ctx.request?.headers.get('x-upstream-stats') !== '1') return undefined;
      return {
        async onExecuteDone(payload) {
          // The tenants' windows as the operation ends (a stream: as its first payload is made).
          const rateLimits: Record<string, unknown> = {};
          for (const tenant of ctx.upstreamEstimate?.byTenant.keys() ?? []) {
            const snapshot = tenant === null ? {} : await budget.snapshot(tenant);
            if (tenant !== null && Object.keys(snapshot).length > 0) rateLimits[tenant] = snapshot;
          }
          const estimatedByCategory = byCategory(plus(...(ctx.upstreamEstimate?.byTenant.values() ?? [])), budget.categoryOf);
          // The calls are read when the final result is made (a stream's last payload counts them all).
          return onFinalResult((extensions) => {
            const stats = ctx.stats.toJSON();
            return {
              ...extensions,
              upstream: {
                ...stats,
                callsByCategory: byCategory({ routes: ctx.stats.calls, total: stats.totalCalls }, budget.categoryOf),
                estimatedCalls: ctx.estimatedUpstreamCalls ?? 0,
                estimatedCallsByCategory: estimatedByCategory,
                ...(Object.keys(rateLimits).length > 0 ? { rateLimits } : {}),
              },
            };
          }).onExecuteDone!(payload);
        },
      };
    },
  };
}

interface RequestSessions {
  sessions: UpstreamSession[];
  /** Streamed results (@defer/@stream) of this request still being delivered. */
  openStreams: number;
  /** The response was made (for a stream: its head; the body is still to come). */
  responded: boolean;
}
const requestSessions = new WeakMap<Request, RequestSessions>();
function stateOf(request: Request): RequestSessions {
  let state = requestSessions.get(request);
  if (!state) requestSessions.set(request, (state = { sessions: [], openStreams: 0, responded: false }));
  return state;
}
function endSessions(request: Request, state: RequestSessions): void {
  for (const session of state.sessions) session.close();
  requestSessions.delete(request);
}

/**
 * Ends the upstream sessions of a request that Yoga never answers itself: a WebSocket operation
 * (onResponse does not run for it), once it completed or its client went away.
 */
export function endRequestSessions(request: Request): void {
  const state = requestSessions.get(request);
  if (state) endSessions(request, state);
}

/**
 * The request's upstream sessions end when its answer is complete: their deadline timers are
 * cleared and nothing of theirs still queued is sent. A single result is complete when the
 * response is made; a streamed one (@defer/@stream over multipart or SSE) when its last payload
 * was delivered or the client stopped reading, so deferred fields keep their upstream calls.
 */
function sessionEndPlugin(): Plugin {
  return {
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (!request) return undefined;
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in Object(result))) return undefined;
          const state = stateOf(request);
          state.openStreams++;
          let ended = false;
          return {
            onEnd() {
              if (ended) return;
              ended = true;
              state.openStreams--;
              if (state.responded && state.openStreams === 0) endSessions(request, state);
            },
          };
        },
      };
    },
    onResponse({ request }) {
      const state = requestSessions.get(request);
      if (!state) return;
      state.responded = true;
      if (state.openStreams === 0) endSessions(request, state);
    },
  };
}

export function createGateway({
  config, client, logger, lifecycle = { draining: false }, admission = new AdmissionController(config), metrics = client.metrics, tracing = client.tracing,
  live, authentication = new Authentication(null, null, null),
}: GatewayOptions): Gateway {
  const served = config.metrics ? metrics : null;
  // Everything kept per query document: parsed, validated, estimated, compiled (DOCUMENT_CACHE_MAX_BYTES).
  const documents = new DocumentCache(config.documentCacheMaxBytes);
  served?.setSources({
    ...client.metricSources(),
    documentCacheBytes: () => documents.stats().bytes,
    admission: () => admission.stats(),
    live: () => ({ operations: live.openOperations, pollers: live.polls.size, polls: live.polls.polls, leases: live.polls.leases }),
  });
  const observability = new Observability({ logger, metrics: served, tracing, graphqlEndpoint: '/graphql' });
  const gateway = createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // No landing page: with GraphiQL on, `GET /` is redirected to it (landingRedirectPlugin).
    landingPage: false,
    // Bundled GraphiQL: works without reaching a CDN; with the upstream-cost panel.
    renderGraphiQL: renderInventoryGraphiQL,
    healthCheckEndpoint: '/healthz',
    graphiql: config.graphiql ? graphiqlOptions() : false,
    // Yoga's parse cache is the document cache's LRU; its validation results die with the document.
    parserAndValidationCache: documents.yogaCache(),
    maskedErrors: {
      maskError(error, message) {
        if (!isOwnGraphQLError(error)) logger.error('unexpected error', { error: (error as { originalError?: unknown }).originalError ?? error });
        // isDev is forced off: development mode would put the original error and its stack in the response.
        return maskError(error, message, false);
      },
    },
    cors: config.corsOrigins === null ? false : { origin: config.corsOrigins, credentials: config.corsOrigins !== '*', methods: ['GET', 'POST'] },
    batching: config.limits.maxBatch > 0 ? { limit: config.limits.maxBatch } : false,
    // bodyLimitPlugin refuses, before parsing, every POST without a Content-Length or over
    // MAX_BODY_BYTES, and Node's parser reads exactly Content-Length bytes (it refuses a request
    // that also says Transfer-Encoding). Yoga's own limit would pipe every body through a byte-
    // counting TransformStream into a new Request (a few percent of the gateway's CPU per request)
    // to catch bodies that cannot reach it.
    maxRequestBodySize: false,
    logging: {
      debug: (...args) => logger.debug(String(args[0] ?? ''), { args: args.slice(1) }),
      info: (...args) => logger.info(String(args[0] ?? ''), { args: args.slice(1) }),
      warn: (...args) => logger.warn(String(args[0] ?? ''), { args: args.slice(1) }),
      error: (...args) => logger.error(String(args[0] ?? ''), { args: args.slice(1) }),
    },
    context: (initial) => {
      const { request, params } = initial;
      const stats = new OperationStats();
      const identity = authentication.identityOf(request);
      const observed = observability.startOperation(request, params, stats, identity?.subject);
      const access = authentication.accessOf(request);
      const perOperation = operationContext({ client, config, logger }, {
        authorization: request.headers.get('authorization'), signal: clientSignalOf(request), trace: observed.trace,
        // A signed-in caller is its issuer and subject, whatever token it sends (refreshed every few minutes).
        callerKey: identity?.callerKey ?? callerKey(initial as { request: Request; req?: IncomingMessage }),
        access,
      }, stats);
      stateOf(request).sessions.push(perOperation.session);
      return { config, ...perOperation, identity, access, logger, observed };
    },
    plugins: [
      // Before everything that keys on the request: a compressed body is inflated into a new one.
      requestDecodingPlugin(config.limits.maxBodyBytes),
      // Then: /metrics, the request id, the operation span and the access log see every request.
      observability.plugin(),
      ...(config.graphiql ? [landingRedirectPlugin('/graphql')] : []),
      healthPlugin(client, logger, lifecycle, authentication),
      // Who is asking: the token judged before the body is parsed (401 / 503), for every way in over HTTP.
      ...(authentication.enabled ? [authentication.plugin(), streamsEndWithTokenPlugin()] : []),
      sessionEndPlugin(),
      // @defer and @stream, answered as multipart/mixed or text/event-stream as the client accepts.
      useDeferStream(),
      // Before every plugin that wraps execution: they wrap the compiled code.
      compiledExecutionPlugin(logger, documents),
      bodyLimitPlugin(config.limits.maxBodyBytes),
      // TRUSTED_DOCUMENTS: only the manifest's operations, by hash, refused before parsing.
      ...(config.trustedDocuments ? [trustedDocumentsPlugin(config.trustedDocuments)] : []),
      // A cross-site form post must carry a header that browsers only send after a CORS preflight.
      csrfPreventionPlugin(),
      httpErrorCodesPlugin(),
      // x-explain: 1 answers the cost plan instead of running the operation (before the limits, which would refuse it).
      explainPlugin(config, client.budget),
      operationLimitsPlugin(config, client.budget),
      // INTROSPECTION off: `_service` only with the federation secret, no schema names in error messages.
      schemaExposurePlugin(config),
      // @live: before admission, which leaves live operations to it (they claim slots per execution).
      live.plugin(),
      // After the limits plugin: it refuses what is too expensive and sets ctx.estimatedUpstreamCalls.
      admissionPlugin(admission, logger),
      // Once admitted: the operation's calls claimed of the tenants' rate-limit windows, or the cache alone.
      rateLimitPlugin(client.budget, config.maxAdmissionWaitMs, logger, served),
      ...(config.upstreamStats ? [upstreamStatsPlugin(client)] : []),
      // A refused credential gets its errors and no data.
      refusedCredentialPlugin(),
      // Answers partly served from the cache after their TTL say so.
      staleDataPlugin(),
      noEchoPlugin(),
      // Last: it compresses the final response.
      compressionPlugin(),
    ],
  });
  observabilityOf.set(gateway, observability);
  return gateway;
}

/** Each gateway's request id, metrics, spans and access log, for what it serves outside Yoga's HTTP handling (WebSocket). */
const observabilityOf = new WeakMap<Gateway, Observability>();

export function gatewayObservability(gateway: Gateway): Observability {
  const observability = observabilityOf.get(gateway);
  if (!observability) throw new Error('Not a gateway made by createGateway');
  return observability;
}
