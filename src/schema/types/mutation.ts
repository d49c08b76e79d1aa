import { updateResource } from '../../services/update.js';
import { builder } from '../builder.js';
import { UserErrorRef } from './common.js';
import { IpAddressTypeEnum } from './enums.js';
import { ResourceRef } from './resource.js';

const NetworkInterfaceInput = builder.inputType('NetworkInterfaceInput', {
  description: 'A network interface (upstream `resourceNetworkInterface` entry).',
  fields: (t) => ({
    ipAddressType: t.field({ type: IpAddressTypeEnum }),
    macAddress: t.string(),
    isDefault: t.boolean({ description: 'Upstream `default` (1 or 0).' }),
    ipAddress: t.string(),
  }),
});

const LogicalDiskDriveInput = builder.inputType('LogicalDiskDriveInput', {
  description: 'Disk thresholds of a logical drive; each threshold between 0 and 100.',
  fields: (t) => ({
    name: t.string({ required: true }),
    utilizationWarningThreshold: t.float(),
    utilizationCriticalThreshold: t.float(),
    freeDiskWarningThreshold: t.float(),
    freeDiskCriticalThreshold: t.float(),
  }),
});

const OobInterfaceCardInput = builder.inputType('OobInterfaceCardInput', {
  description: 'An out-of-band management card; name and macAddress are required.',
  fields: (t) => ({
    name: t.string({ required: true }),
    macAddress: t.string({ required: true }),
    description: t.string(),
    url: t.string(),
    oobVersion: t.string(),
    accessInfo: t.string(),
    accessInfoIpV4: t.string(),
    remoteAccessType: t.string(),
    make: t.string(),
    model: t.string(),
    port: t.int(),
  }),
});

const UpdateResourceInput = builder.inputType('UpdateResourceInput', {
  description: 'The attributes of a resource that can be changed (POST /resources/{id}); unset fields are left as they are.',
  fields: (t) => ({
    tenantId: t.id({ required: true }),
    id: t.id({ required: true }),
    aliasName: t.string(),
    alternateIP: t.string({ description: 'The gateway uses it to discover the resource when set.' }),
    extResourceId: t.string({ description: 'Third-party integration id.' }),
    networkInterfaces: t.field({ type: [NetworkInterfaceInput], description: 'Upstream `resourceNetworkInterface`.' }),
    managementProfile: t.string({ description: 'Name of the management profile.' }),
    resourceType: t.string(),
    systemUID: t.string(),
    serialNumber: t.string(),
    providerType: t.string(),
    providerUID: t.string(),
    logicalDiskDrives: t.field({ type: [LogicalDiskDriveInput] }),
    oobInterfaceCards: t.field({ type: [OobInterfaceCardInput] }),
  }),
});

const UpdateResourcePayloadRef = builder.objectRef<Awaited<ReturnType<typeof updateResource>>>('UpdateResourcePayload').implement({
  description: 'Result of updateResource.',
  fields: (t) => ({
    resource: t.field({ type: ResourceRef, description: 'The resource re-read after the update; null when the update was refused.', resolve: (p) => p.resource }),
    userErrors: t.field({ type: [UserErrorRef], nullable: false, description: 'Validation problems with the input (field path, message, code); empty on success.', resolve: (p) => p.userErrors }),
  }),
});

builder.mutationType({
  fields: (t) => ({
    updateResource: t.field({
      type: UpdateResourcePayloadRef,
      nullable: false,
      description: 'POST /resources/{id}. Returns the resource as re-read after the update.',
      args: { input: t.arg({ type: UpdateResourceInput, required: true }) },
      resolve: (_root, args, ctx) => updateResource(ctx, args.input),
    }),
  }),
});
