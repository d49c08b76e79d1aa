import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FairScheduler } from '../../src/upstream/scheduler.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('FairScheduler', () => {
  it('bounds calls per process and per lane', async () => {
    const scheduler = new FairScheduler(4);
    const a = scheduler.lane(3);
    const b = scheduler.lane(3);
    let running = 0;
    let maxRunning = 0;
    let maxA = 0;
    let runningA = 0;
    const task = (lane: 'a' | 'b') => async () => {
      running++;
      if (lane === 'a') runningA++;
      maxRunning = Math.max(maxRunning, running);
      maxA = Math.max(maxA, runningA);
      await tick();
      running--;
      if (lane === 'a') runningA--;
    };
    await Promise.all([...Array.from({ length: 20 }, () => a.run(task('a'))), ...Array.from({ length: 20 }, () => b.run(task('b')))]);
    expect(maxRunning).toBe(4);
    expect(maxA).toBe(3);
    expect(scheduler.inFlight).toBe(0);
  });

  it('serves a small lane promptly although a big lane queued first', async () => {
    const scheduler = new FairScheduler(2);
    const big = scheduler.lane(2);
    const small = scheduler.lane(2);
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(name);
      await tick();
    };
    const bigDone = Promise.all(Array.from({ length: 50 }, (_, i) => big.run(work(`big${i}`))));
    const smallDone = small.run(work('small'));
    await Promise.all([bigDone, smallDone]);
    expect(order.indexOf('small')).toBeLessThan(4);
  });

  it('serves the older of two equal operations first, so they finish one after the other, not together', async () => {
    // Round-robin kept equal operations in step: they all finished together, then all waited on
    // their first call at once and the slots stood idle.
    const scheduler = new FairScheduler(4);
    const older = scheduler.lane(4);
    const younger = scheduler.lane(4);
    const done: string[] = [];
    const work = (name: string) => async () => {
      await tick();
      done.push(name);
    };
    await Promise.all([
      ...Array.from({ length: 12 }, () => older.run(work('older'))),
      ...Array.from({ length: 12 }, () => younger.run(work('younger'))),
    ]);
    // The younger always has a call moving (nothing in flight goes first), the older the rest.
    expect(done.lastIndexOf('older')).toBeLessThanOrEqual(15);
    expect(done.slice(-8)).toEqual(Array(8).fill('younger'));
  });

  it('drops a queued call whose signal aborts', async () => {
    const scheduler = new FairScheduler(1);
    const lane = scheduler.lane(1);
    const controller = new AbortController();
    const first = lane.run(async () => { await tick(); return 1; });
    const second = lane.run(async () => 2, controller.signal);
    controller.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    expect(await first).toBe(1);
    await tick(); // the slot is released just after the task settles
    expect(scheduler.inFlight).toBe(0);
  });
});

describe('FairScheduler lane expiry', () => {
  it('does not start a queued call whose lane expired while it waited (e.g. the operation deadline)', async () => {
    const scheduler = new FairScheduler(1);
    let deadlinePassed = false;
    const lane = scheduler.lane(1, { expired: () => (deadlinePassed ? new Error('deadline') : undefined) });
    let ran = 0;
    const first = lane.run(async () => { await tick(); deadlinePassed = true; ran++; return 1; });
    const second = lane.run(async () => { ran++; return 2; });
    expect(await first).toBe(1);
    await expect(second).rejects.toThrow('deadline');
    expect(ran).toBe(1);
    // An expired lane takes no slot: another lane still runs.
    expect(await scheduler.lane(1).run(async () => 3)).toBe(3);
    await tick(); // the slot is released just after the task settles
    expect(scheduler.inFlight).toBe(0);
    // A call queued after expiry is refused at once.
    await expect(lane.run(async () => 4)).rejects.toThrow('deadline');
  });
});

describe('FairScheduler abort listeners', () => {
  it('starts a call at once when a slot is free and nobody waits, with no abort listener; queued calls of one signal share one listener', async () => {
    const scheduler = new FairScheduler(2);
    const lane = scheduler.lane(2);
    const controller = new AbortController();
    const signal = controller.signal;
    const listeners = () => getEventListeners(signal, 'abort').length;
    // The real signal, its listener registrations counted.
    let added = 0;
    const addEventListener = signal.addEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      addEventListener(...args);
    };
    const gates = new Map<number, () => void>();
    const started: number[] = [];
    const task = (n: number) => () => new Promise<number>((resolve) => {
      started.push(n);
      gates.set(n, () => resolve(n));
    });
    const first = lane.run(task(1), signal);
    const second = lane.run(task(2), signal);
    // Both started synchronously, and neither holds a listener on the operation's signal.
    expect(started).toEqual([1, 2]);
    expect(added).toBe(0);
    const queued = [3, 4, 5].map((n) => lane.run(task(n), signal));
    expect(started).toEqual([1, 2]);
    expect(added).toBe(1);
    expect(listeners()).toBe(1);
    gates.get(1)!();
    expect(await first).toBe(1);
    await tick();
    expect(started).toEqual([1, 2, 3]);
    expect(listeners()).toBe(1);
    // The signal aborts: the calls still queued are dropped, those running run on.
    controller.abort(new Error('gone'));
    expect(listeners()).toBe(0);
    await expect(queued[1]).rejects.toThrow('gone');
    await expect(queued[2]).rejects.toThrow('gone');
    gates.get(2)!();
    gates.get(3)!();
    expect(await Promise.all([second, queued[0]])).toEqual([2, 3]);
    expect(started).toEqual([1, 2, 3]);
    await tick();
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.queued).toBe(0);
  });

  it('removes the shared listener once the last queued call of the signal has started', async () => {
    const scheduler = new FairScheduler(1);
    const lane = scheduler.lane(1);
    const signal = new AbortController().signal;
    const calls = Array.from({ length: 5 }, (_, i) => lane.run(async () => { await tick(); return i; }, signal));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
