/**
 * Bounded upstream concurrency with a fair queue: a process-wide limit shared by all operations,
 * and a per-operation limit. A free slot goes first to an operation with nothing in flight
 * (oldest first: a small query never waits behind a big one's queue, and no operation waits
 * forever), then to the oldest operation below its own limit (its limit keeps one big query from
 * flooding the upstream). Oldest-first, not round-robin: round-robin kept equal operations in
 * step, finishing together and then all waiting on their first call at once while the slots stood
 * idle. The price: under sustained load a young big query moves one call at a time until the
 * older ones are done, as in a FIFO queue. A queued call is checked once more
 * when its turn comes (its lane's `expired`, e.g. the operation deadline): a call whose operation
 * is over is dropped there, without taking a slot, instead of being sent.
 */

interface Waiter { start: () => void; reject: (reason: unknown) => void; signal: AbortSignal | undefined }

export interface LaneOptions {
  /**
   * Asked when a queued call would start (and when it is queued): anything but null/undefined
   * rejects the call with that reason instead of running it.
   */
  expired?: () => unknown;
}

export class FairScheduler {
  private active = 0;
  private readonly waiting: Lane[] = [];
  private lanes = 0;

  constructor(readonly maxInFlight: number) {}

  /** One lane per GraphQL operation. */
  lane(maxInFlight: number, options: LaneOptions = {}): Lane {
    return new Lane(this, maxInFlight, options, this.lanes++);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Calls waiting for a slot, over all lanes. */
  get queued(): number {
    return this.waiting.reduce((sum, lane) => sum + lane.queue.length, 0);
  }

  /** @internal */
  enqueue(lane: Lane): void {
    if (!lane.waiting) {
      lane.waiting = true;
      // Kept in lane age order (oldest first).
      let at = this.waiting.length;
      while (at > 0 && (this.waiting[at - 1] as Lane).seq > lane.seq) at--;
      this.waiting.splice(at, 0, lane);
    }
    this.pump();
  }

  /** @internal Takes a slot for the lane when nobody waits and both limits allow; false: it must queue. */
  tryStart(lane: Lane): boolean {
    if (this.waiting.length > 0 || this.active >= this.maxInFlight || lane.inFlight >= lane.maxInFlight) return false;
    this.active++;
    lane.inFlight++;
    return true;
  }

  /** @internal */
  release(lane: Lane): void {
    this.active--;
    lane.inFlight--;
    this.pump();
  }

  private pump(): void {
    while (this.active < this.maxInFlight && this.waiting.length > 0) {
      const index = this.next();
      if (index < 0) return;
      const lane = this.waiting[index] as Lane;
      const waiter = lane.queue.shift() as Waiter;
      if (lane.queue.length === 0) this.leave(index);
      const reason = lane.expiredReason();
      if (reason !== undefined) {
        // Its operation is over (deadline, disconnect): drop it without taking a slot.
        waiter.reject(reason);
        continue;
      }
      this.active++;
      lane.inFlight++;
      waiter.start();
    }
  }

  /**
   * The waiting lane whose call goes next: a lane with nothing in flight before any other, then
   * the oldest operation with room under its own limit (-1: none has room).
   */
  private next(): number {
    let best = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      const lane = this.waiting[i] as Lane;
      if (lane.inFlight >= lane.maxInFlight) continue;
      if (lane.inFlight === 0) return i;
      if (best < 0) best = i;
    }
    return best;
  }

  /** @internal */
  forget(lane: Lane): void {
    const index = this.waiting.indexOf(lane);
    if (index >= 0 && lane.queue.length === 0) this.leave(index);
  }

  private leave(index: number): void {
    (this.waiting[index] as Lane).waiting = false;
    this.waiting.splice(index, 1);
  }
}

export class Lane {
  inFlight = 0;
  /** @internal In the scheduler's list of lanes with queued calls. */
  waiting = false;
  readonly queue: Waiter[] = [];
  /**
   * One abort listener per signal with queued calls, and how many wait on it: an operation's
   * calls share its signal, and a listener per queued call made every add and remove walk a
   * list as long as the queue.
   */
  private readonly watched = new Map<AbortSignal, { waiting: number; onAbort: () => void }>();

  constructor(private readonly scheduler: FairScheduler, readonly maxInFlight: number, private readonly options: LaneOptions, readonly seq: number) {}

  /** @internal Why a call of this lane must not start now, or undefined. */
  expiredReason(): unknown {
    const reason = this.options.expired?.();
    return reason === null ? undefined : reason;
  }

  /**
   * Runs `task` once a slot is free. A call still waiting when `signal` aborts is dropped, and so
   * is one whose lane has expired by the time its turn comes.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const expired = this.expiredReason();
    if (expired !== undefined) return Promise.reject(expired);
    // Nobody waits and a slot is free: start at once, without a queue entry, a wrapping promise
    // and an abort listener per call (nobody is overtaken, and the checks above are pump()'s).
    if (this.scheduler.tryStart(this)) {
      let running: Promise<T>;
      try {
        running = task();
      } catch (error) {
        this.scheduler.release(this);
        return Promise.reject(error);
      }
      return running.finally(() => this.scheduler.release(this));
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        start: () => {
          this.unwatch(signal);
          let running: Promise<T>;
          try {
            running = task();
          } catch (error) {
            this.scheduler.release(this);
            reject(error);
            return;
          }
          running.then(resolve, reject).finally(() => this.scheduler.release(this));
        },
        reject: (reason) => {
          this.unwatch(signal);
          reject(reason);
        },
      };
      if (signal) this.watch(signal);
      this.queue.push(waiter);
      this.scheduler.enqueue(this);
    });
  }

  private watch(signal: AbortSignal): void {
    const watched = this.watched.get(signal);
    if (watched) {
      watched.waiting++;
      return;
    }
    const onAbort = () => this.dropQueued(signal);
    this.watched.set(signal, { waiting: 1, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  private unwatch(signal: AbortSignal | undefined): void {
    const watched = signal && this.watched.get(signal);
    if (!signal || !watched || --watched.waiting > 0) return;
    this.watched.delete(signal);
    signal.removeEventListener('abort', watched.onAbort);
  }

  /** The signal aborted: the calls queued with it are dropped, rejected with its reason. */
  private dropQueued(signal: AbortSignal): void {
    this.watched.delete(signal);
    const dropped: Waiter[] = [];
    let kept = 0;
    for (const waiter of this.queue) {
      if (waiter.signal === signal) dropped.push(waiter);
      else this.queue[kept++] = waiter;
    }
    this.queue.length = kept;
    this.scheduler.forget(this);
    for (const waiter of dropped) waiter.reject(signal.reason);
  }
}
