/**
 * The embedded inventory simulator: a real node:http server implementing the ten endpoints of the
 * inventory interface. This file only wires the rooms and runs one request through them:
 *   routes.ts  which endpoint a request is        api.ts     its answer from the dataset (dataset.ts, render.ts …)
 *   auth.ts    OAuth2 tokens, 401/403             faults.ts  latency, hang, 503/drop/429
 *   stats.ts   counts and the request log         admin.ts   the /__sim/ surface
 *   settings.ts  settings, defaults, patches      http-io.ts reading bodies, writing JSON
 *   rate-limit.ts  per-tenant throttling windows and the X-RateLimit-* headers
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerApi, Params } from './api.js';
import { createAuth } from './auth.js';
import { handleAdmin } from './admin.js';
import { buildDataset } from './dataset.js';
import type { Dataset } from './data-model.js';
import { createFaults, waitUnlessClosed, type ScriptedFault } from './faults.js';
import { readBody, send, sendError } from './http-io.js';
import { SimError } from './query.js';
import { createRandom } from './random.js';
import { createRateLimits, rateLimitHeaders, THROTTLED_BODY, type RateLimitsView, type TenantRateState } from './rate-limit.js';
import { findRoute, pathIsKnown, pathParams, type Route } from './routes.js';
import { applyPatch, settingsFrom, type SimulatorPatch, type SimulatorSettings } from './settings.js';
import { createStats, type SimulatorStats } from './stats.js';

// The public types, where their users have always imported them from.
export type { ScriptedFault } from './faults.js';
export type { RouteName } from './routes.js';
export {
  DEFAULT_SIMULATOR_SETTINGS, rateLimitFromEnv, type FailureKind, type RateCategory, type RateLimitPatch, type RateLimitSettings,
  type SimClient, type SimulatorPatch, type SimulatorSettings,
} from './settings.js';
export type { RateLimitsView, RateWindow, TenantRateState } from './rate-limit.js';
export type { SimulatorStats } from './stats.js';

export interface Simulator {
  url: string;
  settings: SimulatorSettings;
  stats(): SimulatorStats;
  resetStats(): void;
  configure(patch: SimulatorPatch): void;
  /** Expire every issued token (as if their lifetime ran out). */
  expireTokens(): void;
  /** Make one token invalid while the others stay valid; false when it is unknown or already revoked. */
  revokeToken(token: string): boolean;
  /** Fail the next matching requests in the given ways, in order. */
  injectFaults(...faults: ScriptedFault[]): void;
  /** A tenant's current rate-limit windows, per category (as GET /__sim/rate-limits shows them). */
  rateLimitState(tenantId: string): TenantRateState;
  /** The rate-limit settings and every known tenant's current windows (GET /__sim/rate-limits). */
  rateLimits(): RateLimitsView;
  /** Every rate-limit window full again (POST /__sim/rate-limits/reset). */
  resetRateLimits(): void;
  dataset: Dataset;
  close(): Promise<void>;
}

