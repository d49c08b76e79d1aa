/** A verified token's claims -> the caller's Identity (subject, tenant grants, scopes). */
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { Identity } from './access.js';

/** Whole tokens list tenants; a token naming more is refused rather than held in memory. */
const MAX_GRANTS = 10_000;

function words(value: unknown): string[] | null {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((w) => w !== '');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return null;
}

/**
 * The caller from its claims, or null when they cannot name one (no subject, malformed grants).
 * Scopes come from the standard `scope` (a space-separated string, or an array), or `scp` as Entra
 * ID and Okta send them; the tenants claim is a list of tenant ids (an array or a string), `*` for all.
 */
export function identityFromClaims(claims: JWTPayload, tenantsClaim: string): Identity | null {
  const { iss, sub, exp } = claims;
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub === '' || typeof exp !== 'number') return null;
  const granted = claims[tenantsClaim] === undefined ? [] : words(claims[tenantsClaim]);
  if (granted === null || granted.length > MAX_GRANTS) return null;
  const scopes = words(claims.scope ?? claims.scp) ?? [];
  return {
    issuer: iss,
    subject: sub,
    tenants: granted.includes('*') ? 'all' : new Set(granted),
    scopes: new Set(scopes),
    expiresAtMs: exp * 1000,
    callerKey: `sub:${createHash('sha256').update(`${iss}\0${sub}`).digest('base64url').slice(0, 22)}`,
  };
}
