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

/** Each route's template split once (one call per upstream request): text, id name, text, ... */
const templatePieces = new Map<RouteName, string[]>();

/** The route's path below the base path, with its ids encoded and its query; throws BAD_USER_INPUT for a path-walking id. */
export function routePath(route: RouteName, tenantId: string, resourceId: string | undefined, query: Record<string, QueryValue> = {}): string {
  let pieces = templatePieces.get(route);
  if (!pieces) templatePieces.set(route, (pieces = ROUTES[route].template.split(/\{(tenantId|resourceId)\}/)));
  let path = pieces[0]!;
  for (let i = 1; i < pieces.length; i += 2) {
    const name = pieces[i];
    const value = name === 'tenantId' ? tenantId : resourceId;
    if (value === undefined) throw new Error(`Route ${route} needs a ${name}`);
    path += pathSegment(value) + pieces[i + 1]!;
  }
  return `${path}${encodeQuery(query)}`;
}