export type StartSimulatorOptions = SimulatorPatch & {
  port?: number;
  host?: string;
  /** The clock of the rate limits and of the logged requests' times, epoch milliseconds (tests move it instead of sleeping); default Date.now. */
  now?: () => number;
};

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<Simulator> {
  const { port = 0, host = '127.0.0.1', now, ...patch } = options;
  const settings = settingsFrom(patch);
  let dataset = buildDataset({ seed: settings.seed, size: settings.size });
  // One seeded stream for jitter, fault draws and token values, so a seed replays the same run.
  const random = createRandom(settings.seed ^ 0x5eed);
  const auth = createAuth({ settings, random });
  const faults = createFaults({ settings, random: random.next });
  const stats = createStats();
  const rateLimits = createRateLimits({ settings, ...(now ? { now } : {}) });
  const rateLimitsView = (): RateLimitsView => rateLimits.view(dataset.tenants.keys());
  const configure = (next: SimulatorPatch): void => {
    if (applyPatch(settings, next)) dataset = buildDataset({ seed: settings.seed, size: settings.size });
  };
  const admin = {
    settings, stats, configure,
    expireTokens: auth.expireTokens,
    revokeToken: auth.revokeToken,
    injectFaults: faults.inject,
    rateLimits: { view: rateLimitsView, refill: rateLimits.refill },
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const path = url.pathname;
    const body = req.method === 'POST' ? await readBody(req) : '';
    if (path.startsWith('/__sim/')) return handleAdmin(admin, req.method, path, body, res);

    const route = findRoute(req.method, path);
    // Tools that compare against the REST answers (tests, benchmarks) keep out of the stats.
    if (req.headers['x-simulator-uncounted'] === '1') {
      if (!route) return sendError(res, 404, 'Not found');
      return answer(res, route, path, url, body);
    }
    const traceparent = req.headers.traceparent;
    const clientId = auth.grantOf(req.headers.authorization)?.clientId;
    stats.logRequest({
      method: req.method ?? 'GET', route: route?.name ?? 'unknown', url: req.url ?? '', at: now ? now() : performance.timeOrigin + performance.now(),
      ...(typeof traceparent === 'string' ? { traceparent } : {}), ...(clientId !== undefined ? { clientId } : {}),
    });
    if (!route) return sendError(res, pathIsKnown(path) ? 405 : 404, 'Not found');
    res.once('close', stats.begin(route.name));
    try {
      if (!(await waitUnlessClosed(faults.latencyMs(route.name), res))) return;
      if (route.name === 'token') {
        const issued = auth.issueToken(body);
        if (issued.status === 200) stats.tokenIssued();
        return send(res, issued.status, issued.body);
      }
      const fault = faults.decide(route);
      if (fault) {
        stats.faultInjected(fault.kind);
        if (fault.kind === 'hang') return;
        return faults.inflict(fault, req, res);
      }
      // Rate limits after auth (rate-limit.ts): a refused request shows its window and is not counted.
      const tenantId = pathParams(route, path)[0] as string;
      const category = rateLimits.categoryOf(route);
      const refused = auth.refusal(req.headers.authorization, tenantId);
      const windowHeaders = category && refused ? rateLimitHeaders(rateLimits.peek(tenantId, category)) : {};
      if (refused?.status === 401) return sendError(res, 401, refused.message, { 'www-authenticate': 'Bearer', ...windowHeaders });
      if (refused) return sendError(res, refused.status, refused.message, windowHeaders);
      if (!category) return answer(res, route, path, url, body);
      const decision = rateLimits.take(tenantId, category);
      stats.rateLimited(route.name, tenantId, category, decision.admitted);
      if (!decision.admitted) return send(res, 429, THROTTLED_BODY, rateLimitHeaders(decision.window));
      answer(res, route, path, url, body, rateLimitHeaders(decision.window));
    } catch {
      sendError(res, 500, 'Internal simulator error');
    }
  }

  function answer(res: http.ServerResponse, route: Route, path: string, url: URL, body: string, headers: Record<string, string> = {}): void {
    try {
      let parsed: unknown = undefined;
      if (route.method === 'POST') {
        try { parsed = body === '' ? undefined : JSON.parse(body); } catch { throw new SimError(400, 'Body is not valid JSON'); }
      }
      const result = answerApi(dataset, settings, route.name, pathParams(route, path), new Params(url.searchParams), parsed);
      send(res, result.status, result.body, headers);
    } catch (error) {
      if (error instanceof SimError) return sendError(res, error.status, error.message, headers);
      sendError(res, 500, 'Internal simulator error', headers);
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => sendError(res, 500, 'Internal simulator error'));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;

  return {
    url: `http://${host}:${address.port}`,
    settings,
    get dataset() { return dataset; },
    stats: stats.snapshot,
    resetStats: stats.reset,
    configure,
    expireTokens: auth.expireTokens,
    revokeToken: auth.revokeToken,
    injectFaults: (...scripted: ScriptedFault[]) => void faults.inject(...scripted),
    rateLimitState: rateLimits.state,
    rateLimits: rateLimitsView,
    resetRateLimits: rateLimits.refill,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
