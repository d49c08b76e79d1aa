/**
 * The simulator's settings: their shape, the defaults, and how a patch (startSimulator's
 * options, POST /__sim/config) changes them. Every room reads the one live settings object.
 */
import { DOCUMENTED_RATE_LIMITS, parseCategoryLimits, RATE_CATEGORIES, type RateCategory } from '../core/routes.js';
import { SimError } from './query.js';

export type FailureKind = '503' | 'drop' | '429';

/** The real platform's throttling categories for the resource APIs (see rate-limit.ts): the route table's. */
export { RATE_CATEGORIES, type RateCategory };

export interface RateLimitSettings {
  /** Off: no counting, no X-RateLimit-* headers, no throttling (the limits lifted). */
  enabled: boolean;
  /** Fixed windows aligned on multiples of this many seconds (UTC epoch). */
  windowSeconds: number;
  /** Requests per window, per tenant and category. */
  limits: Record<RateCategory, number>;
  /** The minimal listing's category, which the real platform does not document. */
  minimalCategory: 'paginated' | 'other';
}

export interface SimulatorSettings {
  seed: number;
  /** Resources of tenant client_1. */
  size: number;
  latencyMs: number;
  jitterMs: number;
  /** Extra latency of single routes (e.g. a slow availability service), added to latencyMs. */
  routeLatencyMs: Partial<Record<string, number>>;
  /** Share (0-1) of API requests answered with an injected failure. */
  failureRate: number;
  failureKinds: FailureKind[];
  /** Methods that failures are injected into. */
  faultMethods: string[];
  retryAfterSeconds: number;
  /** Accept API requests and never answer them (timeout tests). */
  hang: boolean;
  maxPageSize: number;
  auth: {
    enabled: boolean;
    clientId: string;
    clientSecret: string;
    tokenTtlSeconds: number;
    /** Some real token endpoints send expires_in as a string. */
    expiresInAsString: boolean;
    /**
     * More OAuth2 clients besides clientId/clientSecret (whose tokens see every tenant): a token
     * issued to one of these reads only its `tenants` (all when absent), and gets 403 on any other.
     */
    clients?: SimClient[];
  };
  rateLimit: RateLimitSettings;
}

/** An OAuth2 client of the simulator's token endpoint, optionally scoped to some tenants. */
export interface SimClient { clientId: string; clientSecret: string; tenants?: string[] }

/** A rateLimit patch: any part, limits too (e.g. only `{ limits: { paginated: 5 } }`). */
export type RateLimitPatch = Partial<Omit<RateLimitSettings, 'limits'>> & { limits?: Partial<RateLimitSettings['limits']> };

/** A settings patch (POST /__sim/config, startSimulator's options): auth and rateLimit may be given in part. */
export type SimulatorPatch = Omit<Partial<SimulatorSettings>, 'auth' | 'rateLimit'> & {
  auth?: Partial<SimulatorSettings['auth']>;
  rateLimit?: RateLimitPatch;
};

export const DEFAULT_SIMULATOR_SETTINGS: SimulatorSettings = {
  seed: 20261122,
  size: 500,
  latencyMs: 0,
  jitterMs: 0,
  routeLatencyMs: {},
  failureRate: 0,
  failureKinds: ['503', 'drop', '429'],
  faultMethods: ['GET'],
  retryAfterSeconds: 1,
  hang: false,
  maxPageSize: 1000,
  auth: { enabled: false, clientId: 'sim-client', clientSecret: 'sim-secret', tokenTtlSeconds: 3600, expiresInAsString: false },
  // The real upstream's documented limits for the resource APIs (shared/design/README.md, "Rate limits").
  rateLimit: { enabled: true, windowSeconds: 60, limits: { ...DOCUMENTED_RATE_LIMITS }, minimalCategory: 'other' },
};

/** The defaults with a patch laid over them; a malformed auth.clients list or rateLimit throws a SimError. */
export function settingsFrom(patch: SimulatorPatch): SimulatorSettings {
  const settings: SimulatorSettings = {
    ...DEFAULT_SIMULATOR_SETTINGS,
    ...patch,
    auth: { ...DEFAULT_SIMULATOR_SETTINGS.auth, ...patch.auth },
    rateLimit: mergeRateLimit(DEFAULT_SIMULATOR_SETTINGS.rateLimit, patch.rateLimit),
  };
  if (settings.auth.clients !== undefined) settings.auth.clients = validateClients(settings.auth.clients);
  return settings;
}

/**
 * Changes the live settings in place (the rooms hold the same object). Validates before it changes
 * anything, so a refused patch leaves the settings as they were. Returns whether the dataset must be rebuilt.
 */
export function applyPatch(settings: SimulatorSettings, patch: SimulatorPatch): boolean {
  const { auth, rateLimit, ...rest } = patch;
  const clients = auth?.clients === undefined ? undefined : validateClients(auth.clients);
  const limits = mergeRateLimit(settings.rateLimit, rateLimit);
  Object.assign(settings, rest);
  if (auth) Object.assign(settings.auth, auth, clients ? { clients } : {});
  settings.rateLimit = limits;
  return patch.seed !== undefined || patch.size !== undefined;
}

