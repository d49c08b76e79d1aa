/**
 * The caller's token -> its Identity, or why not. Tokens are JWTs from the configured OpenID
 * issuers (AUTH_ISSUERS), checked by jose: signature against the issuer's published keys,
 * `iss`, `aud`, `exp` and `nbf` (with AUTH_CLOCK_TOLERANCE_S), and only the allowed algorithms.
 * A token is never logged, kept or echoed: verified ones are remembered by their digest, briefly.
 */
import { createHash } from 'node:crypto';
import { decodeJwt, errors, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { IdentitySettings } from './settings.js';
import type { Logger } from '../logger.js';
import type { Identity } from './access.js';
import { identityFromClaims } from './claims.js';
import { IssuerKeys, IssuerUnavailable } from './issuer-keys.js';

/** Why a token was refused (extensions.reason of the UNAUTHENTICATED error; /metrics counts them). */
export type RefusalReason =
  | 'TOKEN_MISSING' | 'TOKEN_MALFORMED' | 'TOKEN_EXPIRED' | 'TOKEN_NOT_YET_VALID' | 'BAD_SIGNATURE' | 'WRONG_ISSUER'
  | 'WRONG_AUDIENCE' | 'ALGORITHM_NOT_ALLOWED' | 'UNKNOWN_KEY' | 'CLAIMS_INVALID';

export type Verdict =
  | { identity: Identity }
  | { refused: RefusalReason }
  /** The token's issuer has no keys yet (its provider has not answered since the gateway started). */
  | { unavailable: true };

/** Longer than any real token: refused before it is decoded. */
const MAX_TOKEN_LENGTH = 16_384;
/** Verified tokens remembered (by digest) at most, and for at most this long (a withdrawn key stops working within it). */
const VERIFIED_MAX = 10_000;
const VERIFIED_TTL_MS = 60_000;

function reasonOf(error: unknown): RefusalReason {
  if (error instanceof errors.JWTExpired) return 'TOKEN_EXPIRED';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'TOKEN_NOT_YET_VALID';
    if (error.claim === 'iss') return 'WRONG_ISSUER';
    if (error.claim === 'aud') return 'WRONG_AUDIENCE';
    return 'CLAIMS_INVALID';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'ALGORITHM_NOT_ALLOWED';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'BAD_SIGNATURE';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) return 'TOKEN_MALFORMED';
  // No key of that id, even after a fetch (or the fetch for it failed).
  return 'UNKNOWN_KEY';
}

export class TokenVerifier {
  private readonly issuers: Map<string, IssuerKeys>;
  private readonly verified = new LRUCache<string, Identity>({ max: VERIFIED_MAX, ttl: VERIFIED_TTL_MS, ttlAutopurge: false });

  constructor(private readonly settings: IdentitySettings, logger: Logger) {
    this.issuers = new Map(settings.issuers.map((issuer) => [issuer, new IssuerKeys(issuer, logger)]));
  }

  start(): void {
    for (const keys of this.issuers.values()) keys.start();
  }

  close(): void {
    for (const keys of this.issuers.values()) keys.close();
  }

  /** Every issuer's keys are held (until then /readyz is 503). */
  get ready(): boolean {
    return [...this.issuers.values()].every((keys) => keys.ready);
  }

  /** The issuers whose keys are not held yet. */
  waitingFor(): string[] {
    return [...this.issuers.values()].filter((keys) => !keys.ready).map((keys) => keys.issuer);
  }

  /** Judges an Authorization header (`Bearer <token>`). */
  async verify(authorization: string | null | undefined): Promise<Verdict> {
    if (authorization == null || authorization.trim() === '') return { refused: 'TOKEN_MISSING' };
    const match = /^Bearer +([A-Za-z0-9_~+/=.-]+)$/i.exec(authorization.trim());
    if (!match || match[1]!.length > MAX_TOKEN_LENGTH) return { refused: 'TOKEN_MALFORMED' };
    const token = match[1]!;
    const digest = createHash('sha256').update(token).digest('base64url');
    const known = this.verified.get(digest);
    if (known) {
      // Remembered, but its time may be up since (within the tolerance the verification allowed).
      if (known.expiresAtMs + this.settings.clockToleranceS * 1000 > Date.now()) return { identity: known };
      this.verified.delete(digest);
      return { refused: 'TOKEN_EXPIRED' };
    }
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      return { refused: 'TOKEN_MALFORMED' };
    }
    const keys = typeof issuer === 'string' ? this.issuers.get(issuer) : undefined;
    if (!keys) return { refused: 'WRONG_ISSUER' };
    try {
      const { payload } = await jwtVerify(token, keys.getKey, {
        issuer: keys.issuer,
        audience: this.settings.audience,
        algorithms: this.settings.algorithms,
        clockTolerance: this.settings.clockToleranceS,
        requiredClaims: ['exp', 'sub'],
      });
      const identity = identityFromClaims(payload, this.settings.tenantsClaim);
      if (!identity) return { refused: 'CLAIMS_INVALID' };
      const leftMs = identity.expiresAtMs + this.settings.clockToleranceS * 1000 - Date.now();
      this.verified.set(digest, identity, { ttl: Math.max(1, Math.min(VERIFIED_TTL_MS, leftMs)) });
      return { identity };
    } catch (error) {
      if (error instanceof IssuerUnavailable) return { unavailable: true };
      return { refused: reasonOf(error) };
    }
  }
}
