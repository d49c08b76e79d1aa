import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerStateChange } from '../../src/upstream/breaker.js';

function setup(failureThreshold = 5, cooldownMs = 1_000) {
  let t = 0;
  const changes: BreakerStateChange[] = [];
  const breaker = new CircuitBreaker({ failureThreshold, cooldownMs, now: () => t, onStateChange: (c) => changes.push(c) });
  return { breaker, changes, advance: (ms: number) => { t += ms; } };
}

const fail = (b: CircuitBreaker) => b.failure(b.acquire()!);
const succeed = (b: CircuitBreaker) => b.success(b.acquire()!);

describe('CircuitBreaker', () => {
  it('opens on a run of consecutive failures only', () => {
    const { breaker, changes } = setup(5);
    for (let i = 0; i < 4; i++) fail(breaker);
    succeed(breaker);
    for (let i = 0; i < 4; i++) fail(breaker);
    expect(breaker.state).toBe('closed');
    fail(breaker);
    expect(breaker.state).toBe('open');
    expect(changes).toEqual([expect.objectContaining({ from: 'closed', to: 'open', consecutiveFailures: 5 })]);
  });

  it('refuses calls while open, lets one probe through after the cool-down, and closes on its success', () => {
    const { breaker, changes, advance } = setup(3, 1_000);
    for (let i = 0; i < 3; i++) fail(breaker);
    expect(breaker.acquire()).toBeNull();
    advance(999);
    expect(breaker.acquire()).toBeNull();
    advance(1);
    expect(breaker.state).toBe('half-open');
    const probe = breaker.acquire();
    expect(probe?.probe).toBe(true);
    // Only one probe at a time.
    expect(breaker.acquire()).toBeNull();
    breaker.success(probe!);
    expect(breaker.state).toBe('closed');
    expect(breaker.acquire()?.probe).toBe(false);
    expect(changes.map((c) => `${c.from}->${c.to}`)).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
    expect(breaker.rejected).toBe(3);
  });

  it('opens again for another cool-down when the probe fails', () => {
    const { breaker, advance, changes } = setup(2, 500);
    fail(breaker);
    fail(breaker);
    advance(500);
    fail(breaker);
    expect(breaker.state).toBe('open');
    advance(499);
    expect(breaker.acquire()).toBeNull();
    advance(1);
    succeed(breaker);
    expect(breaker.state).toBe('closed');
    expect(changes.at(-1)).toMatchObject({ from: 'half-open', to: 'closed', failedProbes: 1, openForMs: 1_000 });
  });

  it('frees the probe slot when the probe is aborted by the gateway', () => {
    const { breaker, advance } = setup(1, 100);
    fail(breaker);
    advance(100);
    const probe = breaker.acquire()!;
    breaker.release(probe);
    expect(breaker.acquire()?.probe).toBe(true);
  });

  it('ignores late outcomes of calls admitted before it opened', () => {
    const { breaker, advance } = setup(2, 100);
    const early = breaker.acquire()!;
    fail(breaker);
    fail(breaker);
    breaker.success(early);
    expect(breaker.state).toBe('open');
    advance(100);
    expect(breaker.state).toBe('half-open');
  });

  it('is off with a threshold of 0', () => {
    const { breaker } = setup(0);
    for (let i = 0; i < 1_000; i++) fail(breaker);
    expect(breaker.state).toBe('closed');
  });

  it('is practically never opened by 30% random faults at the default run length of 20', () => {
    const { breaker } = setup(20);
    let random = 7;
    const rand = () => ((random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 200_000; i++) {
      const permit = breaker.acquire()!;
      if (rand() < 0.3) breaker.failure(permit);
      else breaker.success(permit);
    }
    expect(breaker.state).toBe('closed');
  });
});
