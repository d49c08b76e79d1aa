/**
 * The Resource interface and its three implementations. Every field is one line: the data
 * source reads it wherever the resource was reached (record at hand, else the detail or a
 * search by id, once per resource per operation); the field-source table in
 * src/domain/resource.ts says where, and each description says what it costs.
 */
import type { ClientRef, DeviceGroup, InstalledIntegration, MetricType, NetworkAddress, NetworkCard, SyntheticCredential } from '../../domain/resource-shapes.js';
import type { ResourceFieldName, ResourceFields } from '../../domain/resource.js';
import type { ResourceView } from '../../domain/resource-view.js';
import { documents, loadsFor } from '../../domain/resource.js';
import { hasSubFields, NO_SUBFIELDS, readField } from '../../domain/resource-view.js';
import type { GraphQLResolveInfo } from 'graphql';
import type { GatewayContext } from '../../context.js';
import { builder, globalId, type MaybePromise } from '../builder.js';
import { FEDERATION_RIGHTS } from '../../identity/access.js';
import { subFieldNames } from '../selection.js';
import { InstalledApplicationRef } from './application.js';
import { AvailabilityRef } from './availability.js';
import { CloudPropertiesRef, LocationRef, ManagementProfileRef, TagRef } from './common.js';
import { connectionType } from './connection.js';
import { ResourceStateEnum } from './enums.js';

import { resourceTypeName } from '../node-type.js';

/**
 * A resolver reading one domain field of a resource. A field the record at hand carries is
 * answered at once, not through the data source's async read: a promise per field of every item
 * makes graphql-js complete each item of a list asynchronously (a page of 100 resources cost
 * hundreds of promises and most of the execution time); the data source reads it the same way.
 */
const field = <K extends ResourceFieldName>(name: K) => {
  // A nested object's selected sub-fields decide whether the record at hand answers it (see subFieldNames).
  const nested = hasSubFields(name);
  return (view: ResourceView, _args: unknown, ctx: GatewayContext, info: GraphQLResolveInfo): MaybePromise<ResourceFields[K] | null> => {
    const wanted = nested ? subFieldNames(info) : NO_SUBFIELDS;
    const own = readField(view, name, wanted);
    return own.present ? own.value : ctx.inventory.field(view, name, wanted);
  };
};
/** The same for list fields, which are [] rather than null when the record has none. */
const listField = <K extends ResourceFieldName>(name: K) => {
  const nested = hasSubFields(name);
  return (view: ResourceView, _args: unknown, ctx: GatewayContext, info: GraphQLResolveInfo): MaybePromise<NonNullable<ResourceFields[K]>> => {
    const wanted = nested ? subFieldNames(info) : NO_SUBFIELDS;
    const own = readField(view, name, wanted);
    if (own.present) return (own.value ?? []) as NonNullable<ResourceFields[K]>;
    return ctx.inventory.field(view, name, wanted).then((value) => (value ?? []) as NonNullable<ResourceFields[K]>);
  };
};

/** What reading a field costs, from the field-source table: said once, the same way everywhere. */
export function costNote(name: ResourceFieldName): string {
  const loads = loadsFor(name);
  const inSearch = documents('search', name);
  const parts: string[] = [];
  if (inSearch) parts.push('No extra cost in search results.');
  if (loads.includes('detail')) parts.push(`${inSearch ? 'Elsewhere, when' : 'When'} the record at hand lacks it, loads the resource detail (one upstream call per resource per operation, shared by every detail field).`);
  else if (loads.includes('search')) parts.push(`${inSearch ? 'Elsewhere, when' : 'When'} the record at hand lacks it, one search by id per resource per operation.`);
  if (hasSubFields(name) && parts.length > 0) parts.push('A sub-field the record at hand lacks is read the same way, so every path gives the same object.');
  return parts.join(' ');
}

/** A field description: what it means, then what it costs. */
const about = (meaning: string, name: ResourceFieldName) => `${meaning} ${costNote(name)}`.trim();

export const ClientRefType = builder.objectRef<ClientRef>('ClientRef').implement({
  description: 'The tenant a resource belongs to, as its search record names it.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Numeric client number.' }),
    uniqueId: t.exposeString('uniqueId', { description: 'Tenant id, form client_<n>.' }),
    name: t.exposeString('name', { description: 'Client display name.' }),
  }),
});

