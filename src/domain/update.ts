/**
 * updateResource input: problems become userErrors (checked before any upstream call, by the
 * rules of src/domain/input.ts where it has one), and a valid input becomes the upstream's
 * request body.
 */
import { hasControlCharacters, ID_RULE, isId, isIp, isTenantId, TENANT_ID_RULE } from './input.js';

export interface UserError { field: string[]; message: string; code: string }

export interface UpdateResourceInput {
  /** Absent only when id was a global id (the schema layer puts its tenant here). */
  tenantId?: string | number | null;
  id: string | number;
  aliasName?: string | null;
  alternateIP?: string | null;
  extResourceId?: string | null;
  networkInterfaces?: { ipAddressType?: string | null; macAddress?: string | null; isDefault?: boolean | null; ipAddress?: string | null }[] | null;
  managementProfile?: string | null;
  resourceType?: string | null;
  systemUID?: string | null;
  serialNumber?: string | null;
  providerType?: string | null;
  providerUID?: string | null;
  logicalDiskDrives?: {
    name: string; utilizationWarningThreshold?: number | null; utilizationCriticalThreshold?: number | null;
    freeDiskWarningThreshold?: number | null; freeDiskCriticalThreshold?: number | null;
  }[] | null;
  oobInterfaceCards?: {
    name: string; macAddress: string; description?: string | null; url?: string | null; oobVersion?: string | null; accessInfo?: string | null;
    accessInfoIpV4?: string | null; remoteAccessType?: string | null; make?: string | null; model?: string | null; port?: number | null;
  }[] | null;
}

const STRING_FIELDS = ['aliasName', 'alternateIP', 'extResourceId', 'managementProfile', 'resourceType', 'systemUID', 'serialNumber', 'providerType', 'providerUID'] as const;
const THRESHOLDS = ['utilizationWarningThreshold', 'utilizationCriticalThreshold', 'freeDiskWarningThreshold', 'freeDiskCriticalThreshold'] as const;
const OOB_TEXT = ['description', 'url', 'oobVersion', 'accessInfo', 'accessInfoIpV4', 'remoteAccessType', 'make', 'model'] as const;
const MAC_RE = /^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$/;
const MAX_TEXT = 255;
const MAX_ITEMS = 64;

export function validateUpdate(input: UpdateResourceInput): UserError[] {
  const errors: UserError[] = [];
  const add = (field: (string | number)[], message: string, code: string) => errors.push({ field: ['input', ...field.map(String)], message, code });
  const text = (field: (string | number)[], value: string | null | undefined, required = false) => {
    if (value === null || value === undefined) {
      if (required) add(field, `${field[field.length - 1]} is required`, 'REQUIRED');
      return;
    }
    if (required && value.trim() === '') add(field, `${field[field.length - 1]} is required`, 'REQUIRED');
    else if (value.length > MAX_TEXT) add(field, `at most ${MAX_TEXT} characters`, 'TOO_LONG');
    else if (hasControlCharacters(value)) add(field, 'must not contain control characters', 'INVALID_FORMAT');
  };
  if (input.tenantId == null) add(['tenantId'], 'tenantId is required with an inventory id (a global id carries its tenant)', 'REQUIRED');
  else if (!isTenantId(String(input.tenantId))) add(['tenantId'], `tenantId must be ${TENANT_ID_RULE}`, 'INVALID_FORMAT');
  if (!isId(String(input.id))) add(['id'], `id must be ${ID_RULE}`, 'INVALID_FORMAT');
  for (const key of STRING_FIELDS) text([key], input[key]);
  if (input.alternateIP != null && !isIp(input.alternateIP)) add(['alternateIP'], 'must be an IP address', 'INVALID_FORMAT');
  const lists = { networkInterfaces: input.networkInterfaces, logicalDiskDrives: input.logicalDiskDrives, oobInterfaceCards: input.oobInterfaceCards };
  for (const [key, list] of Object.entries(lists)) if (list && list.length > MAX_ITEMS) add([key], `at most ${MAX_ITEMS} items`, 'TOO_MANY');
  input.networkInterfaces?.forEach((nic, i) => {
    if (nic.macAddress != null && !MAC_RE.test(nic.macAddress)) add(['networkInterfaces', i, 'macAddress'], 'must be a MAC address like 00:1A:2B:3C:4D:5E', 'INVALID_FORMAT');
    if (nic.ipAddress != null && !isIp(nic.ipAddress)) add(['networkInterfaces', i, 'ipAddress'], 'must be an IP address', 'INVALID_FORMAT');
  });
  if ((input.networkInterfaces?.filter((n) => n.isDefault).length ?? 0) > 1) add(['networkInterfaces'], 'at most one interface may be the default', 'INVALID_VALUE');
  input.logicalDiskDrives?.forEach((drive, i) => {
    text(['logicalDiskDrives', i, 'name'], drive.name, true);
    for (const key of THRESHOLDS) {
      const value = drive[key];
      if (value != null && !(value >= 0 && value <= 100)) add(['logicalDiskDrives', i, key], `${key} must be between 0 and 100`, 'OUT_OF_RANGE');
    }
  });
  input.oobInterfaceCards?.forEach((card, i) => {
    text(['oobInterfaceCards', i, 'name'], card.name, true);
    text(['oobInterfaceCards', i, 'macAddress'], card.macAddress, true);
    if (card.macAddress?.trim() && !MAC_RE.test(card.macAddress)) add(['oobInterfaceCards', i, 'macAddress'], 'must be a MAC address like 00:1A:2B:3C:4D:5E', 'INVALID_FORMAT');
    for (const key of OOB_TEXT) text(['oobInterfaceCards', i, key], card[key]);
    if (card.port != null && !(card.port >= 1 && card.port <= 65_535)) add(['oobInterfaceCards', i, 'port'], 'port must be between 1 and 65535', 'OUT_OF_RANGE');
  });
  const changes = [...STRING_FIELDS, 'networkInterfaces', 'logicalDiskDrives', 'oobInterfaceCards'] as const;
  if (errors.length === 0 && !changes.some((key) => input[key] != null)) add([], 'nothing to update: give at least one field besides tenantId and id', 'EMPTY_UPDATE');
  return errors;
}

/** GraphQL input -> the upstream's request body (field names as on the wire). */
export function toUpdateBody(input: UpdateResourceInput): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of STRING_FIELDS) if (input[key] != null) body[key] = input[key];
  if (input.networkInterfaces) {
    body.resourceNetworkInterface = input.networkInterfaces.map((n) => ({
      ...(n.ipAddressType != null ? { ipAddressType: n.ipAddressType } : {}),
      ...(n.macAddress != null ? { macAddress: n.macAddress } : {}),
      default: n.isDefault ? 1 : 0,
      ...(n.ipAddress != null ? { ipAddress: n.ipAddress } : {}),
    }));
  }
  const compact = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
  if (input.logicalDiskDrives) body.logicalDiskDrives = input.logicalDiskDrives.map(compact);
  if (input.oobInterfaceCards) body.oobInterfaceCards = input.oobInterfaceCards.map(compact);
  return body;
}
