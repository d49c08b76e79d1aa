/** Decommissioned resources: the history record, and its hardware data read with additionalInfo=true only when selected. */
import type { DecommissionedAdditional, DecommissionedResource } from '../../domain/records.js';
import { builder, globalId } from '../builder.js';
import { FEDERATION_RIGHTS } from '../../identity/access.js';
import { CloudPropertiesRef, ManagementProfileRef, TagRef } from './common.js';
import { connectionType } from './connection.js';
import { ResourceStateEnum } from './enums.js';

const DecommissionedBiosRef = builder.objectRef<Record<string, string | null>>('DecommissionedBios').implement({
  description: 'BIOS of a decommissioned resource (additional data).',
  fields: (t) => ({
    biosName: t.string({ description: 'BIOS name.', resolve: (b) => b.biosName ?? null }),
    biosVersion: t.string({ description: 'BIOS version.', resolve: (b) => b.biosVersion ?? null }),
    smBiosVersion: t.string({ description: 'SMBIOS version.', resolve: (b) => b.smBiosVersion ?? null }),
    smBiosMajorVersion: t.string({ description: 'SMBIOS major version.', resolve: (b) => b.smBiosMajorVersion ?? null }),
    smBiosMinorVersion: t.string({ description: 'SMBIOS minor version.', resolve: (b) => b.smBiosMinorVersion ?? null }),
    smBiosPresent: t.string({ description: 'Whether SMBIOS is present, as the inventory writes it.', resolve: (b) => b.smBiosPresent ?? null }),
    systemSerial: t.string({ description: 'Serial number of the system.', resolve: (b) => b.systemSerial ?? null }),
    systemModel: t.string({ description: 'Model of the system.', resolve: (b) => b.systemModel ?? null }),
    systemManufacturer: t.string({ description: 'Manufacturer of the system.', resolve: (b) => b.systemManufacturer ?? null }),
  }),
});

const DecommissionedNetworkCardRef = builder.objectRef<DecommissionedAdditional['networkCards'][number]>('DecommissionedNetworkCard').implement({
  description: 'A network card of a decommissioned resource (additional data).',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Card number on this resource (not unique across resources).' }),
    name: t.exposeString('name', { description: 'Card name.' }),
    ipAddresses: t.exposeStringList('ipAddresses', { nullable: false, description: "IP addresses of the card." }),
    macAddress: t.exposeString('macAddress', { description: 'MAC address.' }),
    dhcpEnabled: t.exposeBoolean('dhcpEnabled', { description: 'Whether the address came from DHCP.' }),
    linkMode: t.exposeString('linkMode', { description: 'Duplex mode.' }),
  }),
});

const PhysicalDiskRef = builder.objectRef<DecommissionedAdditional['physicalDisks'][number]>('PhysicalDisk').implement({
  description: 'A physical disk (additional data).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Disk name.' }),
    model: t.exposeString('model', { description: 'Disk model.' }),
    manufacturer: t.exposeString('manufacturer', { description: 'Disk manufacturer.' }),
    interfaceType: t.exposeString('interfaceType', { description: 'Interface, e.g. SATA.' }),
    partitions: t.exposeInt('partitions', { description: 'Number of partitions.' }),
    mediaType: t.exposeString('mediaType', { description: 'Media type.' }),
  }),
});

const LogicalDiskRef = builder.objectRef<DecommissionedAdditional['logicalDisks'][number]>('LogicalDisk').implement({
  description: 'A logical disk with its thresholds (additional data).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Volume name or mount point.' }),
    description: t.exposeString('description', { description: 'Volume description.' }),
    fileSystem: t.exposeString('fileSystem', { description: 'File system, e.g. ext4.' }),
    total: t.exposeFloat('total', { description: 'Total size.' }),
    free: t.exposeFloat('free', { description: 'Free space.' }),
    monitor: t.exposeBoolean('monitor', { description: 'Whether the volume was monitored.' }),
    utilizationWarningThreshold: t.exposeFloat('utilizationWarningThreshold', { description: 'Used-space warning threshold (percent).' }),
    utilizationCriticalThreshold: t.exposeFloat('utilizationCriticalThreshold', { description: 'Used-space critical threshold (percent).' }),
    freeDiskWarningThreshold: t.exposeFloat('freeDiskWarningThreshold', { description: 'Free-space warning threshold (percent).' }),
    freeDiskCriticalThreshold: t.exposeFloat('freeDiskCriticalThreshold', { description: 'Free-space critical threshold (percent).' }),
  }),
});

const CpuRef = builder.objectRef<DecommissionedAdditional['cpus'][number]>('Cpu').implement({
  description: 'A processor (additional data).',
  fields: (t) => ({
    processor: t.exposeString('processor', { description: 'Processor slot.' }),
    processorName: t.exposeString('processorName', { description: 'Processor model name.' }),
    processorVersion: t.exposeString('processorVersion', { description: 'Processor version.' }),
    manufacturer: t.exposeString('manufacturer', { description: 'Processor manufacturer.' }),
    family: t.exposeString('family', { description: 'Processor family.' }),
    powerManagementSupported: t.exposeBoolean('powerManagementSupported', { description: 'Whether power management is supported.' }),
    l2CacheSize: t.expose('l2CacheSize', { description: 'L2 cache size.', type: 'SafeInt' }),
    maxClockSpeed: t.expose('maxClockSpeed', { description: 'Maximum clock speed (MHz).', type: 'SafeInt' }),
    dataWidth: t.exposeInt('dataWidth', { description: 'Data width in bits.' }),
    numberOfCores: t.exposeInt('numberOfCores', { description: 'Number of cores.' }),
  }),
});

