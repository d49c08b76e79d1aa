/**
 * Bounded upstream concurrency with a fair queue: a process-wide limit shared by all operations,
 * and a per-operation limit. Free slots go round-robin to operations with waiting calls, so one
 * big query cannot starve small ones nor flood the upstream.
 */

interface Waiter { start: () => void; reject: (reason: unknown) => void }

export class FairScheduler {
  private active = 0;
  private readonly waiting: Lane[] = [];
  private cursor = 0;

  constructor(readonly maxInFlight: number) {}

  /** One lane per GraphQL operation. */
  lane(maxInFlight: number): Lane {
    return new Lane(this, maxInFlight);
  }

  get inFlight(): number {
    return this.active;
  }

  /** @internal */
  enqueue(lane: Lane): void {
    if (!this.waiting.includes(lane)) this.waiting.push(lane);
    this.pump();
  }

  /** @internal */
  release(lane: Lane): void {
    this.active--;
    lane.inFlight--;
    this.pump();
  }

  private pump(): void {
    while (this.active < this.maxInFlight && this.waiting.length > 0) {
      let started = false;
      for (let i = 0; i < this.waiting.length; i++) {
        const index = (this.cursor + i) % this.waiting.length;
        const lane = this.waiting[index] as Lane;
        if (lane.inFlight >= lane.maxInFlight) continue;
        const waiter = lane.queue.shift() as Waiter;
        if (lane.queue.length === 0) {
          this.waiting.splice(index, 1);
          this.cursor = this.waiting.length === 0 ? 0 : index % this.waiting.length;
        } else {
          this.cursor = (index + 1) % this.waiting.length;
        }
        this.active++;
        lane.inFlight++;
        waiter.start();
        started = true;
        break;
      }
      if (!started) return;
    }
  }

  /** @internal */
  forget(lane: Lane): void {
    const index = this.waiting.indexOf(lane);
    if (index >= 0 && lane.queue.length === 0) this.waiting.splice(index, 1);
  }
}

export class Lane {
  inFlight = 0;
  readonly queue: Waiter[] = [];

  constructor(private readonly scheduler: FairScheduler, readonly maxInFlight: number) {}

  /** Runs `task` once a slot is free; a call still waiting when `signal` aborts is dropped. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          task().then(resolve, reject).finally(() => this.scheduler.release(this));
        },
        reject,
      };
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) {
          this.queue.splice(index, 1);
          this.scheduler.forget(this);
          reject(signal?.reason);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.scheduler.enqueue(this);
    });
  }
}
