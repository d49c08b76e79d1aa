/** Environment -> typed settings, read once at start-up. An invalid value stops start-up with one line naming it. */
import {
  boolSetting, ConfigError, federationSecretSetting, intSetting, mapValues, redisSetting, trustedDocumentsSetting, upstreamSetting, urlSetting,
  type Env, type RedisSettings,
} from './config-readers.js';
import { identitySetting, type IdentitySettings } from './identity/settings.js';
import { DOCUMENTED_RATE_LIMITS, parseCategoryLimits, ttlSettings, type CachedRoute, type RateCategory } from './core/routes.js';

export type AuthMode = 'passthrough' | 'client-credentials' | 'none';

export type { CachedRoute } from './core/routes.js';
export type { IdentitySettings } from './identity/settings.js';
export { bareHash, ConfigError, SIMULATOR_UPSTREAM, type RedisSettings } from './config-readers.js';

export interface CacheSettings {
  /** How long an answer is fresh, per route; 0: that route is not cached. */
  ttlMs: Record<CachedRoute, number>;
  /** After its TTL, an entry is still served this long while one background call refreshes it. */
  staleWhileRevalidateMs: number;
  /** After its TTL, an entry is served this long when the upstream fails (flagged in the answer). */
  staleIfErrorMs: number;
  /** The in-process level's memory, in bytes (LRU). */
  maxBytes: number;
  /** Keys of passthrough callers are an HMAC of their credential with this secret. */
  scopeSecret: string;
  /**
   * Passthrough: a caller's entries are served only while the upstream accepted the credential
   * this recently; past it, one upstream call proves it again (0: once per operation).
   */
  credentialRecheckMs: number;
}

/**
 * TTL defaults (src/core/routes.ts): resource types change rarely; a detail, applications and
 * history records are read often and change now and then; searches and the minimal list are short
 * (they change with every record); an availability window that is over cannot change.
 */
const TTL_DEFAULTS_S = ttlSettings();

