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

/** Each route's template cut once at its placeholders: literal, name, literal, ... (a path is built per call). */
const TEMPLATE_PARTS = new Map<RouteName, readonly string[]>(
  (Object.keys(ROUTES) as RouteName[]).map((route) => [route, ROUTES[route].template.split(/\{(tenantId|resourceId)\}/)]),
);

/** The route's path below the base path, with its ids encoded and its query; throws BAD_USER_INPUT for a path-walking id. */
export function routePath(route: RouteName, tenantId: string, resourceId: string | undefined, query: Record<string, QueryValue> = {}): string {
  const parts = TEMPLATE_PARTS.get(route) as readonly string[];
  let path = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const value = parts[i] === 'tenantId' ? tenantId : resourceId;
    if (value === undefined) throw new Error(`Route ${route} needs a ${parts[i]}`);
    path += pathSegment(value) + (parts[i + 1] as string);
  }
  return path + encodeQuery(query);
}

/**
 * The path prefix of everything of one tenant (every route starts with its tenant), as the
 * request paths carry it: what the cache drops when a credential is refused for that tenant.
 */
export function tenantPathPrefix(tenantId: string): string {
  const parts = TEMPLATE_PARTS.get('search') as readonly string[];
  return `${parts[0] as string}${pathSegment(tenantId)}/`;
}
