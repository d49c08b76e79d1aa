/**
 * One upstream request, and the one place it is observed: the operation's call budget, a breaker
 * permit, the per-attempt timeout, headers, a client span (child of the operation's span, its
 * traceparent sent upstream), the request and retry metrics; then the answer parsed, or classified
 * as an UpstreamError (src/upstream/errors.ts).
 */
import type { Dispatcher } from 'undici';
import { CircuitOpenError } from './breaker.js';
import { errorForStatus, operationStop, parseRetryAfter, rateLimited, safeReason, UpstreamError } from './errors.js';
import type { Fetched } from './cache-entry.js';
import { ROUTES, type RouteName } from '../core/routes.js';
import type { Charge, RateLimitHeaders } from './rate-budget.js';
import type { OperationStats } from '../core/operation-stats.js';
import type { UpstreamParts } from './parts.js';
import { ROOT_CONTEXT as ROOT, SpanKind, SpanStatusCode, trace, type Context } from '../observability/tracing.js';

/** One upstream call of an operation, its path already built from the route table. */
export interface Call {
  route: RouteName;
  method: 'GET' | 'POST';
  tenantId: string;
  /** The record the call is about, when it is about one (cache invalidation). */
  resourceId?: string;
  /** The request path (the base URL's path, then the route's): encoded, with its query. */
  path: string;
  body?: unknown;
  /** Used in messages: "resource abc", "the resource search". */
  what: string;
  /** Availability: the end of the window (epoch seconds); a window over is cached longer. */
  windowEnd?: number;
}

/** What an attempt needs of its operation (src/upstream/session.ts). */
export interface AttemptOperation {
  readonly signal: AbortSignal;
  /** Clock time (UpstreamParts.now) at which the operation's upstream work must stop. */
  readonly deadline: number;
  readonly stats: OperationStats;
  readonly trace: Context | undefined;
  /** Requests sent so far, counted before they leave (the budget must hold for concurrent calls). */
  dispatchedCalls(): number;
  /** Counts a request about to leave. */
  noteDispatch(): void;
  /** The operation's own stop (deadline, client gone, closed) as an error, or null while it runs. */
  stopped(what: string): UpstreamError | null;
  /**
   * Calls `abort` with the signal's reason when the signal aborts (one listener on the signal for
   * every call of the operation); the returned function forgets it.
   */
  onAbort(abort: (reason: Error) => void): () => void;
  /** Takes the call's place in its tenant's rate-limit window (or throws RATE_LIMITED); where it was charged. */
  spend(call: Call): Charge | null | Promise<Charge | null>;
  /** Gives back the place of a call that was not sent after all. */
  unspend(call: Call, charge: Charge): void;
}

export interface AttemptRequest {
  call: Call;
  authorization: string | null;
  /** The call's attempts counted from 1; `retryOf` says why this one is a retry. */
  number: number;
  retryOf: string | null;
  /** The call's first attempt (a token refresh retry is not): counted by the retry budget. */
  first: boolean;
}

