/** The rule that tells a global id from an inventory id, over generated ids (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeKey } from '../../src/core/node-key.js';
import { globalIdOf, inventoryIdArgument, keyFromGlobalId, looksLikeGlobalId } from '../../src/schema/global-id.js';

const word = (max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,${max - 1}}$`));
const tenantId = word(64);
const inventoryId = word(128);
const nodeKeyArb: fc.Arbitrary<NodeKey> = fc.oneof(
  tenantId.map((t) => ({ kind: 'Tenant' as const, tenantId: t })),
  fc.record({ kind: fc.constantFrom('Resource' as const, 'DecommissionedResource' as const), tenantId, id: inventoryId }),
  fc.record({ kind: fc.constant('ResourceType' as const), tenantId, number: fc.integer({ min: 0, max: 999_999_999 }) }),
);

describe('looksLikeGlobalId', () => {
  it('reads every global id the API gives out as one, and back to its key', () => {
    fc.assert(fc.property(nodeKeyArb, (key) => {
      const gid = globalIdOf(key);
      expect(looksLikeGlobalId(gid)).toBe(true);
      expect(keyFromGlobalId(gid, key.kind, 'id', key.tenantId)).toEqual(key);
    }));
  });

  it('never reads a number, a UUID or a hex id as a global id', () => {
    const ids = fc.oneof(fc.uuid().map(String), fc.nat().map(String), fc.stringMatching(/^[0-9a-fA-F-]{1,128}$/));
    fc.assert(fc.property(ids, tenantId, (id, tenant) => {
      expect(looksLikeGlobalId(id)).toBe(false);
      expect(inventoryIdArgument(id, 'Resource', 'id', tenant)).toBe(id);
    }));
  });

  it('refuses a global id of another kind or tenant, naming the argument', () => {
    const resource = { kind: 'Resource' as const, tenantId: 'client_1', id: 'r-1' };
    expect(() => keyFromGlobalId(globalIdOf(resource), 'DecommissionedResource', 'filter.id', 'client_1')).toThrow(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', field: 'filter.id' } }));
    expect(() => keyFromGlobalId(globalIdOf(resource), 'Resource', 'input.id', 'client_2')).toThrow(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', field: 'input.id' } }));
  });
});
