/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** How a network interface gets its address. */
export type IpAddressType =
  | 'DHCP'
  | 'STATIC';

/** Disk thresholds of a logical drive; each threshold between 0 and 100. */
export type LogicalDiskDriveInput = {
  /** Critical when free space falls below this percent (0-100). */
  freeDiskCriticalThreshold?: number | null | undefined;
  /** Warning when free space falls below this percent (0-100). */
  freeDiskWarningThreshold?: number | null | undefined;
  /** Drive name, e.g. C: or /. */
  name: string;
  /** Critical when used space exceeds this percent (0-100). */
  utilizationCriticalThreshold?: number | null | undefined;
  /** Warning when used space exceeds this percent (0-100). */
  utilizationWarningThreshold?: number | null | undefined;
};

/** A network interface. */
export type NetworkInterfaceInput = {
  /** IPv4 or IPv6 address. */
  ipAddress?: string | null | undefined;
  /** STATIC or DHCP. */
  ipAddressType?: IpAddressType | null | undefined;
  /** Whether this is the default interface. */
  isDefault?: boolean | null | undefined;
  /** MAC address, e.g. 00:1A:2B:3C:4D:5E. */
  macAddress?: string | null | undefined;
};

/** An out-of-band management card; name and macAddress are required. */
export type OobInterfaceCardInput = {
  /** How to reach the card. */
  accessInfo?: string | null | undefined;
  /** IPv4 address to reach the card. */
  accessInfoIpV4?: string | null | undefined;
  /** Free text. */
  description?: string | null | undefined;
  /** MAC address (required). */
  macAddress: string;
  /** Manufacturer. */
  make?: string | null | undefined;
  /** Model. */
  model?: string | null | undefined;
  /** Card name (required). */
  name: string;
  /** Firmware or protocol version. */
  oobVersion?: string | null | undefined;
  /** Port (1-65535). */
  port?: number | null | undefined;
  /** Remote access type, e.g. IPMI. */
  remoteAccessType?: string | null | undefined;
  /** Management URL of the card. */
  url?: string | null | undefined;
};

/** The attributes of a resource that can be changed; unset fields are left as they are. */
export type UpdateResourceInput = {
  /** Another name of the resource. */
  aliasName?: string | null | undefined;
  /** The gateway uses it to discover the resource when set. */
  alternateIP?: string | null | undefined;
  /** Third-party integration id. */
  extResourceId?: string | null | undefined;
  /** The resource: its global id (id) alone, or its inventory id (resourceId) together with tenantId. */
  id: string | number;
  /** Disk thresholds per drive. */
  logicalDiskDrives?: Array<LogicalDiskDriveInput> | null | undefined;
  /** Name of the management profile. */
  managementProfile?: string | null | undefined;
  /** Network interfaces of the resource. */
  networkInterfaces?: Array<NetworkInterfaceInput> | null | undefined;
  /** Out-of-band management cards. */
  oobInterfaceCards?: Array<OobInterfaceCardInput> | null | undefined;
  /** Cloud provider type. */
  providerType?: string | null | undefined;
  /** Id at the cloud provider. */
  providerUID?: string | null | undefined;
  /** Resource type name. */
  resourceType?: string | null | undefined;
  /** Serial number. */
  serialNumber?: string | null | undefined;
  /** System unique id. */
  systemUID?: string | null | undefined;
  /** Tenant of the resource; needed only with an inventory id, and when given with a global id it must be that resource's tenant. */
  tenantId?: string | number | null | undefined;
};

export type FirstLookQueryVariables = Exact<{ [key: string]: never; }>;


export type FirstLookQuery = { tenant: { resources: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<
        | { __typename: 'DeviceResource', id: string, hostName: string | null, ipAddress: string | null, resourceType: string | null, applications: Array<{ name: string, version: string | null }> | null }
        | { __typename: 'GeneralResource', osName: string | null, id: string, hostName: string | null, ipAddress: string | null, resourceType: string | null, location: { name: string | null, city: string | null } | null, applications: Array<{ name: string, version: string | null }> | null }
        | { __typename: 'SyntheticResource', checkType: string | null, url: string | null, id: string, hostName: string | null, ipAddress: string | null, resourceType: string | null, applications: Array<{ name: string, version: string | null }> | null }
      > } | null, resourceTypes: Array<{ name: string, levels: Array<string> }> | null } | null };

export type NestedPageQueryVariables = Exact<{
  tenant: string | number;
  first: number;
  from: string;
  to: string;
}>;


export type NestedPageQuery = { tenant: { resources: { nodes: Array<
        | { id: string, resourceId: string, hostName: string | null, applications: Array<{ name: string, version: string | null }> | null, availability: { availabilityPercent: number | null, downtimeSeconds: number | null } | null }
        | { id: string, resourceId: string, hostName: string | null, applications: Array<{ name: string, version: string | null }> | null, availability: { availabilityPercent: number | null, downtimeSeconds: number | null } | null }
        | { id: string, resourceId: string, hostName: string | null, applications: Array<{ name: string, version: string | null }> | null, availability: { availabilityPercent: number | null, downtimeSeconds: number | null } | null }
      > } | null } | null };

export type ResourceDetailQueryVariables = Exact<{
  tenant: string | number;
  id: string | number;
}>;


