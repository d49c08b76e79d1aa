/**
 * The embedded inventory simulator: a real node:http server implementing the ten endpoints
 * of the inventory interface, plus the OAuth2 token endpoint, fault and latency injection,
 * and an admin surface (/__sim/...) that tests and benchmarks read.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildDataset, deviceGroupIdOf, resourceTypeIdOf, type Dataset, type SimTenant } from './dataset.js';
import { availabilityOf, MAX_WINDOW_SECONDS } from './availability.js';
import { createRandom } from './random.js';
import {
  ANTIVIRUS_QUERY_KEYS, decommissionedPredicate, HISTORY_QUERY_KEYS, MINIMAL_QUERY_KEYS, parseQueryString,
  resourcePredicate, SEARCH_QUERY_KEYS, SimError,
} from './query.js';
import { antivirusRecord, applicationRecords, decommissionedRecord, detailRecord, minimalRecord, searchRecord } from './render.js';
import { validateUpdate, applyUpdate } from './update.js';

export type FailureKind = '503' | 'drop' | '429';

export interface SimulatorSettings {
  seed: number;
  /** Resources of tenant client_1. */
  size: number;
  latencyMs: number;
  jitterMs: number;
  /** Extra latency of single routes (e.g. a slow availability service), added to latencyMs. */
  routeLatencyMs: Partial<Record<string, number>>;
  /** Share (0-1) of API requests answered with an injected failure. */
  failureRate: number;
  failureKinds: FailureKind[];
  /** Methods that failures are injected into. */
  faultMethods: string[];
  retryAfterSeconds: number;
  /** Accept API requests and never answer them (timeout tests). */
  hang: boolean;
  maxPageSize: number;
  auth: {
    enabled: boolean;
    clientId: string;
    clientSecret: string;
    tokenTtlSeconds: number;
    /** Some real token endpoints send expires_in as a string. */
    expiresInAsString: boolean;
    /**
     * More OAuth2 clients besides clientId/clientSecret (whose tokens see every tenant): a token
     * issued to one of these reads only its `tenants` (all when absent), and gets 403 on any other.
     */
    clients?: SimClient[];
  };
}

/** An OAuth2 client of the simulator's token endpoint, optionally scoped to some tenants. */
export interface SimClient { clientId: string; clientSecret: string; tenants?: string[] }

/** A settings patch (POST /__sim/config, startSimulator's options): auth may be given in part. */
export type SimulatorPatch = Omit<Partial<SimulatorSettings>, 'auth'> & { auth?: Partial<SimulatorSettings['auth']> };

export const DEFAULT_SIMULATOR_SETTINGS: SimulatorSettings = {
  seed: 20261122,
  size: 500,
  latencyMs: 0,
  jitterMs: 0,
  routeLatencyMs: {},
  failureRate: 0,
  failureKinds: ['503', 'drop', '429'],
  faultMethods: ['GET'],
  retryAfterSeconds: 1,
  hang: false,
  maxPageSize: 1000,
  auth: { enabled: false, clientId: 'sim-client', clientSecret: 'sim-secret', tokenTtlSeconds: 3600, expiresInAsString: false },
};

export type RouteName =
  | 'search' | 'minimal' | 'detail' | 'update' | 'history' | 'historyDetail' | 'antivirus'
  | 'applications' | 'resourceTypes' | 'availability' | 'token';

export interface SimulatorStats {
  calls: Partial<Record<RouteName, number>>;
  totalCalls: number;
  inFlight: number;
  maxInFlight: number;
  faults: Record<FailureKind | 'hang', number>;
  tokensIssued: number;
  /** Most recent requests (method, route, path with query, the client whose valid token it carried), oldest first, capped. */
  requests: { method: string; route: RouteName | 'unknown'; url: string; at: number; traceparent?: string; clientId?: string }[];
}

/** A fault injected into the next request of a route (or of any route), for deterministic tests. */
export interface ScriptedFault { route?: RouteName; kind: FailureKind; retryAfterSeconds?: number }

const REQUEST_LOG_CAP = 5000;
const BODY_LIMIT = 1 << 20;

