/**
 * Admission control: a bound on the upstream work in progress, fair across callers, with a
 * short, bounded wait; beyond it the operation is shed at once with HTTP 503, Retry-After and
 * OVERLOADED, so that no request queues past its deadline and cheap requests stay fast.
 *
 * Weight: an operation claims min(estimated upstream calls, UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION)
 * slots: the upstream calls it can have in flight at once. The total of the slots claimed is at
 * most ADMISSION_CAPACITY, one caller's at most ADMISSION_CAPACITY_PER_CALLER. Operations whose
 * estimate is 0 (introspection, `{ __typename }`) never wait and are never counted.
 *
 * Fairness: one FIFO queue per caller (a digest of the Authorization header, else the client's
 * socket address); free slots go round-robin across the callers with waiting operations. A caller
 * at its own cap is skipped; when the next caller in turn does not fit, nobody overtakes it
 * (a heavy operation is not starved by a stream of light ones: it waits at most for
 * UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION slots to free). When the queue is full, the newest
 * operation of the caller with the longest queue is shed, not the newcomer of a light caller.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { GatewayConfig } from '../../config.js';
import type { GatewayContext } from '../../context.js';
import type { Logger } from '../../logger.js';
import { gatewayError } from '../../core/errors.js';
import { clientSignalOf } from '../edge/client-signal.js';

export type AdmissionSettings = Pick<GatewayConfig,
  'admissionCapacity' | 'admissionCapacityPerCaller' | 'maxAdmissionWaitMs' | 'maxAdmissionQueue' | 'upstreamMaxInFlightPerOperation'>;

export type Refusal = 'queue-full' | 'wait-timeout' | 'client-gone';

interface Caller {
  key: string;
  /** Slots claimed by this caller's admitted operations. */
  inProgress: number;
  queue: Waiter[];
}

interface Waiter {
  caller: Caller;
  weight: number;
  settle: (outcome: Ticket | Refusal) => void;
}

/** An admitted operation; release() (idempotent) gives its slots back. */
export interface Ticket {
  release(): void;
}

export interface AdmissionStats {
  inProgress: number;
  queued: number;
  admitted: number;
  shed: Record<Refusal, number>;
}

export class AdmissionController {
  private inProgress = 0;
  private queued = 0;
  private readonly callers = new Map<string, Caller>();
  /** Callers with waiting operations, served round-robin from `cursor`. */
  private readonly ring: Caller[] = [];
  private cursor = 0;
  private admitted = 0;
  private readonly shed: Record<Refusal, number> = { 'queue-full': 0, 'wait-timeout': 0, 'client-gone': 0 };

  constructor(readonly settings: AdmissionSettings) {}

  /** Slots an operation with this estimate claims (never more than a caller may hold). */
  weightOf(estimate: number): number {
    const { upstreamMaxInFlightPerOperation, admissionCapacity, admissionCapacityPerCaller } = this.settings;
    return Math.max(1, Math.min(Math.ceil(estimate), upstreamMaxInFlightPerOperation, admissionCapacity, admissionCapacityPerCaller));
  }

  stats(): AdmissionStats {
    return { inProgress: this.inProgress, queued: this.queued, admitted: this.admitted, shed: { ...this.shed } };
  }

