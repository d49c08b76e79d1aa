/** The simulator's rate-limit settings from the environment (`npm run simulator`, `npm start`'s embedded simulator). */
import { describe, expect, it } from 'vitest';
import { rateLimitFromEnv, settingsFrom } from '../../src/simulator/settings.js';

describe('rateLimitFromEnv', () => {
  it('changes nothing when nothing is set: the documented limits stay', () => {
    expect(rateLimitFromEnv({})).toEqual({});
    expect(settingsFrom({ rateLimit: rateLimitFromEnv({ SIMULATOR_RATE_LIMIT: '' }) }).rateLimit)
      .toEqual({ enabled: true, windowSeconds: 60, limits: { paginated: 50, other: 500, update: 25 }, minimalCategory: 'other' });
  });

  it('reads on/off, some or all limits, the window and the minimal listing category', () => {
    expect(rateLimitFromEnv({ SIMULATOR_RATE_LIMIT: 'off' })).toEqual({ enabled: false });
    expect(rateLimitFromEnv({ SIMULATOR_RATE_LIMIT: 'on' })).toEqual({ enabled: true });
    expect(rateLimitFromEnv({
      SIMULATOR_RATE_LIMITS: 'paginated=5, update=2', SIMULATOR_RATE_WINDOW_S: '10', SIMULATOR_MINIMAL_CATEGORY: 'paginated',
    })).toEqual({ limits: { paginated: 5, update: 2 }, windowSeconds: 10, minimalCategory: 'paginated' });
    expect(settingsFrom({ rateLimit: rateLimitFromEnv({ SIMULATOR_RATE_LIMITS: 'paginated=5' }) }).rateLimit.limits)
      .toEqual({ paginated: 5, other: 500, update: 25 });
  });

  it.each([
    ['SIMULATOR_RATE_LIMIT', 'yes'],
    ['SIMULATOR_RATE_LIMIT', 'true'],
    ['SIMULATOR_RATE_LIMITS', 'paginated:50'],
    ['SIMULATOR_RATE_LIMITS', 'search=50'],
    ['SIMULATOR_RATE_LIMITS', 'paginated=-1'],
    ['SIMULATOR_RATE_WINDOW_S', '0'],
    ['SIMULATOR_RATE_WINDOW_S', '1.5'],
    ['SIMULATOR_MINIMAL_CATEGORY', 'update'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => rateLimitFromEnv({ [name]: value })).toThrow(new RegExp(`^${name} must be .*got '${value.replace('.', '\\.')}'`));
  });
});
