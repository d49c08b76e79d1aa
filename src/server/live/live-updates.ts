/**
 * Updates wake the live queries that read the resource at once: here, and (with Redis) on every
 * other replica, each of which polls for its own viewers only.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { RedisStore } from '../../upstream/shared-store.js';
import type { LiveQueries } from './live-query.js';

/** Channel of the updates made through any replica (with REDIS_URL). */
const UPDATES_CHANNEL = 'live:resource-updated';

export function connectUpdates(live: LiveQueries, client: UpstreamClient, shared: RedisStore | null, logger: Logger): () => void {
  const replica = randomUUID();
  if (shared) {
    shared.subscribe(UPDATES_CHANNEL, (message) => {
      try {
        const { from, tenantId, resourceId } = JSON.parse(message) as { from: string; tenantId: string; resourceId: string };
        if (from !== replica) live.resourceUpdated(tenantId, resourceId);
      } catch {
        logger.warn('unreadable live update message');
      }
    });
  }
  return client.onResourceUpdated((tenantId, resourceId) => {
    live.resourceUpdated(tenantId, resourceId);
    shared?.publish(UPDATES_CHANNEL, JSON.stringify({ from: replica, tenantId, resourceId })).catch(() => undefined);
  });
}
