/**
 * The admin surface under /__sim/ that tests, benchmarks and other processes use to read the
 * figures and steer the simulator: stats, settings, tokens, scripted faults.
 */
import type http from 'node:http';
import { send, sendError } from './http-io.js';
import type { ScriptedFault } from './faults.js';
import { SimError } from './query.js';
import type { RateLimitsView } from './rate-limit.js';
import type { SimulatorPatch, SimulatorSettings } from './settings.js';
import type { StatsRoom } from './stats.js';

/** What the admin surface may do to the simulator. */
export interface AdminControls {
  settings: SimulatorSettings;
  stats: StatsRoom;
  configure(patch: SimulatorPatch): void;
  expireTokens(): void;
  revokeToken(token: string): boolean;
  /** Queues faults; returns how many are queued. */
  injectFaults(...faults: ScriptedFault[]): number;
  rateLimits: { view(): RateLimitsView; refill(): void };
}

/**
 * GET  /__sim/stats               the figures (SimulatorStats)
 * POST /__sim/stats/reset         zero them
 * POST /__sim/config              a SimulatorPatch; answers the settings after it
 * POST /__sim/tokens/expire       expire every token
 * POST /__sim/tokens/revoke       { "token": "..." }: invalidate that one; answers { revoked }
 * POST /__sim/faults              a list of ScriptedFault; answers { queued }
 * GET  /__sim/rate-limits         the rate-limit settings and each known tenant's current windows (RateLimitsView)
 * POST /__sim/rate-limits/reset   every window full again; answers { ok }
 */
export function handleAdmin(controls: AdminControls, method: string | undefined, path: string, body: string, res: http.ServerResponse): void {
  if (method === 'GET' && path === '/__sim/stats') return send(res, 200, controls.stats.current());
  if (method === 'POST' && path === '/__sim/stats/reset') { controls.stats.reset(); return send(res, 200, { ok: true }); }
  if (method === 'POST' && path === '/__sim/config') {
    let patch: SimulatorPatch;
    try { patch = JSON.parse(body || '{}') as SimulatorPatch; } catch { return sendError(res, 400, 'Body is not valid JSON'); }
    try { controls.configure(patch); } catch (error) {
      if (error instanceof SimError) return sendError(res, error.status, error.message);
      throw error;
    }
    return send(res, 200, controls.settings);
  }
  if (method === 'POST' && path === '/__sim/tokens/expire') { controls.expireTokens(); return send(res, 200, { ok: true }); }
  if (method === 'POST' && path === '/__sim/tokens/revoke') {
    let parsed: unknown;
    try { parsed = JSON.parse(body || '{}'); } catch { return sendError(res, 400, 'Body is not valid JSON'); }
    const token = typeof parsed === 'object' && parsed !== null ? (parsed as { token?: unknown }).token : undefined;
    if (typeof token !== 'string' || token === '') return sendError(res, 400, 'Expected { "token": "..." }');
    return send(res, 200, { revoked: controls.revokeToken(token) });
  }
  if (method === 'POST' && path === '/__sim/faults') {
    return send(res, 200, { queued: controls.injectFaults(...(JSON.parse(body || '[]') as ScriptedFault[])) });
  }
  if (method === 'GET' && path === '/__sim/rate-limits') return send(res, 200, controls.rateLimits.view());
  if (method === 'POST' && path === '/__sim/rate-limits/reset') { controls.rateLimits.refill(); return send(res, 200, { ok: true }); }
  return sendError(res, 404, 'Not found');
}
