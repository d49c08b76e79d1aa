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
  description: 'name with exact (isEquals:true) or similar (isEquals:false) matching. The upstream has one isEquals for deviceGroup, serviceGroup and deviceLocation, so all given must agree on `exact`.',
  fields: (t) => ({
    name: t.string({ description: 'Group or location name.', required: true }),
    exact: t.boolean({ description: 'true: exact match (isEquals:true); false: similar match.', defaultValue: false }),
  }),
});

const text = (description: string) => ({ description });

export const ResourceFilterInput = builder.inputType('ResourceFilter', {
  description:
    "Typed form of the upstream queryString (key:value pairs joined by '+'). Values are validated; a value the upstream syntax cannot carry ('+', ':', control characters, ',' inside a list item, over 200 characters) is a BAD_USER_INPUT error, never a second key.",
  fields: (t) => ({
    hostName: t.string(text('Host name contains (upstream `hostName`).')),
    resourceName: t.string(text('Resource name (upstream `resourceName`).')),
    dnsName: t.string(text('Domain name (upstream `dnsName`).')),
    aliasName: t.string(text('Other name of the resource (upstream `aliasName`).')),
    id: t.id(text('Resource unique id (upstream `id`).')),
    serialNumber: t.string(text('Serial number (upstream `serialNumber`).')),
    ipAddress: t.string(text('IPv4 or IPv6 address (upstream `ipAddress`).')),
    systemUID: t.string(text('System unique id (upstream `systemUID`).')),
    state: t.field({ type: ResourceStateEnum, description: 'Upstream `state`; DECOMMISSIONED is refused here: use decommissionedResources.' }),
    type: t.string(text('Resource type, e.g. DEVICE, SQL_SERVER (upstream `type`).')),
    resourceTypes: t.stringList(text('Any of these resource types (upstream `resourceType`, comma-joined).')),
    deviceTypes: t.stringList(text('Any of these device type names (upstream `deviceType`, comma-joined).')),
    appRoles: t.field({ type: [AppRoleEnum], description: 'Any of these application roles (upstream `appRoles`).' }),
    createdBetween: t.field({ type: DateRangeInput, description: 'Creation date range (upstream `startCreationDate` / `endCreationDate`).' }),
    updatedBetween: t.field({ type: DateRangeInput, description: 'Update date range (upstream `startUpdationDate` / `endUpdationDate`).' }),
    tags: t.stringList(text('Any of these tag names (upstream `tags`).')),
    template: t.string(text('Monitoring template id (upstream `template`).')),
    agentProfile: t.string(text('Agent profile id (upstream `agentProfile`).')),
    gatewayProfile: t.string(text('Gateway profile id (upstream `gatewayProfile`).')),
    instanceId: t.string(text('Cloud instance id (upstream `instanceId`).')),
    accountNumber: t.string(text('Cloud account number (upstream `accountNumber`).')),
    installedIntegrationId: t.string(text('Installed integration id (upstream `installedIntgId`).')),
    agentInstalled: t.boolean(text('With (true) or without (false) an agent (upstream `agentInstalled`).')),
    deviceGroup: t.field({ type: GroupMatchInput, description: 'Device group name (upstream `deviceGroup` with `isEquals`).' }),
    serviceGroup: t.field({ type: GroupMatchInput, description: 'Service group name (upstream `serviceGroup` with `isEquals`).' }),
    deviceLocation: t.field({ type: GroupMatchInput, description: 'Location name (upstream `deviceLocation` with `isEquals`).' }),
    firstAssetManagedTime: t.field({ type: 'DateTime', description: 'First time the resource was managed (upstream `firstAssetManagedTime`).' }),
    assetManagedTime: t.field({ type: 'DateTime', description: 'Most recent time the resource was managed (upstream `assetManagedTime`).' }),
    aliasIp: t.string(text('Alias IP address (upstream `aliasIp`); not supported by resourceList.')),
  }),
});

export const ResourceOrderInput = builder.inputType('ResourceOrder', {
  description: 'Ordering of the resource search (upstream sortName / isDescendingOrder).',
  fields: (t) => ({
    field: t.field({ description: 'Field to sort by.', type: ResourceOrderFieldEnum, required: true }),
    direction: t.field({ description: 'Sort direction.', type: OrderDirectionEnum, required: true }),
  }),
});

export const DecommissionedResourceFilterInput = builder.inputType('DecommissionedResourceFilter', {
  description: 'Typed form of the history queryString; state:DECOMMISSIONED is always added by the gateway. Values are validated as in ResourceFilter.',
  fields: (t) => ({
    id: t.id(text('Resource id (upstream `id`).')),
    hostName: t.string(text('Host name (upstream `hostName`).')),
    ipAddress: t.string(text('IP address (upstream `ipAddress`).')),
    instanceId: t.string(text('Cloud instance id (upstream `instanceId`).')),
    tags: t.stringList(text('Tags, preferably a custom attribute name (upstream `tags`).')),
    decommissionedBetween: t.field({ type: DateRangeInput, description: 'Decommission date range (upstream `startDate` / `endDate`).' }),
    type: t.string(text('Resource type, e.g. DEVICE (upstream `type`).')),
    accountNumber: t.string(text('Instance account number (upstream `accountNumber`).')),
    provider: t.string(text('Cloud provider name (upstream `provider`).')),
    owner: t.string(text('Owner id (upstream `owner`).')),
    instanceType: t.string(text('Cloud instance type (upstream `instanceType`).')),
    instanceState: t.field({ type: DecommissionedInstanceStateEnum, description: 'Cloud instance state (upstream `instanceState`).' }),
    zone: t.string(text('Zone of the instance (upstream `zone`).')),
    region: t.string(text('Region of the instance (upstream `region`).')),
    ami: t.string(text('Machine image (upstream `ami`).')),
    hostedServiceName: t.string(text('Domain role (upstream `hostedServiceName`).')),
    launchedBetween: t.field({ type: DateRangeInput, description: 'Launch date range of decommissioned cloud instances (upstream `startLaunchDate` / `endLaunchDate`).' }),
  }),
});

export const AntivirusOrderInput = builder.inputType('AntivirusOrder', {
  description: 'Ordering of the antivirus list (upstream sortName / isDescendingOrder).',
  fields: (t) => ({
    field: t.field({ description: 'Field to sort by.', type: AntivirusOrderFieldEnum, required: true }),
    direction: t.field({ description: 'Sort direction.', type: OrderDirectionEnum, required: true }),
  }),
});
