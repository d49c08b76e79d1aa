/**
 * The gateway's error codes (the design notes' list) and the GraphQL errors that carry them.
 * Every layer raises these, so they live on the ground floor; upstream/errors.ts keeps what only
 * the upstream client needs (UpstreamError and the HTTP status → code classification).
 */
import { GraphQLError } from 'graphql';

export type GatewayErrorCode =
  | 'BAD_USER_INPUT' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'RATE_LIMITED' | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_BAD_RESPONSE' | 'OPERATION_TOO_EXPENSIVE' | 'CLIENT_CLOSED_REQUEST'
  | 'OVERLOADED' | 'IDENTITY_PROVIDER_UNAVAILABLE';

export function gatewayError(code: GatewayErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

export function badUserInput(message: string, field?: string): GraphQLError {
  return gatewayError('BAD_USER_INPUT', message, field ? { field } : {});
}
