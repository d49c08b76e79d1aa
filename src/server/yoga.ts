/** createGateway: the Yoga instance (no listening); src/server/main.ts serves it. */
import { GraphQLError } from 'graphql';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, maskError, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { GatewayConfig } from '../config.js';
import type { GatewayContext } from '../context.js';
import { InventoryDataSource } from '../datasource/inventory.js';
import type { Logger } from '../logger.js';
import { schema } from '../schema/index.js';
import type { InventoryClient } from '../upstream/client.js';
import { OperationStats } from '../upstream/stats.js';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { EXAMPLE_OPERATION } from './example-operation.js';
import { bodyLimitPlugin, httpErrorCodesPlugin, operationLimitsPlugin } from './limits.js';

export interface GatewayOptions {
  config: GatewayConfig;
  client: InventoryClient;
  logger: Logger;
}

export type Gateway = YogaServerInstance<Record<string, unknown>, GatewayContext>;

/** Errors the gateway raised on purpose (a GraphQLError all the way down) pass unmasked. */
function isOwnGraphQLError(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null || isOwnGraphQLError(error.originalError);
}

/** With `x-upstream-stats: 1`, the response extensions carry what the operation cost upstream. */
function upstreamStatsPlugin(): Plugin<GatewayContext> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as GatewayContext & { request?: Request };
      if (ctx.request?.headers.get('x-upstream-stats') !== '1') return undefined;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in Object(result)) return;
          const single = result as { extensions?: Record<string, unknown> };
          setResult({ ...(result as object), extensions: { ...single.extensions, upstream: { ...ctx.stats.toJSON(), estimatedCalls: ctx.estimatedUpstreamCalls ?? 0 } } } as never);
        },
      };
    },
  };
}

/** /healthz: the process is up. /readyz: the upstream answers and, with client credentials, a token can be had. */
function healthPlugin(client: InventoryClient, logger: Logger): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === '/healthz') {
        endResponse(new fetchAPI.Response(JSON.stringify({ status: 'ok' }), { status: 200, headers: { 'content-type': 'application/json' } }));
        return;
      }
      if (url.pathname === '/readyz' && request.method === 'GET') {
        try {
          await client.probe();
          endResponse(new fetchAPI.Response(JSON.stringify({ status: 'ready' }), { status: 200, headers: { 'content-type': 'application/json' } }));
        } catch (error) {
          logger.warn('readiness check failed', { error });
          endResponse(new fetchAPI.Response(JSON.stringify({ status: 'not ready' }), { status: 503, headers: { 'content-type': 'application/json' } }));
        }
      }
    },
  };
}

export function createGateway({ config, client, logger }: GatewayOptions): Gateway {
  return createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Bundled GraphiQL: works without reaching a CDN.
    renderGraphiQL,
    healthCheckEndpoint: '/health',
    graphiql: config.graphiql ? { defaultQuery: EXAMPLE_OPERATION, title: 'Inventory GraphQL gateway' } : false,
    maskedErrors: {
      maskError(error, message) {
        if (!isOwnGraphQLError(error)) logger.error('unexpected error', { error: (error as { originalError?: unknown }).originalError ?? error });
        // isDev is forced off: development mode would put the original error and its stack in the response.
        return maskError(error, message, false);
      },
    },
    cors: config.corsOrigins === null ? false : { origin: config.corsOrigins, credentials: config.corsOrigins !== '*', methods: ['GET', 'POST'] },
    batching: config.limits.maxBatch > 0 ? { limit: config.limits.maxBatch } : false,
    logging: {
      debug: (...args) => logger.debug(String(args[0] ?? ''), { args: args.slice(1) }),
      info: (...args) => logger.info(String(args[0] ?? ''), { args: args.slice(1) }),
      warn: (...args) => logger.warn(String(args[0] ?? ''), { args: args.slice(1) }),
      error: (...args) => logger.error(String(args[0] ?? ''), { args: args.slice(1) }),
    },
    context: ({ request }) => {
      const stats = new OperationStats();
      const session = client.session({ authorization: request.headers.get('authorization'), signal: request.signal, stats });
      return { config, session, inventory: new InventoryDataSource(session, config, logger, stats), stats, logger };
    },
    plugins: [
      healthPlugin(client, logger),
      bodyLimitPlugin(config.limits.maxBodyBytes),
      // A GET or a form-encoded POST must carry a header that browsers only send after a CORS preflight.
      useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] }),
      httpErrorCodesPlugin(),
      operationLimitsPlugin(config),
      upstreamStatsPlugin(),
    ],
  });
}
