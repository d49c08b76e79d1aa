/**
 * Latency and injected failures: the delay before each answer, a hang, and the 503, dropped
 * connection and 429 that either a test scripts for the next requests or the failure rate draws.
 * The random source is injected, so the draws are seeded in the simulator and chosen in unit tests.
 */
import type http from 'node:http';
import { sendError } from './http-io.js';
import type { Route, RouteName } from './routes.js';
import type { FailureKind, SimulatorSettings } from './settings.js';

/** A fault injected into the next request of a route (or of any route), for deterministic tests. */
export interface ScriptedFault { route?: RouteName; kind: FailureKind; retryAfterSeconds?: number }

/** What happens to a request instead of its answer: never answered, or failed in one way. */
export type FaultDecision = { kind: 'hang' } | ScriptedFault;

export interface FaultsRoom {
  /** How long a request of this route waits before it is answered. */
  latencyMs(route: RouteName): number;
  /** Decides whether the request fails: a hang first, then the scripted faults in order, then the failure rate. */
  decide(route: Route): FaultDecision | null;
  /** Fail the next matching requests in the given ways, in order; returns how many are queued. */
  inject(...faults: ScriptedFault[]): number;
  /** Carries out a decided failure on the response (drops the socket, or answers 429/503). */
  inflict(fault: ScriptedFault, req: http.IncomingMessage, res: http.ServerResponse): void;
}

export interface FaultsOptions {
  /** The live settings: latency and failure rate changes through /__sim/config apply to the next request. */
  settings: SimulatorSettings;
  /** Uniform in [0, 1). */
  random: () => number;
}

export function createFaults({ settings, random }: FaultsOptions): FaultsRoom {
  const script: ScriptedFault[] = [];
  return {
    latencyMs(route) {
      const jitter = settings.jitterMs > 0 ? random() * settings.jitterMs : 0;
      return settings.latencyMs + (settings.routeLatencyMs[route] ?? 0) + jitter;
    },
    decide(route) {
      if (settings.hang) return { kind: 'hang' };
      const scripted = script.findIndex((f) => f.route === undefined || f.route === route.name);
      if (scripted >= 0) return script.splice(scripted, 1)[0] as ScriptedFault;
      if (settings.failureRate > 0 && settings.faultMethods.includes(route.method) && random() < settings.failureRate) {
        return { kind: settings.failureKinds[Math.floor(random() * settings.failureKinds.length)] as FailureKind };
      }
      return null;
    },
    inject(...faults) {
      script.push(...faults);
      return script.length;
    },
    inflict(fault, req, res) {
      if (fault.kind === 'drop') { req.socket.destroy(); return; }
      if (fault.kind === '429') return sendError(res, 429, 'Too many requests', { 'retry-after': String(fault.retryAfterSeconds ?? settings.retryAfterSeconds) });
      sendError(res, 503, 'Service unavailable');
    },
  };
}

/** Waits ms, unless the client goes away first; resolves whether the request is still worth answering. */
export function waitUnlessClosed(ms: number, res: http.ServerResponse): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (ms <= 0) return resolve(!res.destroyed);
    const timer = setTimeout(() => { res.off('close', onClose); resolve(true); }, ms);
    const onClose = () => { clearTimeout(timer); resolve(false); };
    res.once('close', onClose);
  });
}
