/**
 * One table says where every resource field comes from, another what every field that reaches the
 * upstream costs; the schema may not grow past them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getNamedType, getNullableType, isInputObjectType, isInterfaceType, isListType, isNonNullType, isObjectType, Kind, parse, type GraphQLInputType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documents, loadsFor, RESOURCE_FIELDS, type ResourceFieldName } from '../../src/domain/resource.js';
import { readField } from '../../src/domain/resource-view.js';
import { schema, subgraphSchema } from '../../src/schema/index.js';
import { ASSUMED_SIZES, costOf, FIELD_COSTS } from '../../src/schema/field-costs.js';
import { loadConfig } from '../../src/config.js';
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

/**
 * Data source methods a field may call without an entry of its own in FIELD_COSTS, and why: what
 * they read is priced elsewhere.
 */
const PRICED_ELSEWHERE: Record<string, string> = {
  field: "a resource's record field: the field-source table above",
  kind: "a resource's concrete type: its detail, as the field-source table's reads",
  tenant: 'no upstream call (a tenant object of the argument)',
  summaryTotal: 'the reads Tenant.resourceSummary plans',
  summaryByState: 'the reads Tenant.resourceSummary plans',
  summaryByResourceType: 'the reads Tenant.resourceSummary plans',
};

/** A value for a required argument of this type, so a resolver gets past its argument checks. */
function argumentValue(type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (isListType(getNullableType(type))) return [];
  if (isInputObjectType(named)) return { tenantId: 'client_1', id: 'resource-1' };
  return { ID: 'resource-1', String: 'x', Int: 1, Float: 1, Boolean: false, DateTime: new Date(0) }[named.name] ?? null;
}

/** The data source methods each field's resolver calls, with a data source that records its calls. */
function dataSourceCalls(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const type of Object.values(subgraphSchema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || type.name.startsWith('_')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.resolve || field.name.startsWith('_')) continue;
      const called = new Set<string>();
      const inventory = new Proxy({}, { get: (_t, name) => (..._args: unknown[]) => { called.add(String(name)); return Promise.resolve(null); } });
      const args = Object.fromEntries(field.args.map((a) => [a.name, a.defaultValue ?? (isNonNullType(a.type) ? argumentValue(a.type) : null)]));
      const fieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: field.name }, selectionSet: { kind: Kind.SELECTION_SET, selections: [] } };
      const info = { fieldName: field.name, fieldNodes: [fieldNode], fragments: {}, schema: subgraphSchema, parentType: type, returnType: field.type, path: { key: field.name }, variableValues: {} };
      const parent = { id: 'resource-1', tenantId: 'client_1', record: {}, origin: 'search', kind: 'general', hardware: {}, edges: [], levels: [] };
      try {
        const result = field.resolve(parent, args, { inventory, config: { exposeCredentialSecrets: false } }, info as never);
        if (result instanceof Promise) result.catch(() => undefined);
      } catch {
        // A resolver that refuses this made-up input has shown the calls it makes first.
      }
      if (called.size > 0) out.set(`${type.name}.${field.name}`, called);
    }
  }
  return out;
}

/** The @cost weight and whether a @listSize stands on each field of the printed subgraph SDL. */
function printedDirectives(): Map<string, { cost?: number; listSize: boolean }> {
  const sdl = readFileSync(fileURLToPath(new URL('../../schema/subgraph.graphql', import.meta.url)), 'utf8');
  const out = new Map<string, { cost?: number; listSize: boolean }>();
  for (const definition of parse(sdl).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.INTERFACE_TYPE_DEFINITION) continue;
    for (const field of definition.fields ?? []) {
      const cost = field.directives?.find((d) => d.name.value === 'cost')?.arguments?.find((a) => a.name.value === 'weight')?.value;
      const listSize = field.directives?.some((d) => d.name.value === 'listSize') ?? false;
      if (cost || listSize) out.set(`${definition.name.value}.${field.name.value}`, { cost: cost?.kind === Kind.INT ? Number(cost.value) : undefined, listSize });
    }
  }
  return out;
}

/** The entry of a field, on its own type or on an interface it implements. */
function entryOf(typeName: string, fieldName: string) {
  const type = subgraphSchema.getType(typeName);
  const owners = [typeName, ...(isObjectType(type) ? type.getInterfaces().map((i) => i.name) : [])];
  return owners.map((owner) => costOf(owner, fieldName)).find((entry) => entry !== undefined);
}

describe('what fields cost (one table: the schema\'s @cost/@listSize and the estimate)', () => {
  it('has an entry for every field whose resolver calls the data source for a read of its own', () => {
    const missing = [...dataSourceCalls()]
      .filter(([name, called]) => [...called].some((method) => !Object.hasOwn(PRICED_ELSEWHERE, method)) && !entryOf(...(name.split('.') as [string, string])))
      .map(([name, called]) => `${name} calls ${[...called].join(', ')}`);
    expect(missing).toEqual([]);
  });

  it('prints each entry as @cost (its reads) and @listSize (its list) on the field, on the implementations for an interface field', () => {
    const printed = printedDirectives();
    const expected = new Map<string, { cost?: number; listSize: boolean }>();
    for (const type of Object.values(subgraphSchema.getTypeMap())) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      for (const field of Object.keys(type.getFields())) {
        const entry = isObjectType(type) ? entryOf(type.name, field) : costOf(type.name, field);
        if (!entry || (isInterfaceType(type) && entry.onImplementations)) continue;
        if (entry.reads?.length || entry.list) expected.set(`${type.name}.${field}`, { cost: entry.reads?.length || undefined, listSize: entry.list !== undefined });
      }
    }
    expect(Object.fromEntries(printed)).toEqual(Object.fromEntries(expected));
    // Composition refuses them on interface fields.
    expect(printed.has('Resource.applications')).toBe(false);
    expect(printed.get('GeneralResource.applications')).toEqual({ cost: 1, listSize: false });
  });

  it("assumes the settings' defaults where no argument bounds a list (the printed @listSize cannot follow the environment)", () => {
    const defaults = loadConfig({});
    expect({ page: ASSUMED_SIZES.page, minimalList: ASSUMED_SIZES.minimalList }).toEqual({ page: defaults.defaultPageSize, minimalList: defaults.maxPageSize });
  });

  it('names only fields the schema has', () => {
    const stale = Object.entries(FIELD_COSTS).flatMap(([typeName, fields]) => Object.keys(fields).filter((field) => {
      const type = subgraphSchema.getType(typeName);
      return !(isObjectType(type) || isInterfaceType(type)) || !Object.hasOwn(type.getFields(), field);
    }).map((field) => `${typeName}.${field}`));
    expect(stale).toEqual([]);
  });
});
