/**
 * Global object ids (the Relay server specification): opaque strings that carry what a refetch
 * needs. A resource's id does not depend on its concrete type (a minimal record does not know
 * it), so all three resource types share the kind `Resource`. Format, base64url of
 * `<kind>:<tenantId>[:<key>]`; tenant and resource ids cannot contain ':' (src/domain/input.ts).
 *
 * Arguments that name an object (Query.tenant, Tenant.resource, Tenant.decommissionedResource,
 * the id of the resource filters, updateResource's input) take its inventory id or its global id,
 * told apart by one rule (looksLikeGlobalId): a value is a global id when it is base64url whose
 * decoded text begins with a known kind and ':'; anything else is an inventory id. The encoding of
 * every kind begins with 'V', 'U' or 'R' (not hex), so ids of digits, hex and '-' (numbers, UUIDs)
 * are never read as global ids; only an id that happens to be base64 of `Resource:...` would be.
 */
import { checkId, checkTenantId } from '../domain/input.js';
import { badUserInput } from '../core/errors.js';
import type { NodeKey, NodeKind } from '../core/node-key.js';

/** Schema type names that share one global id kind. */
const KIND_OF_TYPE: Record<string, NodeKind> = {
  Tenant: 'Tenant',
  Resource: 'Resource',
  GeneralResource: 'Resource',
  DeviceResource: 'Resource',
  SyntheticResource: 'Resource',
  DecommissionedResource: 'DecommissionedResource',
  ResourceType: 'ResourceType',
};

/** The local part of a global id: the tenant, then the key within it. */
export function localId(key: NodeKey): string {
  switch (key.kind) {
    case 'Tenant': return key.tenantId;
    case 'ResourceType': return `${key.tenantId}:${key.number}`;
    default: return `${key.tenantId}:${key.id}`;
  }
}

export function encodeGlobalId(typename: string, local: string | number | bigint): string {
  const kind = KIND_OF_TYPE[typename] ?? typename;
  return Buffer.from(`${kind}:${local}`, 'utf8').toString('base64url');
}

export function globalIdOf(key: NodeKey): string {
  return encodeGlobalId(key.kind, localId(key));
}

const MAX_GLOBAL_ID_LENGTH = 400;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** Every kind, as error messages name it. */
const KIND_WORDS: Record<NodeKind, string> = {
  Tenant: 'a tenant', Resource: 'a resource', DecommissionedResource: 'a decommissioned resource', ResourceType: 'a resource type',
};

const invalid = (field: string) => badUserInput(`${field} is not an id from this API`, field);

/** The key a global id stands for; anything else is BAD_USER_INPUT (checked before any call). */
export function parseGlobalId(globalId: string, field = 'id'): NodeKey {
  const parts = typeof globalId === 'string' ? splitGlobalId(globalId) : null;
  if (!parts) throw invalid(field);
  return nodeKey(parts.kind, parts.local, field);
}

/** A global id's kind and local id as written, or null when it is not base64url text with a colon. */
function splitGlobalId(value: string): { kind: string; local: string } | null {
  if (value.length > MAX_GLOBAL_ID_LENGTH || !BASE64URL.test(value)) return null;
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? null : { kind: text.slice(0, colon), local: text.slice(colon + 1) };
}

/** The key of a kind and a local id (as the relay plugin passes them after decoding). */
export function nodeKey(kind: string, local: string, field = 'id'): NodeKey {
  const [tenantId, rest, ...extra] = local.split(':');
  if (extra.length > 0 || !tenantId) throw invalid(field);
  try {
    checkTenantId(tenantId, field);
    if (kind === 'Tenant' && rest === undefined) return { kind, tenantId };
    if ((kind === 'Resource' || kind === 'DecommissionedResource') && rest !== undefined) return { kind, tenantId, id: checkId(rest, field) };
    if (kind === 'ResourceType' && rest !== undefined && /^\d{1,9}$/.test(rest)) return { kind, tenantId, number: Number(rest) };
  } catch {
    throw invalid(field);
  }
  throw invalid(field);
}

/** The one rule that tells a global id from an inventory id (see the module comment). */
export function looksLikeGlobalId(value: string): boolean {
  return isKnownKind(splitGlobalId(value));
}

function isKnownKind(parts: { kind: string } | null): parts is { kind: NodeKind; local: string } {
  return parts !== null && Object.hasOwn(KIND_WORDS, parts.kind);
}

/** The key shape of one kind (Resource and DecommissionedResource share a member of NodeKey). */
export type KeyOfKind<K extends NodeKind> = NodeKey extends infer N ? (N extends { kind: infer Of } ? (K extends Of ? N & { kind: K } : never) : never) : never;

/**
 * The key an argument names when it is given as a global id, or null when the value is an
 * inventory id (the caller checks it as before). A global id of another kind, or of another
 * tenant than `tenantId` (the tenant the argument is asked under), is BAD_USER_INPUT naming
 * `field`, thrown before any upstream call.
 */
export function keyFromGlobalId<K extends NodeKind>(value: string, kind: K, field: string, tenantId?: string): KeyOfKind<K> | null {
  // Decoded once: the same parts decide "global id or not" and give the key.
  const parts = splitGlobalId(value);
  if (!isKnownKind(parts)) return null;
  const key = nodeKey(parts.kind, parts.local, field);
  if (key.kind !== kind) throw badUserInput(`${field} is the id of ${KIND_WORDS[key.kind]}, not of ${KIND_WORDS[kind]}`, field);
  if (tenantId !== undefined && key.tenantId !== tenantId) {
    throw badUserInput(`${field} names an object of tenant '${key.tenantId}', not of tenant '${tenantId}'`, field);
  }
  return key as KeyOfKind<K>;
}

/**
 * The inventory id an argument names, given either form: a tenant's id, or a resource's within
 * `tenantId` (see keyFromGlobalId). Every argument that names an object goes through here.
 */
export function inventoryIdArgument(value: string | number, kind: 'Tenant' | 'Resource' | 'DecommissionedResource', field: string, tenantId?: string): string {
  const key = keyFromGlobalId(String(value), kind, field, tenantId);
  if (key === null) return String(value);
  return 'id' in key ? key.id : key.tenantId;
}

/** A filter whose id may be either form, with the inventory id in its place (see inventoryIdArgument). */
export function filterWithInventoryId<F extends { id?: string | number | null }>(filter: F | null | undefined, kind: 'Resource' | 'DecommissionedResource', tenantId: string): F | null | undefined {
  if (filter?.id == null) return filter;
  return { ...filter, id: inventoryIdArgument(filter.id, kind, 'filter.id', tenantId) };
}

/** For the relay plugin: the kind as the type name, the local part as the id. */
export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const key = parseGlobalId(globalId);
  return { typename: key.kind, id: localId(key) };
}
