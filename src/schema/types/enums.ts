/** Enums, each mapped to the upstream's own strings. */
import { APP_ROLES } from '../../domain/app-roles.js';
import { builder } from '../builder.js';

export const ResourceStateEnum = builder.enumType('ResourceState', {
  description: 'State of a resource.',
  values: {
    ACTIVE: { value: 'active', description: 'Managed resource.' },
    INACTIVE: { value: 'inactive', description: 'Unmanaged resource.' },
    DISCOVERED: { value: 'discovered', description: 'Discovered resource.' },
    DECOMMISSIONED: { value: 'decommissioned', description: 'Resource in the history.' },
  } as const,
});

export const ResourceStateFilterEnum = builder.enumType('ResourceStateFilter', {
  description: 'State filter of the minimal listing; ALL means active, inactive and discovered together.',
  values: {
    ACTIVE: { value: 'active' },
    INACTIVE: { value: 'inactive' },
    DISCOVERED: { value: 'discovered' },
    ALL: { value: 'all' },
  } as const,
});

/** DNS-Server -> DNS_SERVER, docker-container -> DOCKER_CONTAINER, MemoryStats -> MEMORY_STATS. */
export function appRoleName(value: string): string {
  return value.replace(/([a-z])([A-Z])/g, '$1_$2').replace(/-/g, '_').toUpperCase();
}

export const AppRoleEnum = builder.enumType('AppRole', {
  description:
    "All 45 documented appRoles values; names are the values upper-cased with '-' as '_' (DNS-Server -> DNS_SERVER, docker-container -> DOCKER_CONTAINER, MemoryStats -> MEMORY_STATS).",
  values: Object.fromEntries(APP_ROLES.map((role) => [appRoleName(role), { value: role, description: `The ${role} application role.` }])) as Record<string, { value: string }>,
});

export const OrderDirectionEnum = builder.enumType('OrderDirection', {
  description: 'Sort direction.',
  values: { ASC: { value: 'ASC' }, DESC: { value: 'DESC' } } as const,
});

export const ResourceOrderFieldEnum = builder.enumType('ResourceOrderField', {
  description: 'Fields the resource search sorts by.',
  values: {
    ID: { value: 'id' },
    NAME: { value: 'name' },
    HOST_NAME: { value: 'hostName' },
    IP_ADDRESS: { value: 'ipAddress' },
    RESOURCE_TYPE: { value: 'resourceType' },
    STATE: { value: 'state' },
    CREATED_DATE: { value: 'createdDate' },
  } as const,
});

export const AntivirusStatusEnum = builder.enumType('AntivirusStatus', {
  description: 'Antivirus definition status.',
  values: { UP_TO_DATE: { value: 'UPTODATE' }, OUT_OF_DATE: { value: 'OUTOFDATE' } } as const,
});

export const AntivirusOrderFieldEnum = builder.enumType('AntivirusOrderField', {
  description: 'Fields the antivirus list sorts by.',
  values: {
    SCAN_DATE: { value: 'scanDate' },
    NAME: { value: 'name' },
    STATUS: { value: 'status' },
    CURRENT_DEFINITION_DATE: { value: 'currentDefinitionDate' },
  } as const,
});

export const AvailabilityStateEnum = builder.enumType('AvailabilityState', {
  description: 'Meaning of an availability state code: 0 is DOWN, 4 is UNKNOWN, any other code OTHER.',
  values: { DOWN: { value: 'DOWN' }, UNKNOWN: { value: 'UNKNOWN' }, OTHER: { value: 'OTHER' } } as const,
});

export const IpAddressTypeEnum = builder.enumType('IpAddressType', {
  description: 'How a network interface gets its address.',
  values: { STATIC: { value: 'STATIC' }, DHCP: { value: 'DHCP' } } as const,
});

export const DecommissionedInstanceStateEnum = builder.enumType('DecommissionedInstanceState', {
  description: 'Cloud instance state filter of the history; the inventory supports only DECOMMISSIONED.',
  values: { DECOMMISSIONED: { value: 'DECOMMISSIONED' } } as const,
});
