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
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config.js';

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
