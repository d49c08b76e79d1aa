/** The route table of the inventory interface: which method and path is which endpoint, and its rate-limit category. */
import type { RateCategory } from './settings.js';

export type RouteName =
  | 'search' | 'minimal' | 'detail' | 'update' | 'history' | 'historyDetail' | 'antivirus'
  | 'applications' | 'resourceTypes' | 'availability' | 'token';

export interface Route {
  name: RouteName;
  method: string;
  pattern: RegExp;
  /**
   * The real platform's throttling category: `paginated` for the lists answering the paging envelope,
   * `other` for other GETs, `update` for POST/PUT/DELETE; `minimal` for the minimal listing, whose category
   * is undocumented (the setting rateLimit.minimalCategory decides); null: not throttled (the token endpoint).
   */
  rate: RateCategory | 'minimal' | null;
}

const TENANT = '/api/v2/tenants/([^/]+)';
// Order matters: the first match wins, so the specific resource sub-paths come before `resources/{id}`.
const ROUTES: readonly Route[] = [
  { name: 'search', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/search$`), rate: 'paginated' },
  { name: 'minimal', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/minimal$`), rate: 'minimal' },
  { name: 'antivirus', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/antivirus/search$`), rate: 'paginated' },
  { name: 'applications', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)/applications$`), rate: 'other' },
  { name: 'availability', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)/availability$`), rate: 'other' },
  { name: 'detail', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)$`), rate: 'other' },
  { name: 'update', method: 'POST', pattern: new RegExp(`^${TENANT}/resources/([^/]+)$`), rate: 'update' },
  { name: 'history', method: 'GET', pattern: new RegExp(`^${TENANT}/history/resources$`), rate: 'paginated' },
  { name: 'historyDetail', method: 'GET', pattern: new RegExp(`^${TENANT}/history/resources/([^/]+)$`), rate: 'other' },
  { name: 'resourceTypes', method: 'GET', pattern: new RegExp(`^${TENANT}/resourceType/minimal$`), rate: 'other' },
  { name: 'token', method: 'POST', pattern: /^\/auth\/oauth\/token$/, rate: null },
];

export function findRoute(method: string | undefined, path: string): Route | undefined {
  return ROUTES.find((r) => r.method === method && r.pattern.test(path));
}

/** A known path asked with the wrong method (405 rather than 404). */
export function pathIsKnown(path: string): boolean {
  return ROUTES.some((r) => r.pattern.test(path));
}

/** The decoded path parameters: the tenant id first, then the resource id where the route has one. */
export function pathParams(route: Route, path: string): string[] {
  return (route.pattern.exec(path) ?? []).slice(1).map((g) => decodeURIComponent(g));
}
