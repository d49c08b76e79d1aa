/** One request with node:http, so that the body arrives as sent (fetch would decode a compressed one). */
import http from 'node:http';

export interface RawResponse { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

export interface RawRequest {
  /** GET by default. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A connection of its own, not the global agent's kept-alive one. */
  freshConnection?: boolean;
}

export function rawRequest(url: string, options: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers, ...(options.freshConnection ? { agent: false } : {}) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}
