/**
 * Global object ids (the Relay server specification): opaque strings that carry what a refetch
 * needs. A resource's id does not depend on its concrete type (a minimal record does not know
 * it), so all three resource types share the kind `Resource`. Format, base64url of
 * `<kind>:<tenantId>[:<key>]`; tenant and resource ids cannot contain ':' (src/domain/input.ts).
 */
import { checkId, checkTenantId } from '../domain/input.js';
import { badUserInput } from '../upstream/errors.js';

export type NodeKind = 'Tenant' | 'Resource' | 'DecommissionedResource' | 'ResourceType';

export type NodeKey =
  | { kind: 'Tenant'; tenantId: string }
  | { kind: 'Resource' | 'DecommissionedResource'; tenantId: string; id: string }
  | { kind: 'ResourceType'; tenantId: string; number: number };

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

const invalid = (field: string) => badUserInput(`${field} is not an id from this API`, field);

/** The key a global id stands for; anything else is BAD_USER_INPUT (checked before any call). */
export function parseGlobalId(globalId: string, field = 'id'): NodeKey {
  if (typeof globalId !== 'string' || globalId.length > MAX_GLOBAL_ID_LENGTH || !/^[A-Za-z0-9_-]+={0,2}$/.test(globalId)) throw invalid(field);
  const text = Buffer.from(globalId, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw invalid(field);
  return nodeKey(text.slice(0, colon), text.slice(colon + 1), field);
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

/** For the relay plugin: the kind as the type name, the local part as the id. */
export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const key = parseGlobalId(globalId);
  return { typename: key.kind, id: localId(key) };
}
