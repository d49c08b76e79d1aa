/**
 * Per-operation DataLoaders: one upstream call per distinct key per operation. The upstream has
 * no batch endpoints, so a batch becomes concurrent single calls, bounded by the client's fair
 * scheduler; the loaders' value is de-duplication and the cache across the whole operation.
 * Only the data source (src/datasource) uses them.
 */
import DataLoader from 'dataloader';
import { toApplications, toAvailability, toDecommissioned, type Availability, type DecommissionedResource, type InstalledApplication } from '../domain/records.js';
import { isRecord } from '../domain/coerce.js';
import { isId } from '../domain/input.js';
import { toResourceView, type ResourceView } from '../domain/resource-view.js';
import type { UpstreamSession } from '../upstream/client.js';
import { unexpectedShape } from '../upstream/errors.js';
import { joinPairs } from '../upstream/query-string.js';
import type { OperationStats } from '../core/operation-stats.js';

export interface ResourceKey { tenantId: string; id: string }
export interface AvailabilityKey extends ResourceKey { from: number; to: number }

export const resourceKey = (k: ResourceKey) => `${k.tenantId}\u0000${k.id}`;
const availabilityKey = (k: AvailabilityKey) => `${resourceKey(k)}\u0000${k.from}\u0000${k.to}`;

/** Cache map that counts cache hits for the upstream stats. */
class CountingCache<V> extends Map<string, V> {
  constructor(private readonly stats: OperationStats) {
    super();
  }
  override get(key: string): V | undefined {
    const value = super.get(key);
    if (value !== undefined) this.stats.loaderHits++;
    return value;
  }
}

function loader<K, V>(stats: OperationStats, cacheKeyFn: (key: K) => string, fetchOne: (key: K) => Promise<V>): DataLoader<K, V, string> {
  return new DataLoader<K, V, string>(
    // Each key settles on its own (a load resolved with a promise adopts it): a batch shares its
    // dispatch, not its completion, so a deferred field streams out when its own call completes
    // instead of when the slowest call of the batch does.
    (keys) => {
      stats.loaderMisses += keys.length;
      return Promise.resolve(keys.map((key) => fetchOne(key) as unknown as V));
    },
    { cacheKeyFn, cacheMap: new CountingCache<Promise<V>>(stats) },
  );
}

/** How a read of one tenant's record answers a 404: null for an unknown record (the data source decides). */
export type Lookup = <T>(tenantId: string, work: Promise<T>) => Promise<T | null>;

export function createLoaders(session: UpstreamSession, stats: OperationStats, lookup: Lookup) {
  const resourceDetail = loader<ResourceKey, ResourceView | null>(stats, resourceKey, async (key) => {
    const raw = await lookup(key.tenantId, session.detail(key.tenantId, key.id));
    if (raw === null) return null;
    // The detail may omit its id; the key is authoritative.
    const view = isRecord(raw) ? toResourceView(key.tenantId, { ...raw, id: key.id }, 'detail') : null;
    if (!view) throw unexpectedShape(`resource ${key.id}`);
    return view;
  });

  const resourceSearchById = loader<ResourceKey, ResourceView | null>(stats, resourceKey, async (key) => {
    // Ids the search can filter by are the ids input.ts accepts; another (never seen from this upstream) cannot be looked up that way.
    if (!isId(key.id)) return null;
    const raw = await lookup(key.tenantId, session.search(key.tenantId, { pageNo: 1, pageSize: 1, queryString: joinPairs([['id', key.id]]) }));
    const results = (raw as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) return null;
    return results.map((r) => toResourceView(key.tenantId, r, 'search')).find((v) => v?.id === key.id) ?? null;
  });

  const applicationsByResource = loader<ResourceKey, InstalledApplication[]>(stats, resourceKey, async (key) =>
    toApplications((await lookup(key.tenantId, session.applications(key.tenantId, key.id))) ?? []),
  );

  const availabilityByWindow = loader<AvailabilityKey, Availability | null>(stats, availabilityKey, async (key) => {
    const raw = await lookup(key.tenantId, session.availability(key.tenantId, key.id, key.from, key.to));
    return raw === null ? null : toAvailability(raw, new Date(key.from * 1000), new Date(key.to * 1000));
  });

  const decommissioned = (additional: boolean) =>
    loader<ResourceKey, DecommissionedResource | null>(stats, resourceKey, async (key) => {
      const raw = await lookup(key.tenantId, session.historyDetail(key.tenantId, key.id, additional));
      if (raw === null) return null;
      const record = isRecord(raw) ? toDecommissioned(key.tenantId, { ...raw, id: key.id }) : null;
      if (!record) throw unexpectedShape(`decommissioned resource ${key.id}`);
      return record;
    });

  return {
    resourceDetail,
    resourceSearchById,
    applicationsByResource,
    availabilityByWindow,
    decommissionedById: decommissioned(false),
    decommissionedWithHardwareById: decommissioned(true),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
