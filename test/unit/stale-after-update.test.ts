/**
 * What an update makes stale is one rule, the route table's `staleAfterUpdate`: for every route,
 * the response cache drops (and the live queries re-run) exactly the answers the table says, for
 * the updated resource and for another resource of its tenant. A consumer keeping a list of its
 * own (as live-query.ts's LIST_ROUTES once did, with antivirus and history the cache lacked) fails here.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { loadConfig } from '../../src/config.js';
import { ROUTES, type RouteName, type RouteSpec } from '../../src/core/routes.js';
import { createLogger } from '../../src/logger.js';
import { ResponseCache } from '../../src/upstream/response-cache.js';
import type { CacheReadIo, CacheRequest } from '../../src/upstream/cache-entry.js';
import { identifiersOf, LiveQueries } from '../../src/server/live/live-query.js';
import { AdmissionController } from '../../src/server/limits/admission.js';
import { checkMockUpstreams, mockUpstream } from '../support/upstream-client.js';

afterEach(checkMockUpstreams);
afterEach(() => vi.restoreAllMocks());

const cachedRoutes = (Object.entries(ROUTES) as [RouteName, RouteSpec][]).filter(([, spec]) => spec.ttl !== undefined);
const withResource = (spec: RouteSpec) => spec.template.includes('{resourceId}');

/** Whether the table says an update of `updated` makes a read of `route` about resource r1 stale. */
function tableSaysStale(spec: RouteSpec, updated: string): boolean {
  if (spec.staleAfterUpdate === 'tenant') return true;
  return spec.staleAfterUpdate === 'resource' && withResource(spec) && updated === 'r1';
}

function countingIo() {
  let fetches = 0;
  const fetch = async () => ({ value: { n: ++fetches }, text: `{"n":${fetches}}` });
  const io: CacheReadIo = {
    fetch, refresh: fetch, wait: (p) => p, proven: () => true, noteProven: () => undefined,
    hit: () => undefined, miss: () => undefined, coalesced: () => undefined, stale: () => undefined,
  };
  return { io, fetches: () => fetches };
}

describe('an update makes stale what the route table says, in the response cache and the live queries', () => {
  const config = loadConfig({});
  for (const [route, spec] of cachedRoutes) {
    for (const updated of ['r1', 'r2']) {
      it(`${route}: an update of ${updated === 'r1' ? 'the resource read' : 'another resource of the tenant'}`, async () => {
        const expected = tableSaysStale(spec, updated);
        // The response cache: a second read is a hit unless the update replaced what the entry depends on.
        const cache = new ResponseCache({ settings: config.cache!, logger: createLogger('silent') });
        const request: CacheRequest = { route, tenantId: 't1', resourceId: withResource(spec) ? 'r1' : undefined, path: `/${route}/r1`, scope: 'gateway' };
        const { io, fetches } = countingIo();
        await cache.read(request, io);
        await cache.read(request, io);
        expect(fetches()).toBe(1);
        await cache.invalidateResource('t1', updated);
        await cache.read(request, io);
        expect(fetches()).toBe(expected ? 2 : 1);

        // The live queries: an update invalidates identifiers; a read's own are woken iff they meet.
        const { client } = mockUpstream();
        const live = new LiveQueries({ config, client, admission: new AdmissionController(config), logger: createLogger('silent') });
        const invalidate = vi.spyOn(InMemoryLiveQueryStore.prototype, 'invalidate');
        live.resourceUpdated('t1', updated);
        const woken = new Set(invalidate.mock.calls.flatMap(([ids]) => (Array.isArray(ids) ? ids : [ids])));
        const readIds = identifiersOf('key', { route, tenantId: 't1', resourceId: request.resourceId, query: {} });
        expect(readIds.some((id) => woken.has(id))).toBe(expected);
        live.close();
      });
    }
  }
});
