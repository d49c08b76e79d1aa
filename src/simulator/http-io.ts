/** Reading a request body and writing a JSON answer or error, the one way every room does it. */
import http from 'node:http';
import { SimError } from './query.js';

const BODY_LIMIT = 1 << 20;

export function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // A dropped or already answered request has nobody left to answer.
  if (res.destroyed || res.writableEnded) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The upstream's error shape: { status, error, message }. */
export function sendError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  send(res, status, { status, error: http.STATUS_CODES[status] ?? 'Error', message }, headers);
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new SimError(413, 'Body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
