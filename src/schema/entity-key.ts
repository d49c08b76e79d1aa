/**
 * The key of a federation entity representation (or of a node id): which object it names. The
 * `_entities` resolver and the cost estimate both read it, so a batch's repeated references are
 * one object to both (the estimate counts distinct keys; the loaders read each key once).
 */
import { badUserInput } from '../core/errors.js';
import type { NodeKey } from '../core/node-key.js';
import { KIND_OF_TYPE, parseGlobalId } from './global-id.js';

/** The object a representation names, by its global id or by its natural key; BAD_USER_INPUT when it names none. */
export function entityKey(rep: unknown): NodeKey {
  const ref = (typeof rep === 'object' && rep !== null ? rep : {}) as Record<string, unknown>;
  const typename = typeof ref.__typename === 'string' ? ref.__typename : '';
  const kind = Object.hasOwn(KIND_OF_TYPE, typename) ? KIND_OF_TYPE[typename] : undefined;
  if (!kind || kind === 'ResourceType') throw badUserInput(`representations: no entity type named '${typename.slice(0, 100)}'`, 'representations.__typename');
  if (ref.id !== undefined) {
    const key = parseGlobalId(String(ref.id), 'representations.id');
    if (key.kind !== kind) throw badUserInput(`representations.id is not the id of a ${typename}`, 'representations.id');
    return key;
  }
  if (typeof ref.tenantId !== 'string') throw badUserInput(`representations: a ${typename} is known by id or by its natural key`, 'representations');
  if (kind === 'Tenant') return { kind, tenantId: ref.tenantId };
  if (typeof ref.resourceId !== 'string') throw badUserInput(`representations: a ${typename} is known by id or by tenantId and resourceId`, 'representations.resourceId');
  return { kind, tenantId: ref.tenantId, id: ref.resourceId };
}

/** The object a node id or a representation names; null for one that names nothing (refused before any call). */
export function nodeKeyOf(item: unknown): NodeKey | null {
  try {
    return typeof item === 'string' ? parseGlobalId(item) : entityKey(item);
  } catch {
    return null;
  }
}

export function tenantOfGlobalId(value: string): string | null {
  const key = nodeKeyOf(value);
  return key ? key.tenantId : null;
}

/** A tenant argument: an inventory tenant id or a Tenant's global id. */
export function tenantOfArgument(value: string): string {
  return tenantOfGlobalId(value) ?? value;
}
