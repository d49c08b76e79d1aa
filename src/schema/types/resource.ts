/**
 * The Resource interface and its three implementations. Every field resolves wherever the
 * resource was reached, through resourceField(): from the record at hand, else the detail or
 * the search form, loaded once per resource per operation.
 */
import type {
  ClientRef, InstalledIntegration, MetricType, NetworkAddress, NetworkCard, ResourceFieldName, ResourceKind, ResourceView, SyntheticCredential,
} from '../../domain/resource.js';
import { resourceField, resourceKind } from '../../loaders/resource-fields.js';
import { availabilityWindow } from '../../services/availability.js';
import type { GatewayContext } from '../../context.js';
import { builder } from '../builder.js';
import { selectionNeedsConcreteType } from '../selection.js';
import { InstalledApplicationRef } from './application.js';
import { AvailabilityRef } from './availability.js';
import { CloudPropertiesRef, LocationRef, TagRef } from './common.js';
import { connectionType } from './connection.js';
import { ResourceStateEnum } from './enums.js';

const TYPE_OF_KIND: Record<ResourceKind, string> = {
  general: 'GeneralResource',
  device: 'DeviceResource',
  synthetic: 'SyntheticResource',
};

/** A resolver reading one domain field of a resource. */
const field = <K extends ResourceFieldName>(name: K) => (view: ResourceView, _args: unknown, ctx: GatewayContext) => resourceField(view, name, ctx.loaders);
/** The same for list fields, which are [] rather than null when the shape has none. */
const listField = <K extends ResourceFieldName>(name: K) => async (view: ResourceView, _args: unknown, ctx: GatewayContext) =>
  ((await resourceField(view, name, ctx.loaders)) ?? []) as NonNullable<Awaited<ReturnType<typeof resourceField<K>>>>;

export const ClientRefType = builder.objectRef<ClientRef>('ClientRef').implement({
  description: 'The tenant a resource belongs to, as the search record names it (upstream `client`).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric client id.' }),
    uniqueId: t.exposeString('uniqueId', { description: 'Tenant id, form client_<n>.' }),
    name: t.exposeString('name', { description: 'Client display name.' }),
  }),
});

export const NetworkAddressRef = builder.objectRef<NetworkAddress>('NetworkAddress').implement({
  description: 'An address of the resource from the search record (upstream `attributes.network`).',
  fields: (t) => ({
    ip: t.exposeString('ip', { description: 'IP address.' }),
    mac: t.exposeString('mac', { description: 'MAC address.' }),
    aliasIps: t.exposeStringList('aliasIps', { nullable: false, description: 'Upstream `aliasIp`, split on commas.' }),
  }),
});

