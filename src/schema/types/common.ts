/** Small shared object types. */
import type { PageInfoShape } from '../../domain/paging.js';
import type { CloudProperties, Location, ManagementProfile, Tag } from '../../domain/resource-shapes.js';
import { builder } from '../builder.js';

export const LocationRef = builder.objectRef<Location>('Location').implement({
  description: 'Where a resource is; only id and name are always present.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Location number (the resourceList locationId argument).', nullable: false }),
    name: t.exposeString('name', { description: 'Location name.' }),
    city: t.exposeString('city', { description: 'City, when the inventory has it (read from the resource detail where the record at hand lacks it).' }),
    clientId: t.exposeInt('clientId', { description: 'Owning client id, when present.' }),
    mspId: t.exposeInt('mspId', { description: 'Owning MSP id, when present.' }),
  }),
});

export const TagRef = builder.objectRef<Tag>('Tag').implement({
  description: 'A name/value tag.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Tag name.', nullable: false }),
    value: t.exposeString('value', { description: 'Tag value.' }),
    source: t.exposeString('source', { description: 'Where the tag comes from (e.g. USER, AWS); absent on decommissioned resources.' }),
  }),
});

export const CloudPropertiesRef = builder.objectRef<CloudProperties>('CloudProperties').implement({
  description: 'Cloud attributes.',
  fields: (t) => ({
    provider: t.exposeString('provider', { description: 'Cloud provider, e.g. AWS.' }),
    instanceId: t.exposeString('instanceId', { description: 'Cloud instance id.' }),
    instanceState: t.exposeString('instanceState', { description: 'Cloud instance state, e.g. running.' }),
    instanceType: t.exposeString('instanceType', { description: 'Instance type, e.g. t3.medium.' }),
    publicIp: t.exposeString('publicIp', { description: 'Public IP address.' }),
    ami: t.exposeString('ami', { description: 'Machine image.' }),
    launchedAt: t.expose('launchedAt', { type: 'DateTime', description: 'When the instance was launched.' }),
    owner: t.exposeString('owner', { description: 'Owner (account) id.' }),
    privateDns: t.exposeString('privateDns', { description: 'Private DNS name.' }),
    privateIp: t.exposeString('privateIp', { description: 'Private IP address.' }),
    zone: t.exposeString('zone', { description: 'Availability zone.' }),
    monitoringState: t.exposeString('monitoringState', { description: 'Cloud monitoring state.' }),
    properties: t.field({ type: 'JSON', nullable: false, description: 'Every cloud property as the inventory sends it, provider-specific ones (Azure, GCP, ...) included; for a resource, always the full set its detail sends, whichever way it was reached.', resolve: (c) => c.all }),
  }),
});

export const ManagementProfileRef = builder.objectRef<ManagementProfile>('ManagementProfile').implement({
  description: 'A management profile: how the resource is monitored (gateway, agent, ...).',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Profile number, when the record gives one.' }),
    name: t.exposeString('name', { description: 'Profile name.' }),
    type: t.exposeString('type', { description: 'Profile type, e.g. GATEWAY.' }),
  }),
});

export const PageInfoRef = builder.objectRef<PageInfoShape>('PageInfo').implement({
  description: 'Relay page information.',
  // A second Relay-style subgraph defines the same value type.
  shareable: true,
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether items follow this page.', nullable: false }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', { description: 'Whether items precede this page.', nullable: false }),
    startCursor: t.exposeString('startCursor', { description: 'Cursor of the first edge; null on an empty page.' }),
    endCursor: t.exposeString('endCursor', { description: 'Cursor of the last edge; null on an empty page.' }),
  }),
});

export interface UserErrorShape { field: string[]; message: string; code: string }

export const UserErrorRef = builder.objectRef<UserErrorShape>('UserError').implement({
  description: 'A problem with mutation input, reported instead of performing the change.',
  fields: (t) => ({
    field: t.exposeStringList('field', { nullable: false, description: 'Path of the input field, e.g. ["input", "logicalDiskDrives", "0", "utilizationWarningThreshold"].' }),
    message: t.exposeString('message', { description: 'What is wrong, for a person.', nullable: false }),
    code: t.exposeString('code', { nullable: false, description: 'Machine-readable reason, e.g. OUT_OF_RANGE, REQUIRED, INVALID_FORMAT, NOT_FOUND, UPSTREAM_REJECTED.' }),
  }),
});
