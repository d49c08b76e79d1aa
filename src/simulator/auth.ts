/**
 * OAuth2 of the simulator: the client_credentials token endpoint, the tokens it issued (grants)
 * with their expiry and tenant scope, and the 401/403 refusals of API requests when auth is on.
 * The clock and the token randomness are injected, so expiry and revocation are testable without waiting.
 */
import type { Random } from './random.js';
import type { SimClient, SimulatorSettings } from './settings.js';

/** A token the simulator issued: until when it is valid, to which client, and the tenants it may read (null: all). */
export interface Grant { expiresAt: number; clientId: string; tenants: ReadonlySet<string> | null }

export interface Refusal { status: 401 | 403; message: string }

export interface AuthRoom {
  /** Answers POST /auth/oauth/token with its form-encoded body. */
  issueToken(formBody: string): { status: number; body: unknown };
  /** The unexpired, unrevoked grant of an Authorization header, if any. */
  grantOf(authorization: string | undefined): Grant | undefined;
  /** With auth on: 401 without a valid token, 403 for a tenant outside the token's scope; null when allowed. */
  refusal(authorization: string | undefined, tenantId: string | undefined): Refusal | null;
  /** Expire every issued token (as if their lifetime ran out). */
  expireTokens(): void;
  /** Make one token invalid while the others stay valid; false when it is unknown or already revoked. */
  revokeToken(token: string): boolean;
}

export interface AuthOptions {
  /** The live settings: a change of auth.* through /__sim/config applies to the next request. */
  settings: SimulatorSettings;
  random: Pick<Random, 'hex'>;
  now?: () => number;
}

export function createAuth({ settings, random, now = Date.now }: AuthOptions): AuthRoom {
  const grants = new Map<string, Grant>();

  function issueToken(formBody: string): { status: number; body: unknown } {
    const form = new URLSearchParams(formBody);
    if (form.get('grant_type') !== 'client_credentials') {
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Only client_credentials is supported' } };
    }
    const clientId = form.get('client_id');
    const clientSecret = form.get('client_secret');
    // The main client sees every tenant; a client of auth.clients its own tenants (all when it lists none).
    const client: SimClient | undefined = clientId === settings.auth.clientId && clientSecret === settings.auth.clientSecret
      ? { clientId, clientSecret }
      : settings.auth.clients?.find((c) => c.clientId === clientId && c.clientSecret === clientSecret);
    if (!client) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Bad client credentials' } };
    }
    const token = `sim-token-${random.hex(32)}`;
    const ttl = settings.auth.tokenTtlSeconds;
    grants.set(token, { expiresAt: now() + ttl * 1000, clientId: client.clientId, tenants: client.tenants ? new Set(client.tenants) : null });
    return {
      status: 200,
      body: { access_token: token, token_type: 'bearer', expires_in: settings.auth.expiresInAsString ? String(ttl) : ttl, scope: 'global:read global:manage' },
    };
  }

  function grantOf(authorization: string | undefined): Grant | undefined {
    const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
    const grant = match ? grants.get(match[1] as string) : undefined;
    return grant !== undefined && grant.expiresAt > now() ? grant : undefined;
  }

  return {
    issueToken,
    grantOf,
    refusal(authorization, tenantId) {
      if (!settings.auth.enabled) return null;
      const grant = grantOf(authorization);
      if (!grant) return { status: 401, message: 'Missing, invalid or expired bearer token' };
      if (grant.tenants && tenantId !== undefined && !grant.tenants.has(tenantId)) return { status: 403, message: `This client may not access tenant '${tenantId}'` };
      return null;
    },
    expireTokens() {
      for (const grant of grants.values()) grant.expiresAt = 0;
    },
    revokeToken: (token) => grants.delete(token),
  };
}