export interface GatewayConfig {
  port: number;
  host: string;
  /** Upstream base URL; null means: start the embedded simulator and use it. */
  inventoryApiUrl: string | null;
  authMode: AuthMode;
  clientId: string | null;
  clientSecret: string | null;
  tokenUrl: string | null;
  /** Per upstream attempt. */
  upstreamTimeoutMs: number;
  /** Whole operation: no upstream work continues past it. */
  operationTimeoutMs: number;
  upstreamRetries: number;
  /** Longest Retry-After the gateway waits for before giving up with RATE_LIMITED. */
  maxRetryAfterMs: number;
  /** Retry budget (process-wide): retries may add this % of the first attempts of the last 10 s... */
  retryBudgetPercent: number;
  /** ...plus this many retries per second whatever the traffic. */
  retryBudgetMinPerSecond: number;
  /** Consecutive upstream failures (connection errors, timeouts, 5xx) that open the circuit breaker; 0 = no breaker. */
  breakerFailureThreshold: number;
  /** How long the open breaker refuses calls before letting one probe call through. */
  breakerCooldownMs: number;
  upstreamMaxInFlight: number;
  upstreamMaxInFlightPerOperation: number;
  defaultPageSize: number;
  maxPageSize: number;
  maxAvailabilityWindowDays: number;
  /** Upstream calls one operation may make: refused up front by estimate, and stopped at run time. */
  maxUpstreamCallsPerOperation: number;
  /** Admission control (src/server/limits/admission.ts): upstream call slots that operations in progress may claim in all; an operation claims min(estimated calls, upstreamMaxInFlightPerOperation). */
  admissionCapacity: number;
  /** The same bound for one caller (Authorization digest, else socket address). */
  admissionCapacityPerCaller: number;
  /** Longest wait for admission before OVERLOADED (HTTP 503); below operationTimeoutMs. 0: no waiting. */
  maxAdmissionWaitMs: number;
  /** Operations waiting for admission at most; beyond, one is shed at once. */
  maxAdmissionQueue: number;
  /** SIGTERM: how long in-flight requests may take to finish; at least operationTimeoutMs. */
  shutdownGraceMs: number;
  limits: { maxDepth: number; maxAliases: number; maxTokens: number; maxFragmentExpansions: number; maxBatch: number; maxBodyBytes: number };
  /** DOCUMENT_CACHE_MAX_BYTES: estimated heap of the document cache (parsed documents and their compiled code; src/server/document-cache.ts). */
  documentCacheMaxBytes: number;
  exposeCredentialSecrets: boolean;
  graphiql: boolean;
  introspection: boolean;
  /** FEDERATION_SECRET: with introspection off, `_service { sdl }` is served only to requests carrying it (x-federation-secret). */
  federationSecret: string | null;
  /** UPSTREAM_STATS: `x-upstream-stats: 1` adds what the operation cost upstream to the answer. */
  upstreamStats: boolean;
  /** EXPLAIN: `x-explain: 1` answers the operation's cost plan instead of running it (src/server/limits/explain.ts; who may: explain-access.ts). */
  explain: boolean;
  /** HTTP connections: a client that has not sent its request headers within headersTimeoutMs is closed; one address holds at most maxConnectionsPerAddress (0: no bound). */
  connections: { headersTimeoutMs: number; maxConnectionsPerAddress: number };
  corsOrigins: string[] | '*' | null;
  /** TRUSTED_DOCUMENTS: the only operations served (hash to document), or null: any document. */
  trustedDocuments: ReadonlyMap<string, string> | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Prometheus metrics at /metrics. */
  metrics: boolean;
  /** The upstream response cache (src/upstream/response-cache.ts); null: off (CACHE=false). */
  cache: CacheSettings | null;
  /** REDIS_URL: the fleet's shared cache level and token store; null: in-process only. */
  redis: RedisSettings | null;
  /** Live queries (`@live`, src/server/live/live-query.ts). */
  live: LiveSettings;
  /** The upstream's rate limits (src/upstream/rate-budget.ts); null: not budgeted (UPSTREAM_RATE_LIMITS=off). */
  rateLimits: RateLimitSettings | null;
  /** Who is asking (src/identity/): the callers' OpenID issuers and what their tokens must say; null: no inbound identity. */
  identity: IdentitySettings | null;
  /** AUTH=off: no inbound identity on purpose (something in front of the gateway authenticates); main.ts warns at start. */
  identityOff: boolean;
}


export interface RateLimitSettings {
  /** Each category's limit per tenant and window until the upstream's headers say it. */
  defaults: Record<RateCategory, number>;
  /** The upstream's fixed window, in seconds. */
  windowS: number;
  /** Tenants whose remaining budget /metrics shows on series of their own (the others: one series per category). */
  metricTenants: string[];
  /** The share of a window (0-1) live polls and cache refreshes may spend together. */
  backgroundShare: number;
  /** The share of a window (0-1) one caller may spend while other callers of the tenant are there. */
  callerShare: number;
}

export interface LiveSettings {
  /** How often each distinct upstream read of a live operation is polled, per route (LIVE_POLL_INTERVAL_S, else the route's cache TTL, at least 2 s). */
  pollIntervalMs: Record<CachedRoute, number>;
  /** Open live operations in this process at most; beyond, OVERLOADED. */
  maxOperations: number;
  /** The same bound for one caller. */
  maxOperationsPerCaller: number;
}

/** Each cached route's TTL setting in seconds: the cache's TTLs and the live polls' default periods. */
function ttlSecondsByRoute(env: Env): Record<CachedRoute, number> {
  const seconds = {} as Record<CachedRoute, number>;
  for (const [route, [name, fallback]] of Object.entries(TTL_DEFAULTS_S) as [CachedRoute, readonly [string, number]][]) {
    seconds[route] = intSetting(env, name, fallback, 0, 30 * 86_400);
  }
  return seconds;
}

