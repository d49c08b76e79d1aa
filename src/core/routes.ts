/**
 * The upstream's routes, once: what each is called, its method and path template, and how long
 * the response cache keeps its answers (the setting's name and default). Data only (on the ground floor), so
 * src/config.ts can read the TTL defaults from here.
 */

/** A TTL setting: the environment variable and its default in seconds. */
export type TtlSetting = readonly [env: string, seconds: number];

export interface RouteSpec {
  /** GET: idempotent (retried, cached); POST: not (retried only when provably not sent). */
  method: 'GET' | 'POST';
  /** The path with {tenantId} and {resourceId} placeholders (also the span's url.template: never an id). */
  template: string;
  /** The response cache's TTL setting; absent: never cached. */
  ttl?: TtlSetting;
  /** Names the call in messages: "resource abc", "the resource search". */
  what(resourceId: string): string;
  /**
   * The upstream's rate-limit category (its documentation: paginated GETs, other GETs, updates);
   * `undocumented`: the platform does not say, so the gateway learns it from the answers' headers.
   */
  budget: RateCategory | 'undocumented';
  /**
   * What an update of a resource makes stale among this route's answers: the resource's own
   * (`resource`), or every answer of its tenant (`tenant`: the lists that show it). The response
   * cache drops them and the live queries that read them re-run; absent: an update changes nothing.
   */
  staleAfterUpdate?: 'resource' | 'tenant';
}

/**
 * The upstream throttles per tenant and minute in three categories: GETs of a paginated list
 * (the search, the decommissioned list, the antivirus list), other GETs, and updates.
 */
export const RATE_CATEGORIES = ['paginated', 'other', 'update'] as const;
export type RateCategory = (typeof RATE_CATEGORIES)[number];

/** The upstream's documented limits per tenant and minute (UPSTREAM_RATE_LIMITS' defaults, the simulator's). */
export const DOCUMENTED_RATE_LIMITS: Readonly<Record<RateCategory, number>> = { paginated: 50, other: 500, update: 25 };

/**
 * Limits written as settings write them, `paginated=50,other=500,update=25` (any of the categories),
 * each at least `min`; null when the text is not such a list (the caller names the setting).
 */
export function parseCategoryLimits(text: string, min: number): Partial<Record<RateCategory, number>> | null {
  const limits: Partial<Record<RateCategory, number>> = {};
  for (const pair of text.split(',')) {
    const match = /^\s*(\w+)\s*=\s*(\d{1,9})\s*$/.exec(pair);
    const category = match?.[1] as RateCategory | undefined;
    if (!match || !category || !RATE_CATEGORIES.includes(category) || Number(match[2]) < min) return null;
    limits[category] = Number(match[2]);
  }
  return limits;
}

export const ROUTES = {
  search: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resources/search', ttl: ['CACHE_TTL_SEARCH_S', 5], budget: 'paginated', staleAfterUpdate: 'tenant', what: () => 'the resource search' },
  minimal: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resources/minimal', ttl: ['CACHE_TTL_MINIMAL_S', 5], budget: 'undocumented', staleAfterUpdate: 'tenant', what: () => 'the minimal resource list' },
  detail: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resources/{resourceId}', ttl: ['CACHE_TTL_DETAIL_S', 30], budget: 'other', staleAfterUpdate: 'resource', what: (id) => `resource ${id}` },
  update: { method: 'POST', template: '/api/v2/tenants/{tenantId}/resources/{resourceId}', budget: 'update', what: (id) => `the update of resource ${id}` },
  history: { method: 'GET', template: '/api/v2/tenants/{tenantId}/history/resources', ttl: ['CACHE_TTL_HISTORY_S', 60], budget: 'paginated', what: () => 'the decommissioned resource list' },
  historyDetail: { method: 'GET', template: '/api/v2/tenants/{tenantId}/history/resources/{resourceId}', ttl: ['CACHE_TTL_HISTORY_DETAIL_S', 300], budget: 'other', what: (id) => `decommissioned resource ${id}` },
  antivirus: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resources/antivirus/search', ttl: ['CACHE_TTL_ANTIVIRUS_S', 60], budget: 'paginated', staleAfterUpdate: 'tenant', what: () => 'the antivirus list' },
  applications: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resources/{resourceId}/applications', ttl: ['CACHE_TTL_APPLICATIONS_S', 60], budget: 'other', what: (id) => `the applications of resource ${id}` },
  resourceTypes: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resourceType/minimal', ttl: ['CACHE_TTL_RESOURCE_TYPES_S', 3_600], budget: 'other', what: () => 'the resource types' },
  availability: { method: 'GET', template: '/api/v2/tenants/{tenantId}/resources/{resourceId}/availability', ttl: ['CACHE_TTL_AVAILABILITY_S', 60], budget: 'other', what: (id) => `the availability of resource ${id}` },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/**
 * What a route's answer depends on, as the keys an update replaces: the resource's own
 * (`resource:<tenant>/<id>`) or its tenant's lists (`lists:<tenant>`), from `staleAfterUpdate`.
 * The response cache (generations) and the live queries (identifiers) both key by these, so
 * neither keeps a list of its own.
 */
export function dependenciesOf(route: RouteName, tenantId: string, resourceId?: string): string[] {
  const stale = (ROUTES[route] as RouteSpec).staleAfterUpdate;
  if (stale === 'resource' && resourceId !== undefined) return [`resource:${tenantId}/${resourceId}`];
  if (stale === 'tenant') return [`lists:${tenantId}`];
  return [];
}

/** What an update of a resource makes stale: every dependency any route's answer can have on it. */
export function staleAfterUpdate(tenantId: string, resourceId: string): string[] {
  return [...new Set((Object.keys(ROUTES) as RouteName[]).flatMap((route) => dependenciesOf(route, tenantId, resourceId)))];
}

/** An availability window that is over cannot change: it has a TTL of its own. */
export const AVAILABILITY_PAST_TTL: TtlSetting = ['CACHE_TTL_AVAILABILITY_PAST_S', 86_400];

type RoutesWithTtl = { [K in RouteName]: (typeof ROUTES)[K] extends { ttl: TtlSetting } ? K : never }[RouteName];

/** Routes the response cache keeps, and availability windows that are over. */
export type CachedRoute = RoutesWithTtl | 'availabilityPast';

/** Every cached route's TTL setting (src/config.ts reads them from the environment). */
export function ttlSettings(): Record<CachedRoute, TtlSetting> {
  const settings: Partial<Record<CachedRoute, TtlSetting>> = {};
  for (const [name, spec] of Object.entries(ROUTES) as [RouteName, RouteSpec][]) {
    if (spec.ttl) settings[name as RoutesWithTtl] = spec.ttl;
  }
  settings.availabilityPast = AVAILABILITY_PAST_TTL;
  return settings as Record<CachedRoute, TtlSetting>;
}
