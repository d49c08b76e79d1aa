/** The simulator's faults room with a chosen random source: latency, hang, scripted and drawn failures. */
import { describe, expect, it } from 'vitest';
import { createFaults } from '../../src/simulator/faults.js';
import { findRoute, type Route } from '../../src/simulator/routes.js';
import { settingsFrom, type SimulatorPatch } from '../../src/simulator/settings.js';

const search = findRoute('GET', '/api/v2/tenants/client_1/resources/search') as Route;
const detail = findRoute('GET', '/api/v2/tenants/client_1/resources/r-1') as Route;
const update = findRoute('POST', '/api/v2/tenants/client_1/resources/r-1') as Route;

/** A faults room whose random draws are the given numbers, in order; it fails when it draws more. */
function setup(patch: SimulatorPatch, draws: number[] = []) {
  const settings = settingsFrom(patch);
  const random = () => {
    const next = draws.shift();
    if (next === undefined) throw new Error('drew more random numbers than expected');
    return next;
  };
  return { faults: createFaults({ settings, random }), settings, draws };
}

describe('simulator faults room', () => {
  it('adds route latency and jitter (a share of jitterMs) to the base latency', () => {
    const { faults } = setup({ latencyMs: 10, jitterMs: 100, routeLatencyMs: { availability: 50 } }, [0.25, 0.5]);
    expect(faults.latencyMs('search')).toBe(35);
    expect(faults.latencyMs('availability')).toBe(110);
    // No jitter configured: no draw.
    expect(setup({ latencyMs: 5 }).faults.latencyMs('search')).toBe(5);
  });

  it('draws a failure below failureRate, of the kind the second draw picks, for the configured methods only', () => {
    const { faults, draws } = setup({ failureRate: 0.3, failureKinds: ['503', 'drop', '429'] }, [0.29, 0.5, 0.3, 0.1, 0.99, 0.2]);
    expect(faults.decide(search)).toEqual({ kind: 'drop' });
    expect(faults.decide(search)).toBeNull();
    expect(faults.decide(search)).toEqual({ kind: '429' });
    // faultMethods is GET by default: an update is never drawn for (the last draw stays unused).
    expect(faults.decide(update)).toBeNull();
    expect(draws).toEqual([0.2]);
  });

  it('serves scripted faults first, in order, to the route they name, without a draw', () => {
    const { faults } = setup({ failureRate: 0 });
    expect(faults.inject({ route: 'detail', kind: '429', retryAfterSeconds: 2 }, { kind: '503' })).toBe(2);
    expect(faults.decide(search)).toEqual({ kind: '503' });
    expect(faults.decide(search)).toBeNull();
    expect(faults.decide(detail)).toEqual({ route: 'detail', kind: '429', retryAfterSeconds: 2 });
    expect(faults.decide(detail)).toBeNull();
  });

  it('hangs every request while hang is on, ahead of scripted faults, which wait for it to end', () => {
    const { faults, settings } = setup({ hang: true });
    faults.inject({ kind: '503' });
    expect(faults.decide(search)).toEqual({ kind: 'hang' });
    settings.hang = false;
    expect(faults.decide(search)).toEqual({ kind: '503' });
  });
});