function cacheSetting(env: Env): CacheSettings | null {
  if (!boolSetting(env, 'CACHE', true)) return null;
  return {
    ttlMs: mapValues(ttlSecondsByRoute(env), (s) => s * 1000),
    staleWhileRevalidateMs: intSetting(env, 'CACHE_STALE_WHILE_REVALIDATE_S', 10, 0, 86_400) * 1000,
    staleIfErrorMs: intSetting(env, 'CACHE_STALE_IF_ERROR_S', 3_600, 0, 7 * 86_400) * 1000,
    maxBytes: intSetting(env, 'CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    scopeSecret: env.CACHE_SCOPE_SECRET || 'inventory-gateway-cache-scope',
    credentialRecheckMs: intSetting(env, 'CACHE_CREDENTIAL_RECHECK_S', 10, 0, 3_600) * 1000,
  };
}

/** Polling faster than this would cost the upstream more than the cache saves. */
const MIN_LIVE_POLL_S = 2;

function liveSetting(env: Env): LiveSettings {
  const fixed = env.LIVE_POLL_INTERVAL_S?.trim() ? intSetting(env, 'LIVE_POLL_INTERVAL_S', MIN_LIVE_POLL_S, 1, 86_400) : null;
  // The route's TTL as the cache reads it (also when the cache is off: the same setting).
  const pollIntervalMs = mapValues(ttlSecondsByRoute(env), (s) => (fixed ?? Math.max(MIN_LIVE_POLL_S, s)) * 1000);
  const maxOperations = intSetting(env, 'MAX_LIVE_OPERATIONS', 5_000, 1, 1_000_000);
  const maxOperationsPerCaller = intSetting(env, 'MAX_LIVE_OPERATIONS_PER_CALLER', Math.min(500, maxOperations), 1, 1_000_000);
  if (maxOperationsPerCaller > maxOperations) {
    throw new ConfigError(`MAX_LIVE_OPERATIONS_PER_CALLER (${maxOperationsPerCaller}) must not exceed MAX_LIVE_OPERATIONS (${maxOperations})`);
  }
  return { pollIntervalMs, maxOperations, maxOperationsPerCaller };
}

/** UPSTREAM_RATE_LIMITS: `off`, or limits per category (`paginated=50,other=500,update=25`; missing ones documented). */
function rateLimitSetting(env: Env): RateLimitSettings | null {
  const raw = env.UPSTREAM_RATE_LIMITS?.trim() ?? '';
  if (raw === 'off') return null;
  const given = raw === '' ? {} : parseCategoryLimits(raw, 1);
  if (!given) throw new ConfigError(`UPSTREAM_RATE_LIMITS must be 'off' or a list like 'paginated=50,other=500,update=25' (each at least 1), got '${raw}'`);
  const defaults = { ...DOCUMENTED_RATE_LIMITS, ...given };
  const metricTenants = (env.RATE_LIMIT_METRIC_TENANTS ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
  return {
    defaults,
    windowS: intSetting(env, 'UPSTREAM_RATE_WINDOW_S', 60, 1, 86_400),
    metricTenants,
    backgroundShare: intSetting(env, 'RATE_LIMIT_BACKGROUND_PERCENT', 50, 0, 100) / 100,
    callerShare: intSetting(env, 'RATE_LIMIT_CALLER_PERCENT', 50, 1, 100) / 100,
  };
}

/**
 * The built-in CACHE_SCOPE_SECRET is the same in every installation: with it, anyone who can read
 * a shared Redis can test guessed credentials against the digests in its keys. In production a
 * Redis cache shared by passthrough callers needs a secret of the installation's own.
 */
function requireScopeSecret(env: Env, production: boolean, authMode: AuthMode): void {
  if (!production || authMode !== 'passthrough' || !env.REDIS_URL?.trim() || !boolSetting(env, 'CACHE', true)) return;
  if (!env.CACHE_SCOPE_SECRET) {
    throw new ConfigError('CACHE_SCOPE_SECRET is required with NODE_ENV=production, REDIS_URL and passthrough auth (the built-in key is for development): set a random secret, the same on every replica');
  }
}

export function loadConfig(env: Env = process.env): GatewayConfig {
  const production = env.NODE_ENV === 'production';
  const inventoryApiUrl = upstreamSetting(env, production);
  const authRaw = env.INVENTORY_AUTH_MODE?.trim() || (inventoryApiUrl ? 'passthrough' : 'none');
  if (authRaw !== 'passthrough' && authRaw !== 'client-credentials' && authRaw !== 'none') {
    throw new ConfigError(`INVENTORY_AUTH_MODE must be passthrough, client-credentials or none, got '${authRaw}'`);
  }
  const clientId = env.INVENTORY_CLIENT_ID?.trim() || null;
  const clientSecret = env.INVENTORY_CLIENT_SECRET || null;
  if (authRaw === 'client-credentials' && (!clientId || !clientSecret)) {
    throw new ConfigError('INVENTORY_CLIENT_ID and INVENTORY_CLIENT_SECRET are required with INVENTORY_AUTH_MODE=client-credentials');
  }
  requireScopeSecret(env, production, authRaw);
  const identity = identitySetting(env, production, authRaw, inventoryApiUrl === null);
  const tokenUrl = urlSetting(env, 'INVENTORY_TOKEN_URL');
  const maxPageSize = intSetting(env, 'MAX_PAGE_SIZE', 500, 1, 10_000);
  const defaultPageSize = intSetting(env, 'DEFAULT_PAGE_SIZE', 50, 1, 10_000);
  if (defaultPageSize > maxPageSize) throw new ConfigError(`DEFAULT_PAGE_SIZE (${defaultPageSize}) must not exceed MAX_PAGE_SIZE (${maxPageSize})`);
  const cors = env.CORS_ORIGINS?.trim();
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as GatewayConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be debug, info, warn, error or silent, got '${logLevel}'`);
  const operationTimeoutMs = intSetting(env, 'OPERATION_TIMEOUT_MS', 30_000, 10, 600_000);
  const upstreamMaxInFlight = intSetting(env, 'UPSTREAM_MAX_IN_FLIGHT', 64, 1, 10_000);
  const rateLimits = rateLimitSetting(env);
  // An operation (or batched request) may cost at most what a tenant's whole window allows.
  const callsPerWindow = rateLimits ? Object.values(rateLimits.defaults).reduce((a, b) => a + b, 0) : 1_000;
  return {
    port: intSetting(env, 'PORT', 4000, 0, 65_535),
    host: env.HOST?.trim() || '0.0.0.0',
    inventoryApiUrl,
    authMode: authRaw,
    clientId,
    clientSecret,
    tokenUrl,
    upstreamTimeoutMs: intSetting(env, 'UPSTREAM_TIMEOUT_MS', 10_000, 10, 600_000),
    operationTimeoutMs,
    upstreamRetries: intSetting(env, 'UPSTREAM_RETRIES', 10, 0, 10),
    maxRetryAfterMs: intSetting(env, 'UPSTREAM_MAX_RETRY_AFTER_MS', 5_000, 0, 120_000),
    retryBudgetPercent: intSetting(env, 'UPSTREAM_RETRY_BUDGET_PERCENT', 50, 0, 1_000),
    retryBudgetMinPerSecond: intSetting(env, 'UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND', 10, 0, 100_000),
    breakerFailureThreshold: intSetting(env, 'UPSTREAM_BREAKER_FAILURES', 20, 0, 100_000),
    breakerCooldownMs: intSetting(env, 'UPSTREAM_BREAKER_COOLDOWN_MS', 1_000, 10, 600_000),
    upstreamMaxInFlight,
    upstreamMaxInFlightPerOperation: intSetting(env, 'UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION', 16, 1, 10_000),
    defaultPageSize,
    maxPageSize,
    maxAvailabilityWindowDays: intSetting(env, 'MAX_AVAILABILITY_WINDOW_DAYS', 366, 1, 3650),
    maxUpstreamCallsPerOperation: intSetting(env, 'MAX_UPSTREAM_CALLS', callsPerWindow, 1, 1_000_000),
    // Admission control and shutdown: defaults follow the upstream limits and the deadline.
    ...(() => {
      const admissionCapacity = intSetting(env, 'ADMISSION_CAPACITY', 2 * upstreamMaxInFlight, 1, 1_000_000);
      // One caller may take three quarters: the rest stays free for everyone else.
      const admissionCapacityPerCaller = intSetting(env, 'ADMISSION_CAPACITY_PER_CALLER', Math.max(1, Math.floor((admissionCapacity * 3) / 4)), 1, 1_000_000);
      if (admissionCapacityPerCaller > admissionCapacity) {
        throw new ConfigError(`ADMISSION_CAPACITY_PER_CALLER (${admissionCapacityPerCaller}) must not exceed ADMISSION_CAPACITY (${admissionCapacity})`);
      }
      const maxAdmissionWaitMs = intSetting(env, 'MAX_ADMISSION_WAIT_MS', Math.min(5_000, Math.floor(operationTimeoutMs / 2)), 0, 600_000);
      if (maxAdmissionWaitMs >= operationTimeoutMs) {
        throw new ConfigError(`MAX_ADMISSION_WAIT_MS (${maxAdmissionWaitMs}) must be below OPERATION_TIMEOUT_MS (${operationTimeoutMs})`);
      }
      const maxAdmissionQueue = intSetting(env, 'MAX_ADMISSION_QUEUE', 256, 0, 1_000_000);
      const shutdownGraceMs = intSetting(env, 'SHUTDOWN_GRACE_MS', operationTimeoutMs + 5_000, 0, 3_600_000);
      if (shutdownGraceMs < operationTimeoutMs) {
        throw new ConfigError(`SHUTDOWN_GRACE_MS (${shutdownGraceMs}) must be at least OPERATION_TIMEOUT_MS (${operationTimeoutMs})`);
      }
      return { admissionCapacity, admissionCapacityPerCaller, maxAdmissionWaitMs, maxAdmissionQueue, shutdownGraceMs };
    })(),
    limits: {
      maxDepth: intSetting(env, 'MAX_QUERY_DEPTH', 15, 1, 100),
      maxAliases: intSetting(env, 'MAX_ALIASES', 30, 1, 10_000),
      maxTokens: intSetting(env, 'MAX_TOKENS', 2_000, 10, 1_000_000),
      maxFragmentExpansions: intSetting(env, 'MAX_FRAGMENT_EXPANSIONS', 1_000, 1, 1_000_000),
      maxBatch: intSetting(env, 'MAX_BATCHED_OPERATIONS', 5, 0, 100),
      maxBodyBytes: intSetting(env, 'MAX_BODY_BYTES', 100_000, 1_000, 100_000_000),
    },
    documentCacheMaxBytes: intSetting(env, 'DOCUMENT_CACHE_MAX_BYTES', 32 * 1024 * 1024, 1024 * 1024, 64 * 1024 * 1024 * 1024),
    exposeCredentialSecrets: boolSetting(env, 'EXPOSE_CREDENTIAL_SECRETS', false),
    graphiql: boolSetting(env, 'GRAPHIQL', !production),
    introspection: boolSetting(env, 'INTROSPECTION', !production),
    federationSecret: federationSecretSetting(env),
    upstreamStats: boolSetting(env, 'UPSTREAM_STATS', !production),
    explain: boolSetting(env, 'EXPLAIN', !production),
    connections: {
      headersTimeoutMs: intSetting(env, 'HEADERS_TIMEOUT_MS', 10_000, 1_000, 60_000),
      maxConnectionsPerAddress: intSetting(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    },
    corsOrigins: cors === undefined || cors === '' ? null : cors === '*' ? '*' : cors.split(',').map((o) => o.trim()),
    trustedDocuments: trustedDocumentsSetting(env),
    logLevel,
    metrics: boolSetting(env, 'METRICS', true),
    cache: cacheSetting(env),
    redis: redisSetting(env),
    live: liveSetting(env),
    rateLimits,
    ...identity,
  };
}
