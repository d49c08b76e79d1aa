/**
 * The own-cost table's workloads (bench/own-cost.ts): each a GraphQL query, and the same work
 * done by hand: the upstream calls the gateway makes for it (the same paths, at most 16 in flight
 * per operation, the gateway's default) and the same `data` built from their answers. The bench
 * checks before measuring that the plain client's answer equals the gateway's and the peer's, and
 * that it asks the upstream for exactly the gateway's paths.
 */
import { WINDOW_FROM, WINDOW_TO } from './scenarios.js';

export type Get = (path: string) => Promise<any>;

export interface Workload {
  name: 'a' | 'b' | 'c';
  description: string;
  query: string;
  /** The answer's `data`, built by hand from the upstream's JSON. */
  plain(get: Get): Promise<unknown>;
}

const TENANT = 'client_1';
const PER_OPERATION = 16;
const base = `/api/v2/tenants/${TENANT}`;
/** The gateway's call for `resources(first: 100)`: the default order (by name). */
const pagePath = `${base}/resources/search?pageNo=1&pageSize=100&sortName=name&isDescendingOrder=false`;
const globalId = (id: string) => Buffer.from(`Resource:${TENANT}:${id}`).toString('base64');

/** `fn` over `items`, at most PER_OPERATION at a time, results in order. */
async function inFlight<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(PER_OPERATION, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

interface Hit { id: string; hostName: string }
interface App { name: string; version: string }

export function workloads(deviceIds: string[]): Workload[] {
  const ids = deviceIds.slice(0, 20);
  return [
    {
      name: 'a',
      description: '100 × { id hostName }, 1 call',
      query: `{ tenant(id: "${TENANT}") { resources(first: 100) { nodes { id hostName } } } }`,
      async plain(get) {
        const page = (await get(pagePath)) as { results: Hit[] };
        return { tenant: { resources: { nodes: page.results.map((r) => ({ id: globalId(r.id), hostName: r.hostName })) } } };
      },
    },
    {
      name: 'b',
      description: '100 × applications + 24 h availability, 201 calls',
      query: `{ tenant(id: "${TENANT}") { resources(first: 100) { nodes { id hostName
        applications { name version }
        availability(from: ${WINDOW_FROM}, to: ${WINDOW_TO}) { availabilityPercent downtimeSeconds }
      } } } }`,
      async plain(get) {
        const page = (await get(pagePath)) as { results: Hit[] };
        const calls = page.results.flatMap((r) => [`${base}/resources/${r.id}/applications`, `${base}/resources/${r.id}/availability?startTime=${WINDOW_FROM}&endTime=${WINDOW_TO}`]);
        const answers = await inFlight(calls, get);
        return {
          tenant: {
            resources: {
              nodes: page.results.map((r, i) => {
                const apps = answers[2 * i] as App[];
                const availability = answers[2 * i + 1] as { totalAvailability: number; totalDowntime: number };
                return {
                  id: globalId(r.id),
                  hostName: r.hostName,
                  applications: apps.map((a) => ({ name: a.name, version: a.version })),
                  availability: { availabilityPercent: availability.totalAvailability, downtimeSeconds: availability.totalDowntime },
                };
              }),
            },
          },
        };
      },
    },
    {
      name: 'c',
      description: '20 aliased details + applications, 40 calls',
      query: `{ tenant(id: "${TENANT}") { ${ids.map((id, i) => `r${i}: resource(id: "${id}") { id status location { name } applications { name } }`).join(' ')} } }`,
      async plain(get) {
        const answers = await inFlight(ids.flatMap((id) => [`${base}/resources/${id}`, `${base}/resources/${id}/applications`]), get);
        const tenant: Record<string, unknown> = {};
        ids.forEach((id, i) => {
          const detail = answers[2 * i] as { status: string; location: { name: string } | null };
          tenant[`r${i}`] = {
            id: globalId(id),
            status: detail.status,
            location: detail.location ? { name: detail.location.name } : null,
            applications: (answers[2 * i + 1] as App[]).map((a) => ({ name: a.name })),
          };
        });
        return { tenant };
      },
    },
  ];
}
