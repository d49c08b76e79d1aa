/** Filter and ordering inputs; src/upstream/query-string.ts turns them into the upstream queryString. */
import { builder } from '../builder.js';
import {
  AntivirusOrderFieldEnum, AppRoleEnum, DecommissionedInstanceStateEnum, OrderDirectionEnum, ResourceOrderFieldEnum, ResourceStateEnum,
} from './enums.js';

export const DateRangeInput = builder.inputType('DateRange', {
  description: 'Inclusive range; either end may be left open.',
  fields: (t) => ({
    from: t.field({ description: 'Start, inclusive; open when null.', type: 'DateTime' }),
    to: t.field({ description: 'End, inclusive; open when null.', type: 'DateTime' }),
  }),
});

export const GroupMatchInput = builder.inputType('GroupMatch', {
  description: 'name with exact (isEquals:true) or similar (isEquals:false) matching. The inventory has one matching mode for deviceGroup, serviceGroup and deviceLocation together, so all given must agree on `exact`.',
  fields: (t) => ({
    name: t.string({ description: 'Group or location name.', required: true }),
    exact: t.boolean({ description: 'true: exact match (isEquals:true); false: similar match.', defaultValue: false }),
  }),
});

const text = (description: string) => ({ description });

export const ResourceFilterInput = builder.inputType('ResourceFilter', {
  description:
    "Filters of the resource search; all given must match. Text values may not contain '+', ':', control characters or (in list items) ','; over 200 characters is a BAD_USER_INPUT error.",
  fields: (t) => ({
    hostName: t.string(text('Host name contains.')),
    resourceName: t.string(text('Resource name.')),
    dnsName: t.string(text('Domain name.')),
    aliasName: t.string(text('Other name of the resource.')),
    id: t.id(text("The resource's inventory id (resourceId) or its global id (id); another kind's or another tenant's global id is refused.")),
    serialNumber: t.string(text('Serial number.')),
    ipAddress: t.string(text('IPv4 or IPv6 address.')),
    systemUID: t.string(text('System unique id.')),
    state: t.field({ type: ResourceStateEnum, description: 'State of the resources; for DECOMMISSIONED use decommissionedResources.' }),
    type: t.string(text('Resource type, e.g. DEVICE, SQL_SERVER.')),
    resourceTypes: t.stringList(text('Any of these resource types.')),
    deviceTypes: t.stringList(text('Any of these device type names.')),
    appRoles: t.field({ type: [AppRoleEnum], description: 'Any of these application roles.' }),
    createdBetween: t.field({ type: DateRangeInput, description: 'Creation date range.' }),
    updatedBetween: t.field({ type: DateRangeInput, description: 'Update date range.' }),
    tags: t.stringList(text('Any of these tag names.')),
    template: t.string(text('Monitoring template id.')),
    agentProfile: t.string(text('Agent profile id.')),
    gatewayProfile: t.string(text('Gateway profile id.')),
    instanceId: t.string(text('Cloud instance id.')),
    accountNumber: t.string(text('Cloud account number.')),
    installedIntegrationId: t.string(text('Installed integration id.')),
    agentInstalled: t.boolean(text('With (true) or without (false) an agent.')),
    deviceGroup: t.field({ type: GroupMatchInput, description: 'Device group name.' }),
    serviceGroup: t.field({ type: GroupMatchInput, description: 'Service group name.' }),
    deviceLocation: t.field({ type: GroupMatchInput, description: 'Location name.' }),
    firstAssetManagedTime: t.field({ type: 'DateTime', description: 'First time the resource was managed.' }),
    assetManagedTime: t.field({ type: 'DateTime', description: 'Most recent time the resource was managed.' }),
    aliasIp: t.string(text('Alias IP address; not supported by resourceList.')),
  }),
});

export const ResourceOrderInput = builder.inputType('ResourceOrder', {
  description: 'Ordering of the resource search.',
  fields: (t) => ({
    field: t.field({ description: 'Field to sort by.', type: ResourceOrderFieldEnum, required: true }),
    direction: t.field({ description: 'Sort direction.', type: OrderDirectionEnum, required: true }),
  }),
});

export const DecommissionedResourceFilterInput = builder.inputType('DecommissionedResourceFilter', {
  description: 'Filters of the decommissioned resources; values are checked as in ResourceFilter.',
  fields: (t) => ({
    id: t.id(text("The record's inventory id (resourceId) or its global id (id); another kind's or another tenant's global id is refused.")),
    hostName: t.string(text('Host name.')),
    ipAddress: t.string(text('IP address.')),
    instanceId: t.string(text('Cloud instance id.')),
    tags: t.stringList(text('Tags, preferably a custom attribute name.')),
    decommissionedBetween: t.field({ type: DateRangeInput, description: 'Decommission date range.' }),
    type: t.string(text('Resource type, e.g. DEVICE.')),
    accountNumber: t.string(text('Instance account number.')),
    provider: t.string(text('Cloud provider name.')),
    owner: t.string(text('Owner id.')),
    instanceType: t.string(text('Cloud instance type.')),
    instanceState: t.field({ type: DecommissionedInstanceStateEnum, description: 'Cloud instance state.' }),
    zone: t.string(text('Zone of the instance.')),
    region: t.string(text('Region of the instance.')),
    ami: t.string(text('Machine image.')),
    hostedServiceName: t.string(text('Domain role.')),
    launchedBetween: t.field({ type: DateRangeInput, description: 'Launch date range of decommissioned cloud instances.' }),
  }),
});

export const AntivirusOrderInput = builder.inputType('AntivirusOrder', {
  description: 'Ordering of the antivirus list.',
  fields: (t) => ({
    field: t.field({ description: 'Field to sort by.', type: AntivirusOrderFieldEnum, required: true }),
    direction: t.field({ description: 'Sort direction.', type: OrderDirectionEnum, required: true }),
  }),
});
