/**
 * updateResource: input problems become userErrors without any upstream call; a valid input is
 * POSTed, and the resource is re-read so the payload shows what the upstream now holds.
 */
import type { ResourceView } from '../domain/resource-view.js';
import { toUpdateBody, validateUpdate, type UpdateResourceInput, type UserError } from '../domain/update.js';
import type { UpstreamSession } from '../upstream/client.js';
import { UpstreamError, UpstreamNotFound } from '../upstream/errors.js';
import type { ResourceReads } from './resource-reads.js';

export interface UpdatePayload { resource: ResourceView | null; userErrors: UserError[] }

export async function updateResource(session: UpstreamSession, reads: ResourceReads, input: UpdateResourceInput): Promise<UpdatePayload> {
  const userErrors = validateUpdate(input);
  if (userErrors.length > 0) return { resource: null, userErrors };
  const key = { tenantId: String(input.tenantId), id: String(input.id) };
  try {
    await session.update(key.tenantId, key.id, toUpdateBody(input));
  } catch (error) {
    if (error instanceof UpstreamNotFound) {
      const what = error.tenantUnknown ? `tenant '${key.tenantId}'` : `resource ${key.id}`;
      return { resource: null, userErrors: [{ field: ['input', error.tenantUnknown ? 'tenantId' : 'id'], message: `${what} was not found`, code: 'NOT_FOUND' }] };
    }
    if (error instanceof UpstreamError && error.code === 'BAD_USER_INPUT') {
      return { resource: null, userErrors: [{ field: ['input'], message: error.message, code: 'UPSTREAM_REJECTED' }] };
    }
    throw error;
  }
  // Anything read earlier in this operation is stale now.
  reads.forget(key);
  return { resource: await reads.detail(key), userErrors: [] };
}
