/**
 * The route table of the inventory interface: which method and path is which endpoint. Each
 * endpoint's rate-limit category is the platform's, read from the one route table
 * (src/core/routes.ts `budget`) by rate-limit.ts.
 */

export type RouteName =
  | 'search' | 'minimal' | 'detail' | 'update' | 'history' | 'historyDetail' | 'antivirus'
  | 'applications' | 'resourceTypes' | 'availability' | 'token';

export interface Route {
  name: RouteName;
  method: string;
  pattern: RegExp;
}

const TENANT = '/api/v2/tenants/([^/]+)';
// Order matters: the first match wins, so the specific resource sub-paths come before `resources/{id}`.
const ROUTES: readonly Route[] = [
  { name: 'search', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/search$`) },
  { name: 'minimal', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/minimal$`) },
  { name: 'antivirus', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/antivirus/search$`) },
  { name: 'applications', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)/applications$`) },
  { name: 'availability', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)/availability$`) },
  { name: 'detail', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)$`) },
  { name: 'update', method: 'POST', pattern: new RegExp(`^${TENANT}/resources/([^/]+)$`) },
  { name: 'history', method: 'GET', pattern: new RegExp(`^${TENANT}/history/resources$`) },
  { name: 'historyDetail', method: 'GET', pattern: new RegExp(`^${TENANT}/history/resources/([^/]+)$`) },
  { name: 'resourceTypes', method: 'GET', pattern: new RegExp(`^${TENANT}/resourceType/minimal$`) },
  { name: 'token', method: 'POST', pattern: /^\/auth\/oauth\/token$/ },
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
