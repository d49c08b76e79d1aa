/**
 * The Yoga plugin that ties the three signals to a request: the request id (x-request-id in and
 * out, `requestId` in every error's extensions), one span per GraphQL operation (the parent of
 * its upstream spans, see src/upstream/attempt.ts), the operation metrics, /metrics, and the
 * access log line written when the response is made.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { getOperationAST, GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import type { OperationStats } from '../core/operation-stats.js';
import { requestIdFrom, writeAccessLog } from './access-log.js';
import type { GatewayMetrics, OperationOutcome } from './metrics.js';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracing } from './tracing.js';

/** One GraphQL operation of a request. */
export interface ObservedOperation {
  /** The operation span's context (upstream spans are its children); ROOT_CONTEXT without tracing. */
  readonly trace: Context;
  span: Span | null;
  name: string | null;
  type: string;
  /** The SHA-256 of the document (with tracing on; null without). */
  hash: string | null;
  stats: OperationStats | null;
  outcome: OperationOutcome;
  codes: string[];
}

interface ObservedRequest {
  id: string;
  started: number;
  parent: Context;
  operations: ObservedOperation[];
  errorCodes: Set<string>;
  processed: boolean;
  /** When the first result was processed (performance.now()). */
  firstResultAt?: number;
  /** The signed-in caller's subject (never its token). */
  subject?: string;
}

export interface ObservabilityOptions {
  logger: Logger;
  metrics: GatewayMetrics | null;
  tracing: Tracing | null;
  graphqlEndpoint: string;
  metricsPath?: string;
}

const MAX_CODES = 20;

export class Observability {
  private readonly requests = new WeakMap<Request, ObservedRequest>();

  constructor(readonly options: ObservabilityOptions) {}

  /** Called by the context factory: the operation's span starts, parented on the incoming traceparent; `subject`: the signed-in caller (enduser.id). */
  startOperation(request: Request, params: { query?: string; operationName?: string } | undefined, stats: OperationStats, subject?: string): ObservedOperation {
    const observed = this.requests.get(request);
    if (observed && subject !== undefined) observed.subject = subject;
    const { tracing } = this.options;
    const name = typeof params?.operationName === 'string' && params.operationName !== '' ? params.operationName : null;
    // Only the operation span carries the hash: without tracing, no digest of every document.
    const hash = tracing && typeof params?.query === 'string' ? createHash('sha256').update(params.query).digest('hex') : null;
    let span: Span | null = null;
    let context: Context = ROOT_CONTEXT;
    if (tracing) {
      const parent = observed?.parent ?? ROOT_CONTEXT;
      span = tracing.tracer.startSpan('graphql.operation', { kind: SpanKind.SERVER, attributes: { ...(hash ? { 'graphql.document.hash': hash } : {}), ...(observed ? { 'gateway.request_id': observed.id } : {}), ...(subject !== undefined ? { 'enduser.id': subject } : {}) } }, parent);
      context = trace.setSpan(parent, span);
    }
    const operation: ObservedOperation = { trace: context, span, name, type: 'unknown', hash, stats, outcome: 'ok', codes: [] };
    observed?.operations.push(operation);
    return operation;
  }

  /**
   * Starts observing a request: its id (a safe incoming x-request-id, else a new one) and the
   * trace parent. Yoga's requests through the plugin's onRequest; a WebSocket operation's here.
   */
  open(request: Request): void {
    const { tracing } = this.options;
    this.requests.set(request, {
      id: requestIdFrom(request.headers.get('x-request-id')), started: performance.now(), parent: tracing ? tracing.extract(request.headers) : ROOT_CONTEXT, operations: [], errorCodes: new Set(), processed: false,
    });
  }

  /**
   * Notes the outcome and error codes of a request's results (index: the operation in a batch),
   * and returns them with the request id in their errors (undefined when nothing changed).
   */
  results(request: Request, results: readonly ExecutionResult[]): ExecutionResult[] | undefined {
    const observed = this.requests.get(request);
    if (!observed) return undefined;
    observed.processed = true;
    observed.firstResultAt ??= performance.now();
    let changed = false;
    const out = results.map((single, index) => {
      const operation = observed.operations[index];
      const errors = single.errors ?? [];
      const codes = [...new Set(errors.map((e) => String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))].slice(0, MAX_CODES);
      for (const code of codes) observed.errorCodes.add(code);
      if (operation && codes.length > 0) {
        operation.codes = operation.codes.length === 0 ? codes : [...new Set([...operation.codes, ...codes])].slice(0, MAX_CODES);
        // A live query's patch carries data as much as a full result does.
        const hasData = single.data != null || Array.isArray((single as { patch?: unknown }).patch);
        if (operation.outcome !== 'error') operation.outcome = hasData ? 'partial' : 'error';
      }
      if (errors.length === 0) return single;
      changed = true;
      return { ...single, errors: errors.map((e) => withRequestId(e, observed.id)) as GraphQLError[] };
    });
    return changed ? out : undefined;
  }

