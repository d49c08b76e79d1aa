/** Domain forms of the non-resource records: applications, availability, history, antivirus, types, pages. */
import { bool, int32, isRecord, list, mapRecords, num, record, safeInt, splitList, str, time, type WireRecord } from './coerce.js';
import { cloudProperties, managementProfile, resourceState, tags, type CloudProperties, type ManagementProfile, type ResourceState, type Tag } from './resource-shapes.js';
import { toResourceView, type ResourceView } from './resource-view.js';

export interface InstalledApplication {
  number: number; name: string; vendor: string | null; version: string | null;
  readonly installedAt: Date | null; readonly createdAt: Date | null; readonly modifiedAt: Date | null;
}

/** Dates are read when asked for: a page of applications is mostly shown by name and version. */
class ApplicationRecord implements InstalledApplication {
  constructor(
    readonly number: number,
    readonly name: string,
    readonly vendor: string | null,
    readonly version: string | null,
    private readonly raw: WireRecord,
  ) {}
  get installedAt() { return time(this.raw.installedDate); }
  get createdAt() { return time(this.raw.createdDate); }
  get modifiedAt() { return time(this.raw.modifiedDate); }
}

export function toApplications(raw: unknown): InstalledApplication[] {
  return mapRecords(raw, (a) => {
    const id = safeInt(a.id);
    const name = str(a.name);
    if (id === null || name === null) return null;
    return new ApplicationRecord(id, name, str(a.vendor), str(a.version), a);
  });
}

export type AvailabilityState = 'DOWN' | 'UNKNOWN' | 'OTHER';
export interface AvailabilityPeriod {
  key: string | null; start: Date; end: Date; durationSeconds: number; actualStart: Date | null;
  stateCode: number; state: AvailabilityState; rca: boolean | null; scheduledStart: Date | null; scheduledEnd: Date | null;
}
export interface Availability {
  from: Date; to: Date;
  availabilityPercent: number | null; downtimeSeconds: number | null; currentState: string | null;
  periods: AvailabilityPeriod[]; downPeriods: AvailabilityPeriod[]; downOccurrences: number | null;
  degradedPeriods: unknown[]; degradedOccurrences: number | null; degradedSeconds: number | null;
  pausedPeriods: unknown[]; pauseOccurrences: number | null; pausedSeconds: number | null;
}

/** State code 0 is down and 4 unknown (from a real sample); other codes are passed as OTHER. */
export function availabilityState(code: number): AvailabilityState {
  return code === 0 ? 'DOWN' : code === 4 ? 'UNKNOWN' : 'OTHER';
}

function period(p: WireRecord): AvailabilityPeriod | null {
  const start = time(p.startTs);
  const end = time(p.endTs);
  const stateCode = int32(p.state);
  if (!start || !end || stateCode === null) return null;
  const scheduledStart = time(p.schStartTs);
  const scheduledEnd = time(p.schEndTs);
  return {
    key: str(p.key), start, end, durationSeconds: Math.max(0, Math.round((end.getTime() - start.getTime()) / 1000)),
    actualStart: time(p.actStartTs), stateCode, state: availabilityState(stateCode), rca: bool(p.rca),
    scheduledStart, scheduledEnd,
  };
}

export function toAvailability(raw: unknown, from: Date, to: Date): Availability {
  const r = record(raw) ?? {};
  return {
    from, to,
    availabilityPercent: num(r.totalAvailability),
    downtimeSeconds: safeInt(r.totalDowntime),
    currentState: str(r.currentState),
    periods: mapRecords(r.totalLogList, period),
    downPeriods: mapRecords(r.downTimeList, period),
    downOccurrences: int32(r.noOfOccurences),
    degradedPeriods: list(r.degradedTimeList),
    degradedOccurrences: int32(r.noOfDegradedOccurences),
    degradedSeconds: safeInt(r.totalDegradedTime),
    pausedPeriods: list(r.pauseTimeList),
    pauseOccurrences: int32(r.noOfPauseOccurences),
    pausedSeconds: safeInt(r.totalPauseTime),
  };
}

