/**
 * Reading one setting from the environment: whole numbers in a range, booleans, URLs, the trusted
 * documents' manifest, the federation secret, the upstream's URL. A value that is not what the
 * setting takes is a ConfigError naming the setting. src/config.ts composes them into the config.
 */
import { readFileSync } from 'node:fs';

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number between ${min} and ${max}, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

export const mapValues = <K extends string>(record: Record<K, number>, f: (value: number) => number) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value as number)])) as Record<K, number>;

export function urlSetting(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must use http or https`);
  if (url.username || url.password) throw new ConfigError(`${name} must not carry credentials; use INVENTORY_CLIENT_ID/SECRET`);
  return raw.replace(/\/+$/, '');
}

/** Hashes are compared without the `sha256:` prefix the manifest's keys carry. */
export const bareHash = (hash: string) => hash.replace(/^sha256:/i, '').toLowerCase();

/** Reads a manifest; throws a message naming what is wrong (the caller names the setting). */
function loadTrustedDocuments(path: string): ReadonlyMap<string, string> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read a JSON manifest at '${path}' (${(error as Error).message.split('\n')[0]})`);
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) throw new Error(`'${path}' is not an object of hash to document`);
  const documents = new Map<string, string>();
  for (const [hash, document] of Object.entries(manifest)) {
    if (typeof document !== 'string') throw new Error(`'${path}': the entry '${hash}' is not a document`);
    documents.set(bareHash(hash), document);
  }
  if (documents.size === 0) throw new Error(`'${path}' lists no operation`);
  return documents;
}

export function trustedDocumentsSetting(env: Env): ReadonlyMap<string, string> | null {
  const path = env.TRUSTED_DOCUMENTS?.trim();
  if (!path) return null;
  try {
    return loadTrustedDocuments(path);
  } catch (error) {
    throw new ConfigError(`TRUSTED_DOCUMENTS must name a persisted-documents manifest: ${(error as Error).message}`);
  }
}

/** A secret shared with the federation gateway: long enough that guessing it is hopeless. */
export function federationSecretSetting(env: Env): string | null {
  const raw = env.FEDERATION_SECRET;
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16 || /\s/.test(raw)) throw new ConfigError('FEDERATION_SECRET must be at least 16 characters without spaces (e.g. openssl rand -hex 32)');
  return raw;
}

/** INVENTORY_API_URL's value that asks for the embedded simulator (required for it in production). */
export const SIMULATOR_UPSTREAM = 'simulator';

/** The upstream URL, or null for the embedded simulator: asked for by name, or by leaving the setting unset outside production. */
export function upstreamSetting(env: Env, production: boolean): string | null {
  const raw = env.INVENTORY_API_URL?.trim();
  if (raw === SIMULATOR_UPSTREAM) return null;
  // A production process that forgot its upstream must not quietly serve simulated records.
  if (!raw && production) {
    throw new ConfigError(`INVENTORY_API_URL is required with NODE_ENV=production: the upstream's URL, or '${SIMULATOR_UPSTREAM}' for the embedded simulator`);
  }
  return urlSetting(env, 'INVENTORY_API_URL');
}

export interface RedisSettings {
  url: string;
  keyPrefix: string;
  /** A Redis command slower than this counts as a failure (the in-process cache answers). */
  timeoutMs: number;
}

export function redisSetting(env: Env): RedisSettings | null {
  const raw = env.REDIS_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  return { url: raw, keyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'inventory-gateway:', timeoutMs: intSetting(env, 'REDIS_TIMEOUT_MS', 250, 10, 60_000) };
}