/** How long after the operation deadline an attempt's own timeout ends it if the deadline timer did not. */
const DEADLINE_BACKSTOP_MS = 1_000;
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export async function attempt(parts: UpstreamParts, operation: AttemptOperation, { call, authorization, number, retryOf, first }: AttemptRequest): Promise<Fetched> {
  const { settings, metrics, tracing, breaker } = parts;
  // The lane checked the deadline when this call's turn came; this is the last check before sending.
  const stop = operation.stopped(call.what);
  if (stop) throw stop;
  const budget = settings.maxUpstreamCallsPerOperation;
  if (operation.dispatchedCalls() >= budget) {
    throw operationStop(`The operation reached its budget of ${budget} upstream calls`, 'OPERATION_TOO_EXPENSIVE');
  }
  // What may throw is done before the call takes its place in the window (a place taken is given back or settled).
  const headers: Record<string, string> = { accept: 'application/json' };
  if (authorization) headers.authorization = authorization;
  let payload: string | undefined;
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(call.body);
  }
  let charged = operation.spend(call);
  if (charged instanceof Promise) charged = await charged;
  const permit = breaker.acquire();
  if (!permit) {
    if (charged) operation.unspend(call, charged);
    throw new CircuitOpenError(call.what);
  }
  operation.noteDispatch();
  if (first) parts.retryBudget.recordRequest();
  // The deadline timer ends the attempt at the deadline (with everything else of the operation).
  // undici's own timeouts tick in ~0.5 s steps and may fire up to 0.5 s early, so near the
  // deadline the per-attempt timeout is set a second past it, as a backstop only: an attempt
  // never times out on its own just before the deadline, freeing a slot for a call that would
  // then be sent with no time left.
  const remaining = Math.max(1, operation.deadline - parts.now());
  const timeout = Math.min(settings.upstreamTimeoutMs, remaining + DEADLINE_BACKSTOP_MS);
  const span = tracing?.tracer.startSpan(`${call.method} ${call.route}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': call.method,
      'url.template': ROUTES[call.route].template,
      'server.address': parts.host,
      'inventory.route': call.route,
      'inventory.tenant': call.tenantId,
      'gateway.attempt': number,
      'http.request.resend_count': number - 1,
      // Cache hits make no call: every upstream call is a miss.
      'gateway.cache': 'miss',
      ...(retryOf ? { 'gateway.retry_reason': retryOf } : {}),
    },
  }, operation.trace);
  if (span && tracing) tracing.inject(trace.setSpan(operation.trace ?? ROOT, span), headers);
  if (retryOf && metrics) metrics.retry(call.route, retryOf);
  const started = parts.now();
  let text: string | undefined;
  let status = 0;
  let retryAfter: string | string[] | undefined;
  let rateLimit: RateLimitHeaders | null = null;
  let unsent = false;
  let closes = false;
  try {
    const answer = await dispatchText(parts.dispatcher, {
      origin: parts.origin,
      path: call.path,
      method: call.method,
      headers,
      body: payload,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    }, operation);
    text = answer.text;
    status = answer.status;
    retryAfter = answer.retryAfter;
    rateLimit = answer.rateLimit;
  } catch (error) {
    // Our own abort (deadline, disconnect) says nothing about the upstream.
    if (operation.signal.aborted) breaker.release(permit);
    else breaker.failure(permit);
    unsent = NOT_SENT_CODES.has((error as { code?: string }).code ?? '');
    if (span) {
      span.setAttribute('error.type', (error as { code?: string }).code ?? (error as Error).name ?? 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw error;
  } finally {
    closes = closesWindow(status, rateLimit, retryAfter);
    parts.budget.settle(call.tenantId, call.route, charged, rateLimit, status, closes, unsent);
    const ms = parts.now() - started;
    operation.stats.recordCall(call.route, ms);
    metrics?.upstreamRequest(call.route, call.method, status, ms / 1000);
    if (span) {
      if (status) span.setAttribute('http.response.status_code', status);
      if (text !== undefined && span.isRecording()) span.setAttribute('http.response.body.size', Buffer.byteLength(text));
      if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  }
  if (status >= 500) breaker.failure(permit);
  else breaker.success(permit);
  if (closes) throw await throttled(parts, call, text, retryAfter);
  return parseAnswer(status, text, retryAfter, call.what);
}

/**
 * A 429 of the upstream's documented throttle (its rate-limit headers, or no Retry-After) closes
 * the tenant's window until its reset. A 429 with only a Retry-After is another throttle's short
 * pause: retried after it, within UPSTREAM_MAX_RETRY_AFTER_MS, as before.
 */
function closesWindow(status: number, rateLimit: RateLimitHeaders | null, retryAfter: string | string[] | undefined): boolean {
  return status === 429 && (rateLimit !== null || retryAfter === undefined);
}

/** The window a 429 closed (here and for the fleet): RATE_LIMITED until its reset, never retried into it. */
async function throttled(parts: UpstreamParts, call: Call, text: string, retryAfter: string | string[] | undefined): Promise<UpstreamError> {
  const window = await parts.budget.window(call.tenantId, parts.budget.categoryOf(call.route));
  const reset = window ? parts.budget.resetOf(window) : null;
  const pause = parseRetryAfter(retryAfter) ?? 0;
  const untilReset = reset && reset.untilMs >= pause ? reset : parts.budget.resetIn(pause);
  const reason = reasonOf(text);
  return rateLimited(`The inventory API is rate limiting requests for ${call.what}${reason ? `: ${reason}` : ''}`, untilReset, 429);
}

interface RawAnswer { status: number; text: string; retryAfter: string | string[] | undefined; rateLimit: RateLimitHeaders | null }

/**
 * One request through the dispatcher, its body collected as text (a UTF-8 BOM skipped, as
 * undici's body.text() does). undici's dispatch with a handler of ours rather than request(),
 * whose body stream, promise and abort listener per call were much of the gateway's own cost per
 * upstream call; the operation's signal aborts it through the operation's one listener (the
 * readiness check passes an operation that never ends).
 */
export function dispatchText(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, operation: Pick<AttemptOperation, 'signal' | 'onAbort'>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let retryAfter: string | string[] | undefined;
    let rateLimit: RateLimitHeaders | null = null;
    let chunks: Buffer[] = [];
    let length = 0;
    let forget: (() => void) | undefined;
    const handler: Dispatcher.DispatchHandler = {
      // Called again when undici retries the request on another connection: one registration at a time.
      onRequestStart(controller) {
        forget?.();
        forget = undefined;
        if (operation.signal.aborted) return controller.abort(operation.signal.reason as Error);
        forget = operation.onAbort((reason) => controller.abort(reason));
      },
      onResponseStart(_controller, statusCode, headers) {
        status = statusCode;
        retryAfter = headers['retry-after'];
        const limit = headers['x-ratelimit-limit'];
        rateLimit = limit === undefined ? null : { limit, remaining: headers['x-ratelimit-remaining'], reset: headers['x-ratelimit-reset'] };
        chunks = [];
        length = 0;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
        length += chunk.length;
      },
      onResponseEnd() {
        forget?.();
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
        const start = length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
        resolve({ status, text: body.toString('utf8', start, length), retryAfter, rateLimit });
      },
      onResponseError(_controller, error) {
        forget?.();
        reject(error);
      },
    };
    dispatcher.dispatch(options, handler);
  });
}

/** A 2xx answer parsed (empty: null); any other status as its UpstreamError. */
export function parseAnswer(status: number, text: string, retryAfter: string | string[] | undefined, what: string): Fetched {
  if (status >= 200 && status < 300) {
    if (text.trim() === '') return { value: null, text };
    try {
      return { value: JSON.parse(text) as unknown, text };
    } catch {
      throw new UpstreamError(`The inventory API sent a response for ${what} that is not JSON`, 'UPSTREAM_BAD_RESPONSE', status, false);
    }
  }
  throw errorForStatus(status, what, reasonOf(text), parseRetryAfter(retryAfter));
}

/** A short, safe reason from an error answer's body, when it is JSON that has one. */
function reasonOf(text: string | undefined): string | null {
  let body: unknown = null;
  try { body = JSON.parse(text ?? ''); } catch { /* error bodies need not be JSON */ }
  return safeReason(body);
}

/** Whatever an attempt threw, as an UpstreamError: the operation's own stop first, then timeouts and connection failures. */
export function classifyFailure(raw: unknown, operation: Pick<AttemptOperation, 'stopped'>, what: string): UpstreamError {
  if (raw instanceof UpstreamError) return raw;
  const stop = operation.stopped(what);
  if (stop) return stop;
  const code = (raw as { code?: string }).code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError(`The inventory API did not answer ${what} in time`, 'UPSTREAM_TIMEOUT', null, true);
  }
  return new UpstreamError(`Could not reach the inventory API for ${what}`, 'UPSTREAM_UNAVAILABLE', null, true, NOT_SENT_CODES.has(code));
}
