/**
 * What a browser gets: GraphiQL (bundled, no CDN) opening with the example operation and the
 * header that makes the answer say what it cost upstream; `GET /` sending the browser there;
 * and compressed responses for clients that accept them (the GraphiQL page is 9 MB of HTML and
 * scripts, a page of resources easily 100 kB of JSON).
 */
import { useContentEncoding } from '@whatwg-node/server';
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

/** Encodings offered, best first. No `br`: the stream Brotli compressor runs at quality 11 (16 s of CPU for the GraphiQL page). */
const ENCODINGS = ['gzip', 'deflate'] as const;
/** Bodies known to be smaller than this are sent as they are. */
const MIN_COMPRESSED_BYTES = 1024;
/** Streams whose parts must reach the client as they come: a compressor would hold them back. */
const STREAMED_TYPES = ['text/event-stream', 'multipart/mixed'];

/** The encoding to use for an Accept-Encoding header (RFC 9110 §12.5.3: q-values, `*`), or null for identity. */
export function negotiateEncoding(acceptEncoding: string | null): (typeof ENCODINGS)[number] | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name) weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let best: (typeof ENCODINGS)[number] | null = null;
  let bestWeight = 0;
  for (const encoding of ENCODINGS) {
    const weight = weights.get(encoding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [encoding, weight];
  }
  return best;
}

/**
 * Response compression by @whatwg-node/server's useContentEncoding, with three limits of ours:
 * the encoding is negotiated here (q-values, `*`, gzip before deflate, never Brotli), small and
 * streamed bodies are left alone, and compressed request bodies are NOT decompressed (its
 * onRequest is left out): MAX_BODY_BYTES checks Content-Length, and a 100 kB gzip body can
 * inflate to 100 MB. Compressible answers say `Vary: Accept-Encoding`, for caches of GET queries.
 * Register it last, so that it sees the final response.
 */
export function compressionPlugin(): Plugin {
  const compress = useContentEncoding().onResponse;
  return {
    onResponse(payload) {
      const { request, response, fetchAPI } = payload;
      if (!compress || response.headers.has('content-encoding')) return;
      const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
      if (STREAMED_TYPES.includes(type)) return;
      const length = response.headers.get('content-length');
      if (length !== null && Number(length) < MIN_COMPRESSED_BYTES) return;
      // Reading `body` turns a whatwg-node response's string into a stream (for every GraphQL
      // answer, compressed or not): asked only when no Content-Length says there is a body.
      if (length === null && !response.body) return;
      const vary = response.headers.get('vary');
      if (!vary?.toLowerCase().includes('accept-encoding')) response.headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
      const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
      if (!encoding) return;
      // useContentEncoding picks the first supported name of the header: hand it the negotiated one.
      const negotiated = { headers: new fetchAPI.Headers({ 'accept-encoding': encoding }) } as Request;
      return compress({ ...payload, request: negotiated });
    },
  };
}