export const ResourceRef = builder.interfaceRef<ResourceView>('Resource').implement({
  description: [
    'A managed resource. The concrete type follows the shape of the upstream detail record:',
    'generalInfo present -> GeneralResource; resourceType or type SYNTHETIC -> SyntheticResource;',
    'otherwise DeviceResource (the short device / cloud item form).',
    'Every field resolves wherever the resource was reached (search hit, minimal list, antivirus',
    'record, direct lookup, federation reference): from data already at hand, else by loading',
    'what is missing, batched and de-duplicated per operation. Fields the resource\'s shape does not carry are null.',
  ].join('\n'),
  resolveType: async (view, ctx, info) => {
    if (view.kind) return TYPE_OF_KIND[view.kind];
    // A selection that cannot observe the concrete type costs no detail call.
    if (!selectionNeedsConcreteType(info, 'Resource')) return TYPE_OF_KIND.device;
    return TYPE_OF_KIND[await resourceKind(view, ctx.loaders)];
  },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Resource id (a UUID).', nullable: false }),
    tenantId: t.exposeID('tenantId', { nullable: false, description: 'The tenant (client or MSP account id) the resource was read from.' }),
    name: t.string({ description: 'Resource name (upstream `name`, or `generalInfo.name` in the general detail).', resolve: field('name') }),
    hostName: t.string({ description: 'Host name (upstream `hostName`, or `generalInfo.hostName`).', resolve: field('hostName') }),
    ipAddress: t.string({ description: 'Primary IP address.', resolve: field('ipAddress') }),
    aliasName: t.string({ description: 'Another name of the resource (upstream `aliasName`).', resolve: field('aliasName') }),
    resourceName: t.string({ description: 'Upstream `resourceName`.', resolve: field('resourceName') }),
    resourceType: t.string({ description: 'Resource type name, e.g. Linux, EBS, SYNTHETIC (upstream `resourceType`).', resolve: field('resourceType') }),
    type: t.string({ description: 'DEVICE, EBS, SYNTHETIC, ... (upstream `type`).', resolve: field('type') }),
    state: t.field({ description: 'ACTIVE (managed), INACTIVE (unmanaged) or DISCOVERED.', type: ResourceStateEnum, resolve: field('state') }),
    status: t.string({ description: 'e.g. UP (upstream `status`, from the detail record).', resolve: field('status') }),
    source: t.string({ description: 'e.g. MANUAL (upstream `source`).', resolve: field('source') }),
    agentInstalled: t.boolean({ description: 'Whether a monitoring agent is installed.', resolve: field('agentInstalled') }),
    createdAt: t.field({ type: 'DateTime', description: 'Upstream `createdDate` (search, device form) or `generalInfo.createdTime`.', resolve: field('createdAt') }),
    updatedAt: t.field({ type: 'DateTime', description: 'Upstream `updatedDate` (device form) or `generalInfo.updatedTime`.', resolve: field('updatedAt') }),
    location: t.field({ description: 'Where the resource is (detail record).', type: LocationRef, resolve: field('location') }),
    tags: t.field({ description: 'Tags (general detail record); empty for shapes without tags.', type: [TagRef], resolve: listField('tags') }),
    consoles: t.field({ description: 'Upstream `consoles`, as sent.', type: ['JSON'], resolve: listField('consoles') }),
    dns: t.string({ description: 'Upstream `dns` (search) or `generalInfo.dns`.', resolve: field('dns') }),
    make: t.string({ description: 'Manufacturer (search record or `generalInfo.make`).', resolve: field('make') }),
    model: t.string({ description: 'Model (search record).', resolve: field('model') }),
    osName: t.string({ description: 'Operating system (search record or `generalInfo.osName`).', resolve: field('osName') }),
    description: t.string({ description: 'Free-text description.', resolve: field('description') }),
    classCode: t.string({ description: 'Upstream `classCode` (search record).', resolve: field('classCode') }),
    deviceType: t.string({ description: 'Upstream `deviceType` (search record).', resolve: field('deviceType') }),
    devicePath: t.string({ description: 'Upstream `devicePath` (search record).', resolve: field('devicePath') }),
    gatewayProfileId: t.string({ description: 'Upstream `gatewayProfileId` (search record).', resolve: field('gatewayProfileId') }),
    client: t.field({ type: ClientRefType, description: 'Upstream `client` (search record).', resolve: field('client') }),
    clientId: t.int({ description: 'Upstream `clientId`.', resolve: field('clientId') }),
    networkAddresses: t.field({ type: [NetworkAddressRef], description: 'Upstream `attributes.network` (search record).', resolve: listField('networkAddresses') }),
    attributes: t.field({ type: 'JSON', description: 'Upstream `attributes` of the search record, as sent (network is also mapped in networkAddresses).', resolve: field('attributes') }),
    assetManagedAt: t.field({ type: 'DateTime', description: 'Most recent time the resource was managed or unmanaged (upstream `assetManagedTime`).', resolve: field('assetManagedAt') }),
    firstAssetManagedAt: t.field({ type: 'DateTime', description: 'First time the resource was managed (upstream `firstAssetManagedTime`).', resolve: field('firstAssetManagedAt') }),
    deleted: t.boolean({ description: 'Upstream `deleted`.', resolve: field('deleted') }),
    ts: t.field({ type: 'SafeInt', description: 'Upstream `ts` (epoch milliseconds on synthetic checks; beyond 32 bits).', resolve: field('ts') }),
    locationOffset: t.int({ description: 'Upstream `locationOffset`.', resolve: field('locationOffset') }),
    totalLocations: t.int({ description: 'Upstream `totalLocations` (check locations of a synthetic resource).', resolve: field('totalLocations') }),
    applications: t.field({
      type: [InstalledApplicationRef],
      description: 'GET /resources/{id}/applications (DataLoader: once per resource per operation). Null, with an error, when the upstream call fails.',
      resolve: (view, _args, ctx) => ctx.loaders.applicationsByResource.load({ tenantId: view.tenantId, id: view.id }),
    }),
    availability: t.field({
      type: AvailabilityRef,
      description: 'GET /resources/{id}/availability over [from, to] (DataLoader keyed by resource and window). Null, with an error, when the upstream call fails.',
      args: {
        from: t.arg({ type: 'DateTime', required: true }),
        to: t.arg({ type: 'DateTime', required: true }),
      },
      resolve: (view, args, ctx) => availabilityWindow(view, args.from, args.to, ctx),
    }),
  }),
});

