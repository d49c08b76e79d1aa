/** One table says where every resource field comes from; the schema may not grow past it. */
import { getNamedType, isInterfaceType, isObjectType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documents, loadsFor, RESOURCE_FIELDS, type ResourceFieldName } from '../../src/domain/resource.js';
import { readField } from '../../src/domain/resource-view.js';
import { schema } from '../../src/schema/index.js';
import { estimateUpstreamCalls } from '../../src/schema/cost.js';

/** Resource fields that are not read from a resource record: identity and the per-resource calls. */
const NOT_FROM_THE_RECORD = new Set(['id', 'resourceId', 'tenantId', 'applications', 'availability']);
const RESOURCE_TYPES = ['Resource', 'GeneralResource', 'DeviceResource', 'SyntheticResource'];

describe('the field-source table', () => {
  it('has an entry for every field of the resource types', () => {
    const missing: string[] = [];
    for (const name of RESOURCE_TYPES) {
      const type = schema.getType(name);
      if (!isObjectType(type) && !isInterfaceType(type)) throw new Error(`${name} is not in the schema`);
      for (const field of Object.keys(type.getFields())) {
        if (!NOT_FROM_THE_RECORD.has(field) && !Object.hasOwn(RESOURCE_FIELDS, field)) missing.push(`${name}.${field}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names, for every field, a read that can supply it or a documented form that carries it', () => {
    for (const name of Object.keys(RESOURCE_FIELDS) as ResourceFieldName[]) {
      const carriedSomewhere = (['search', 'minimal', 'antivirus', 'general', 'device', 'synthetic'] as const).some((f) => documents(f, name));
      expect(carriedSomewhere || loadsFor(name).length > 0, name).toBe(true);
    }
  });

  it('loads the detail, then a search by id, for a field the search and the general detail document', () => {
    expect(loadsFor('hostName')).toEqual(['detail', 'search']);
    expect(loadsFor('model')).toEqual(['search']);
    expect(loadsFor('location')).toEqual(['detail', 'search']);
    expect(loadsFor('cloudResourceId')).toEqual(['detail']);
  });

  it('says, for every field of every nested object of a resource, where it stands in the nested record', () => {
    const missing: string[] = [];
    for (const name of RESOURCE_TYPES) {
      const type = schema.getType(name);
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      for (const [fieldName, field] of Object.entries(type.getFields())) {
        const inner = getNamedType(field.type);
        if (!isObjectType(inner) || !Object.hasOwn(RESOURCE_FIELDS, fieldName)) continue;
        const sub = (RESOURCE_FIELDS[fieldName as ResourceFieldName] as { sub?: Record<string, unknown> }).sub ?? {};
        for (const subName of Object.keys(inner.getFields())) if (!Object.hasOwn(sub, subName)) missing.push(`${fieldName}.${subName}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("estimates per sub-field: a location's city costs the detail only, a tag's source the detail and then a search by id", () => {
    const settings = { maxAvailabilityWindowDays: 366, defaultPageSize: 10, maxPageSize: 10, minimalListSize: 10, resourceTypeCount: 5 };
    const estimate = (selection: string) => estimateUpstreamCalls(parse(`{ tenant(id: "client_1") { resourceList { ${selection} } } }`), null, {}, settings).estimate;
    // 1 = the list read; then, per listed resource, its detail, and a search by id where that may still supply something.
    expect(estimate('hostName')).toBe(1);
    expect(estimate('location { number name city }')).toBe(11);
    expect(estimate('location { number } tags { source }')).toBe(21);
  });

  it('reads the provider identity from identity, then properties.arn, then the older spellings', () => {
    const view = (record: Record<string, unknown>) => ({ tenantId: 'client_1', id: 'x', origin: 'detail' as const, kind: 'device' as const, record });
    const arn = 'arn:aws:events:us-east-1:123456789012:event-bus/default';
    const azure = '/subscriptions/0c1d/resourcegroups/rg-1/providers/Microsoft.Network/virtualNetworks/vnet-1';
    expect(readField(view({ identity: azure, properties: { arn } }), 'cloudResourceId')).toEqual({ present: true, value: azure });
    expect(readField(view({ properties: { arn } }), 'cloudResourceId')).toEqual({ present: true, value: arn });
    expect(readField(view({ providerUID: 'legacy' }), 'cloudResourceId')).toEqual({ present: true, value: 'legacy' });
    expect(readField(view({ properties: { provider: 'AWS' } }), 'cloudResourceId')).toEqual({ present: false });
  });
});