/** Refuses a malformed auth.clients list (a 400 on POST /__sim/config). */
export function validateClients(clients: unknown): SimClient[] {
  if (!Array.isArray(clients)) throw new SimError(400, 'auth.clients must be a list');
  return clients.map((c: unknown, i) => {
    const client = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    if (typeof client.clientId !== 'string' || client.clientId === '' || typeof client.clientSecret !== 'string' || client.clientSecret === '') {
      throw new SimError(400, `auth.clients[${i}] needs a clientId and a clientSecret`);
    }
    if (client.tenants !== undefined && !(Array.isArray(client.tenants) && client.tenants.every((t) => typeof t === 'string'))) {
      throw new SimError(400, `auth.clients[${i}].tenants must be a list of tenant ids`);
    }
    return { clientId: client.clientId, clientSecret: client.clientSecret, ...(client.tenants ? { tenants: [...(client.tenants as string[])] } : {}) };
  });
}

/** A rateLimit patch checked and laid over the current rate-limit settings (a new object); nonsense is a SimError 400. */
export function mergeRateLimit(current: RateLimitSettings, patch: unknown): RateLimitSettings {
  if (patch === undefined) return { ...current, limits: { ...current.limits } };
  const p = record(patch, 'rateLimit');
  for (const key of Object.keys(p)) {
    if (!['enabled', 'windowSeconds', 'limits', 'minimalCategory'].includes(key)) throw new SimError(400, `rateLimit.${key} is not a setting`);
  }
  if (p.enabled !== undefined && typeof p.enabled !== 'boolean') throw new SimError(400, 'rateLimit.enabled must be true or false');
  if (p.windowSeconds !== undefined && !wholeNumber(p.windowSeconds, 1, 86_400)) {
    throw new SimError(400, 'rateLimit.windowSeconds must be a whole number of seconds from 1 to 86400');
  }
  if (p.minimalCategory !== undefined && p.minimalCategory !== 'paginated' && p.minimalCategory !== 'other') {
    throw new SimError(400, "rateLimit.minimalCategory must be 'paginated' or 'other'");
  }
  const limits = { ...current.limits };
  if (p.limits !== undefined) {
    for (const [category, limit] of Object.entries(record(p.limits, 'rateLimit.limits'))) {
      if (!(RATE_CATEGORIES as readonly string[]).includes(category)) throw new SimError(400, `rateLimit.limits.${category} is not a category (${RATE_CATEGORIES.join(', ')})`);
      if (!wholeNumber(limit, 0, 1_000_000_000)) throw new SimError(400, `rateLimit.limits.${category} must be a whole number from 0`);
      limits[category as RateCategory] = limit;
    }
  }
  return {
    enabled: (p.enabled as boolean | undefined) ?? current.enabled,
    windowSeconds: (p.windowSeconds as number | undefined) ?? current.windowSeconds,
    limits,
    minimalCategory: (p.minimalCategory as RateLimitSettings['minimalCategory'] | undefined) ?? current.minimalCategory,
  };
}

const record = (value: unknown, name: string): Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SimError(400, `${name} must be an object`);
  return value as Record<string, unknown>;
};

const wholeNumber = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/**
 * The rate-limit settings from the environment (`npm run simulator`, and `npm start`'s embedded
 * simulator): SIMULATOR_RATE_LIMIT on|off, SIMULATOR_RATE_LIMITS `paginated=50,other=500,update=25`
 * (any of them), SIMULATOR_RATE_WINDOW_S, SIMULATOR_MINIMAL_CATEGORY paginated|other. Unset ones keep
 * the defaults. A bad value throws a SimError whose message names the variable.
 */
export function rateLimitFromEnv(env: Record<string, string | undefined>): RateLimitPatch {
  const patch: RateLimitPatch = {};
  const set = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]?.trim());
  const bad = (name: string, expected: string): never => {
    throw new SimError(400, `${name} must be ${expected}, got '${(env[name] ?? '').slice(0, 80)}'`);
  };
  const onOff = set('SIMULATOR_RATE_LIMIT');
  if (onOff !== undefined) patch.enabled = onOff === 'on' ? true : onOff === 'off' ? false : bad('SIMULATOR_RATE_LIMIT', 'on or off');
  const limits = set('SIMULATOR_RATE_LIMITS');
  if (limits !== undefined) {
    patch.limits = parseCategoryLimits(limits, 0) ?? bad('SIMULATOR_RATE_LIMITS', `category=limit pairs separated by commas (categories: ${RATE_CATEGORIES.join(', ')})`);
  }
  const window = set('SIMULATOR_RATE_WINDOW_S');
  if (window !== undefined) {
    if (!/^\d{1,5}$/.test(window) || Number(window) < 1 || Number(window) > 86_400) bad('SIMULATOR_RATE_WINDOW_S', 'a whole number of seconds from 1 to 86400');
    patch.windowSeconds = Number(window);
  }
  const minimal = set('SIMULATOR_MINIMAL_CATEGORY');
  if (minimal !== undefined) {
    if (minimal !== 'paginated' && minimal !== 'other') bad('SIMULATOR_MINIMAL_CATEGORY', 'paginated or other');
    patch.minimalCategory = minimal as RateLimitSettings['minimalCategory'];
  }
  return patch;
}
