/**
 * A real HTTP upstream that answers each route of the inventory API with records a test
 * gives literally, and counts the calls per route: for tests of what the gateway makes of a
 * record, and what it costs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = 'search' | 'minimal' | 'detail' | 'applications' | 'availability' | 'history' | 'historyDetail' | 'antivirus' | 'resourceTypes';

export interface RecordUpstream {
  url: string;
  calls: Partial<Record<Route, number>>;
  /** The answer of a route: a body (200), or [status, body]. */
  answer: (route: Route, params: { tenantId: string; id?: string; query: URLSearchParams }) => unknown;
  reset(): void;
  close(): Promise<void>;
}

const ROUTES: [RegExp, Route][] = [
  [/^\/api\/v2\/tenants\/([^/]+)\/resources\/search$/, 'search'],
  [/^\/api\/v2\/tenants\/([^/]+)\/resources\/minimal$/, 'minimal'],
  [/^\/api\/v2\/tenants\/([^/]+)\/resources\/antivirus\/search$/, 'antivirus'],
  [/^\/api\/v2\/tenants\/([^/]+)\/resources\/([^/]+)\/applications$/, 'applications'],
  [/^\/api\/v2\/tenants\/([^/]+)\/resources\/([^/]+)\/availability$/, 'availability'],
  [/^\/api\/v2\/tenants\/([^/]+)\/resources\/([^/]+)$/, 'detail'],
  [/^\/api\/v2\/tenants\/([^/]+)\/history\/resources$/, 'history'],
  [/^\/api\/v2\/tenants\/([^/]+)\/history\/resources\/([^/]+)$/, 'historyDetail'],
  [/^\/api\/v2\/tenants\/([^/]+)\/resourceType\/minimal$/, 'resourceTypes'],
];

export async function startRecordUpstream(): Promise<RecordUpstream> {
  const upstream: RecordUpstream = {
    url: '',
    calls: {},
    answer: () => [404, { message: 'Not found' }],
    reset() {
      upstream.calls = {};
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    const match = ROUTES.map(([re, route]) => [re.exec(url.pathname), route] as const).find(([m]) => m);
    let status = 404;
    let body: unknown = { message: 'Not found' };
    if (match) {
      const [m, route] = match;
      upstream.calls[route] = (upstream.calls[route] ?? 0) + 1;
      const answer = upstream.answer(route, { tenantId: decodeURIComponent(m![1]!), id: m![2] ? decodeURIComponent(m![2]) : undefined, query: url.searchParams });
      [status, body] = Array.isArray(answer) && answer.length === 2 && typeof answer[0] === 'number' ? (answer as [number, unknown]) : [200, answer];
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

/** The paging envelope of the search, history and antivirus lists. */
export function page(results: unknown[]): Record<string, unknown> {
  return { results, totalResults: results.length, pageNo: 1, pageSize: Math.max(1, results.length), totalPages: 1, nextPage: false, descendingOrder: true };
}
