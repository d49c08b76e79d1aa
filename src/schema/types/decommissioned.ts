/** Decommissioned resources: the history record, and its hardware data read with additionalInfo=true only when selected. */
import type { GatewayContext } from '../../context.js';
import type { DecommissionedAdditional, DecommissionedResource } from '../../domain/inventory.js';
import { builder } from '../builder.js';
import { CloudPropertiesRef, TagRef } from './common.js';
import { connectionType } from './connection.js';
import { ResourceStateEnum } from './enums.js';

export const HARDWARE_FIELDS = new Set(['bios', 'networkCards', 'physicalDisks', 'logicalDisks', 'cpus', 'videoCards']);

type Hardware<K extends keyof DecommissionedAdditional> = DecommissionedAdditional[K];

/** The hardware part: from the record when it was read with it, else one additionalInfo read per resource. */
async function hardware<K extends keyof DecommissionedAdditional>(record: DecommissionedResource, key: K, ctx: GatewayContext): Promise<Hardware<K> | null> {
  if (record.additional) return record.additional[key];
  const full = await ctx.loaders.decommissionedWithHardwareById.load({ tenantId: record.tenantId, id: record.id });
  return full?.additional?.[key] ?? null;
}

const DecommissionedBiosRef = builder.objectRef<Record<string, string | null>>('DecommissionedBios').implement({
  description: 'BIOS of a decommissioned resource (additional data).',
  fields: (t) => ({
    biosName: t.string({ resolve: (b) => b.biosName ?? null }),
    biosVersion: t.string({ resolve: (b) => b.biosVersion ?? null }),
    smBiosVersion: t.string({ resolve: (b) => b.smBiosVersion ?? null }),
    smBiosMajorVersion: t.string({ resolve: (b) => b.smBiosMajorVersion ?? null }),
    smBiosMinorVersion: t.string({ resolve: (b) => b.smBiosMinorVersion ?? null }),
    smBiosPresent: t.string({ resolve: (b) => b.smBiosPresent ?? null }),
    systemSerial: t.string({ resolve: (b) => b.systemSerial ?? null }),
    systemModel: t.string({ resolve: (b) => b.systemModel ?? null }),
    systemManufacturer: t.string({ resolve: (b) => b.systemManufacturer ?? null }),
  }),
});

const DecommissionedNetworkCardRef = builder.objectRef<DecommissionedAdditional['networkCards'][number]>('DecommissionedNetworkCard').implement({
  description: 'A network card of a decommissioned resource (additional data).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name', { description: 'Upstream `networkName`.' }),
    ipAddresses: t.exposeStringList('ipAddresses', { nullable: false, description: "Upstream `ipAddress`, split on ';'." }),
    macAddress: t.exposeString('macAddress'),
    dhcpEnabled: t.exposeBoolean('dhcpEnabled'),
    linkMode: t.exposeString('linkMode'),
  }),
});

const PhysicalDiskRef = builder.objectRef<DecommissionedAdditional['physicalDisks'][number]>('PhysicalDisk').implement({
  description: 'A physical disk (additional data).',
  fields: (t) => ({
    name: t.exposeString('name'),
    model: t.exposeString('model'),
    manufacturer: t.exposeString('manufacturer'),
    interfaceType: t.exposeString('interfaceType'),
    partitions: t.exposeInt('partitions'),
    mediaType: t.exposeString('mediaType'),
  }),
});

const LogicalDiskRef = builder.objectRef<DecommissionedAdditional['logicalDisks'][number]>('LogicalDisk').implement({
  description: 'A logical disk with its thresholds (additional data).',
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    fileSystem: t.exposeString('fileSystem'),
    total: t.exposeFloat('total'),
    free: t.exposeFloat('free'),
    monitor: t.exposeBoolean('monitor'),
    utilizationWarningThreshold: t.exposeFloat('utilizationWarningThreshold'),
    utilizationCriticalThreshold: t.exposeFloat('utilizationCriticalThreshold'),
    freeDiskWarningThreshold: t.exposeFloat('freeDiskWarningThreshold'),
    freeDiskCriticalThreshold: t.exposeFloat('freeDiskCriticalThreshold'),
  }),
});

