/**
 * CSRF prevention for a bearer-token API. A cross-site page can make a browser send a "simple"
 * request without a CORS preflight: a form post (form-encoded, multipart, text/plain) or a GET.
 * Form posts are refused unless they carry a header only a preflighted request can carry. GETs
 * are let through, because standard clients (urql by default) send queries as GET: a GET can
 * only run a query (Yoga refuses mutations over GET with 405), a browser attaches no bearer
 * token to a cross-site request, and CORS keeps the answer from the page. The package
 * @graphql-yoga/plugin-csrf-prevention refuses every header-less GET, hence this plugin.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';

const NON_PREFLIGHTED_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
const PREFLIGHT_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight'];

export function csrfPreventionPlugin(): Plugin {
  return {
    onRequestParse({ request }) {
      if (request.method === 'GET') return;
      const contentType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
      const simple = contentType === '' || NON_PREFLIGHTED_CONTENT_TYPES.includes(contentType);
      if (!simple || PREFLIGHT_HEADERS.some((name) => request.headers.has(name))) return;
      throw createGraphQLError('Required CSRF header(s) not present', { extensions: { http: { status: 403 } } });
    },
  };
}
