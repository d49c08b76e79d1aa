/** /readyz: whether this replica should get traffic (the liveness route, /healthz, is Yoga's own). */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../logger.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { Authentication } from './authentication.js';

/** Set by main.ts on SIGTERM: /readyz then answers 503 at once. */
export interface Lifecycle {
  readonly draining: boolean;
}

/**
 * The one health route pair. /healthz, liveness: the process is up (Yoga's own health check,
 * healthCheckEndpoint, answers it before any other plugin, admission or upstream work).
 * /readyz, readiness (here): not draining, the upstream answers and, with client credentials, a
 * token can be had.
 */
export function healthPlugin(client: UpstreamClient, logger: Logger, lifecycle: Lifecycle, authentication: Authentication): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const json = (status: number, body: unknown) =>
        endResponse(new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));
      if (url.pathname === '/readyz' && request.method === 'GET') {
        if (lifecycle.draining) return json(503, { status: 'draining' });
        // Tokens cannot be verified yet: every GraphQL request would be answered 503.
        if (authentication.waitingFor().length > 0) return json(503, { status: 'not ready', waitingFor: 'identity provider keys' });
        try {
          await client.readiness();
          json(lifecycle.draining ? 503 : 200, { status: lifecycle.draining ? 'draining' : 'ready' });
        } catch (error) {
          logger.warn('readiness check failed', { error });
          json(503, { status: lifecycle.draining ? 'draining' : 'not ready' });
        }
      }
    },
  };
}

