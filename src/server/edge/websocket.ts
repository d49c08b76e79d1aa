/**
 * GraphQL over WebSocket (`graphql-transport-ws`, graphql-ws with ws) on the same path as HTTP:
 * what live dashboards use besides SSE. Each operation runs through the gateway's envelop
 * (parsing limits, validation, cost estimate, live queries, error masking), with a request made
 * from the upgrade request's headers; the connection's `authorization` parameter, when given,
 * stands for the header (browsers cannot set headers on a WebSocket). Each operation is observed
 * as an HTTP request is: a request id in its errors, the operation metrics and one access log
 * line (method WS, status 101) when it ends.
 */
import type http from 'node:http';
import { GraphQLError, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GatewayConfig } from '../../config.js';
import { trustedDocumentOf } from './trusted-documents.js';
import { endRequestSessions, gatewayObservability, type Gateway } from '../yoga.js';
import { atTime, tokenExpired, type Authentication } from './authentication.js';

interface Enveloped {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

/**
 * Yoga's `http` extension (the status and headers it would answer with over HTTP) is internal:
 * its HTTP answers drop it when serializing, graphql-ws would send it as it is.
 */
function withoutHttp<E extends GraphQLError | GraphQLFormattedError>(error: E): E {
  if (!error.extensions || !('http' in error.extensions)) return error;
  const { http: _http, ...extensions } = error.extensions;
  if (!(error instanceof GraphQLError)) return { ...error, extensions };
  return new GraphQLError(error.message, {
    nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions,
  }) as E;
}

function resultWithoutHttp(result: ExecutionResult): ExecutionResult {
  return result.errors?.some((e) => e.extensions && 'http' in e.extensions) ? { ...result, errors: result.errors.map(withoutHttp) } : result;
}

/** Close code for a server going away (RFC 6455). */
const GOING_AWAY = 1001;
/** graphql-ws's Unauthorized: its clients do not retry a refused token. */
const UNAUTHORIZED = 4401;
/** graphql-ws's Forbidden, which its clients retry (calling connectionParams again): the token expired, a fresh one carries on. */
const TOKEN_EXPIRED_CLOSE = 4403;
/** Try again later (RFC 6455): the identity provider's keys are not loaded yet; graphql-ws clients retry. */
const TRY_AGAIN_LATER = 1013;

/** The connection's token: its `authorization` connection parameter, else the upgrade request's header. */
function connectionAuthorization(connectionParams: Record<string, unknown> | undefined, upgrade: http.IncomingMessage): string | undefined {
  const given = connectionParams?.authorization ?? connectionParams?.Authorization;
  return typeof given === 'string' ? given : upgrade.headers.authorization;
}

export interface WebSocketEndpoint {
  /** Ends every connection (their operations end with them). */
  close(): Promise<void>;
}

/** The operation's document: the query sent, or with TRUSTED_DOCUMENTS only a manifest's, by hash. */
function documentOf(config: GatewayConfig, params: { query?: string; extensions?: Record<string, unknown> | null }): string | GraphQLError {
  if (!config.trustedDocuments) return params.query ?? '';
  return trustedDocumentOf(config.trustedDocuments, params.extensions) ?? new GraphQLError('This gateway runs only trusted documents: send the hash of one in extensions.persistedQuery.sha256Hash.', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
}

/**
 * Browsers let any page open a WebSocket to any host (no CORS), so the Origin is checked as CORS
 * would: no Origin (not a browser) or the gateway's own, or one CORS_ORIGINS allows.
 */
export function originAllowed(config: Pick<GatewayConfig, 'corsOrigins'>, origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (config.corsOrigins === '*') return true;
  if (Array.isArray(config.corsOrigins) && config.corsOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * A WebSocket operation's request: its signal stands for the client's disconnect (the session
 * and admission follow it), and its upstream sessions end with it.
 */
interface SocketOperation {
  request: Request;
  controller: AbortController;
  /** The subscribe message's payload: graphql-ws passes the same object to every hook of the operation, so a late hook of an id the client has since reused is told apart. */
  payload: object;
}

/** The status an operation over WebSocket is logged with: that of its connection's upgrade. */
const SWITCHING_PROTOCOLS = 101;

export function serveWebSocket(server: http.Server, gateway: Gateway, config: GatewayConfig, authentication: Authentication): WebSocketEndpoint {
  const observability = gatewayObservability(gateway);
  /** The operation's access log line and metrics (timed to its first result once it ran). */
  const logEnd = (request: Request, ran: boolean) => observability.close(request, SWITCHING_PROTOCOLS, 'WS', ran);
  /** Ends an operation: its sessions close, anything still under way upstream is aborted, and it is logged. */
  const endOf = (operation: SocketOperation) => {
    endRequestSessions(operation.request);
    operation.controller.abort(new DOMException('The client completed the operation or left', 'AbortError'));
    logEnd(operation.request, true);
  };
  // Per socket, its operations by id: graphql-ws tells of none of them ending for a single result
  // the client completed early, so the socket's own `complete` messages and close are watched too.
  const operations = new WeakMap<WebSocket, Map<string, SocketOperation>>();
  /** The socket's operation of that id (of that subscribe payload, when given: not a later one reusing the id). */
  const find = (socket: WebSocket, id: string, payload?: object) => {
    const operation = operations.get(socket)?.get(id);
    return operation && (payload === undefined || operation.payload === payload) ? operation : undefined;
  };
  const end = (socket: WebSocket, id: string, payload?: object) => {
    const operation = find(socket, id, payload);
    if (!operation) return;
    operations.get(socket)?.delete(id);
    endOf(operation);
  };
  // A message is a request body: the same limit as over HTTP (ws would take up to 100 MiB; a larger one closes the socket with 1009).
  const sockets = new WebSocketServer({ server, path: '/graphql', maxPayload: config.limits.maxBodyBytes });
  useServer<Record<string, unknown> | undefined, { request: http.IncomingMessage; socket: WebSocket }>({
    execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
    // false: the socket is closed with 4403 Forbidden.
    onConnect: async (ctx) => {
      if (!originAllowed(config, ctx.extra.request.headers.origin, ctx.extra.request.headers.host)) return false;
      const socket = ctx.extra.socket;
      if (authentication.enabled) {
        // The connection's token, judged once here (each operation is judged again, from the verified tokens kept).
        const authorization = connectionAuthorization(ctx.connectionParams, ctx.extra.request);
        const probe = new Request('http://localhost/graphql', { headers: authorization ? { authorization } : {} });
        const refusal = await authentication.authenticate(probe);
        if (refusal) {
          const unavailable = refusal.extensions.code === 'IDENTITY_PROVIDER_UNAVAILABLE';
          socket.close(unavailable ? TRY_AGAIN_LATER : UNAUTHORIZED, `${String(refusal.extensions.code)}: ${String(refusal.extensions.reason ?? refusal.message)}`);
          return false;
        }
        // The connection ends with its token: each open operation gets one UNAUTHENTICATED, then the
        // socket closes with a code graphql-ws clients retry with fresh connection parameters.
        const expiresAtMs = authentication.identityOf(probe)?.expiresAtMs;
        if (expiresAtMs !== undefined) {
          const cancel = atTime(expiresAtMs, () => {
            const { message, extensions } = tokenExpired();
            const payload = { errors: [{ message, extensions }] };
            for (const id of operations.get(socket)?.keys() ?? []) socket.send(JSON.stringify({ id, type: 'next', payload }));
            socket.close(TOKEN_EXPIRED_CLOSE, 'UNAUTHENTICATED: TOKEN_EXPIRED');
          });
          socket.once('close', cancel);
        }
      }
      const own = new Map<string, SocketOperation>();
      operations.set(socket, own);
      socket.on('message', (data: Buffer) => {
        // Only `complete` matters here; graphql-ws answers anything malformed itself.
        if (!data.includes('"complete"')) return;
        try {
          const message = JSON.parse(data.toString()) as { type?: unknown; id?: unknown };
          if (message.type === 'complete' && typeof message.id === 'string') end(socket, message.id);
        } catch {
          // Not JSON: graphql-ws closes the socket (4400), and onClose ends the operations.
        }
      });
      return true;
    },
    onComplete: (ctx, id, payload) => end(ctx.extra.socket, id, payload),
    // Each result's errors are counted and carry the request id, as over HTTP.
    onNext: (ctx, id, payload, _args, result) => {
      const operation = find(ctx.extra.socket, id, payload);
      const out = (operation && observability.results(operation.request, [result as ExecutionResult])?.[0]) ?? (result as ExecutionResult);
      const cleaned = resultWithoutHttp(out);
      return cleaned === result ? undefined : cleaned;
    },
    // An operation graphql-ws ends with an error message (no complete follows): counted, and ended.
    onError: (ctx, id, payload, errors) => {
      const operation = find(ctx.extra.socket, id, payload);
      if (!operation) return undefined;
      const out = observability.results(operation.request, [{ errors }])?.[0]?.errors;
      end(ctx.extra.socket, id, payload);
      return (out ?? errors).map((error) => withoutHttp(error.toJSON()));
    },
    onClose: (ctx) => {
      const own = operations.get(ctx.extra.socket);
      if (!own) return;
      operations.delete(ctx.extra.socket);
      for (const operation of own.values()) endOf(operation);
    },
    onSubscribe: async (ctx, id, params) => {
      const upgrade = ctx.extra.request;
      const headers = new Headers();
      // Not the upgrade's x-request-id: each operation of the connection gets a request id of its own.
      for (const [name, value] of Object.entries(upgrade.headers)) if (typeof value === 'string' && name !== 'x-request-id') headers.set(name, value);
      const authorization = connectionAuthorization(ctx.connectionParams, upgrade);
      if (authorization !== undefined) headers.set('authorization', authorization);
      const controller = new AbortController();
      const request = new Request(`http://${upgrade.headers.host ?? 'localhost'}/graphql`, { method: 'POST', headers, signal: controller.signal });
      observability.open(request);
      // Refused before it runs: its errors are logged and counted like an HTTP request's.
      const refuse = (errors: readonly GraphQLError[]) => {
        const out = observability.results(request, [{ errors }])?.[0]?.errors ?? errors;
        logEnd(request, false);
        return out.map(withoutHttp);
      };
      try {
        return await prepare();
      } catch (error) {
        // Nothing of the operation may outlive a failure to start it.
        endRequestSessions(request);
        logEnd(request, false);
        throw error;
      }

      async function prepare() {
        const refusal = await authentication.authenticate(request);
        if (refusal) return refuse([refusal]);
        const query = documentOf(config, params);
        if (query instanceof GraphQLError) return refuse([query]);
        const httpParams = { query, operationName: params.operationName ?? undefined, variables: params.variables ?? undefined, extensions: params.extensions ?? undefined };
        const { schema, execute, subscribe, contextFactory, parse, validate } = gateway.getEnveloped({ request, req: upgrade, params: httpParams });
        let document;
        try {
          document = parse(query);
        } catch (error) {
          return refuse([error instanceof GraphQLError ? error : new GraphQLError('The document could not be parsed', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]);
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return refuse(errors);
        // The live-query plugin serves @live here: graphql-ws reads every result of a stream.
        const contextValue = Object.assign(await contextFactory(), { overWebSocket: true });
        const own = operations.get(ctx.extra.socket);
        const operation: SocketOperation = { request, controller, payload: params };
        // The socket closed meanwhile (onClose has run): the operation ends before it starts.
        if (own) own.set(id, operation);
        else endOf(operation);
        return {
          schema, document, operationName: params.operationName, variableValues: params.variables,
          contextValue, rootValue: { execute, subscribe },
        };
      }
    },
  }, sockets);
  return {
    close: () => new Promise((resolve) => {
      for (const socket of sockets.clients) socket.close(GOING_AWAY, 'The server is shutting down');
      sockets.close(() => resolve());
    }),
  };
}
