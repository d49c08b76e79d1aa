/**
 * Live queries: a query marked `@live` (@n1ru4l/graphql-live-query) is answered with its full
 * result, then with a payload each time data it read has changed: a JSON Patch against the
 * previous result (@n1ru4l/graphql-live-query-patch-json-patch's format), or the full result
 * again (revision 1) when the patch would be larger. Served over SSE (Yoga) and WebSocket
 * (src/server/edge/websocket.ts).
 *
 * - What changed: each execution notes the upstream reads it made; each distinct read is polled
 *   by one shared poller (src/upstream/live-polls.ts; one for the fleet with Redis), which wakes
 *   only the operations that made it. An update through the gateway wakes the readers of that resource and its tenant's lists
 *   at once, on every replica (src/server/live/live-updates.ts, Redis pub/sub).
 * - Re-execution (InMemoryLiveQueryStore) runs with a fresh upstream session and data source
 *   (the loaders of the previous run hold old answers), claims admission slots only while it
 *   runs, and mostly reads the cache entries the poll refreshed.
 * - Bounds: MAX_LIVE_OPERATIONS open at once in the process, MAX_LIVE_OPERATIONS_PER_CALLER per
 *   caller (OVERLOADED beyond); each holds its last result only.
 * - Faults: while a poll fails the viewers keep their result, and get a payload flagged with
 *   `extensions.stale`; a refused credential ends the operation (UNAUTHENTICATED); close()
 *   (SIGTERM) ends every stream.
 */
