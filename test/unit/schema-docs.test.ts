/** The graph documents itself: every type and field says what it is (and which upstream field it maps where names differ). */
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

/**
 * Fields the design sketch names `id` on value types, under their names in the schema: `id` now
 * means a global object id (Relay), so the inventory's own numbers and ids have names of their own.
 */
const SKETCH_ID_RENAMES: Record<string, string> = {
  ResourceType: 'number',
  Location: 'number',
  NetworkCard: 'index',
  DecommissionedNetworkCard: 'index',
  ClientRef: 'number',
  InstalledIntegration: 'installId',
  SyntheticCredential: 'number',
  ManagementProfile: 'number',
  InstalledApplication: 'number',
};
/** Entities of the sketch: `id` stays (now the global id), and the inventory's id has its own field. */
const SKETCH_ENTITIES: Record<string, string> = {
  Tenant: 'tenantId',
  Resource: 'resourceId',
  GeneralResource: 'resourceId',
  DeviceResource: 'resourceId',
  SyntheticResource: 'resourceId',
  DecommissionedResource: 'resourceId',
};

const ownTypes = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('_') && !['String', 'Int', 'Float', 'Boolean', 'ID'].includes(t.name));

describe('schema documentation', () => {
  it('describes every type and every field', () => {
    const missing: string[] = [];
    for (const type of ownTypes) {
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) if (!field.description && !field.name.startsWith('_')) missing.push(`${type.name}.${field.name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('keeps the root fields, types and enum values of the design sketch', () => {
    const tenant = schema.getType('Tenant');
    expect(isObjectType(tenant) && Object.keys(tenant.getFields()).sort()).toEqual(
      ['antivirusDefinitions', 'decommissionedResource', 'decommissionedResources', 'id', 'resource', 'resourceList', 'resourceSummary', 'resourceTypes', 'resources', 'tenantId'],
    );
    expect(schema.getQueryType()?.getFields().tenant?.args.map((a) => a.name)).toEqual(['id']);
    for (const [name, ownId] of Object.entries(SKETCH_ENTITIES)) {
      const type = schema.getType(name);
      const fields = (isObjectType(type) || isInterfaceType(type)) && type.getFields();
      expect(fields && String(fields.id?.type), `${name}.id`).toBe('ID!');
      expect(fields && String(fields[ownId]?.type), `${name}.${ownId}`).toBe('ID!');
    }
    for (const [name, renamed] of Object.entries(SKETCH_ID_RENAMES)) {
      const type = schema.getType(name);
      expect(isObjectType(type) && type.getFields()[renamed]?.name, `${name}.${renamed} (the sketch's ${name}.id)`).toBe(renamed);
    }
    for (const name of ['GeneralResource', 'DeviceResource', 'SyntheticResource']) {
      const type = schema.getType(name);
      expect(isObjectType(type) && type.getInterfaces().map((i) => i.name).sort()).toEqual(['Node', 'Resource']);
    }
    const order = schema.getType('ResourceOrderField');
    expect(isEnumType(order) && order.getValues().map((v) => v.name).sort()).toEqual(['CREATED_DATE', 'HOST_NAME', 'ID', 'IP_ADDRESS', 'NAME', 'RESOURCE_TYPE', 'STATE']);
    const appRole = schema.getType('AppRole');
    expect(isEnumType(appRole) && appRole.getValues().map((v) => v.name)).toEqual(expect.arrayContaining(['ACTIVEMQ', 'DNS_SERVER', 'DOCKER_CONTAINER', 'MEMORY_STATS', 'ZOOKEEPER', 'HDFS_NAMENODE', 'MOXI_SERVER']));
    expect(schema.getMutationType()?.getFields().updateResource).toBeDefined();
  });
});
