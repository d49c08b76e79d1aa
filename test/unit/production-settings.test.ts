/** What NODE_ENV=production requires of the settings, and what stays as it was outside production. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return null;
};

describe('production settings', () => {
  it('needs INVENTORY_API_URL in production; `simulator` asks for the embedded simulator', () => {
    expect(refusal({ NODE_ENV: 'production' })).toMatch(/^INVENTORY_API_URL is required with NODE_ENV=production/);
    expect(refusal({ NODE_ENV: 'production', INVENTORY_API_URL: ' ' })).toMatch(/^INVENTORY_API_URL is required/);
    const simulated = loadConfig({ NODE_ENV: 'production', INVENTORY_API_URL: 'simulator' });
    expect(simulated.inventoryApiUrl).toBeNull();
    expect(simulated.authMode).toBe('none');
    expect(loadConfig({ NODE_ENV: 'production', INVENTORY_API_URL: 'https://inventory.example/' }).inventoryApiUrl).toBe('https://inventory.example');
  });

  it('outside production, no setting at all still means the embedded simulator', () => {
    for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }]) {
      const config = loadConfig(env);
      expect(config.inventoryApiUrl).toBeNull();
      expect(config.authMode).toBe('none');
    }
  });

  it('needs CACHE_SCOPE_SECRET in production when passthrough callers share a Redis cache', () => {
    const shared = { NODE_ENV: 'production', INVENTORY_API_URL: 'https://inventory.example', REDIS_URL: 'redis://redis:6379' };
    expect(refusal(shared)).toMatch(/^CACHE_SCOPE_SECRET is required with NODE_ENV=production, REDIS_URL and passthrough auth/);
    expect(refusal({ ...shared, INVENTORY_AUTH_MODE: 'passthrough' })).toMatch(/^CACHE_SCOPE_SECRET/);
    expect(loadConfig({ ...shared, CACHE_SCOPE_SECRET: 'an-installation-secret' }).cache?.scopeSecret).toBe('an-installation-secret');
    // No digest of a caller's credential reaches Redis: client credentials and no auth key by the gateway's own identity, CACHE=false keeps nothing.
    expect(refusal({ ...shared, INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw', INVENTORY_CLIENT_SECRET: 's', AUTH: 'off' })).toBeNull();
    expect(refusal({ ...shared, INVENTORY_AUTH_MODE: 'none', AUTH: 'off' })).toBeNull();
    expect(refusal({ ...shared, CACHE: 'false' })).toBeNull();
    // The in-process level alone: its keys never leave the process.
    expect(refusal({ NODE_ENV: 'production', INVENTORY_API_URL: 'https://inventory.example' })).toBeNull();
  });

  it('outside production the built-in scope key still serves (development)', () => {
    const config = loadConfig({ INVENTORY_API_URL: 'https://inventory.example', REDIS_URL: 'redis://redis:6379' });
    expect(config.authMode).toBe('passthrough');
    expect(config.cache?.scopeSecret).toBe('inventory-gateway-cache-scope');
  });

  it('issue 30: FEDERATION_SECRET is checked, UPSTREAM_STATS is off in production, connection limits have defaults', () => {
    const prod = { NODE_ENV: 'production', INVENTORY_API_URL: 'https://inventory.example' };
    expect(refusal({ ...prod, FEDERATION_SECRET: 'short' })).toMatch(/^FEDERATION_SECRET must be at least 16 characters/);
    expect(refusal({ ...prod, FEDERATION_SECRET: 'sixteen chars but spaces' })).toMatch(/^FEDERATION_SECRET/);
    expect(loadConfig({ ...prod, FEDERATION_SECRET: '0123456789abcdef' }).federationSecret).toBe('0123456789abcdef');
    expect(loadConfig(prod).federationSecret).toBeNull();
    expect(loadConfig(prod).upstreamStats).toBe(false);
    expect(loadConfig({ ...prod, UPSTREAM_STATS: 'true' }).upstreamStats).toBe(true);
    expect(loadConfig({}).upstreamStats).toBe(true);
    // Issue 40: explain (x-explain: 1) likewise, allowed with EXPLAIN=on.
    expect(loadConfig(prod).explain).toBe(false);
    expect(loadConfig({ ...prod, EXPLAIN: 'on' }).explain).toBe(true);
    expect(loadConfig({}).explain).toBe(true);
    expect(loadConfig(prod).connections).toEqual({ headersTimeoutMs: 10_000, maxConnectionsPerAddress: 256 });
    expect(refusal({ ...prod, HEADERS_TIMEOUT_MS: '100' })).toMatch(/^HEADERS_TIMEOUT_MS must be between 1000 and 60000/);
    expect(loadConfig({ ...prod, MAX_CONNECTIONS_PER_ADDRESS: '0' }).connections.maxConnectionsPerAddress).toBe(0);
  });
});
