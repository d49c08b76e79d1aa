/** Request paths from the route table: ids are encoded, and ids that could walk the path are refused. */
import { gatewayError } from '../core/errors.js';
import { ROUTES, type RouteName } from '../core/routes.js';

export type QueryValue = string | number | boolean | undefined | null;

/** Path segments are encoded, and ids that could walk the path ('.', '..') are refused outright. */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') throw gatewayError('BAD_USER_INPUT', 'Invalid path segment');
  return encodeURIComponent(value);
}

export function encodeQuery(query: Record<string, QueryValue>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    // encodeURIComponent turns '+' into %2B and ' ' into %20, as the upstream requires.
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The route's path below the base path, with its ids encoded and its query; throws BAD_USER_INPUT for a path-walking id. */
export function routePath(route: RouteName, tenantId: string, resourceId: string | undefined, query: Record<string, QueryValue> = {}): string {
  const path = ROUTES[route].template.replace(/\{(tenantId|resourceId)\}/g, (_, name: string) => {
    const value = name === 'tenantId' ? tenantId : resourceId;
    if (value === undefined) throw new Error(`Route ${route} needs a ${name}`);
    return pathSegment(value);
  });
  return `${path}${encodeQuery(query)}`;
}
