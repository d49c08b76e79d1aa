/**
 * When an operation's upstream work stops: at its deadline (a timer held here), when the GraphQL
 * client disconnects, or on close(). One AbortController aborts every queued and running call of
 * the operation, through one listener on its signal (onAbort).
 */
import { setMaxListeners } from 'node:events';
import { operationStop, type UpstreamError } from './errors.js';

/**
 * The abort reason of every operation that ends (each request's): made once, as a DOMException
 * captures a stack trace when made. It never leaves the session: what was cut short by it is
 * reported as the operation's own error (stopped()).
 */
const OPERATION_ENDED = new DOMException('The operation ended', 'AbortError');

type StopKind = 'deadline' | 'client' | 'closed';

export class OperationStop {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;
  /** now() at which the operation's upstream work must stop. */
  readonly deadline: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly detachClient: () => void;
  private ended = false;
  /** The aborts of the operation's requests in flight, called by the signal's one listener (onAbort). */
  private readonly inFlightAborts = new Set<(reason: Error) => void>();

  constructor(private readonly now: () => number, timeoutMs: number, private readonly clientSignal?: AbortSignal) {
    this.deadline = now() + timeoutMs;
    this.signal = this.controller.signal;
    // Queued upstream calls listen on this signal; dozens at once are expected.
    setMaxListeners(0, this.signal);
    const inFlightAborts = this.inFlightAborts;
    this.signal.addEventListener('abort', () => {
      const reason = this.signal.reason as Error;
      for (const abort of [...inFlightAborts]) abort(reason);
      inFlightAborts.clear();
    }, { once: true });
    const controller = this.controller;
    const onClientAbort = () => controller.abort(clientSignal?.reason);
    // The listener goes at the deadline or on close(): the client's signal holds nothing of a finished operation.
    const detachClient = () => clientSignal?.removeEventListener('abort', onClientAbort);
    this.detachClient = detachClient;
    if (clientSignal?.aborted) controller.abort(clientSignal.reason);
    else clientSignal?.addEventListener('abort', onClientAbort, { once: true });
    // The deadline is a timer held here, not AbortSignal.timeout(): inside AbortSignal.any a
    // timeout signal can be garbage-collected before it fires (nodejs/node#57736). The timer
    // holds only the controller, and is unref'd so an operation never holds the process open.
    this.timer = setTimeout(() => {
      detachClient();
      controller.abort(new DOMException('The operation deadline passed', 'TimeoutError'));
    }, timeoutMs);
    this.timer.unref();
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Clears the deadline timer and aborts whatever is still queued or running. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.detachClient();
    if (!this.signal.aborted) this.controller.abort(OPERATION_ENDED);
  }

  /** Why no more upstream calls may start for this operation, or null. */
  kind(): StopKind | null {
    if (this.clientSignal?.aborted) return 'client';
    if (this.ended) return 'closed';
    if (this.signal.aborted || this.now() >= this.deadline) return 'deadline';
    return null;
  }

  /** The operation's stop as the error of what it cut short, or null while it runs. */
  stopped(what: string): UpstreamError | null {
    const kind = this.kind();
    return kind ? stopError(kind, what) : null;
  }

  /** Another operation's call, or this operation's stop error if it stops first. */
  waitFor<T>(pending: Promise<T>, what: string): Promise<T> {
    const stop = this.stopped(what);
    if (stop) return Promise.reject(stop);
    return new Promise<T>((resolve, reject) => {
      const signal = this.signal;
      const onAbort = () => reject(stopError(this.kind() ?? 'closed', what));
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
        (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
      );
    });
  }

  onAbort(abort: (reason: Error) => void): () => void {
    const aborts = this.inFlightAborts;
    aborts.add(abort);
    return () => aborts.delete(abort);
  }

  /** Waits ms, or less when the operation stops meanwhile. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.signal;
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}

function stopError(kind: StopKind, what: string): UpstreamError {
  if (kind === 'client') return operationStop('The client closed the request', 'CLIENT_CLOSED_REQUEST');
  if (kind === 'closed') return operationStop(`The operation ended before ${what} completed`, 'CLIENT_CLOSED_REQUEST');
  return operationStop(`The operation deadline passed before ${what} completed`, 'UPSTREAM_TIMEOUT');
}
