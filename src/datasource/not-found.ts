/**
 * What a 404 means, decided once per operation: on a record read it is "no such record" (null)
 * unless the upstream says the tenant is unknown; on a list read it can only mean the tenant. An
 * unknown tenant is one NOT_FOUND error naming it: the first field to learn it raises it, the
 * others of the operation are null without repeating it and without another call.
 */
import { gatewayError } from '../core/errors.js';
import { UpstreamNotFound } from '../upstream/errors.js';

/** The one error for a tenant the upstream does not know. */
export const unknownTenant = (tenantId: string) => gatewayError('NOT_FOUND', `Tenant '${tenantId}' was not found`, { tenantId });

/** A tenant's list where null (the tenant is unknown) must still be an error: the counts of a summary. */
export function known<T>(tenantId: string, list: T | null): T {
  if (list === null) throw unknownTenant(tenantId);
  return list;
}

export class NotFoundPolicy {
  /** Tenants the upstream does not know: reported once per operation, never asked again. */
  private readonly unknownTenants = new Set<string>();

  /** The tenant was found unknown earlier in the operation: ask nothing more of it. */
  known404(tenantId: string): boolean {
    return this.unknownTenants.has(tenantId);
  }

  /** A record read: null for an unknown record, the tenant's error once for an unknown tenant. */
  lookup = async <T>(tenantId: string, work: Promise<T>): Promise<T | null> => {
    try {
      return await work;
    } catch (error) {
      if (!(error instanceof UpstreamNotFound)) throw error;
      if (error.tenantUnknown) return this.tenantNotFound(tenantId);
      return null;
    }
  };

  /** A list read: a 404 is the tenant's. */
  async list<T>(tenantId: string, work: () => Promise<T>): Promise<T | null> {
    if (this.unknownTenants.has(tenantId)) return null;
    try {
      return await work();
    } catch (error) {
      if (error instanceof UpstreamNotFound) return this.tenantNotFound(tenantId);
      throw error;
    }
  }

  private tenantNotFound(tenantId: string): null {
    if (this.unknownTenants.has(tenantId)) return null;
    this.unknownTenants.add(tenantId);
    throw unknownTenant(tenantId);
  }
}