export const NetworkAddressRef = builder.objectRef<NetworkAddress>('NetworkAddress').implement({
  description: 'A network address of the resource.',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: 'IP address.' }),
    mac: t.exposeString('mac', { description: 'MAC address.' }),
    aliasIps: t.exposeStringList('aliasIps', { nullable: false, description: 'Further IP addresses of the same interface.' }),
  }),
});

const DeviceGroupRef = builder.objectRef<DeviceGroup>('DeviceGroup').implement({
  description: 'A device group the resource belongs to.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Device group number, when the record gives one (the resourceList deviceGroupId argument).' }),
    name: t.exposeString('name', { nullable: false, description: 'Device group name.' }),
  }),
});

const InstalledIntegrationRef = builder.objectRef<InstalledIntegration>('InstalledIntegration').implement({
  description: 'The integration that brought the resource into the inventory (a cloud account, a discovery integration).',
  fields: (t) => ({
    installId: t.exposeString('installId', { description: 'Id of this install of the integration.', nullable: false }),
    displayName: t.exposeString('displayName', { description: 'Name of the install, as shown to users.' }),
    integrationId: t.exposeString('integrationId', { description: 'Id of the integration (the product, e.g. AWS).' }),
    integrationName: t.exposeString('integrationName', { description: 'Name of the integration, e.g. AWS.' }),
    installedBy: t.exposeString('installedBy', { description: 'Who installed the integration, when the record says.' }),
    installedAt: t.expose('installedAt', { type: 'DateTime', description: 'When the integration was installed, when the record says.' }),
  }),
});

