/**
 * What a browser gets: GraphiQL (bundled, no CDN) opening with the example operation and the
 * header that makes the answer say what it cost upstream; and `GET /` sending the browser there.
 * (The page, 9 MB of HTML and scripts, is compressed by content-encoding.ts.)
 */
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { EXAMPLE_OPERATION } from './example-operation.js';
import { LIVE_PATCH_HEADER } from './live-query.js';

/**
 * The headers GraphiQL sends with every operation: the answer then carries `extensions.upstream`,
 * and a live query's payloads carry the full result (GraphiQL shows payloads, it applies no patches).
 */
export const GRAPHIQL_HEADERS: Readonly<Record<string, string>> = { 'x-upstream-stats': '1', [LIVE_PATCH_HEADER]: 'none' };

export function graphiqlOptions(): GraphiQLOptions {
  const headers = JSON.stringify(GRAPHIQL_HEADERS, null, 2);
  return {
    title: 'Inventory GraphQL gateway',
    defaultQuery: EXAMPLE_OPERATION,
    // `headers` fills the first tab's header editor, `defaultHeaders` every new tab's.
    headers,
    defaultHeaders: headers,
    // Open the header editor, so that what is sent is in view.
    defaultEditorToolsVisibility: 'headers',
  };
}

/**
 * `GET /` (and HEAD) answers 302 to the GraphiQL endpoint, keeping the query string. 302, not
 * 308: browsers keep a permanent redirect, and GraphiQL can be switched off (GRAPHIQL=false).
 */
export function landingRedirectPlugin(endpoint: string): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== '/' || (request.method !== 'GET' && request.method !== 'HEAD')) return;
      endResponse(new fetchAPI.Response(null, { status: 302, headers: { location: `${endpoint}${url.search}` } }));
    },
  };
}
