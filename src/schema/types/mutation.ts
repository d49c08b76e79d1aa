import { isTenantId } from '../../domain/input.js';
import type { UpdateResourceInput, UserError } from '../../domain/update.js';
import type { ResourceView } from '../../domain/resource-view.js';
import { builder } from '../builder.js';
import { FEDERATION_RIGHTS } from '../../identity/access.js';
import { keyFromGlobalId } from '../global-id.js';
import { UserErrorRef } from './common.js';
import { IpAddressTypeEnum } from './enums.js';
import { ResourceRef } from './resource.js';

const NetworkInterfaceInput = builder.inputType('NetworkInterfaceInput', {
  description: 'A network interface.',
  fields: (t) => ({
    ipAddressType: t.field({ description: 'STATIC or DHCP.', type: IpAddressTypeEnum }),
    macAddress: t.string({ description: 'MAC address, e.g. 00:1A:2B:3C:4D:5E.' }),
    isDefault: t.boolean({ description: 'Whether this is the default interface.' }),
    ipAddress: t.string({ description: 'IPv4 or IPv6 address.' }),
  }),
});

const LogicalDiskDriveInput = builder.inputType('LogicalDiskDriveInput', {
  description: 'Disk thresholds of a logical drive; each threshold between 0 and 100.',
  fields: (t) => ({
    name: t.string({ description: 'Drive name, e.g. C: or /.', required: true }),
    utilizationWarningThreshold: t.float({ description: 'Warning when used space exceeds this percent (0-100).' }),
    utilizationCriticalThreshold: t.float({ description: 'Critical when used space exceeds this percent (0-100).' }),
    freeDiskWarningThreshold: t.float({ description: 'Warning when free space falls below this percent (0-100).' }),
    freeDiskCriticalThreshold: t.float({ description: 'Critical when free space falls below this percent (0-100).' }),
  }),
});

const OobInterfaceCardInput = builder.inputType('OobInterfaceCardInput', {
  description: 'An out-of-band management card; name and macAddress are required.',
  fields: (t) => ({
    name: t.string({ description: 'Card name (required).', required: true }),
    macAddress: t.string({ description: 'MAC address (required).', required: true }),
    description: t.string({ description: 'Free text.' }),
    url: t.string({ description: 'Management URL of the card.' }),
    oobVersion: t.string({ description: 'Firmware or protocol version.' }),
    accessInfo: t.string({ description: 'How to reach the card.' }),
    accessInfoIpV4: t.string({ description: 'IPv4 address to reach the card.' }),
    remoteAccessType: t.string({ description: 'Remote access type, e.g. IPMI.' }),
    make: t.string({ description: 'Manufacturer.' }),
    model: t.string({ description: 'Model.' }),
    port: t.int({ description: 'Port (1-65535).' }),
  }),
});

const UpdateResourceInput = builder.inputType('UpdateResourceInput', {
  description: 'The attributes of a resource that can be changed; unset fields are left as they are.',
  fields: (t) => ({
    tenantId: t.id({ description: 'Tenant of the resource; needed only with an inventory id, and when given with a global id it must be that resource\'s tenant.' }),
    id: t.id({ description: 'The resource: its global id (id) alone, or its inventory id (resourceId) together with tenantId.', required: true }),
    aliasName: t.string({ description: 'Another name of the resource.' }),
    alternateIP: t.string({ description: 'The gateway uses it to discover the resource when set.' }),
    extResourceId: t.string({ description: 'Third-party integration id.' }),
    networkInterfaces: t.field({ type: [NetworkInterfaceInput], description: 'Network interfaces of the resource.' }),
    managementProfile: t.string({ description: 'Name of the management profile.' }),
    resourceType: t.string({ description: 'Resource type name.' }),
    systemUID: t.string({ description: 'System unique id.' }),
    serialNumber: t.string({ description: 'Serial number.' }),
    providerType: t.string({ description: 'Cloud provider type.' }),
    providerUID: t.string({ description: 'Id at the cloud provider.' }),
    logicalDiskDrives: t.field({ description: 'Disk thresholds per drive.', type: [LogicalDiskDriveInput] }),
    oobInterfaceCards: t.field({ description: 'Out-of-band management cards.', type: [OobInterfaceCardInput] }),
  }),
});

/**
 * The input with the tenant and inventory id its global id names. A global id of another kind or
 * of another tenant than input.tenantId is a top-level BAD_USER_INPUT (as for every argument that
 * names an object), not a userError: the request names no resource this mutation can change.
 */
function withInventoryIds<T extends UpdateResourceInput>(input: T): T {
  const tenantId = input.tenantId == null ? undefined : String(input.tenantId);
  // A tenantId that is no tenant id is a userError whatever the id's form (validateUpdate's rule, once).
  if (tenantId !== undefined && !isTenantId(tenantId)) return input;
  const key = keyFromGlobalId(String(input.id), 'Resource', 'input.id', tenantId);
  return key ? { ...input, tenantId: key.tenantId, id: key.id } : input;
}

const UpdateResourcePayloadRef = builder.objectRef<{ resource: ResourceView | null; userErrors: UserError[] }>('UpdateResourcePayload').implement({
  description: 'Result of updateResource.',
  fields: (t) => ({
    resource: t.field({ type: ResourceRef, description: 'The resource re-read after the update; null when the update was refused.', resolve: (p) => p.resource }),
    userErrors: t.field({ type: [UserErrorRef], nullable: false, description: 'Validation problems with the input (field path, message, code); empty on success.', resolve: (p) => p.userErrors }),
  }),
});

builder.mutationType({
  description: 'Changes to the inventory.',
  fields: (t) => ({
    updateResource: t.field({
      type: UpdateResourcePayloadRef,
      nullable: false,
      ...FEDERATION_RIGHTS.write,
      description: 'Changes attributes of one resource; returns it as re-read after the change (two upstream calls), or userErrors without any call when the input is not valid. With sign-in, needs the read and write scopes and a grant of the resource\'s tenant: otherwise FORBIDDEN, and nothing is sent.',
      args: { input: t.arg({ type: UpdateResourceInput, required: true }) },
      resolve: (_root, args, ctx) => ctx.inventory.updateResource(withInventoryIds(args.input)),
    }),
  }),
});
