/**
 * The live operations open in the process, and per caller: each registered when its execution
 * starts, counted until it ends (its reads handed back to the pollers then). LiveQueries bounds
 * them (MAX_LIVE_OPERATIONS, MAX_LIVE_OPERATIONS_PER_CALLER).
 */
import type { ExecutionResult } from 'graphql';

export interface LiveOperation {
  caller: string;
  /** Its own resource identifier: a re-run that admission put off is retried through it. */
  id: string;
  /** The poll keys its last execution read. */
  reads: Set<string>;
  /** The resource identifiers and result of its last execution (the result is the one the patcher holds). */
  last: { identifiers: string[]; result: ExecutionResult } | null;
  /** Executions asked for so far (each wake-up asks for one); only the newest one runs. */
  runs: number;
  /** An execution is under way: the next one waits for it (they share the context). */
  running: boolean;
  /** The viewer has not read the last result yet: the next execution waits for it. */
  unread: boolean;
  /** Executions waiting for their turn (at most the newest is still wanted). */
  waiters: (() => void)[];
  /** The viewer took a result. */
  delivered(): void;
  end(): void;
  /** Called once when it ends. */
  onEnd(listener: () => void): void;
}

export class LiveOperationRegistry {
  private readonly open = new Set<LiveOperation>();
  private readonly perCaller = new Map<string, number>();
  private operationCount = 0;

  /** releaseReads: an operation that ends gives its poll keys back. */
  constructor(private readonly releaseReads: (keys: Iterable<string>) => void) {}

  get size(): number {
    return this.open.size;
  }

  /** Open operations of this caller. */
  of(caller: string): number {
    return this.perCaller.get(caller) ?? 0;
  }

  has(operation: LiveOperation): boolean {
    return this.open.has(operation);
  }

  endAll(): void {
    for (const operation of [...this.open]) operation.end();
  }

  register(caller: string): LiveOperation {
    this.perCaller.set(caller, (this.perCaller.get(caller) ?? 0) + 1);
    let ended = false;
    const enders: (() => void)[] = [];
    const operation: LiveOperation = {
      caller,
      id: `live-operation:${++this.operationCount}`,
      reads: new Set(),
      last: null,
      runs: 0,
      running: false,
      unread: false,
      waiters: [],
      delivered: () => {
        operation.unread = false;
        wakeWaiters(operation);
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.open.delete(operation);
        const left = (this.perCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.perCaller.set(caller, left);
        else this.perCaller.delete(caller);
        this.releaseReads(operation.reads);
        operation.reads.clear();
        operation.last = null;
        wakeWaiters(operation);
        for (const f of enders) f();
      },
      onEnd: (f) => enders.push(f),
    };
    this.open.add(operation);
    return operation;
  }
}

export function wakeWaiters(operation: LiveOperation): void {
  const waiters = operation.waiters;
  operation.waiters = [];
  for (const resolve of waiters) resolve();
}