  /** Resolves with a ticket once admitted, or with the reason the operation was shed. */
  acquire(callerKey: string, weight: number, signal?: AbortSignal): Promise<Ticket | Refusal> {
    if (signal?.aborted) return Promise.resolve(this.refuse('client-gone'));
    const caller = this.callerOf(callerKey);
    // Nobody waits: admit at once when it fits (otherwise newcomers queue behind the waiters).
    if (this.ring.length === 0 && this.fits(caller, weight)) return Promise.resolve(this.admit(caller, weight));
    if (this.settings.maxAdmissionWaitMs === 0) return Promise.resolve(this.refuse('queue-full', caller));
    if (this.queued >= this.settings.maxAdmissionQueue && !this.shedLongestQueue(caller)) {
      return Promise.resolve(this.refuse('queue-full', caller));
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        caller,
        weight,
        settle: (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      };
      const leave = (reason: Refusal) => {
        if (this.remove(waiter)) waiter.settle(this.refuse(reason, caller));
      };
      const timer = setTimeout(() => leave('wait-timeout'), this.settings.maxAdmissionWaitMs);
      const onAbort = () => leave('client-gone');
      signal?.addEventListener('abort', onAbort, { once: true });
      caller.queue.push(waiter);
      this.queued++;
      if (caller.queue.length === 1) this.ring.push(caller);
      this.pump();
    });
  }

  private callerOf(key: string): Caller {
    let caller = this.callers.get(key);
    if (!caller) {
      caller = { key, inProgress: 0, queue: [] };
      this.callers.set(key, caller);
    }
    return caller;
  }

  private fits(caller: Caller, weight: number): boolean {
    return this.inProgress + weight <= this.settings.admissionCapacity && caller.inProgress + weight <= this.settings.admissionCapacityPerCaller;
  }

  private admit(caller: Caller, weight: number): Ticket {
    this.inProgress += weight;
    caller.inProgress += weight;
    this.admitted++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inProgress -= weight;
        caller.inProgress -= weight;
        this.forgetIfIdle(caller);
        this.pump();
      },
    };
  }

  private refuse(reason: Refusal, caller?: Caller): Refusal {
    this.shed[reason]++;
    if (caller) this.forgetIfIdle(caller);
    return reason;
  }

  private forgetIfIdle(caller: Caller): void {
    if (caller.inProgress === 0 && caller.queue.length === 0) this.callers.delete(caller.key);
  }

  /** Takes a waiter out of its queue (false when it already left). */
  private remove(waiter: Waiter): boolean {
    const { caller } = waiter;
    const index = caller.queue.indexOf(waiter);
    if (index < 0) return false;
    caller.queue.splice(index, 1);
    this.queued--;
    if (caller.queue.length === 0) this.leaveRing(caller);
    return true;
  }

  private leaveRing(caller: Caller): void {
    const index = this.ring.indexOf(caller);
    if (index < 0) return;
    this.ring.splice(index, 1);
    if (index < this.cursor) this.cursor--;
    if (this.cursor >= this.ring.length) this.cursor = 0;
  }

  /** Queue full: shed the newest waiter of the longest queue, unless that is the newcomer's own. */
  private shedLongestQueue(newcomer: Caller): boolean {
    let longest: Caller | null = null;
    for (const c of this.ring) if (!longest || c.queue.length > longest.queue.length) longest = c;
    if (!longest || longest === newcomer || longest.queue.length <= newcomer.queue.length + 1) return false;
    const victim = longest.queue[longest.queue.length - 1] as Waiter;
    this.remove(victim);
    victim.settle(this.refuse('queue-full', longest));
    return true;
  }

  /** Free slots go round-robin to the callers with waiting operations. */
  private pump(): void {
    while (this.ring.length > 0) {
      let admittedOne = false;
      for (let i = 0; i < this.ring.length; i++) {
        const index = (this.cursor + i) % this.ring.length;
        const caller = this.ring[index] as Caller;
        const head = caller.queue[0] as Waiter;
        if (caller.inProgress + head.weight > this.settings.admissionCapacityPerCaller) continue;
        // The next caller in turn does not fit: keep its turn, admit nobody past it.
        if (this.inProgress + head.weight > this.settings.admissionCapacity) return;
        caller.queue.shift();
        this.queued--;
        if (caller.queue.length === 0) {
          this.ring.splice(index, 1);
          this.cursor = this.ring.length === 0 ? 0 : index % this.ring.length;
        } else {
          this.cursor = (index + 1) % this.ring.length;
        }
        head.settle(this.admit(caller, head.weight));
        admittedOne = true;
        break;
      }
      if (!admittedOne) return;
    }
  }
}

type RequestContext = GatewayContext & { request?: Request; req?: IncomingMessage };

export function overloaded(retryAfterSeconds: number, reason: Refusal) {
  return gatewayError('OVERLOADED', 'The gateway is overloaded; retry after the time the Retry-After header gives.', {
    reason: reason === 'queue-full' ? 'QUEUE_FULL' : 'WAIT_TIMEOUT',
    retryAfterSeconds,
    http: { status: 503, headers: { 'retry-after': String(retryAfterSeconds) } },
  });
}

/**
 * The Yoga plugin. Runs after operationLimitsPlugin, which sets ctx.estimatedUpstreamCalls (an
 * operation it refused never gets here). The slot is released when execution ends: the result,
 * the end of a stream, or an exception.
 */
export function admissionPlugin(controller: AdmissionController, logger: Logger): Plugin {
  const retryAfterSeconds = Math.max(1, Math.ceil(controller.settings.maxAdmissionWaitMs / 1000));
  return {
    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const ctx = args.contextValue as unknown as RequestContext & { liveOperation?: boolean };
      // A live query claims slots per execution, not while it waits for a change (live-query.ts).
      if (ctx.liveOperation) return undefined;
      // Unset means the estimate did not run: count the operation as one call rather than not at all.
      const estimate = ctx.estimatedUpstreamCalls ?? 1;
      if (estimate <= 0) return undefined;
      const signal = ctx.request ? clientSignalOf(ctx.request) : undefined;
      const key = ctx.callerKey;
      const outcome = await controller.acquire(key, controller.weightOf(estimate), signal);
      if (typeof outcome === 'string') {
        logger.debug('operation shed', { reason: outcome, caller: key.slice(0, 12), estimate });
        setResultAndStopExecution({ errors: [overloaded(retryAfterSeconds, outcome)] });
        return undefined;
      }
      const ticket = outcome;
      setExecuteFn(async (executionArgs) => {
        try {
          return await executeFn(executionArgs);
        } catch (error) {
          ticket.release();
          throw error;
        }
      });
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in Object(result))) {
            ticket.release();
            return undefined;
          }
          return { onEnd: () => ticket.release() };
        },
      };
    },
  };
}