export const ResourceRef = builder.interfaceRef<ResourceView>('Resource').implement({
  interfaces: [builder.nodeInterfaceRef()],
  description: [
    'A managed resource: a device, a cloud item or a synthetic check.',
    'The concrete type is GeneralResource (devices with full hardware facts), DeviceResource (cloud and service items)',
    'or SyntheticResource (synthetic checks). A record that says its type (search results, lookups) decides it at no cost;',
    'a resource reached through the minimal list or an antivirus record loads its detail to tell, and only when the',
    'selection asks for __typename or a fragment on a concrete type.',
    'Every field resolves wherever the resource was reached: from what is at hand, else by loading what is missing,',
    'at most once per resource per operation. A field the resource does not have is null.',
  ].join('\n'),
  // A selection that cannot observe the concrete type costs no detail call.
  resolveType: (view, ctx, info) => resourceTypeName(view, ctx, info, 'Resource'),
  fields: (t) => ({
    id: t.id({ description: 'Global id: refetch with node(id:); the key of normalized client caches.', nullable: false, resolve: globalId('Resource', (view) => `${view.tenantId}:${view.id}`) }),
    resourceId: t.exposeID('id', { description: 'Id of the resource in the inventory (a UUID), as Tenant.resource(id:) and filters take it.', nullable: false }),
    tenantId: t.exposeID('tenantId', { nullable: false, description: 'The tenant (client or MSP account) the resource was read from.' }),
    name: t.string({ description: about('Resource name.', 'name'), resolve: field('name') }),
    hostName: t.string({ description: about('Host name.', 'hostName'), resolve: field('hostName') }),
    ipAddress: t.string({ description: about('Primary IP address.', 'ipAddress'), resolve: field('ipAddress') }),
    aliasName: t.string({ description: about('Another name of the resource.', 'aliasName'), resolve: field('aliasName') }),
    resourceName: t.string({ description: about('Display name of the resource.', 'resourceName'), resolve: field('resourceName') }),
    resourceType: t.string({ description: about('Resource type name, e.g. Linux, EBS, SYNTHETIC.', 'resourceType'), resolve: field('resourceType') }),
    type: t.string({ description: about('Kind of item: DEVICE, EBS, LOAD_BALANCER, SYNTHETIC, ...', 'type'), resolve: field('type') }),
    state: t.field({ description: about('ACTIVE (managed), INACTIVE (unmanaged) or DISCOVERED.', 'state'), type: ResourceStateEnum, resolve: field('state') }),
    status: t.string({ description: about('Monitoring status, e.g. UP.', 'status'), resolve: field('status') }),
    source: t.string({ description: about('How the resource was added, e.g. MANUAL.', 'source'), resolve: field('source') }),
    agentInstalled: t.boolean({ description: about('Whether a monitoring agent is installed.', 'agentInstalled'), resolve: field('agentInstalled') }),
    createdAt: t.field({ type: 'DateTime', description: about('When the resource was added to the inventory.', 'createdAt'), resolve: field('createdAt') }),
    updatedAt: t.field({ type: 'DateTime', description: about('When the resource was last changed.', 'updatedAt'), resolve: field('updatedAt') }),
    location: t.field({ description: about('Where the resource is.', 'location'), type: LocationRef, resolve: field('location') }),
    tags: t.field({ description: about('Tags; empty when the resource has none.', 'tags'), type: [TagRef], resolve: listField('tags') }),
    consoles: t.field({ description: about('Remote consoles of the resource, as the inventory sends them.', 'consoles'), type: ['JSON'], resolve: listField('consoles') }),
    dns: t.string({ description: about('DNS name.', 'dns'), resolve: field('dns') }),
    make: t.string({ description: about('Manufacturer.', 'make'), resolve: field('make') }),
    model: t.string({ description: about('Model.', 'model'), resolve: field('model') }),
    osName: t.string({ description: about('Operating system.', 'osName'), resolve: field('osName') }),
    osArchitecture: t.string({ description: about('Operating system architecture, e.g. x86_64.', 'osArchitecture'), resolve: field('osArchitecture') }),
    description: t.string({ description: about('Free-text description.', 'description'), resolve: field('description') }),
    classCode: t.string({ description: about('Class of device, e.g. LINUX.', 'classCode'), resolve: field('classCode') }),
    deviceType: t.string({ description: about('Device type name, e.g. Server.', 'deviceType'), resolve: field('deviceType') }),
    devicePath: t.string({ description: about("Device type path, e.g. 'Server >> Linux'.", 'devicePath'), resolve: field('devicePath') }),
    gatewayProfileId: t.string({ description: about('Gateway profile that monitors the resource.', 'gatewayProfileId'), resolve: field('gatewayProfileId') }),
    managementProfile: t.field({ type: ManagementProfileRef, description: about('Management profile of the resource.', 'managementProfile'), resolve: field('managementProfile') }),
    deviceGroups: t.field({ type: [DeviceGroupRef], description: about('Device groups the resource belongs to; empty when none are known.', 'deviceGroups'), resolve: listField('deviceGroups') }),
    macAddress: t.string({ description: about('MAC address of the primary interface.', 'macAddress'), resolve: field('macAddress') }),
    serialNumber: t.string({ description: about('Serial number.', 'serialNumber'), resolve: field('serialNumber') }),
    systemUID: t.string({ description: about('System unique id.', 'systemUID'), resolve: field('systemUID') }),
    client: t.field({ type: ClientRefType, description: about('The client the resource belongs to.', 'client'), resolve: field('client') }),
    clientId: t.int({ description: about('Numeric client number.', 'clientId'), resolve: field('clientId') }),
    clientUniqueId: t.string({ description: about('Tenant id the record names, e.g. client_1.', 'clientUniqueId'), resolve: field('clientUniqueId') }),
    networkAddresses: t.field({ type: [NetworkAddressRef], description: about('Network addresses of the resource.', 'networkAddresses'), resolve: listField('networkAddresses') }),
    attributes: t.field({ type: 'JSON', description: about('Further attributes as the inventory sends them (network addresses are also in networkAddresses).', 'attributes'), resolve: field('attributes') }),
    assetManagedAt: t.field({ type: 'DateTime', description: about('Most recent time the resource was managed or unmanaged.', 'assetManagedAt'), resolve: field('assetManagedAt') }),
    firstAssetManagedAt: t.field({ type: 'DateTime', description: about('First time the resource was managed.', 'firstAssetManagedAt'), resolve: field('firstAssetManagedAt') }),
    deleted: t.boolean({ description: about('Whether the resource is marked deleted.', 'deleted'), resolve: field('deleted') }),
    ts: t.field({ type: 'SafeInt', description: about('Last change as epoch milliseconds (synthetic checks); may exceed 32 bits.', 'ts'), resolve: field('ts') }),
    locationOffset: t.int({ description: about('Offset of the check locations (synthetic checks).', 'locationOffset'), resolve: field('locationOffset') }),
    totalLocations: t.int({ description: about('Number of locations a synthetic check runs from.', 'totalLocations'), resolve: field('totalLocations') }),
    installedIntegration: t.field({ type: InstalledIntegrationRef, description: about('The integration that brought the resource in, with who installed it and when.', 'installedIntegration'), resolve: field('installedIntegration') }),
    cloud: t.field({ type: CloudPropertiesRef, description: about('Cloud facts of the resource (instance, zone, provider-specific properties); null when it has none.', 'cloud'), resolve: field('cloud') }),
    cloudResourceId: t.string({ description: about("The resource's identity at its cloud provider: an AWS ARN or an Azure resource id.", 'cloudResourceId'), resolve: field('cloudResourceId') }),
    applications: t.field({
      type: [InstalledApplicationRef],
      description: 'Applications installed on the resource. One upstream call per resource per operation. Null, with an error, when it cannot be read.',
      resolve: (view, _args, ctx) => ctx.inventory.applications(view),
    }),
    availability: t.field({
      type: AvailabilityRef,
      description: 'Availability over the window [from, to] (at most MAX_AVAILABILITY_WINDOW_DAYS, 366 by default). One upstream call per resource and window per operation. Null, with an error, when it cannot be read.',
      args: {
        from: t.arg({ type: 'DateTime', required: true, description: 'Start of the window.' }),
        to: t.arg({ type: 'DateTime', required: true, description: 'End of the window; after from.' }),
      },
      resolve: (view, args, ctx) => ctx.inventory.availability(view, args.from, args.to),
    }),
  }),
});