const BiosRef = builder.objectRef<{ systemSerial: string | null; systemModel: string | null }>('Bios').implement({
  description: 'BIOS facts of the general detail record.',
  fields: (t) => ({
    systemSerial: t.exposeString('systemSerial', { description: 'Serial number of the system.' }),
    systemModel: t.exposeString('systemModel', { description: 'Model of the system.' }),
  }),
});

const NetworkCardRef = builder.objectRef<NetworkCard>('NetworkCard').implement({
  description: 'A network card (upstream `networkCardDetails`).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Card id.' }),
    name: t.exposeString('name', { description: 'Upstream `networkName`.' }),
    status: t.exposeString('status', { description: 'Link status, e.g. UP.' }),
    ipAddress: t.exposeString('ipAddress', { description: 'Primary IP address of the card.' }),
    macAddress: t.exposeString('macAddress', { description: 'MAC address of the card.' }),
    dhcpEnabled: t.exposeBoolean('dhcpEnabled', { description: 'Whether the address comes from DHCP.' }),
    linkMode: t.exposeString('linkMode', { description: 'Duplex mode, e.g. Full Duplex.' }),
    aliasIps: t.exposeStringList('aliasIps', { nullable: false, description: 'Upstream `aliasIps`, split on commas.' }),
  }),
});

const InstalledIntegrationRef = builder.objectRef<InstalledIntegration>('InstalledIntegration').implement({
  description: 'The integration that installed the resource (upstream `installedApp`).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Upstream `installedApp.id`.', nullable: false }),
    displayName: t.exposeString('displayName', { description: 'Upstream `installedApp.displayName`.' }),
    integrationId: t.exposeString('integrationId', { description: 'Upstream `integration.id`.' }),
    integrationName: t.exposeString('integrationName', { description: 'Upstream `integration.name`.' }),
  }),
});

const MetricTypeRef = builder.objectRef<MetricType>('MetricType').implement({
  description: 'A metric collected for the resource.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Upstream `metricName`.' }),
    displayName: t.exposeString('displayName', { description: 'Human-readable metric name.' }),
    unit: t.exposeString('unit', { description: 'Unit of the values, e.g. %.' }),
    availabilityMetric: t.exposeBoolean('availabilityMetric', { description: 'Whether the metric decides availability.' }),
    thresholdType: t.exposeString('thresholdType', { description: 'How thresholds apply, e.g. STATIC.' }),
  }),
});

