/**
 * The nested shapes of a resource in domain form (location, tags, cloud facts, ...) and their
 * tolerant readers: what one nested record of the upstream becomes. Where each is read from is
 * the field-source table's concern (resource.ts).
 */
import { bool, int32, list, mapRecords, record, str, time, type WireRecord } from './coerce.js';

export type ResourceKind = 'general' | 'device' | 'synthetic';
export type ResourceState = 'active' | 'inactive' | 'discovered' | 'decommissioned';

export interface Location { number: number; name: string | null; city: string | null; clientId: number | null; mspId: number | null }
export interface Tag { name: string; value: string | null; source: string | null }
export interface ClientRef { number: number | null; uniqueId: string | null; name: string | null }
export interface NetworkAddress { ip: string | null; mac: string | null; aliasIps: string[] }
export interface NetworkCard {
  index: number | null; name: string | null; status: string | null; ipAddress: string | null; macAddress: string | null;
  dhcpEnabled: boolean | null; linkMode: string | null; aliasIps: string[];
}
export interface InstalledIntegration {
  installId: string; displayName: string | null; integrationId: string | null; integrationName: string | null;
  installedBy: string | null; installedAt: Date | null;
}
export interface CloudProperties {
  provider: string | null; instanceId: string | null; instanceState: string | null; instanceType: string | null;
  publicIp: string | null; ami: string | null; launchedAt: Date | null; owner: string | null; privateDns: string | null;
  privateIp: string | null; zone: string | null; monitoringState: string | null;
  /** Every property as sent, provider-specific ones included. */
  all: WireRecord;
}
export interface MetricType { name: string; displayName: string | null; unit: string | null; availabilityMetric: boolean | null; thresholdType: string | null }
export interface SyntheticCredential {
  number: number | null; secure: boolean | null; port: number | null; snmpVersion: string | null; autoEnableMode: boolean | null;
  universal: boolean | null; spSecure: boolean | null; spPort: number | null; securityLevel: string | null; timeoutMs: number | null;
  oauthClientKey: string | null; oauthClientSecret: string | null; oauthAccessTokenUrl: string | null; oauthGrantType: string | null;
}
export interface DeviceGroup { number: number | null; name: string }
export interface ManagementProfile { number: number | null; name: string | null; type: string | null }

export function resourceState(value: unknown): ResourceState | null {
  const text = str(value)?.toLowerCase();
  return text === 'active' || text === 'inactive' || text === 'discovered' || text === 'decommissioned' ? text : null;
}

export function location(value: unknown): Location | null {
  const r = record(value);
  const number = r ? int32(r.id) : null;
  if (!r || number === null) return null;
  return { number, name: str(r.name), city: str(r.city), clientId: int32(r.clientId), mspId: int32(r.mspId) };
}

export function tags(value: unknown): Tag[] {
  return mapRecords(value, (t) => {
    const name = str(t.name);
    return name === null ? null : { name, value: str(t.value), source: str(t.tagSource) };
  });
}

export function cloudProperties(value: unknown): CloudProperties | null {
  const r = record(value);
  if (!r || Object.keys(r).length === 0) return null;
  return {
    provider: str(r.provider), instanceId: str(r.instanceId), instanceState: str(r.instanceState), instanceType: str(r.instanceType),
    publicIp: str(r.publicIp), ami: str(r.ami), launchedAt: time(r.launchDate), owner: str(r.owner), privateDns: str(r.privateDns),
    privateIp: str(r.privateIp), zone: str(r.zone), monitoringState: str(r.monitoringState), all: r,
  };
}

export function managementProfile(value: unknown): ManagementProfile | null {
  if (typeof value === 'string') return str(value) === null ? null : { number: null, name: value, type: null };
  const r = record(value);
  return r ? { number: int32(r.id), name: str(r.name), type: str(r.type) } : null;
}

export function deviceGroups(value: unknown): DeviceGroup[] {
  return list(value).flatMap((g): DeviceGroup[] => {
    if (typeof g === 'string') return str(g) === null ? [] : [{ number: null, name: g }];
    const r = record(g);
    const name = r ? str(r.name) : null;
    return r && name !== null ? [{ number: int32(r.id), name }] : [];
  });
}

export function installedIntegration(value: unknown): InstalledIntegration | null {
  const app = record(value);
  const installId = app ? str(app.id) : null;
  if (!app || installId === null) return null;
  const integration = record(app.integration);
  const by = app.installedBy ?? app.installedUser;
  return {
    installId, displayName: str(app.displayName), integrationId: str(integration?.id), integrationName: str(integration?.name),
    installedBy: str(record(by)?.loginName ?? record(by)?.name ?? by), installedAt: time(app.installedTime ?? app.installedDate ?? app.createdDate),
  };
}

export function credential(value: unknown): SyntheticCredential | null {
  const c = record(value);
  if (!c) return null;
  return {
    number: int32(c.id), secure: bool(c.secure), port: int32(c.port), snmpVersion: str(c.snmpVersion),
    autoEnableMode: bool(c.autoEnableMode), universal: bool(c.universal), spSecure: bool(c.spSecure),
    spPort: int32(c.spPort), securityLevel: str(c.securityLevel), timeoutMs: int32(c.timeoutMs),
    oauthClientKey: str(c.oauthClientKey), oauthClientSecret: str(c.oauthClientSecret),
    oauthAccessTokenUrl: str(c.oauthAccessTokenUrl), oauthGrantType: str(c.oauthGrantType),
  };
}