const BiosRef = builder.objectRef<{ systemSerial: string | null; systemModel: string | null }>('Bios').implement({
  description: 'BIOS facts of a device.',
  fields: (t) => ({
    systemSerial: t.exposeString('systemSerial', { description: 'Serial number of the system.' }),
    systemModel: t.exposeString('systemModel', { description: 'Model of the system.' }),
  }),
});

const NetworkCardRef = builder.objectRef<NetworkCard>('NetworkCard').implement({
  description: 'A network card of a device.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Card number on this device (not unique across devices).' }),
    name: t.exposeString('name', { description: 'Card name.' }),
    status: t.exposeString('status', { description: 'Link status, e.g. UP.' }),
    ipAddress: t.exposeString('ipAddress', { description: 'Primary IP address of the card.' }),
    macAddress: t.exposeString('macAddress', { description: 'MAC address of the card.' }),
    dhcpEnabled: t.exposeBoolean('dhcpEnabled', { description: 'Whether the address comes from DHCP.' }),
    linkMode: t.exposeString('linkMode', { description: 'Duplex mode, e.g. Full Duplex.' }),
    aliasIps: t.exposeStringList('aliasIps', { nullable: false, description: 'Further IP addresses of the card.' }),
  }),
});

const MetricTypeRef = builder.objectRef<MetricType>('MetricType').implement({
  description: 'A metric collected for the resource.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Metric name, e.g. system.cpu.utilization.' }),
    displayName: t.exposeString('displayName', { description: 'Human-readable metric name.' }),
    unit: t.exposeString('unit', { description: 'Unit of the values, e.g. %.' }),
    availabilityMetric: t.exposeBoolean('availabilityMetric', { description: 'Whether the metric decides availability.' }),
    thresholdType: t.exposeString('thresholdType', { description: 'How thresholds apply, e.g. STATIC.' }),
  }),
});

export const GeneralResourceRef = builder.objectRef<ResourceView>('GeneralResource').implement({
  ...FEDERATION_RIGHTS.read,
  description: 'A device with full facts: hardware, operating system, network cards, metrics.',
  interfaces: [builder.nodeInterfaceRef(), ResourceRef],
  fields: (t) => ({
    extResourceId: t.string({ description: about('Id of the resource in a third-party integration.', 'extResourceId'), resolve: field('extResourceId') }),
    physicalMemory: t.string({ description: about('Installed memory as the device reports it, e.g. 16 GB.', 'physicalMemory'), resolve: field('physicalMemory') }),
    keyboardType: t.string({ description: about('Keyboard layout.', 'keyboardType'), resolve: field('keyboardType') }),
    encodingType: t.string({ description: about('Character encoding of the device.', 'encodingType'), resolve: field('encodingType') }),
    agentDeployedAt: t.field({ type: 'DateTime', description: about('When the monitoring agent was deployed.', 'agentDeployedAt'), resolve: field('agentDeployedAt') }),
    components: t.stringList({ description: about('Monitored components, e.g. cpu, memory.', 'components'), resolve: listField('components') }),
    bios: t.field({ description: about('BIOS facts.', 'bios'), type: BiosRef, resolve: field('bios') }),
    cpus: t.field({ type: ['JSON'], description: about('Processors, as the inventory sends them.', 'cpus'), resolve: listField('cpus') }),
    networkCards: t.field({ type: [NetworkCardRef], description: about('Network cards.', 'networkCards'), resolve: listField('networkCards') }),
    metricTypes: t.field({ description: about('Metrics collected for the resource.', 'metricTypes'), type: [MetricTypeRef], resolve: listField('metricTypes') }),
    appRoles: t.stringList({ description: about('Application roles detected on the device, e.g. kafka.', 'appRoles'), resolve: listField('appRoles') }),
    wsusSettings: t.string({ description: about('Windows update settings.', 'wsusSettings'), resolve: field('wsusSettings') }),
  }),
});

