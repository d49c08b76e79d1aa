/**
 * AUTH_*: the settings of inbound identity, read with the others at start-up (src/config.ts). An
 * invalid value stops start-up with one line naming it.
 */
import { ConfigError, intSetting, type Env } from '../config-readers.js';
import { DEFAULT_SCOPES } from './access.js';

type AuthMode = 'passthrough' | 'client-credentials' | 'none';

export interface IdentitySettings {
  /** AUTH_ISSUERS: the OpenID issuers whose tokens are accepted (each one's keys from its discovery document). */
  issuers: string[];
  /** AUTH_AUDIENCE: the `aud` a token must carry. */
  audience: string;
  /** AUTH_ALGORITHMS: signature algorithms accepted (asymmetric only). */
  algorithms: string[];
  /** AUTH_CLOCK_TOLERANCE_S: leeway for `exp` and `nbf`. */
  clockToleranceS: number;
  /** AUTH_TENANTS_CLAIM: the claim listing the tenants a caller may read (`*`: all). */
  tenantsClaim: string;
  /** AUTH_READ_SCOPE / AUTH_WRITE_SCOPE: the scopes that allow reading and updating. */
  readScope: string;
  writeScope: string;
  /** AUTH_EXPLAIN_SCOPE: lets a caller ask for cost plans (x-explain) where EXPLAIN is off. */
  explainScope: string;
}

/** Asymmetric JWS algorithms: a key set never verifies an HMAC (its "key" would be public) or `none`. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * AUTH_*: inbound identity. Required in production when the gateway calls the upstream with a
 * credential of its own (client-credentials, or none): then nothing else can say who may see which
 * tenant. AUTH=off says on purpose that something in front of the gateway authenticates.
 * In passthrough the upstream judges each caller's own credential: no inbound identity.
 */
export function identitySetting(env: Env, production: boolean, authMode: AuthMode, embeddedSimulator: boolean): { identity: IdentitySettings | null; identityOff: boolean } {
  const switchRaw = env.AUTH?.trim().toLowerCase() ?? '';
  if (switchRaw !== '' && switchRaw !== 'off' && switchRaw !== 'on') throw new ConfigError(`AUTH must be 'off' (something in front of the gateway authenticates) or unset, got '${env.AUTH}'`);
  const identityOff = switchRaw === 'off';
  const issuersRaw = env.AUTH_ISSUERS?.trim() ?? '';
  if (issuersRaw === '') {
    // The embedded simulator (asked for by name) holds made-up data only.
    if (production && authMode !== 'passthrough' && !identityOff && !embeddedSimulator) {
      throw new ConfigError(`AUTH_ISSUERS is required with NODE_ENV=production and INVENTORY_AUTH_MODE=${authMode}: the gateway's own upstream credential reads every tenant, so callers must sign in (set AUTH=off only when something in front of the gateway authenticates them)`);
    }
    if (switchRaw === 'on') throw new ConfigError('AUTH=on needs AUTH_ISSUERS');
    return { identity: null, identityOff };
  }
  if (identityOff) throw new ConfigError('AUTH=off and AUTH_ISSUERS contradict each other: unset one');
  if (authMode === 'passthrough') {
    throw new ConfigError('AUTH_ISSUERS does not combine with INVENTORY_AUTH_MODE=passthrough: there the upstream judges the forwarded credential; use client-credentials for signed-in callers');
  }
  const issuers = issuersRaw.split(',').map((i) => i.trim()).filter((i) => i !== '');
  for (const issuer of issuers) {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw new ConfigError(`AUTH_ISSUERS must be a comma-separated list of issuer URLs, got '${issuer}'`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new ConfigError(`AUTH_ISSUERS: an issuer must use https (http only on a loopback address), got '${issuer}'`);
    }
    if (url.username || url.password || url.search || url.hash) throw new ConfigError(`AUTH_ISSUERS: an issuer is a plain URL (no credentials, query or fragment), got '${issuer}'`);
  }
  const audience = env.AUTH_AUDIENCE?.trim() ?? '';
  if (audience === '') throw new ConfigError('AUTH_AUDIENCE is required with AUTH_ISSUERS: the audience (aud) the gateway\'s tokens are issued for');
  const algorithmsRaw = env.AUTH_ALGORITHMS?.trim() ?? '';
  const algorithms = algorithmsRaw === '' ? [...ASYMMETRIC_ALGORITHMS] : algorithmsRaw.split(',').map((a) => a.trim()).filter((a) => a !== '');
  for (const algorithm of algorithms) {
    if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(algorithm)) {
      throw new ConfigError(`AUTH_ALGORITHMS takes asymmetric algorithms only (${ASYMMETRIC_ALGORITHMS.join(', ')}); 'none' and HMAC never verify against a key set, got '${algorithm}'`);
    }
  }
  const scope = (name: string, fallback: string) => {
    const value = env[name]?.trim() || fallback;
    if (/\s/.test(value)) throw new ConfigError(`${name} must be one scope (no spaces), got '${value}'`);
    return value;
  };
  return {
    identity: {
      issuers,
      audience,
      algorithms,
      clockToleranceS: intSetting(env, 'AUTH_CLOCK_TOLERANCE_S', 5, 0, 60),
      tenantsClaim: env.AUTH_TENANTS_CLAIM?.trim() || 'tenants',
      readScope: scope('AUTH_READ_SCOPE', DEFAULT_SCOPES.readScope),
      writeScope: scope('AUTH_WRITE_SCOPE', DEFAULT_SCOPES.writeScope),
      explainScope: scope('AUTH_EXPLAIN_SCOPE', DEFAULT_SCOPES.explainScope),
    },
    identityOff: false,
  };
}

