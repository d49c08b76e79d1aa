/**
 * The simulator's settings: their shape, the defaults, and how a patch (startSimulator's
 * options, POST /__sim/config) changes them. Every room reads the one live settings object.
 */
import { SimError } from './query.js';

export type FailureKind = '503' | 'drop' | '429';

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
}

/** An OAuth2 client of the simulator's token endpoint, optionally scoped to some tenants. */
export interface SimClient { clientId: string; clientSecret: string; tenants?: string[] }

/** A settings patch (POST /__sim/config, startSimulator's options): auth may be given in part. */
export type SimulatorPatch = Omit<Partial<SimulatorSettings>, 'auth'> & { auth?: Partial<SimulatorSettings['auth']> };

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
};

/** The defaults with a patch laid over them; a malformed auth.clients list throws a SimError. */
export function settingsFrom(patch: SimulatorPatch): SimulatorSettings {
  const settings: SimulatorSettings = {
    ...DEFAULT_SIMULATOR_SETTINGS,
    ...patch,
    auth: { ...DEFAULT_SIMULATOR_SETTINGS.auth, ...patch.auth },
  };
  if (settings.auth.clients !== undefined) settings.auth.clients = validateClients(settings.auth.clients);
  return settings;
}

/**
 * Changes the live settings in place (the rooms hold the same object). Validates before it changes
 * anything, so a refused patch leaves the settings as they were. Returns whether the dataset must be rebuilt.
 */
export function applyPatch(settings: SimulatorSettings, patch: SimulatorPatch): boolean {
  const { auth, ...rest } = patch;
  const clients = auth?.clients === undefined ? undefined : validateClients(auth.clients);
  Object.assign(settings, rest);
  if (auth) Object.assign(settings.auth, auth, clients ? { clients } : {});
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
