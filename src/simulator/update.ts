/** The update endpoint's validation and its effect on the stored record. */
import type { SimResource } from './data-model.js';
import { SimError } from './query.js';

const STRING_FIELDS = [
  'aliasName', 'alternateIP', 'extResourceId', 'managementProfile', 'resourceType', 'systemUID', 'serialNumber',
  'providerType', 'providerUID',
] as const;
const THRESHOLDS = ['utilizationWarningThreshold', 'utilizationCriticalThreshold', 'freeDiskWarningThreshold', 'freeDiskCriticalThreshold'] as const;
const OOB_STRINGS = ['name', 'macAddress', 'description', 'url', 'oobVersion', 'accessInfo', 'accessInfoIpV4', 'remoteAccessType', 'make', 'model'];
const KNOWN = new Set<string>([...STRING_FIELDS, 'resourceNetworkInterface', 'logicalDiskDrives', 'oobInterfaceCards']);

type Body = Record<string, unknown>;
const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

function arrayOf(body: Body, key: string): Body[] | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(isObject)) throw new SimError(400, `'${key}' must be an array of objects`);
  return value;
}

export function validateUpdate(body: unknown): Body {
  if (!isObject(body)) throw new SimError(400, 'Body must be a JSON object');
  for (const key of Object.keys(body)) if (!KNOWN.has(key)) throw new SimError(400, `Unknown field '${key}'`);
  for (const key of STRING_FIELDS) {
    if (body[key] !== undefined && typeof body[key] !== 'string') throw new SimError(400, `'${key}' must be a string`);
  }
  arrayOf(body, 'resourceNetworkInterface')?.forEach((nic, i) => {
    if (nic.default !== undefined && nic.default !== 0 && nic.default !== 1) throw new SimError(400, `resourceNetworkInterface[${i}].default must be 0 or 1`);
  });
  arrayOf(body, 'logicalDiskDrives')?.forEach((drive, i) => {
    if (typeof drive.name !== 'string' || drive.name === '') throw new SimError(400, `logicalDiskDrives[${i}].name is required`);
    for (const key of THRESHOLDS) {
      const v = drive[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !(v >= 0 && v <= 100)) throw new SimError(400, `logicalDiskDrives[${i}].${key} must be between 0 and 100`);
    }
  });
  arrayOf(body, 'oobInterfaceCards')?.forEach((card, i) => {
    for (const key of ['name', 'macAddress']) {
      if (typeof card[key] !== 'string' || card[key] === '') throw new SimError(400, `oobInterfaceCards[${i}].${key} is required`);
    }
    for (const key of OOB_STRINGS) {
      if (card[key] !== undefined && typeof card[key] !== 'string') throw new SimError(400, `oobInterfaceCards[${i}].${key} must be a string`);
    }
    if (card.port !== undefined && !Number.isInteger(card.port)) throw new SimError(400, `oobInterfaceCards[${i}].port must be an integer`);
  });
  return body;
}

export function applyUpdate(resource: SimResource, body: Body): void {
  if (typeof body.aliasName === 'string') resource.aliasName = body.aliasName;
  if (typeof body.extResourceId === 'string') resource.extResourceId = body.extResourceId;
  if (typeof body.resourceType === 'string') resource.resourceType = body.resourceType;
  if (typeof body.systemUID === 'string') resource.systemUID = body.systemUID;
  if (typeof body.serialNumber === 'string') resource.serialNumber = body.serialNumber;
  const nics = body.resourceNetworkInterface as Body[] | undefined;
  if (nics) {
    resource.network = nics.map((n) => ({ ip: String(n.ipAddress ?? ''), mac: String(n.macAddress ?? ''), aliasIp: '' }));
    const primary = nics.find((n) => n.default === 1) ?? nics[0];
    if (primary && typeof primary.ipAddress === 'string') resource.ipAddress = primary.ipAddress;
  }
  for (const key of ['alternateIP', 'managementProfile', 'providerType', 'providerUID', 'logicalDiskDrives', 'oobInterfaceCards']) {
    if (body[key] !== undefined) resource.updates[key] = body[key];
  }
  resource.updatedAt = Math.floor(Date.now() / 1000);
}