export interface DecommissionedAdditional {
  bios: Record<string, string | null> | null;
  networkCards: { index: number | null; name: string | null; ipAddresses: string[]; macAddress: string | null; dhcpEnabled: boolean | null; linkMode: string | null }[];
  physicalDisks: { name: string | null; model: string | null; manufacturer: string | null; interfaceType: string | null; partitions: number | null; mediaType: string | null }[];
  logicalDisks: {
    name: string | null; description: string | null; fileSystem: string | null; total: number | null; free: number | null; monitor: boolean | null;
    utilizationWarningThreshold: number | null; utilizationCriticalThreshold: number | null; freeDiskWarningThreshold: number | null; freeDiskCriticalThreshold: number | null;
  }[];
  cpus: {
    processor: string | null; processorName: string | null; processorVersion: string | null; manufacturer: string | null; family: string | null;
    powerManagementSupported: boolean | null; l2CacheSize: number | null; maxClockSpeed: number | null; dataWidth: number | null; numberOfCores: number | null;
  }[];
  videoCards: { name: string | null; ram: string | null; version: string | null; resolution: string | null; bitsPerPixel: string | null }[];
}

export interface DecommissionedResource {
  tenantId: string;
  id: string;
  hostName: string | null; ipAddress: string | null; dns: string | null; decommissionedAt: Date | null;
  deviceType: string | null; devicePath: string | null; type: string | null; state: ResourceState | null; macAddress: string | null;
  make: string | null; model: string | null; osName: string | null; osArchitecture: string | null; serialNumber: string | null;
  systemUID: string | null; description: string | null; agentInstalled: boolean | null; name: string | null; aliasName: string | null;
  resourceName: string | null; resourceType: string | null; cloud: CloudProperties | null;
  managementProfile: ManagementProfile | null;
  tags: Tag[]; decommissionReason: string | null;
  /** The hardware parts the record carries (all of them when read with additionalInfo=true). */
  hardware: Partial<DecommissionedAdditional>;
}

const BIOS_KEYS = ['biosName', 'biosVersion', 'smBiosVersion', 'smBiosMajorVersion', 'smBiosMinorVersion', 'smBiosPresent', 'systemSerial', 'systemModel', 'systemManufacturer'];

/** Readers of the hardware parts (the additional data), each by its key. */
const HARDWARE_PARTS: { [K in keyof DecommissionedAdditional]: (value: unknown) => DecommissionedAdditional[K] } = {
  bios: (value) => {
    const bios = record(value);
    return bios ? Object.fromEntries(BIOS_KEYS.map((k) => [k, str(bios[k])])) : null;
  },
  networkCards: (value) => mapRecords(value, (n) => ({
    index: int32(n.id), name: str(n.networkName), ipAddresses: splitList(n.ipAddress, ';'), macAddress: str(n.macAddress),
    dhcpEnabled: bool(n.dhcpEnabled), linkMode: str(n.linkMode),
  })),
  physicalDisks: (value) => mapRecords(value, (d) => ({
    name: str(d.name), model: str(d.model), manufacturer: str(d.manufacturer), interfaceType: str(d.interfaceType),
    partitions: int32(d.partitions), mediaType: str(d.mediaType),
  })),
  logicalDisks: (value) => mapRecords(value, (d) => ({
    name: str(d.name), description: str(d.description), fileSystem: str(d.fileSystem), total: num(d.total), free: num(d.free),
    monitor: bool(d.monitor), utilizationWarningThreshold: num(d.utilizationWarningThreshold),
    utilizationCriticalThreshold: num(d.utilizationCriticalThreshold), freeDiskWarningThreshold: num(d.freeDiskWarningThreshold),
    freeDiskCriticalThreshold: num(d.freeDiskCriticalThreshold),
  })),
  cpus: (value) => mapRecords(value, (c) => ({
    processor: str(c.processor), processorName: str(c.processorName), processorVersion: str(c.processorVersion),
    manufacturer: str(c.manufacturer), family: str(c.family), powerManagementSupported: bool(c.powerManagementSupported),
    l2CacheSize: safeInt(c.l2CacheSize), maxClockSpeed: safeInt(c.maxClockSpeed), dataWidth: int32(c.dataWidth), numberOfCores: int32(c.numberOfCores),
  })),
  videoCards: (value) => mapRecords(value, (v) => ({
    name: str(v.name), ram: str(v.ram), version: str(v.version), resolution: str(v.resolution), bitsPerPixel: str(v.bitsPerPixel),
  })),
};

