/**
 * The gateway's HTTP server (main.ts listens on it) and what it allows a client's connections:
 *
 * - Request headers within HEADERS_TIMEOUT_MS of the request's start, else 408 and the connection
 *   closes. Node checks its timeouts only every `connectionsCheckingInterval` (30 s by default,
 *   which let slow clients hold connections for about a minute): here every second.
 * - The whole request within the operation deadline plus 5 s (an operation never needs longer).
 * - At most MAX_CONNECTIONS_PER_ADDRESS open connections from one client address; one more is
 *   closed at once (0: no bound). Behind a proxy every connection comes from the proxy's address:
 *   set it above the proxy's connections to the gateway, or 0.
 * - A POST body that states its length within MAX_BODY_BYTES is read whole before Yoga sees the
 *   request (wholeBodies).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../../config.js';

/** The largest request body wholeBodies reads before Yoga sees the request. */
const WHOLE_BODY_BYTES = 8 * 1024;
/** How often Node looks for connections past their headers or request timeout. */
const TIMEOUT_CHECK_MS = 1_000;

export function createHttpServer(config: Pick<GatewayConfig, 'operationTimeoutMs' | 'connections'>, listener: http.RequestListener): http.Server {
  const { headersTimeoutMs, maxConnectionsPerAddress } = config.connections;
  const requestTimeout = config.operationTimeoutMs + 5_000;
  const server = http.createServer({
    requestTimeout,
    // Node refuses a headers timeout longer than the request's (a short OPERATION_TIMEOUT_MS).
    headersTimeout: Math.min(headersTimeoutMs, requestTimeout),
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeoutMs),
  }, listener);
  if (maxConnectionsPerAddress > 0) boundConnectionsPerAddress(server, maxConnectionsPerAddress);
  return server;
}

function boundConnectionsPerAddress(server: http.Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * The gateway's request handler, given each POST body that states its length within
 * MAX_BODY_BYTES read whole, as a Buffer on `req.body`: whatwg-node takes such a body as it is,
 * instead of piping the request stream chunk by chunk into a web ReadableStream (about 5% of the
 * gateway's CPU on a small list query). Up to WHOLE_BODY_BYTES only: whatwg-node looks at such a
 * body through Object.keys, which lists every byte, and past about 10 KB that costs what the
 * stream did. Any other request goes through untouched: without a length, or over MAX_BODY_BYTES,
 * the body-limit plugin refuses it before anything reads it. A client that goes away before its
 * body is complete gets no answer (nobody is listening for one).
 */
export function wholeBodies(maxBodyBytes: number, handler: http.RequestListener): http.RequestListener {
  const upTo = Math.min(maxBodyBytes, WHOLE_BODY_BYTES);
  return (req, res) => {
    const length = req.method === 'POST' ? Number(req.headers['content-length']) : NaN;
    if (!(length > 0 && length <= upTo) || req.headers['transfer-encoding'] !== undefined) {
      handler(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      (req as http.IncomingMessage & { body?: Buffer }).body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      handler(req, res);
    });
    req.once('error', () => res.destroy());
  };
}