export const DeviceResourceRef = builder.objectRef<ResourceView>('DeviceResource').implement({
  ...FEDERATION_RIGHTS.read,
  description: 'A cloud or service item (EBS volume, load balancer, database, ...): the Resource fields only.',
  interfaces: [builder.nodeInterfaceRef(), ResourceRef],
  fields: () => ({}),
});

const SyntheticCredentialRef = builder.objectRef<SyntheticCredential>('SyntheticCredential').implement({
  description: 'Credential of a synthetic check. Secrets are never passed through unless the operator enables it (EXPOSE_CREDENTIAL_SECRETS); by default they are null and hasClientKey / hasClientSecret tell whether one is set.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Credential number.' }),
    secure: t.exposeBoolean('secure', { description: 'Whether the check uses a secure channel.' }),
    port: t.exposeInt('port', { description: 'Port the check connects to.' }),
    snmpVersion: t.exposeString('snmpVersion', { description: 'SNMP version, when SNMP.' }),
    autoEnableMode: t.exposeBoolean('autoEnableMode', { description: 'Whether the check enables itself automatically.' }),
    universal: t.exposeBoolean('universal', { description: 'Whether the credential is shared across checks.' }),
    spSecure: t.exposeBoolean('spSecure', { description: 'Whether the secondary protocol is secure.' }),
    spPort: t.exposeInt('spPort', { description: 'Port of the secondary protocol.' }),
    securityLevel: t.exposeString('securityLevel', { description: 'SNMP security level, e.g. AUTH_PRIV.' }),
    timeoutMs: t.exposeInt('timeoutMs', { description: 'Timeout of the check in milliseconds.' }),
    oauthAccessTokenUrl: t.exposeString('oauthAccessTokenUrl', { description: 'Token URL the check uses.' }),
    oauthGrantType: t.exposeString('oauthGrantType', { description: 'OAuth2 grant type the check uses.' }),
    hasClientKey: t.boolean({ description: 'Whether a client key is set (always answered, whatever EXPOSE_CREDENTIAL_SECRETS says).', nullable: false, resolve: (c) => c.oauthClientKey !== null }),
    hasClientSecret: t.boolean({ description: 'Whether a client secret is set (always answered, whatever EXPOSE_CREDENTIAL_SECRETS says).', nullable: false, resolve: (c) => c.oauthClientSecret !== null }),
    oauthClientKey: t.string({ description: 'Null unless EXPOSE_CREDENTIAL_SECRETS is on.', resolve: (c, _a, ctx) => (ctx.config.exposeCredentialSecrets ? c.oauthClientKey : null) }),
    oauthClientSecret: t.string({ description: 'Null unless EXPOSE_CREDENTIAL_SECRETS is on.', resolve: (c, _a, ctx) => (ctx.config.exposeCredentialSecrets ? c.oauthClientSecret : null) }),
  }),
});

export const SyntheticResourceRef = builder.objectRef<ResourceView>('SyntheticResource').implement({
  ...FEDERATION_RIGHTS.read,
  description: 'A synthetic check: a probe run from one or more locations against a host or URL.',
  interfaces: [builder.nodeInterfaceRef(), ResourceRef],
  fields: (t) => ({
    checkType: t.string({ description: about('What the check does, e.g. HTTP, PING.', 'checkType'), resolve: field('checkType') }),
    host: t.string({ description: about('Host the check targets.', 'host'), resolve: field('host') }),
    url: t.string({ description: about('URL the check requests.', 'url'), resolve: field('url') }),
    locationUuids: t.stringList({ description: about('Locations the check runs from.', 'locationUuids'), resolve: listField('locationUuids') }),
    credential: t.field({ description: about('Credential the check uses; secrets hidden by default.', 'credential'), type: SyntheticCredentialRef, resolve: field('credential') }),
  }),
});

export const ResourceConnectionRef = connectionType('Resource', ResourceRef, 'resource');
