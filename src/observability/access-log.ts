/** Request ids and the access log: one JSON line per GraphQL request, at info. */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';

/** An incoming x-request-id is kept when it is 1-128 characters of letters, digits and . _ : - */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | null): string {
  return header !== null && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

export interface AccessLogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** Operation names of the request (several when batched); null for an anonymous one. */
  operations: (string | null)[];
  upstreamCalls: number;
  upstreamRetries: number;
  errorCodes: string[];
  /** The signed-in caller's subject (`sub`), never its token. */
  subject?: string;
  traceId?: string;
}

export function writeAccessLog(logger: Logger, entry: AccessLogEntry): void {
  logger.info('request', {
    requestId: entry.requestId,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    durationMs: Math.round(entry.durationMs * 10) / 10,
    operationName: entry.operations.length === 1 ? entry.operations[0] : undefined,
    operations: entry.operations.length > 1 ? entry.operations : undefined,
    upstreamCalls: entry.upstreamCalls,
    upstreamRetries: entry.upstreamRetries,
    errorCodes: entry.errorCodes,
    subject: entry.subject,
    traceId: entry.traceId,
  });
}
