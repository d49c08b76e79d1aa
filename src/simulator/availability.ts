/**
 * Availability for any window, computed from a stateless hash of (resource, hour) so that
 * overlapping windows always agree: an outage either starts in a given hour or it does not.
 */
import { hashInts } from './random.js';
import type { SimResource } from './data-model.js';

const HOUR = 3600;
/** Longest outage: lets a window look back far enough to see outages that began before it. */
const MAX_OUTAGE = 3 * HOUR;
export const MAX_WINDOW_SECONDS = 400 * 86_400;

export const STATE_DOWN = 0;
export const STATE_UP = 1;
export const STATE_UNKNOWN = 4;

interface Span { start: number; end: number; actualStart: number; scheduled: boolean; rca: boolean }

function spans(resource: SimResource, from: number, to: number, salt: number, rateFactor: number, maxSeconds: number, tsFloor: number): Span[] {
  const out: Span[] = [];
  const rate = resource.outageRate * rateFactor;
  if (rate <= 0) return out;
  for (let hour = Math.floor((from - MAX_OUTAGE) / HOUR); hour <= Math.floor(to / HOUR); hour++) {
    if (hashInts(resource.index, salt, hour) >= rate) continue;
    const actualStart = hour * HOUR + Math.floor(hashInts(resource.index, salt, hour, 1) * HOUR);
    const actualEnd = actualStart + 60 + Math.floor(hashInts(resource.index, salt, hour, 2) * (maxSeconds - 60));
    const start = Math.max(actualStart, from, tsFloor);
    const end = Math.min(actualEnd, to);
    if (end <= start) continue;
    const last = out[out.length - 1];
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      continue;
    }
    out.push({ start, end, actualStart, scheduled: salt === 3, rca: hashInts(resource.index, salt, hour, 3) < 0.3 });
  }
  return out;
}

function keyOf(resource: SimResource, start: number, salt: number): string {
  const h = (n: number) => Math.floor(hashInts(resource.index, start, salt, n) * 0xffffffff).toString(16).padStart(8, '0');
  const a = h(1), b = h(2), c = h(3), d = h(4);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-8${c.slice(1, 4)}-${c.slice(4)}${d}`;
}

function record(resource: SimResource, start: number, end: number, state: number, extra: Partial<Span> = {}) {
  return {
    key: keyOf(resource, start, state),
    startTs: start,
    endTs: end,
    actStartTs: extra.actualStart ?? start,
    state,
    rca: extra.rca ?? false,
    schStartTs: extra.scheduled ? start : 0,
    schEndTs: extra.scheduled ? end : 0,
  };
}

export function availabilityOf(resource: SimResource, from: number, to: number) {
  const knownFrom = Math.max(from, Math.min(resource.createdAt, to));
  const down = spans(resource, from, to, 1, 1, MAX_OUTAGE, knownFrom);
  const degraded = spans(resource, from, to, 2, 0.5, HOUR, knownFrom);
  const paused = spans(resource, from, to, 3, 0.25, HOUR / 2, knownFrom);

  const totalLog: ReturnType<typeof record>[] = [];
  if (knownFrom > from) totalLog.push(record(resource, from, knownFrom, STATE_UNKNOWN));
  let cursor = knownFrom;
  for (const span of down) {
    if (span.start > cursor) totalLog.push(record(resource, cursor, span.start, STATE_UP));
    totalLog.push(record(resource, span.start, span.end, STATE_DOWN, span));
    cursor = span.end;
  }
  if (cursor < to) totalLog.push(record(resource, cursor, to, STATE_UP));

  const sum = (list: Span[]) => list.reduce((acc, s) => acc + (s.end - s.start), 0);
  const downtime = sum(down);
  const window = to - from;
  const lastPeriod = totalLog[totalLog.length - 1];
  const currentState = lastPeriod?.state === STATE_DOWN ? 'down' : lastPeriod?.state === STATE_UNKNOWN ? 'unknown' : 'up';
  return {
    totalAvailability: window > 0 ? (100 * (window - downtime)) / window : 100,
    totalDowntime: downtime,
    totalLogList: totalLog,
    downTimeList: down.map((s) => record(resource, s.start, s.end, STATE_DOWN, s)),
    noOfOccurences: down.length,
    noOfPauseOccurences: paused.length,
    degradedTimeList: degraded.map((s) => record(resource, s.start, s.end, 2, s)),
    noOfDegradedOccurences: degraded.length,
    totalDegradedTime: sum(degraded),
    pauseTimeList: paused.map((s) => record(resource, s.start, s.end, 3, s)),
    currentState,
    totalPauseTime: sum(paused),
  };
}