/** The names of the hardware parts: what each costs is written per name from this list (src/schema/field-costs.ts). */
export const HARDWARE_PART_NAMES = Object.keys(HARDWARE_PARTS) as readonly (keyof DecommissionedAdditional)[];

/** The hardware parts a record carries, by presence: a list record may carry some without additionalInfo. */
function hardwareOf(raw: WireRecord): Partial<DecommissionedAdditional> {
  const parts: Partial<Record<keyof DecommissionedAdditional, unknown>> = {};
  for (const key of Object.keys(HARDWARE_PARTS) as (keyof DecommissionedAdditional)[]) {
    if (Object.hasOwn(raw, key)) parts[key] = HARDWARE_PARTS[key](raw[key]);
  }
  return parts as Partial<DecommissionedAdditional>;
}

export function toDecommissioned(tenantId: string, raw: unknown): DecommissionedResource | null {
  if (!isRecord(raw)) return null;
  const id = str(raw.id);
  if (id === null) return null;
  const history = record(raw.history);
  return {
    tenantId, id,
    hostName: str(raw.hostName), ipAddress: str(raw.ipAddress), dns: str(raw.dns), decommissionedAt: time(raw.updatedDate),
    deviceType: str(raw.deviceType), devicePath: str(raw.devicePath), type: str(raw.type), state: resourceState(raw.state),
    macAddress: str(raw.macAddress), make: str(raw.make), model: str(raw.model), osName: str(raw.osName),
    osArchitecture: str(raw.osArchitecture), serialNumber: str(raw.serialNumber), systemUID: str(raw.systemUID),
    description: str(raw.description), agentInstalled: bool(raw.agentInstalled), name: str(raw.name), aliasName: str(raw.aliasName),
    resourceName: str(raw.resourceName), resourceType: str(raw.resourceType), cloud: cloudProperties(raw.attributes),
    managementProfile: managementProfile(raw.managementProfile),
    tags: tags(raw.tags),
    decommissionReason: str(history?.decommissionReason),
    hardware: hardwareOf(raw),
  };
}

export type AntivirusStatus = 'UPTODATE' | 'OUTOFDATE';
export interface AntivirusDefinition {
  name: string | null; version: string | null; currentDefinition: string | null; currentDefinitionDate: Date | null;
  scanDate: Date | null; supported: boolean | null; status: AntivirusStatus | null; resource: ResourceView | null;
}

export function toAntivirus(tenantId: string, raw: unknown): AntivirusDefinition | null {
  if (!isRecord(raw)) return null;
  const status = str(raw.status)?.toUpperCase();
  return {
    name: str(raw.name), version: str(raw.version), currentDefinition: str(raw.currentDefinition),
    currentDefinitionDate: time(raw.currentDefinitionDate), scanDate: time(raw.scanDate), supported: bool(raw.supported),
    status: status === 'UPTODATE' || status === 'OUTOFDATE' ? status : null,
    resource: toResourceView(tenantId, raw.resource, 'antivirus'),
  };
}

export interface ResourceType { tenantId: string; number: number; name: string; path: string; levels: string[] }

export function toResourceTypes(tenantId: string, raw: unknown): ResourceType[] {
  return mapRecords(raw, (t) => {
    const number = int32(t.id);
    const name = str(t.name);
    if (number === null || name === null) return null;
    const path = str(t.path) ?? name;
    return { tenantId, number, name: name.trim(), path, levels: splitList(path, '>>') };
  });
}

/**
 * The paging envelope. Items keep their positions (an unmappable record is a null hole) so
 * cursors, which are upstream offsets, stay right when a record is dropped.
 */
export interface Page<T> { items: (T | null)[]; totalResults: number; pageNo: number; pageSize: number }

export function toPage<T>(raw: unknown, map: (item: unknown) => T | null): Page<T> | null {
  if (!isRecord(raw) || !Array.isArray(raw.results)) return null;
  const items = raw.results.map((item) => map(item));
  return {
    items,
    totalResults: safeInt(raw.totalResults) ?? items.length,
    pageNo: safeInt(raw.pageNo) ?? 1,
    pageSize: safeInt(raw.pageSize) ?? items.length,
  };
}
