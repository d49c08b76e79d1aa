/**
 * Compression both ways, with node:zlib on whole bodies (answers and request bodies are bounded):
 *
 * - Answers: Brotli, gzip or deflate as the client prefers (Brotli first on a tie: browsers and
 *   Apollo's clients list it first), for bodies of 1 kB or more, never for streams (SSE,
 *   multipart), whose parts must reach the client as they come. Brotli at quality
 *   BROTLI_QUALITY, not the stream compressor's default 11 (16 s of CPU on the GraphiQL page):
 *   measured in the README ("Compression").
 * - Request bodies sent with `Content-Encoding: gzip`, `deflate` or `br` are inflated, with
 *   MAX_BODY_BYTES applied to the inflated size while inflating (zlib's maxOutputLength stops at
 *   the limit: a bomb gets 413, and no more than the limit is ever held); any other encoding
 *   gets 415, and data that does not decode 400.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

/** Measured on the bench's query (b) and the GraphiQL page: most of quality 11's gain at a few percent of its CPU. */
export const BROTLI_QUALITY = 5;

const ENCODERS = {
  br: (body: Buffer) => brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body: Buffer) => gzip(body),
  deflate: (body: Buffer) => deflate(body),
} as const;
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);

export type Encoding = keyof typeof ENCODERS;

/** The answer's body in that encoding, as served (bench/compression.ts measures it). */
export const encode = (encoding: Encoding, body: Buffer): Promise<Buffer> => ENCODERS[encoding](body);
/** Offered, best first: the server's preference when the client weighs several alike. */
const ENCODINGS: readonly Encoding[] = ['br', 'gzip', 'deflate'];

const DECODERS: Record<string, (body: Buffer, options: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};
/** More than this many codings on one body is not something a client does. */
const MAX_CODINGS = 2;

/** Bodies known to be smaller than this are sent as they are. */
const MIN_COMPRESSED_BYTES = 1024;
/** Streams whose parts must reach the client as they come: a compressor would hold them back. */
const STREAMED_TYPES = ['text/event-stream', 'multipart/mixed'];

/** The encoding to use for an Accept-Encoding header (RFC 9110 §12.5.3: q-values, `*`), or null for identity. */
export function negotiateEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name) weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let best: Encoding | null = null;
  let bestWeight = 0;
  for (const encoding of ENCODINGS) {
    const weight = weights.get(encoding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [encoding, weight];
  }
  return best;
}

/** zlib's output is a buffer of its own (an ArrayBuffer, never shared): typed as such for Response and Request. */
const own = (buffer: Buffer) => buffer as Buffer<ArrayBuffer>;

/** A request refused before it is parsed: a GraphQL error body with its code, and the HTTP status. */
export function refusal(fetchAPI: { Response: typeof Response }, status: number, code: string, message: string): Response {
  return new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Inflates compressed request bodies. Register it first: the inflated request is the one every
 * later hook (request id, metrics, sessions) sees. A body without a Content-Length or over
 * MAX_BODY_BYTES as sent is left to bodyLimitPlugin's refusal, unread.
 */
export function requestDecodingPlugin(maxBodyBytes: number): Plugin {
  return {
    async onRequest({ request, setRequest, endResponse, fetchAPI }) {
      const header = request.headers.get('content-encoding');
      if (header === null || request.method === 'GET' || request.method === 'HEAD') return;
      const codings = header.split(',').map((s) => s.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
      if (codings.length === 0) return;
      const unknown = codings.find((c) => !(c in DECODERS));
      if (unknown !== undefined || codings.length > MAX_CODINGS) {
        return endResponse(refusal(fetchAPI, 415, 'BAD_USER_INPUT', `Content-Encoding '${unknown === undefined ? header : unknown.slice(0, 40)}' is not supported: send gzip, deflate, br or none.`));
      }
      const length = request.headers.get('content-length');
      if (length === null || !/^\d+$/.test(length) || Number(length) > maxBodyBytes) return;
      let body: Buffer = Buffer.from(await request.arrayBuffer());
      // Codings are listed in the order they were applied: undone last first.
      for (const coding of codings.reverse()) {
        try {
          body = await DECODERS[coding]!(body, { maxOutputLength: maxBodyBytes });
        } catch (error) {
          if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
            return endResponse(refusal(fetchAPI, 413, 'OPERATION_TOO_EXPENSIVE', `The request body inflates to more than ${maxBodyBytes} bytes.`));
          }
          return endResponse(refusal(fetchAPI, 400, 'BAD_USER_INPUT', `The request body is not valid ${coding} data.`));
        }
      }
      const headers = new fetchAPI.Headers(request.headers);
      headers.delete('content-encoding');
      headers.set('content-length', String(body.length));
      setRequest(new fetchAPI.Request(request.url, { method: request.method, headers, body: own(body), signal: request.signal }));
    },
  };
}

/**
 * Compresses answers for clients that accept it. Compressible answers say
 * `Vary: Accept-Encoding`, for caches of GET queries. Register it last, so that it sees the final response.
 */
export function compressionPlugin(): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      if (response.headers.has('content-encoding')) return;
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
      const plain = Buffer.from(await response.arrayBuffer());
      const headers = new fetchAPI.Headers(response.headers);
      if (plain.length < MIN_COMPRESSED_BYTES) {
        headers.set('content-length', String(plain.length));
        return setResponse(new fetchAPI.Response(own(plain), { status: response.status, statusText: response.statusText, headers }));
      }
      const compressed = await encode(encoding, plain);
      headers.set('content-encoding', encoding);
      headers.set('content-length', String(compressed.length));
      setResponse(new fetchAPI.Response(own(compressed), { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