  /**
   * Ends a request: the operation metrics, the spans and the access log line. Yoga's requests
   * when the response is made (onResponse); a WebSocket operation when it ends (status 101),
   * `timedToFirstResult`: its latency metric is the time to its first result, as an HTTP
   * stream's is, not its whole life (the access log's duration).
   * Returns the request id (undefined: the request was not observed).
   */
  close(request: Request, status: number, method = request.method, timedToFirstResult = false): string | undefined {
    const { metrics, logger, tracing, graphqlEndpoint } = this.options;
    const observed = this.requests.get(request);
    if (!observed) return undefined;
    this.requests.delete(request);
    const seconds = (performance.now() - observed.started) / 1000;
    const latency = timedToFirstResult && observed.firstResultAt !== undefined ? (observed.firstResultAt - observed.started) / 1000 : seconds;
    // A request refused before any operation started (parse error, limits, CSRF) is still one
    // operation; a GET of the GraphiQL page is none.
    if (observed.operations.length === 0 && (observed.processed || status >= 400)) {
      const outcome: OperationOutcome = status >= 400 || observed.errorCodes.size > 0 ? 'error' : 'ok';
      let span: Span | null = null;
      if (tracing) {
        span = tracing.tracer.startSpan('graphql.operation', { kind: SpanKind.SERVER, startTime: performance.timeOrigin + observed.started, attributes: { 'gateway.request_id': observed.id } }, observed.parent);
      }
      observed.operations.push({ trace: ROOT_CONTEXT, span, name: null, type: 'unknown', hash: null, stats: null, outcome, codes: [...observed.errorCodes] });
    }
    let upstreamCalls = 0;
    let upstreamRetries = 0;
    for (const operation of observed.operations) {
      const stats = operation.stats;
      if (stats) {
        upstreamCalls += stats.totalCalls;
        upstreamRetries += stats.retries;
        metrics?.loader(stats.loaderHits, stats.loaderMisses);
      }
      metrics?.operation(operation.name, operation.type, operation.outcome, latency);
      const span = operation.span;
      if (span) {
        span.setAttribute('http.response.status_code', status);
        if (stats) {
          span.setAttribute('gateway.upstream.calls', stats.totalCalls);
          span.setAttribute('gateway.upstream.retries', stats.retries);
          span.setAttribute('gateway.loader.hits', stats.loaderHits);
          span.setAttribute('gateway.loader.misses', stats.loaderMisses);
        }
        if (operation.codes.length > 0) {
          span.setAttribute('graphql.error.codes', operation.codes);
          span.setStatus({ code: SpanStatusCode.ERROR, message: operation.codes.join(',') });
        }
        span.end();
      }
    }
    const first = observed.operations[0]?.span;
    writeAccessLog(logger, {
      requestId: observed.id,
      method,
      path: graphqlEndpoint,
      status,
      durationMs: seconds * 1000,
      operations: observed.operations.map((o) => o.name),
      upstreamCalls,
      upstreamRetries,
      errorCodes: [...observed.errorCodes],
      ...(observed.subject !== undefined ? { subject: observed.subject } : {}),
      ...(first ? { traceId: first.spanContext().traceId } : {}),
    });
    return observed.id;
  }

  plugin(): Plugin {
    const { metrics, graphqlEndpoint } = this.options;
    const metricsPath = this.options.metricsPath ?? '/metrics';
    return {
      onRequest: async ({ request, url, endResponse, fetchAPI }) => {
        if (metrics && url.pathname === metricsPath) {
          if (request.method !== 'GET') return endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET' } }));
          endResponse(new fetchAPI.Response(await metrics.text(), { status: 200, headers: { 'content-type': metrics.contentType } }));
          return;
        }
        if (url.pathname !== graphqlEndpoint) return;
        this.open(request);
      },
      onExecute: ({ args }) => {
        const operation = (args.contextValue as { observed?: ObservedOperation }).observed;
        if (!operation) return;
        const ast = getOperationAST(args.document, args.operationName);
        operation.type = ast?.operation ?? 'unknown';
        operation.name = ast?.name?.value ?? operation.name;
        if (operation.span) {
          operation.span.updateName(`${operation.type}${operation.name ? ` ${operation.name}` : ''}`);
          operation.span.setAttribute('graphql.operation.type', operation.type);
          if (operation.name) operation.span.setAttribute('graphql.operation.name', operation.name);
        }
      },
      onResultProcess: ({ request, result, setResult }) => {
        if (Symbol.asyncIterator in Object(result)) return;
        const out = this.results(request, (Array.isArray(result) ? result : [result]) as ExecutionResult[]);
        if (out) setResult((Array.isArray(result) ? out : out[0]) as never);
      },
      onResponse: ({ request, response }) => {
        const id = this.close(request, response.status);
        if (id !== undefined) response.headers.set('x-request-id', id);
      },
    };
  }
}

/** A copy of the error with `requestId` in its extensions (errors may be cached and shared: never mutated). */
function withRequestId(error: unknown, requestId: string): unknown {
  if (error instanceof GraphQLError) {
    return new GraphQLError(error.message, {
      nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError,
      extensions: { ...error.extensions, requestId },
    });
  }
  if (typeof error === 'object' && error !== null) {
    const e = error as { extensions?: Record<string, unknown> };
    return { ...e, extensions: { ...e.extensions, requestId } };
  }
  return error;
}
