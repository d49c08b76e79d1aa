/** Small shared object types. */
import type { PageInfoShape } from '../../domain/paging.js';
import type { CloudProperties, Location, Tag } from '../../domain/resource.js';
import { builder } from '../builder.js';

export const LocationRef = builder.objectRef<Location>('Location').implement({
  description: 'Where a resource is (upstream `location`); only id and name are always present.',
  fields: (t) => ({
    id: t.exposeInt('id', { nullable: false }),
    name: t.exposeString('name'),
    city: t.exposeString('city'),
    clientId: t.exposeInt('clientId'),
    mspId: t.exposeInt('mspId'),
  }),
});

export const TagRef = builder.objectRef<Tag>('Tag').implement({
  description: 'A name/value tag.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false }),
    value: t.exposeString('value'),
    source: t.exposeString('source', { description: 'Upstream `tagSource` (e.g. USER, AWS); absent on history records.' }),
  }),
});

export const CloudPropertiesRef = builder.objectRef<CloudProperties>('CloudProperties').implement({
  description: 'Cloud attributes (upstream `properties` on a resource, `attributes` on a history record).',
  fields: (t) => ({
    provider: t.exposeString('provider'),
    instanceId: t.exposeString('instanceId'),
    instanceState: t.exposeString('instanceState'),
    instanceType: t.exposeString('instanceType'),
    publicIp: t.exposeString('publicIp'),
    ami: t.exposeString('ami'),
    launchedAt: t.expose('launchedAt', { type: 'DateTime', description: 'Upstream `launchDate`.' }),
    owner: t.exposeString('owner'),
    privateDns: t.exposeString('privateDns'),
    privateIp: t.exposeString('privateIp'),
    zone: t.exposeString('zone'),
    monitoringState: t.exposeString('monitoringState'),
  }),
});


export const PageInfoRef = builder.objectRef<PageInfoShape>('PageInfo').implement({
  description: 'Relay page information.',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { nullable: false }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', { nullable: false }),
    startCursor: t.exposeString('startCursor'),
    endCursor: t.exposeString('endCursor'),
  }),
});

export interface UserErrorShape { field: string[]; message: string; code: string }

export const UserErrorRef = builder.objectRef<UserErrorShape>('UserError').implement({
  description: 'A problem with mutation input, reported instead of performing the change.',
  fields: (t) => ({
    field: t.exposeStringList('field', { nullable: false, description: 'Path of the input field, e.g. ["input", "logicalDiskDrives", "0", "utilizationWarningThreshold"].' }),
    message: t.exposeString('message', { nullable: false }),
    code: t.exposeString('code', { nullable: false, description: 'Machine-readable reason, e.g. OUT_OF_RANGE, REQUIRED, INVALID_FORMAT, NOT_FOUND, UPSTREAM_REJECTED.' }),
  }),
});
