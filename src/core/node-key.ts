/**
 * What a global object id stands for: a kind and its key within a tenant. The data source loads
 * by these keys and the schema encodes them (src/schema/global-id.ts), so the shape lives here.
 */
export type NodeKind = 'Tenant' | 'Resource' | 'DecommissionedResource' | 'ResourceType';

export type NodeKey =
  | { kind: 'Tenant'; tenantId: string }
  | { kind: 'Resource' | 'DecommissionedResource'; tenantId: string; id: string }
  | { kind: 'ResourceType'; tenantId: string; number: number };