const VideoCardRef = builder.objectRef<DecommissionedAdditional['videoCards'][number]>('VideoCard').implement({
  description: 'A video card (additional data).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Video card name.' }),
    ram: t.exposeString('ram', { description: 'Video memory.' }),
    version: t.exposeString('version', { description: 'Driver or card version.' }),
    resolution: t.exposeString('resolution', { description: 'Screen resolution.' }),
    bitsPerPixel: t.exposeString('bitsPerPixel', { description: 'Colour depth.' }),
  }),
});

export const DecommissionedResourceRef = builder.objectRef<DecommissionedResource>('DecommissionedResource').implement({
  ...FEDERATION_RIGHTS.read,
  interfaces: [builder.nodeInterfaceRef()],
  description:
    'A resource taken out of service. Its hardware (bios, networkCards, physicalDisks, logicalDisks, cpus, videoCards) costs one more upstream read per resource unless the record at hand carries it.',
  fields: (t) => ({
    id: t.id({ description: 'Global id: refetch with node(id:).', nullable: false, resolve: globalId('DecommissionedResource', (d) => `${d.tenantId}:${d.id}`) }),
    resourceId: t.exposeID('id', { description: 'Id of the resource in the inventory history.', nullable: false }),
    tenantId: t.exposeID('tenantId', { description: 'Tenant the record was read from.', nullable: false }),
    hostName: t.exposeString('hostName', { description: 'Host name.' }),
    ipAddress: t.exposeString('ipAddress', { description: 'IP address.' }),
    dns: t.exposeString('dns', { description: 'DNS name.' }),
    decommissionedAt: t.expose('decommissionedAt', { type: 'DateTime', description: 'When the resource was decommissioned.' }),
    deviceType: t.exposeString('deviceType', { description: 'Device type.' }),
    devicePath: t.exposeString('devicePath', { description: 'Device path.' }),
    type: t.exposeString('type', { description: 'Resource type, e.g. DEVICE.' }),
    state: t.expose('state', { type: ResourceStateEnum, description: 'DECOMMISSIONED.' }),
    macAddress: t.exposeString('macAddress', { description: 'MAC address.' }),
    make: t.exposeString('make', { description: 'Manufacturer.' }),
    model: t.exposeString('model', { description: 'Model.' }),
    osName: t.exposeString('osName', { description: 'Operating system.' }),
    osArchitecture: t.exposeString('osArchitecture', { description: 'OS architecture, e.g. x86_64.' }),
    serialNumber: t.exposeString('serialNumber', { description: 'Serial number.' }),
    systemUID: t.exposeString('systemUID', { description: 'System unique id.' }),
    description: t.exposeString('description', { description: 'Free-text description.' }),
    agentInstalled: t.exposeBoolean('agentInstalled', { description: 'Whether an agent was installed.' }),
    name: t.exposeString('name', { description: 'Name, when the record has one.' }),
    aliasName: t.exposeString('aliasName', { description: 'Another name, when the record has one.' }),
    resourceName: t.exposeString('resourceName', { description: 'Resource name, when the record has one.' }),
    resourceType: t.exposeString('resourceType', { description: 'Resource type name, when the record has one.' }),
    cloud: t.field({ type: CloudPropertiesRef, description: 'Cloud facts of the resource when it was a cloud instance.', resolve: (d) => d.cloud }),
    managementProfile: t.field({ description: 'Management profile, when the record has one.', type: ManagementProfileRef, resolve: (d) => d.managementProfile }),
    tags: t.field({ description: 'Tags (name and value).', type: [TagRef], nullable: false, resolve: (d) => d.tags }),
    decommissionReason: t.exposeString('decommissionReason', { description: 'Why the resource was decommissioned.' }),
    bios: t.field({ description: 'BIOS (hardware data).', type: DecommissionedBiosRef, resolve: (d, _a, ctx) => ctx.inventory.hardware(d, 'bios') }),
    networkCards: t.field({ description: 'Network cards (additional data).', type: [DecommissionedNetworkCardRef], resolve: async (d, _a, ctx) => (await ctx.inventory.hardware(d, 'networkCards')) ?? [] }),
    physicalDisks: t.field({ description: 'Physical disks (additional data).', type: [PhysicalDiskRef], resolve: async (d, _a, ctx) => (await ctx.inventory.hardware(d, 'physicalDisks')) ?? [] }),
    logicalDisks: t.field({ description: 'Logical disks (additional data).', type: [LogicalDiskRef], resolve: async (d, _a, ctx) => (await ctx.inventory.hardware(d, 'logicalDisks')) ?? [] }),
    cpus: t.field({ description: 'Processors (additional data).', type: [CpuRef], resolve: async (d, _a, ctx) => (await ctx.inventory.hardware(d, 'cpus')) ?? [] }),
    videoCards: t.field({ description: 'Video cards (additional data).', type: [VideoCardRef], resolve: async (d, _a, ctx) => (await ctx.inventory.hardware(d, 'videoCards')) ?? [] }),
  }),
});

export const DecommissionedResourceConnectionRef = connectionType('DecommissionedResource', DecommissionedResourceRef, 'decommissioned resource');