interface Route { name: RouteName; method: string; pattern: RegExp }
const TENANT = '/api/v2/tenants/([^/]+)';
const ROUTES: Route[] = [
  { name: 'search', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/search$`) },
  { name: 'minimal', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/minimal$`) },
  { name: 'antivirus', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/antivirus/search$`) },
  { name: 'applications', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)/applications$`) },
  { name: 'availability', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)/availability$`) },
  { name: 'detail', method: 'GET', pattern: new RegExp(`^${TENANT}/resources/([^/]+)$`) },
  { name: 'update', method: 'POST', pattern: new RegExp(`^${TENANT}/resources/([^/]+)$`) },
  { name: 'history', method: 'GET', pattern: new RegExp(`^${TENANT}/history/resources$`) },
  { name: 'historyDetail', method: 'GET', pattern: new RegExp(`^${TENANT}/history/resources/([^/]+)$`) },
  { name: 'resourceTypes', method: 'GET', pattern: new RegExp(`^${TENANT}/resourceType/minimal$`) },
  { name: 'token', method: 'POST', pattern: /^\/auth\/oauth\/token$/ },
];

const SEARCH_SORT_FIELDS = new Set([
  'id', 'hostName', 'ipAddress', 'dns', 'createdDate', 'classCode', 'deviceType', 'devicePath', 'type', 'state',
  'make', 'model', 'osName', 'description', 'source', 'aliasName', 'name', 'resourceName', 'resourceType',
  'assetManagedTime', 'firstAssetManagedTime', 'ts',
]);
const ANTIVIRUS_SORT_FIELDS = new Set(['name', 'version', 'currentDefinition', 'currentDefinitionDate', 'scanDate', 'supported', 'status']);

type Json = Record<string, unknown>;

class Params {
  private seen = new Set<string>();
  constructor(private readonly search: URLSearchParams) {}
  private raw(name: string): string | null {
    this.seen.add(name);
    return this.search.get(name);
  }
  string(name: string): string | null {
    return this.raw(name);
  }
  int(name: string, fallback: number, min: number, max: number): number {
    const v = this.raw(name);
    if (v === null) return fallback;
    if (!/^-?\d+$/.test(v)) throw new SimError(400, `Parameter '${name}' must be an integer`);
    const n = Number(v);
    if (n < min || n > max) throw new SimError(400, `Parameter '${name}' must be between ${min} and ${max}`);
    return n;
  }
  bool(name: string, fallback: boolean): boolean {
    const v = this.raw(name);
    if (v === null) return fallback;
    if (v !== 'true' && v !== 'false') throw new SimError(400, `Parameter '${name}' must be true or false`);
    return v === 'true';
  }
  /** Unknown parameters are refused, so a client that sends a misspelt one finds out. */
  assertNoOthers(): void {
    for (const name of this.search.keys()) {
      if (!this.seen.has(name)) throw new SimError(400, `Unknown parameter '${name}'`);
    }
  }
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = String(a).toLowerCase();
  const sb = String(b).toLowerCase();
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Sort by one field with a stable tie-break, so the descending order is the exact reverse of the ascending one. */
function sortRecords(records: Json[], field: string, descending: boolean, tieBreak: (r: Json) => string): Json[] {
  const sorted = [...records].sort((x, y) => compareValues(x[field], y[field]) || compareValues(tieBreak(x), tieBreak(y)));
  return descending ? sorted.reverse() : sorted;
}

function envelope(records: Json[], pageNo: number, pageSize: number, orderBy: string, descending: boolean): Json {
  const totalResults = records.length;
  const totalPages = Math.ceil(totalResults / pageSize);
  return {
    results: records.slice((pageNo - 1) * pageSize, pageNo * pageSize),
    totalResults,
    orderBy,
    pageNo,
    pageSize,
    totalPages,
    nextPage: pageNo < totalPages,
    descendingOrder: descending,
  };
}

export interface Simulator {
  url: string;
  settings: SimulatorSettings;
  stats(): SimulatorStats;
  resetStats(): void;
  configure(patch: SimulatorPatch): void;
  /** Expire every issued token (as if their lifetime ran out). */
  expireTokens(): void;
  /** Revoke one issued token (the others stay valid); false when it was not issued here. */
  revokeToken(token: string): boolean;
  /** Fail the next matching requests in the given ways, in order. */
  injectFaults(...faults: ScriptedFault[]): void;
  dataset: Dataset;
  close(): Promise<void>;
}

export type StartSimulatorOptions = SimulatorPatch & {
  port?: number;
  host?: string;
};

/** A token the simulator issued: until when it is valid, to which client, and the tenants it may read (null: all). */
interface Grant { expiresAt: number; clientId: string; tenants: ReadonlySet<string> | null }

/** Refuses a malformed auth.clients list (a 400 on POST /__sim/config). */
function validateClients(clients: unknown): SimClient[] {
  if (!Array.isArray(clients)) throw new SimError(400, 'auth.clients must be a list');
  return clients.map((c: unknown, i) => {
    const client = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    if (typeof client.clientId !== 'string' || client.clientId === '' || typeof client.clientSecret !== 'string' || client.clientSecret === '') {
      throw new SimError(400, `auth.clients[${i}] needs a clientId and a clientSecret`);
    }
    if (client.tenants !== undefined && !(Array.isArray(client.tenants) && client.tenants.every((t) => typeof t === 'string'))) {
      throw new SimError(400, `auth.clients[${i}].tenants must be a list of tenant ids`);
    }
    return { clientId: client.clientId, clientSecret: client.clientSecret, ...(client.tenants ? { tenants: [...(client.tenants as string[])] } : {}) };
  });
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<Simulator> {
  const { port = 0, host = '127.0.0.1', ...patch } = options;
  const settings: SimulatorSettings = {
    ...DEFAULT_SIMULATOR_SETTINGS,
    ...patch,
    auth: { ...DEFAULT_SIMULATOR_SETTINGS.auth, ...patch.auth },
  };
  if (settings.auth.clients !== undefined) settings.auth.clients = validateClients(settings.auth.clients);
  let dataset = buildDataset({ seed: settings.seed, size: settings.size });
  const faultRandom = createRandom(settings.seed ^ 0x5eed);
  const tokens = new Map<string, Grant>();
  const script: ScriptedFault[] = [];
  const emptyStats = (): SimulatorStats => ({
    calls: {}, totalCalls: 0, inFlight: 0, maxInFlight: 0, faults: { '503': 0, drop: 0, '429': 0, hang: 0 }, tokensIssued: 0, requests: [],
  });
  let stats = emptyStats();

  const tenantOf = (id: string): SimTenant => {
    const tenant = dataset.tenants.get(id);
    if (!tenant) throw new SimError(404, `Unknown tenant '${id}'`);
    return tenant;
  };
  const resourceOf = (tenant: SimTenant, id: string) => {
    const resource = tenant.byId.get(id);
    if (!resource) throw new SimError(404, `Resource '${id}' not found`);
    return resource;
  };

  function handleApi(route: RouteName, groups: string[], params: Params, body: unknown): { status: number; body: unknown } {
    const tenant = tenantOf(groups[0] as string);
    const resourceId = groups[1] ?? '';
    switch (route) {
      case 'search': {
        const pageNo = params.int('pageNo', 1, 1, 1_000_000);
        const pageSize = params.int('pageSize', 100, 1, settings.maxPageSize);
        const descending = params.bool('isDescendingOrder', true);
        const sortName = params.string('sortName') ?? 'id';
        if (!SEARCH_SORT_FIELDS.has(sortName)) throw new SimError(400, `Cannot sort by '${sortName}'`);
        const includeStatus = params.bool('includeStatus', false);
        const matches = resourcePredicate(parseQueryString(params.string('queryString'), SEARCH_QUERY_KEYS), { allowStateAll: false });
        params.assertNoOthers();
        const records = tenant.resources.filter(matches).map((r) => searchRecord(tenant, r, includeStatus));
        return { status: 200, body: envelope(sortRecords(records, sortName, descending, (r) => String(r.id)), pageNo, pageSize, sortName, descending) };
      }
      case 'minimal': {
        const locationId = params.int('locationId', 0, 0, 2 ** 31 - 1);
        const deviceGroupId = params.int('deviceGroupId', 0, 0, 2 ** 31 - 1);
        const deviceTypeId = params.int('deviceTypeId', 0, 0, 2 ** 31 - 1);
        const state = (params.string('state') ?? 'active').toLowerCase();
        if (!['active', 'inactive', 'discovered', 'all'].includes(state)) throw new SimError(400, `Invalid state '${state}'`);
        const query = parseQueryString(params.string('queryString'), MINIMAL_QUERY_KEYS);
        const matches = resourcePredicate(query, { allowStateAll: true });
        params.assertNoOthers();
        return {
          status: 200,
          body: tenant.resources
            .filter(
              (r) =>
                (state === 'all' || r.state === state) &&
                (locationId === 0 || r.location.id === locationId) &&
                (deviceGroupId === 0 || deviceGroupIdOf(r) === deviceGroupId) &&
                (deviceTypeId === 0 || resourceTypeIdOf(dataset, r) === deviceTypeId) &&
                matches(r),
            )
            .map(minimalRecord),
        };
      }
      case 'detail':
        params.assertNoOthers();
        return { status: 200, body: detailRecord(tenant, resourceOf(tenant, resourceId)) };
      case 'update': {
        params.assertNoOthers();
        const resource = resourceOf(tenant, resourceId);
        applyUpdate(resource, validateUpdate(body));
        return { status: 200, body: null };
      }
      case 'applications':
        params.assertNoOthers();
        return { status: 200, body: applicationRecords(tenant, resourceOf(tenant, resourceId)) };
      case 'availability': {
        const start = params.string('startTime');
        const end = params.string('endTime');
        params.assertNoOthers();
        if (start === null || end === null) throw new SimError(400, 'startTime and endTime are required');
        if (!/^\d+$/.test(start) || !/^\d+$/.test(end)) throw new SimError(400, 'startTime and endTime must be epoch seconds');
        const from = Number(start);
        const to = Number(end);
        if (to <= from) throw new SimError(400, 'endTime must be after startTime');
        if (to - from > MAX_WINDOW_SECONDS) throw new SimError(400, 'Window longer than 400 days');
        return { status: 200, body: availabilityOf(resourceOf(tenant, resourceId), from, to) };
      }
      case 'history': {
        const pageNo = params.int('pageNo', 1, 1, 1_000_000);
        const pageSize = params.int('pageSize', 100, 1, settings.maxPageSize);
        const matches = decommissionedPredicate(parseQueryString(params.string('queryString'), HISTORY_QUERY_KEYS));
        params.assertNoOthers();
        const records = tenant.decommissioned
          .filter(matches)
          .sort((a, b) => b.decommissionedAt - a.decommissionedAt || compareValues(a.id, b.id))
          .map((d) => decommissionedRecord(tenant, d, false));
        return { status: 200, body: envelope(records, pageNo, pageSize, 'updatedDate', true) };
      }
      case 'historyDetail': {
        const additionalInfo = params.bool('additionalInfo', false);
        params.assertNoOthers();
        const record = tenant.decommissioned.find((d) => d.id === resourceId);
        if (!record) throw new SimError(404, `Decommissioned resource '${resourceId}' not found`);
        return { status: 200, body: decommissionedRecord(tenant, record, additionalInfo) };
      }
      case 'antivirus': {
        const pageNo = params.int('pageNo', 1, 1, 1_000_000);
        const pageSize = params.int('pageSize', 100, 1, settings.maxPageSize);
        const descending = params.bool('isDescendingOrder', true);
        const sortName = params.string('sortName') ?? 'scanDate';
        if (!ANTIVIRUS_SORT_FIELDS.has(sortName)) throw new SimError(400, `Cannot sort by '${sortName}'`);
        const query = parseQueryString(params.string('queryString'), ANTIVIRUS_QUERY_KEYS);
        const status = query.get('status');
        if (status !== undefined && status !== 'OUTOFDATE' && status !== 'UPTODATE') throw new SimError(400, `Invalid status '${status}'`);
        params.assertNoOthers();
        const records = tenant.antivirus
          .filter((a) => status === undefined || a.status === status)
          .map((a) => antivirusRecord(tenant, a));
        const sorted = sortRecords(records, sortName, descending, (r) => (r.resource as { id: string }).id);
        const page = envelope(sorted, pageNo, pageSize, sortName, descending);
        return { status: 200, body: { ...page, previousPageNo: pageNo > 1 ? pageNo - 1 : 0 } };
      }
      case 'resourceTypes':
        params.assertNoOthers();
        tenantOf(groups[0] as string);
        return { status: 200, body: dataset.resourceTypes.map((t) => ({ ...t })) };
      default:
        throw new SimError(404, 'Not found');
    }
  }

  function issueToken(body: string): { status: number; body: unknown } {
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'client_credentials') {
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Only client_credentials is supported' } };
    }
    const clientId = form.get('client_id');
    const clientSecret = form.get('client_secret');
    // The main client sees every tenant; a client of auth.clients its own tenants (all when it lists none).
    const client: SimClient | undefined = clientId === settings.auth.clientId && clientSecret === settings.auth.clientSecret
      ? { clientId, clientSecret }
      : settings.auth.clients?.find((c) => c.clientId === clientId && c.clientSecret === clientSecret);
    if (!client) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Bad client credentials' } };
    }
    const token = `sim-token-${faultRandom.hex(32)}`;
    tokens.set(token, { expiresAt: Date.now() + settings.auth.tokenTtlSeconds * 1000, clientId: client.clientId, tenants: client.tenants ? new Set(client.tenants) : null });
    stats.tokensIssued++;
    const ttl = settings.auth.tokenTtlSeconds;
    return {
      status: 200,
      body: { access_token: token, token_type: 'bearer', expires_in: settings.auth.expiresInAsString ? String(ttl) : ttl, scope: 'global:read global:manage' },
    };
  }

  /** The unexpired grant of the request's bearer token, if any. */
  function grantOf(req: http.IncomingMessage): Grant | undefined {
    const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    const grant = match ? tokens.get(match[1] as string) : undefined;
    return grant !== undefined && grant.expiresAt > Date.now() ? grant : undefined;
  }

  /** With auth on: 401 without a valid token, 403 for a tenant outside the token's scope; null when allowed. */
  function refusal(req: http.IncomingMessage, tenantId: string | undefined): { status: number; message: string } | null {
    if (!settings.auth.enabled) return null;
    const grant = grantOf(req);
    if (!grant) return { status: 401, message: 'Missing, invalid or expired bearer token' };
    if (grant.tenants && tenantId !== undefined && !grant.tenants.has(tenantId)) return { status: 403, message: `This client may not access tenant '${tenantId}'` };
    return null;
  }

  function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed || res.writableEnded) return;
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function sendError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    send(res, status, { status, error: http.STATUS_CODES[status] ?? 'Error', message }, headers);
  }

  async function readBody(req: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT) throw new SimError(413, 'Body too large');
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  function handleAdmin(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: string): void {
    if (req.method === 'GET' && path === '/__sim/stats') return send(res, 200, stats);
    if (req.method === 'POST' && path === '/__sim/stats/reset') { resetStats(); return send(res, 200, { ok: true }); }
    if (req.method === 'POST' && path === '/__sim/config') {
      let patch: SimulatorPatch;
      try { patch = JSON.parse(body || '{}') as SimulatorPatch; } catch { return sendError(res, 400, 'Body is not valid JSON'); }
      try { configure(patch); } catch (error) {
        if (error instanceof SimError) return sendError(res, error.status, error.message);
        throw error;
      }
      return send(res, 200, settings);
    }
    if (req.method === 'POST' && path === '/__sim/tokens/expire') { expireTokens(); return send(res, 200, { ok: true }); }
    if (req.method === 'POST' && path === '/__sim/tokens/revoke') {
      let token: unknown;
      try { token = (JSON.parse(body || '{}') as { token?: unknown }).token; } catch { return sendError(res, 400, 'Body is not valid JSON'); }
      if (typeof token !== 'string') return sendError(res, 400, 'Body needs a token');
      return send(res, 200, { ok: true, revoked: tokens.delete(token) });
    }
    if (req.method === 'POST' && path === '/__sim/faults') {
      script.push(...(JSON.parse(body || '[]') as ScriptedFault[]));
      return send(res, 200, { queued: script.length });
    }
    return sendError(res, 404, 'Not found');
  }

  const delay = (ms: number, res: http.ServerResponse) =>
    new Promise<boolean>((resolve) => {
      if (ms <= 0) return resolve(!res.destroyed);
      const timer = setTimeout(() => { res.off('close', onClose); resolve(true); }, ms);
      const onClose = () => { clearTimeout(timer); resolve(false); };
      res.once('close', onClose);
    });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const path = url.pathname;
    const body = req.method === 'POST' ? await readBody(req) : '';
    if (path.startsWith('/__sim/')) return handleAdmin(req, res, path, body);

    const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(path));
    // Tools that compare against the REST answers (tests, benchmarks) keep out of the stats.
    if (req.headers['x-simulator-uncounted'] === '1') {
      if (!route) return sendError(res, 404, 'Not found');
      return answer(req, res, route, path, url, body);
    }
    const traceparent = req.headers.traceparent;
    const clientId = grantOf(req)?.clientId;
    stats.requests.push({
      method: req.method ?? 'GET', route: route?.name ?? 'unknown', url: req.url ?? '', at: performance.timeOrigin + performance.now(),
      ...(typeof traceparent === 'string' ? { traceparent } : {}), ...(clientId !== undefined ? { clientId } : {}),
    });
    if (stats.requests.length > REQUEST_LOG_CAP) stats.requests.splice(0, stats.requests.length - REQUEST_LOG_CAP);
    if (!route) return sendError(res, ROUTES.some((r) => r.pattern.test(path)) ? 405 : 404, 'Not found');
    stats.calls[route.name] = (stats.calls[route.name] ?? 0) + 1;
    stats.totalCalls++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let counted = true;
    const done = () => { if (counted) { counted = false; stats.inFlight--; } };
    res.once('close', done);
    try {
      const latency = settings.latencyMs + (settings.routeLatencyMs[route.name] ?? 0) + (settings.jitterMs > 0 ? faultRandom.next() * settings.jitterMs : 0);
      if (!(await delay(latency, res))) return;
      if (route.name === 'token') {
        const answer = issueToken(body);
        return send(res, answer.status, answer.body);
      }
      if (settings.hang) { stats.faults.hang++; return; }
      const scripted = script.findIndex((f) => f.route === undefined || f.route === route.name);
      let fault: ScriptedFault | null = scripted >= 0 ? (script.splice(scripted, 1)[0] as ScriptedFault) : null;
      if (!fault && settings.failureRate > 0 && settings.faultMethods.includes(route.method) && faultRandom.chance(settings.failureRate)) {
        fault = { kind: faultRandom.pick(settings.failureKinds) };
      }
      if (fault) {
        stats.faults[fault.kind]++;
        if (fault.kind === 'drop') { req.socket.destroy(); return; }
        if (fault.kind === '429') return sendError(res, 429, 'Too many requests', { 'retry-after': String(fault.retryAfterSeconds ?? settings.retryAfterSeconds) });
        return sendError(res, 503, 'Service unavailable');
      }
      const tenantInPath = route.pattern.exec(path)?.[1];
      const refused = refusal(req, tenantInPath === undefined ? undefined : decodeURIComponent(tenantInPath));
      if (refused?.status === 401) return sendError(res, 401, refused.message, { 'www-authenticate': 'Bearer' });
      if (refused) return sendError(res, refused.status, refused.message);
      answer(req, res, route, path, url, body);
    } catch {
      sendError(res, 500, 'Internal simulator error');
    }
  }

  function answer(req: http.IncomingMessage, res: http.ServerResponse, route: Route, path: string, url: URL, body: string): void {
    try {
      let parsed: unknown = undefined;
      if (route.method === 'POST') {
        try { parsed = body === '' ? undefined : JSON.parse(body); } catch { throw new SimError(400, 'Body is not valid JSON'); }
      }
      const groups = (route.pattern.exec(path) ?? []).slice(1).map((g) => decodeURIComponent(g));
      const result = handleApi(route.name, groups, new Params(url.searchParams), parsed);
      send(res, result.status, result.body);
    } catch (error) {
      if (error instanceof SimError) return sendError(res, error.status, error.message);
      sendError(res, 500, 'Internal simulator error');
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => sendError(res, 500, 'Internal simulator error'));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;

  function resetStats(): void {
    const inFlight = stats.inFlight;
    stats = emptyStats();
    stats.inFlight = inFlight;
  }
  function configure(next: SimulatorPatch): void {
    const { auth, ...rest } = next;
    const clients = auth?.clients === undefined ? undefined : validateClients(auth.clients);
    Object.assign(settings, rest);
    if (auth) Object.assign(settings.auth, auth, clients ? { clients } : {});
    if (next.seed !== undefined || next.size !== undefined) dataset = buildDataset({ seed: settings.seed, size: settings.size });
  }
  function expireTokens(): void {
    for (const grant of tokens.values()) grant.expiresAt = 0;
  }

  return {
    url: `http://${host}:${address.port}`,
    settings,
    get dataset() { return dataset; },
    stats: () => structuredClone(stats),
    resetStats,
    configure,
    expireTokens,
    revokeToken: (token: string) => tokens.delete(token),
    injectFaults: (...faults: ScriptedFault[]) => void script.push(...faults),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