export const GeneralResourceRef = builder.objectRef<ResourceView>('GeneralResource').implement({
  description: 'A resource whose detail record is the general form (it has generalInfo).',
  interfaces: [ResourceRef],
  fields: (t) => ({
    extResourceId: t.string({ description: 'Third-party integration id.', resolve: field('extResourceId') }),
    physicalMemory: t.string({ description: 'Upstream `generalInfo.physicalMemory`.', resolve: field('physicalMemory') }),
    keyboardType: t.string({ description: 'Upstream `generalInfo.keyboardType`.', resolve: field('keyboardType') }),
    encodingType: t.string({ description: 'Upstream `generalInfo.encodingType`.', resolve: field('encodingType') }),
    agentDeployedAt: t.field({ type: 'DateTime', description: 'Upstream `generalInfo.agentDeploytime`.', resolve: field('agentDeployedAt') }),
    components: t.stringList({ description: 'Monitored components, e.g. cpu, memory.', resolve: listField('components') }),
    bios: t.field({ description: 'Upstream `bios`.', type: BiosRef, resolve: field('bios') }),
    cpus: t.field({ type: ['JSON'], description: 'Upstream `cpus`, as sent.', resolve: listField('cpus') }),
    networkCards: t.field({ type: [NetworkCardRef], description: 'Upstream `networkCardDetails`.', resolve: listField('networkCards') }),
    installedIntegration: t.field({ type: InstalledIntegrationRef, description: 'Upstream `installedApp`.', resolve: field('installedIntegration') }),
    cloud: t.field({ type: CloudPropertiesRef, description: 'Upstream `properties`; null when empty.', resolve: field('cloud') }),
    metricTypes: t.field({ description: 'Metrics collected for the resource.', type: [MetricTypeRef], resolve: listField('metricTypes') }),
    clientUniqueId: t.string({ description: 'Tenant id the record names (upstream `clientUniqueId`).', resolve: field('clientUniqueId') }),
    appRoles: t.stringList({ description: 'Upstream `appRoles[].name`.', resolve: listField('appRoles') }),
    wsusSettings: t.string({ description: 'Windows update settings (upstream `wsusSettings`).', resolve: field('wsusSettings') }),
  }),
});

export const DeviceResourceRef = builder.objectRef<ResourceView>('DeviceResource').implement({
  description: 'A resource whose detail record is the short device / cloud item form (EBS, load balancers, ...).',
  interfaces: [ResourceRef],
  fields: (t) => ({
    clientUniqueId: t.string({ description: 'Tenant id the record names (upstream `clientUniqueId`).', resolve: field('clientUniqueId') }),
  }),
});

const SyntheticCredentialRef = builder.objectRef<SyntheticCredential>('SyntheticCredential').implement({
  description: 'Credential of a synthetic check. Secrets are never passed through unless the operator enables it (EXPOSE_CREDENTIAL_SECRETS); by default they are null and hasClientKey / hasClientSecret tell whether one is set.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Credential id.' }),
    secure: t.exposeBoolean('secure', { description: 'Whether the check uses a secure channel.' }),
    port: t.exposeInt('port', { description: 'Port the check connects to.' }),
    snmpVersion: t.exposeString('snmpVersion', { description: 'SNMP version, when SNMP.' }),
    autoEnableMode: t.exposeBoolean('autoEnableMode', { description: 'Upstream `autoEnableMode`.' }),
    universal: t.exposeBoolean('universal', { description: 'Upstream `universal`.' }),
    spSecure: t.exposeBoolean('spSecure', { description: 'Upstream `spSecure`.' }),
    spPort: t.exposeInt('spPort', { description: 'Upstream `spPort`.' }),
    securityLevel: t.exposeString('securityLevel', { description: 'Upstream `securityLevel`, e.g. AUTH_PRIV.' }),
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
  description: 'A synthetic check (detail record with resourceType SYNTHETIC).',
  interfaces: [ResourceRef],
  fields: (t) => ({
    checkType: t.string({ description: 'e.g. HTTP.', resolve: field('checkType') }),
    host: t.string({ description: 'Host the check targets.', resolve: field('host') }),
    url: t.string({ description: 'URL the check requests.', resolve: field('url') }),
    locationUuids: t.stringList({ description: 'Locations the check runs from.', resolve: listField('locationUuids') }),
    credential: t.field({ description: 'Credential the check uses; secrets hidden by default.', type: SyntheticCredentialRef, resolve: field('credential') }),
  }),
});

export const ResourceConnectionRef = connectionType('Resource', ResourceRef, 'resource');