import { getOperationAST, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import { isLiveQueryOperationDefinitionNode, NoLiveMixedWithDeferStreamRule } from '@n1ru4l/graphql-live-query';
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import type { Plugin } from 'graphql-yoga';
import type { IncomingMessage } from 'node:http';
import type { GatewayConfig } from '../../config.js';
import type { GatewayContext } from '../../context.js';
import { gatewayError } from '../../core/errors.js';
import { realTimers, type Timers } from '../../core/timers.js';
import type { Logger } from '../../logger.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { LivePolls, type LivePollsOptions, type PolledRead, type PollNews } from '../../upstream/live-polls.js';
import { oneRateLimitRefusal } from '../limits/rate-limits.js';
import { dependenciesOf, staleAfterUpdate } from '../../core/routes.js';
import type { UpstreamRead } from '../../upstream/session.js';
import { overloaded, type AdmissionController, type Refusal } from '../limits/admission.js';
import { clientSignalOf } from '../edge/client-signal.js';
import { staleReport } from '../stale-data.js';
import { liveStream } from './live-payloads.js';
import { LiveOperationRegistry, wakeWaiters, type LiveOperation } from './live-operations.js';
import { operationContext } from '../operation-context.js';

/** A request header: `none` asks for the full result in every payload (GraphiQL sends it: it applies no patches). */
export const LIVE_PATCH_HEADER = 'x-live-query-patch';

/** A re-run that admission refused is retried after this long (and up to twice as long, spread). */
const RERUN_RETRY_MS = 250;

/** The longest throttle a client may ask for (ms); a longer one is shortened to it. */
const MAX_THROTTLE_MS = 60_000;

type LiveContext = GatewayContext & { request?: Request; req?: IncomingMessage; liveOperation?: boolean; overWebSocket?: boolean };

/** Answers that Yoga streams: SSE and multipart (useDeferStream); wildcards match them as in Yoga's choice. */
const STREAMED_MEDIA_TYPES = ['text/event-stream', 'multipart/mixed'];

/**
 * Whether Yoga will stream this request's answer (and so read and close the live stream): a
 * single operation (a batch is answered as one JSON array) whose Accept takes a streamed type.
 * Any other answer (406, a JSON array) would leave the operation open and never read.
 */
function streamable(request: Request, batched: WeakSet<Request>): boolean {
  if (batched.has(request)) return false;
  const accepted = (request.headers.get('accept') || '*/*').replace(/\s/g, '').toLowerCase().split(',').map((part) => part.split(';')[0] ?? '');
  return accepted.some((asked) => {
    const [askedType, askedSub] = asked.split('/');
    return STREAMED_MEDIA_TYPES.some((offered) => {
      const [type, sub] = offered.split('/');
      return (askedType === '*' || askedType === type) && (askedSub === '*' || askedSub === sub);
    });
  });
}

/** What the live store's execution context adds (the store passes it to the execute it wraps). */
interface StoreContext {
  addResourceIdentifier(values: string | readonly string[]): void;
}

/** A read's own identifier, and what it depends on (the route table's dependencies: an update invalidates them). */
export function identifiersOf(key: string, read: UpstreamRead): string[] {
  return [`read:${key}`, ...dependenciesOf(read.route, read.tenantId, read.resourceId)];
}

export interface LiveQueriesOptions {
  config: GatewayConfig;
  client: UpstreamClient;
  admission: AdmissionController;
  logger: Logger;
  /** Epoch ms and the timers of polls and re-runs at a reset on it (assembleGateway's); Date.now and setTimeout by default. */
  wallClock?: () => number;
  timers?: Timers;
  /** With Redis: the poll leases that make one poller per read for the fleet (src/upstream/poll-leases.ts). */
  fleet?: LivePollsOptions['fleet'];
}

export class LiveQueries {
  private readonly store: InMemoryLiveQueryStore;
  readonly polls: LivePolls;
  private readonly open: LiveOperationRegistry;
  private readonly retryAfterSeconds: number;
  private closed = false;

  constructor(private readonly options: LiveQueriesOptions) {
    const { config, client, logger } = options;
    this.store = new InMemoryLiveQueryStore({
      includeIdentifierExtension: false,
      validateThrottleValue: (value) => (value == null ? null : Math.max(0, Math.min(MAX_THROTTLE_MS, value))),
    });
    this.polls = new LivePolls({
      session: (sessionOptions) => client.session(sessionOptions),
      intervalMs: config.live.pollIntervalMs,
      wake: (key, news) => this.wake(key, news),
      gone: (tenantId, resourceId) => client.resourceGone(tenantId, resourceId),
      backgroundBudget: (tenantId, route) => client.budget.backgroundBudget(tenantId, route),
      logger,
      now: options.wallClock, timers: options.timers, fleet: options.fleet,
    });
    this.retryAfterSeconds = Math.max(1, Math.ceil(config.maxAdmissionWaitMs / 1000));
    this.open = new LiveOperationRegistry((reads) => this.polls.release(reads));
  }

  /** Open live operations (metrics, tests). */
  get openOperations(): number {
    return this.open.size;
  }

  /** After an update (here or on another replica): its resource's and tenant lists' readers re-run. */
  resourceUpdated(tenantId: string, resourceId: string): void {
    void this.store.invalidate(staleAfterUpdate(tenantId, resourceId));
  }

  /** Ends every open live operation (SIGTERM) and stops polling. */
  async close(): Promise<void> {
    this.closed = true;
    this.open.endAll();
    await this.polls.close();
  }

  private wake(key: string, news: PollNews): void {
    this.options.logger.debug('live read woke its readers', { news });
    void this.store.invalidate(`read:${key}`);
  }

  /** The Yoga/envelop plugin; before the admission plugin, which leaves live operations to it. */
  plugin(): Plugin<GatewayContext> {
    const batched = new WeakSet<Request>();
    return {
      onRequestParse: ({ request }) => ({
        onRequestParseDone: ({ requestParserResult }) => {
          if (Array.isArray(requestParserResult)) batched.add(request);
        },
      }),
      onValidate: ({ addValidationRule }) => {
        addValidationRule(NoLiveMixedWithDeferStreamRule);
      },
      onExecute: ({ args, executeFn, setExecuteFn }) => {
        const operationNode = getOperationAST(args.document, args.operationName);
        if (!operationNode || !isLiveQueryOperationDefinitionNode(operationNode, args.variableValues ?? undefined)) return;
        const ctx = args.contextValue as LiveContext;
        ctx.liveOperation = true;
        // Refused before it counts: an answer that is not a stream would hold its place forever.
        if (!ctx.overWebSocket && (!ctx.request || !streamable(ctx.request, batched))) {
          setExecuteFn(() => ({ errors: [gatewayError('BAD_USER_INPUT', 'A @live query needs a streamed answer: send it alone (not in a batch) with Accept: text/event-stream, or over WebSocket.', { reason: 'LIVE_NEEDS_STREAM' })] }));
          return;
        }
        // Counted from here, when execution starts (another plugin may still stop it before).
        setExecuteFn(async (executionArgs) => {
          const caller = ctx.callerKey;
          const refusal = this.refusal(caller);
          if (refusal) return { errors: [refusal] };
          const operation = this.open.register(caller);
          const patches = ctx.request?.headers.get(LIVE_PATCH_HEADER)?.toLowerCase() !== 'none';
          const runOnce = (runArgs: ExecutionArgs) => this.run(ctx, operation, executeFn as (a: ExecutionArgs) => Promise<ExecutionResult>, runArgs);
          const results = await this.store.makeExecute(runOnce as never)(executionArgs as ExecutionArgs);
          if (!(Symbol.asyncIterator in Object(results))) {
            operation.end();
            return results;
          }
          return liveStream(results as AsyncIterableIterator<ExecutionResult>, patches, operation) as never;
        });
      },
    };
  }

  private refusal(caller: string): GraphQLError | null {
    const { maxOperations, maxOperationsPerCaller } = this.options.config.live;
    if (this.closed) return gatewayError('OVERLOADED', 'The gateway is shutting down; open the live query again on another instance.', { reason: 'SHUTTING_DOWN', retryAfterSeconds: this.retryAfterSeconds });
    if (this.open.size >= maxOperations || this.open.of(caller) >= maxOperationsPerCaller) {
      const whose = this.open.size >= maxOperations ? 'the gateway' : 'this caller';
      return gatewayError('OVERLOADED', `Too many live queries are open for ${whose}; close one or retry later.`, {
        reason: 'LIVE_OPERATIONS', retryAfterSeconds: this.retryAfterSeconds,
      });
    }
    return null;
  }

  /**
   * One execution of a live operation: admission while it runs, a fresh session and data source,
   * its reads handed to the pollers, and the stale flag when a read it depends on is failing.
   */
  private async run(ctx: LiveContext, operation: LiveOperation, execute: (args: ExecutionArgs) => Promise<ExecutionResult>, args: ExecutionArgs): Promise<ExecutionResult> {
    // One execution at a time, and none while the viewer has not read the last result: wake-ups
    // meanwhile ask for one more run, which the newest of them makes. A superseded one returns
    // at once (the store, which counts its runs the same way, does not deliver its result).
    const call = ++operation.runs;
    wakeWaiters(operation);
    while ((operation.running || operation.unread) && call === operation.runs && this.open.has(operation)) {
      await new Promise<void>((resolve) => operation.waiters.push(resolve));
    }
    if (call !== operation.runs || !this.open.has(operation)) return operation.last?.result ?? { data: null };
    operation.running = true;
    try {
      const result = await this.execution(ctx, operation, execute, args, call);
      if (call === operation.runs) operation.unread = true;
      return result;
    } finally {
      operation.running = false;
      wakeWaiters(operation);
    }
  }

  private async execution(ctx: LiveContext, operation: LiveOperation, execute: (args: ExecutionArgs) => Promise<ExecutionResult>, args: ExecutionArgs, call: number): Promise<ExecutionResult> {
    const { config, client, admission, logger } = this.options;
    const estimate = ctx.estimatedUpstreamCalls ?? 1;
    const signal = ctx.request ? clientSignalOf(ctx.request) : undefined;
    let ticket: { release(): void } | null = null;
    if (estimate > 0) {
      const outcome = await admission.acquire(operation.caller, admission.weightOf(estimate), signal);
      if (typeof outcome === 'string') return this.putOff(operation, args, outcome);
      ticket = outcome;
    }
    const reads = new Map<string, PolledRead>();
    const authorization = ctx.request?.headers.get('authorization') ?? null;
    const credential = config.authMode === 'passthrough' ? operation.caller : 'gateway';
    const perOperation = operationContext({ client, config, logger }, {
      authorization, signal, trace: ctx.observed?.trace, callerKey: operation.caller, access: ctx.access,
      // Reads the viewers' pollers keep fresh are fresh for the period the viewers were told.
      polledEvery: (path) => this.polls.freshForMs(LivePolls.keyOf(credential, path)),
      onRead: (read, value, path) => {
        const key = LivePolls.keyOf(credential, path);
        if (!reads.has(key)) reads.set(key, { key, read, authorization, value });
      },
    });
    const { session, stats } = perOperation;
    Object.assign(ctx, perOperation);
    let result: ExecutionResult;
    try {
      result = await execute(args);
    } catch (error) {
      logger.error('live query execution failed', { error });
      result = { errors: [gatewayError('UPSTREAM_BAD_RESPONSE', 'The live query could not be executed')] };
    } finally {
      ticket?.release();
      session.close();
      // The operation's own counts (its access log line and metrics) are those of all its runs.
      if (ctx.observed?.stats && ctx.observed.stats !== stats) ctx.observed.stats.add(stats);
    }
    // Hand the reads over: the new ones first, so a poller still needed does not stop between.
    const previous = operation.reads;
    // Superseded while it ran (a newer wake-up): the newer run's reads and result count, not these.
    if (!this.open.has(operation) || call !== operation.runs) return result;
    // Never half an answer: a run the rate limit cut short leaves the viewer its last whole result,
    // or the first time no data and when it will be tried again (at the window's reset), not an error.
    const refusal = oneRateLimitRefusal(result.errors);
    if (refusal) {
      const retryMs = Number(refusal.extensions.retryAfter) * 1000;
      (args.contextValue as StoreContext).addResourceIdentifier(operation.last?.identifiers ?? [operation.id]);
      (this.options.timers ?? realTimers).schedule(retryMs, () => this.store.invalidate(operation.id));
      return operation.last?.result ?? { data: null, extensions: { live: { waitingUntil: refusal.extensions.resetAt ?? new Date((this.options.wallClock ?? Date.now)() + retryMs).toISOString(), reason: 'RATE_LIMITED' } } };
    }
    this.polls.acquire([...reads.values()].filter((r) => !previous.has(r.key)));
    this.polls.release([...previous].filter((key) => !reads.has(key)));
    operation.reads = new Set(reads.keys());
    const identifiers = [operation.id, ...[...reads.values()].flatMap((r) => identifiersOf(r.key, r.read))];
    (args.contextValue as StoreContext).addResourceIdentifier(identifiers);
    for (const { key, read } of reads.values()) {
      const failing = this.polls.failingSince(key);
      if (failing) stats.noteStale({ route: read.route, tenantId: read.tenantId, resourceId: read.resourceId, ageMs: (this.options.wallClock ?? Date.now)() - failing.answeredAt, reason: 'upstream-error' });
    }
    if (stats.staleReads.length > 0) result = { ...result, extensions: { ...result.extensions, stale: staleReport(stats.staleReads) } };
    // How fresh the viewer's data is kept: the period its slowest read is polled at, and the oldest answer's age.
    const freshness = this.polls.freshness(reads.keys());
    if (freshness) result = { ...result, extensions: { ...result.extensions, live: { pollSeconds: Math.round(freshness.periodMs / 100) / 10, ageSeconds: Math.floor(freshness.ageMs / 1000) } } };
    operation.last = { identifiers, result };
    return result;
  }

  /**
   * Admission refused an execution. The first one: OVERLOADED, and the operation ends. A re-run:
   * the viewer keeps its result (the same one again: no payload) and the re-run is retried after
   * a short, spread-out pause, so a wall of viewers woken at once is served in turn, not shed.
   */
  private putOff(operation: LiveOperation, args: ExecutionArgs, reason: Refusal): ExecutionResult {
    if (!operation.last || !this.open.has(operation)) return { errors: [overloaded(this.retryAfterSeconds, reason)] };
    (args.contextValue as StoreContext).addResourceIdentifier(operation.last.identifiers);
    const delay = RERUN_RETRY_MS * (1 + Math.random());
    setTimeout(() => void this.store.invalidate(operation.id), delay).unref();
    return operation.last.result;
  }
}
