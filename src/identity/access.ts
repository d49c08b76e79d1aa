/**
 * Who is asking and what they may do: the one rule every way into the inventory calls (the
 * upstream session before its cache and every call, the data source for objects made without a
 * call). A tenant is readable when the caller's grants name it (or `*`) and its scopes hold the
 * read scope; an update needs the write scope too. The refusal is the same whether or not the
 * tenant exists, so nobody probes for tenant names.
 */
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../core/errors.js';
import type { UpstreamEstimate } from '../core/call-count.js';

export type TenantAction = 'read' | 'write';

/** The scopes' default names (AUTH_READ_SCOPE, AUTH_WRITE_SCOPE): the subgraph SDL's @requiresScopes names these. */
export const DEFAULT_SCOPES = { readScope: 'inventory:read', writeScope: 'inventory:write', explainScope: 'inventory:explain' } as const;

/**
 * What a federation router may check before calling this subgraph, from the same rule: reading
 * needs a signed-in caller (its tenant grants only this gateway can judge); an update needs the
 * read and write scopes.
 */
export const FEDERATION_RIGHTS: { read: { authenticated: true }; write: { authenticated: true; requiresScopes: string[][] } } = {
  read: { authenticated: true },
  write: { authenticated: true, requiresScopes: [[DEFAULT_SCOPES.readScope, DEFAULT_SCOPES.writeScope]] },
};

/** A signed-in caller, from a verified token (src/identity/claims.ts). */
export interface Identity {
  issuer: string;
  subject: string;
  /** The tenants it may read; 'all' for the `*` grant. */
  tenants: ReadonlySet<string> | 'all';
  scopes: ReadonlySet<string>;
  /** When the token expires (epoch ms): streams end then. */
  expiresAtMs: number;
  /** Issuer and subject digested: one caller however often its token is refreshed (admission, fair shares, live bounds). */
  callerKey: string;
}

export interface AccessScopes {
  readScope: string;
  writeScope: string;
  /** Lets a caller ask for cost plans (x-explain) where EXPLAIN is off (production). */
  explainScope?: string;
}

/** The reasons of the gateway's own FORBIDDEN (a field refused, the rest of the answer stands). */
export const ACCESS_REFUSAL_REASONS: ReadonlySet<string> = new Set(['TENANT_NOT_GRANTED', 'SCOPE_MISSING']);

export class TenantAccess {
  /** No inbound identity (development, AUTH=off, passthrough): every tenant, every action. */
  static readonly unrestricted = new TenantAccess(null, null);

  private constructor(private readonly identity: Identity | null, private readonly scopes: AccessScopes | null) {}

  static of(identity: Identity, scopes: AccessScopes): TenantAccess {
    return new TenantAccess(identity, scopes);
  }

  /** Identity is required but the request has none (it was refused before): nothing at all. */
  static nobody(scopes: AccessScopes): TenantAccess {
    return new TenantAccess({ issuer: '', subject: '', tenants: new Set(), scopes: new Set(), expiresAtMs: 0, callerKey: 'nobody' }, scopes);
  }

  get restricted(): boolean {
    return this.identity !== null;
  }

  /** Why this caller may not do that to the tenant, or null when it may. */
  refusal(tenantId: string, action: TenantAction): GraphQLError | null {
    const { identity, scopes } = this;
    if (identity === null || scopes === null) return null;
    const granted = identity.tenants === 'all' || identity.tenants.has(tenantId);
    const scope = action === 'write' ? scopes.writeScope : scopes.readScope;
    if (granted && identity.scopes.has(scopes.readScope) && identity.scopes.has(scope)) return null;
    const what = action === 'write' ? 'change resources of' : 'read';
    // One message for an ungranted and an unknown tenant alike; the missing scope is the caller's own business.
    if (!granted) return gatewayError('FORBIDDEN', `You may not ${what} tenant "${tenantId}".`, { reason: 'TENANT_NOT_GRANTED' });
    const missing = identity.scopes.has(scopes.readScope) ? scope : scopes.readScope;
    return gatewayError('FORBIDDEN', `You may not ${what} tenant "${tenantId}": your token lacks the scope ${missing}.`, { reason: 'SCOPE_MISSING', scope: missing });
  }

  /** Throws the refusal (a FORBIDDEN error at the field that asked). */
  require(tenantId: string, action: TenantAction): void {
    const refusal = this.refusal(tenantId, action);
    if (refusal) throw refusal;
  }

  mayRead(tenantId: string): boolean {
    return this.refusal(tenantId, 'read') === null;
  }

  /** Whether the caller's token holds the explain scope (never without sign-in: EXPLAIN decides then). */
  mayExplain(): boolean {
    const scope = this.scopes?.explainScope;
    return scope !== undefined && this.identity !== null && this.identity.scopes.has(scope);
  }

  /**
   * An estimate without the tenants this caller may not read: their calls are never made (refused
   * before the cache and any call), so they are not claimed from those tenants' windows, nor their
   * windows told.
   */
  grantedOnly(found: UpstreamEstimate): UpstreamEstimate {
    if (!this.restricted) return found;
    let removed = 0;
    const byTenant = new Map(found.byTenant);
    for (const [tenant, count] of found.byTenant) {
      if (tenant !== null && !this.mayRead(tenant)) {
        byTenant.delete(tenant);
        removed += count.total;
      }
    }
    return removed === 0 ? found : { ...found, byTenant, estimate: Math.max(0, found.estimate - removed) };
  }
}