export type ResourceDetailQuery = { tenant: { resource:
      | { __typename: 'DeviceResource', id: string, resourceId: string, name: string | null, status: string | null, location: { name: string | null } | null, applications: Array<{ name: string }> | null }
      | { __typename: 'GeneralResource', osName: string | null, id: string, resourceId: string, name: string | null, status: string | null, cloud: { provider: string | null } | null, location: { name: string | null } | null, applications: Array<{ name: string }> | null }
      | { __typename: 'SyntheticResource', checkType: string | null, id: string, resourceId: string, name: string | null, status: string | null, credential: { hasClientSecret: boolean, oauthClientSecret: string | null } | null, location: { name: string | null } | null, applications: Array<{ name: string }> | null }
     | null } | null };

export type ResourcePageQueryVariables = Exact<{
  tenant: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  offset?: number | null | undefined;
}>;


export type ResourcePageQuery = { tenant: { resources: { totalCount: number, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null }, edges: Array<{ cursor: string, node:
          | { id: string, resourceId: string }
          | { id: string, resourceId: string }
          | { id: string, resourceId: string }
         }> } | null } | null };

export type UpdateResourceMutationVariables = Exact<{
  input: UpdateResourceInput;
}>;


export type UpdateResourceMutation = { updateResource: { resource:
      | { __typename: 'DeviceResource', id: string, resourceId: string, aliasName: string | null }
      | { __typename: 'GeneralResource', extResourceId: string | null, id: string, resourceId: string, aliasName: string | null }
      | { __typename: 'SyntheticResource', id: string, resourceId: string, aliasName: string | null }
     | null, userErrors: Array<{ field: Array<string>, message: string, code: string }> } };


export const FirstLookDocument = {"__meta__":{"hash":"sha256:c0f941ac41ffd136afa21ba84f3c716e8ced3dc1125e374331bb425d0a5b73c9"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"FirstLook"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"StringValue","value":"client_1","block":false}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resources"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"5"}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"state"},"value":{"kind":"EnumValue","value":"ACTIVE"}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"hostName"}},{"kind":"Field","name":{"kind":"Name","value":"ipAddress"}},{"kind":"Field","name":{"kind":"Name","value":"resourceType"}},{"kind":"Field","name":{"kind":"Name","value":"applications"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GeneralResource"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"osName"}},{"kind":"Field","name":{"kind":"Name","value":"location"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"city"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SyntheticResource"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"checkType"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"resourceTypes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"levels"}}]}}]}}]}}]} as unknown as DocumentNode<FirstLookQuery, FirstLookQueryVariables>;
export const NestedPageDocument = {"__meta__":{"hash":"sha256:0a90e85acdbc18d3bd85a9cd81a4873310252cc526b6581c8d6096afeb668e06"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"NestedPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"from"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"to"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resources"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"hostName"}},{"kind":"Field","name":{"kind":"Name","value":"applications"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"availability"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"from"},"value":{"kind":"Variable","name":{"kind":"Name","value":"from"}}},{"kind":"Argument","name":{"kind":"Name","value":"to"},"value":{"kind":"Variable","name":{"kind":"Name","value":"to"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"availabilityPercent"}},{"kind":"Field","name":{"kind":"Name","value":"downtimeSeconds"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<NestedPageQuery, NestedPageQueryVariables>;
export const ResourceDetailDocument = {"__meta__":{"hash":"sha256:f3bd396d34c5cdd4a0e4efa3162a187c39b7a148e68511a3225299ca69a03e65"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ResourceDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resource"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"location"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"applications"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GeneralResource"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"osName"}},{"kind":"Field","name":{"kind":"Name","value":"cloud"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SyntheticResource"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"checkType"}},{"kind":"Field","name":{"kind":"Name","value":"credential"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasClientSecret"}},{"kind":"Field","name":{"kind":"Name","value":"oauthClientSecret"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<ResourceDetailQuery, ResourceDetailQueryVariables>;
export const ResourcePageDocument = {"__meta__":{"hash":"sha256:e6352b2660473cab891fcb2a0f3aef99baa26cae9512b67056655410d181afd4"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ResourcePage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"last"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"before"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"offset"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenant"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tenant"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resources"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"last"},"value":{"kind":"Variable","name":{"kind":"Name","value":"last"}}},{"kind":"Argument","name":{"kind":"Name","value":"before"},"value":{"kind":"Variable","name":{"kind":"Name","value":"before"}}},{"kind":"Argument","name":{"kind":"Name","value":"offset"},"value":{"kind":"Variable","name":{"kind":"Name","value":"offset"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"hasPreviousPage"}},{"kind":"Field","name":{"kind":"Name","value":"startCursor"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<ResourcePageQuery, ResourcePageQueryVariables>;
export const UpdateResourceDocument = {"__meta__":{"hash":"sha256:b9382497fb57699f02dd8804c711dabe1ed43a870e4ef03a06ab2497e4a2b262"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpdateResource"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateResourceInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateResource"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resource"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"aliasName"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GeneralResource"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"extResourceId"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"userErrors"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}}]}}]} as unknown as DocumentNode<UpdateResourceMutation, UpdateResourceMutationVariables>;