const CpuRef = builder.objectRef<DecommissionedAdditional['cpus'][number]>('Cpu').implement({
  description: 'A processor (additional data).',
  fields: (t) => ({
    processor: t.exposeString('processor'),
    processorName: t.exposeString('processorName'),
    processorVersion: t.exposeString('processorVersion'),
    manufacturer: t.exposeString('manufacturer'),
    family: t.exposeString('family'),
    powerManagementSupported: t.exposeBoolean('powerManagementSupported'),
    l2CacheSize: t.expose('l2CacheSize', { type: 'SafeInt' }),
    maxClockSpeed: t.expose('maxClockSpeed', { type: 'SafeInt' }),
    dataWidth: t.exposeInt('dataWidth'),
    numberOfCores: t.exposeInt('numberOfCores'),
  }),
});

const VideoCardRef = builder.objectRef<DecommissionedAdditional['videoCards'][number]>('VideoCard').implement({
  description: 'A video card (additional data).',
  fields: (t) => ({
    name: t.exposeString('name'),
    ram: t.exposeString('ram'),
    version: t.exposeString('version'),
    resolution: t.exposeString('resolution'),
    bitsPerPixel: t.exposeString('bitsPerPixel'),
  }),
});

const ManagementProfileRef = builder.objectRef<NonNullable<DecommissionedResource['managementProfile']>>('ManagementProfile').implement({
  description: 'Management profile of a decommissioned resource.',
  fields: (t) => ({ id: t.exposeInt('id'), name: t.exposeString('name'), type: t.exposeString('type') }),
});

export const DecommissionedResourceRef = builder.objectRef<DecommissionedResource>('DecommissionedResource').implement({
  description:
    'A resource in the history. Selecting any of bios, networkCards, physicalDisks, logicalDisks, cpus, videoCards makes the gateway read the record with additionalInfo=true (once per resource).',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    tenantId: t.exposeID('tenantId', { nullable: false }),
    hostName: t.exposeString('hostName'),
    ipAddress: t.exposeString('ipAddress'),
    dns: t.exposeString('dns'),
    decommissionedAt: t.expose('decommissionedAt', { type: 'DateTime', description: 'Upstream `updatedDate` of the history record.' }),
    deviceType: t.exposeString('deviceType'),
    devicePath: t.exposeString('devicePath'),
    type: t.exposeString('type'),
    state: t.expose('state', { type: ResourceStateEnum, description: 'DECOMMISSIONED (upstream `Decommissioned`).' }),
    macAddress: t.exposeString('macAddress'),
    make: t.exposeString('make'),
    model: t.exposeString('model'),
    osName: t.exposeString('osName'),
    osArchitecture: t.exposeString('osArchitecture'),
    serialNumber: t.exposeString('serialNumber'),
    systemUID: t.exposeString('systemUID'),
    description: t.exposeString('description'),
    agentInstalled: t.exposeBoolean('agentInstalled'),
    name: t.exposeString('name'),
    aliasName: t.exposeString('aliasName'),
    resourceName: t.exposeString('resourceName'),
    resourceType: t.exposeString('resourceType'),
    cloud: t.field({ type: CloudPropertiesRef, description: 'Upstream `attributes`.', resolve: (d) => d.cloud }),
    managementProfile: t.field({ type: ManagementProfileRef, resolve: (d) => d.managementProfile }),
    tags: t.field({ type: [TagRef], nullable: false, resolve: (d) => d.tags }),
    decommissionReason: t.exposeString('decommissionReason', { description: 'Upstream `history.decommissionReason`.' }),
    bios: t.field({ type: DecommissionedBiosRef, resolve: (d, _a, ctx) => hardware(d, 'bios', ctx) }),
    networkCards: t.field({ type: [DecommissionedNetworkCardRef], nullable: false, resolve: async (d, _a, ctx) => (await hardware(d, 'networkCards', ctx)) ?? [] }),
    physicalDisks: t.field({ type: [PhysicalDiskRef], nullable: false, resolve: async (d, _a, ctx) => (await hardware(d, 'physicalDisks', ctx)) ?? [] }),
    logicalDisks: t.field({ type: [LogicalDiskRef], nullable: false, resolve: async (d, _a, ctx) => (await hardware(d, 'logicalDisks', ctx)) ?? [] }),
    cpus: t.field({ type: [CpuRef], nullable: false, resolve: async (d, _a, ctx) => (await hardware(d, 'cpus', ctx)) ?? [] }),
    videoCards: t.field({ type: [VideoCardRef], nullable: false, resolve: async (d, _a, ctx) => (await hardware(d, 'videoCards', ctx)) ?? [] }),
  }),
});

export const DecommissionedResourceConnectionRef = connectionType('DecommissionedResource', DecommissionedResourceRef, 'decommissioned resource');
