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
    id: t.exposeInt('id'),
    uniqueId: t.exposeString('uniqueId', { description: 'Tenant id, form client_<n>.' }),
    name: t.exposeString('name'),
  }),
});

export const NetworkAddressRef = builder.objectRef<NetworkAddress>('NetworkAddress').implement({
  description: 'An address of the resource from the search record (upstream `attributes.network`).',
  fields: (t) => ({
    ip: t.exposeString('ip'),
    mac: t.exposeString('mac'),
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
    id: t.exposeID('id', { nullable: false }),
    tenantId: t.exposeID('tenantId', { nullable: false, description: 'The tenant (client or MSP account id) the resource was read from.' }),
    name: t.string({ resolve: field('name') }),
    hostName: t.string({ resolve: field('hostName') }),
    ipAddress: t.string({ resolve: field('ipAddress') }),
    aliasName: t.string({ resolve: field('aliasName') }),
    resourceName: t.string({ resolve: field('resourceName') }),
    resourceType: t.string({ resolve: field('resourceType') }),
    type: t.string({ description: 'DEVICE, EBS, SYNTHETIC, ... (upstream `type`).', resolve: field('type') }),
    state: t.field({ type: ResourceStateEnum, resolve: field('state') }),
    status: t.string({ description: 'e.g. UP (upstream `status`, from the detail record).', resolve: field('status') }),
    source: t.string({ description: 'e.g. MANUAL (upstream `source`).', resolve: field('source') }),
    agentInstalled: t.boolean({ resolve: field('agentInstalled') }),
    createdAt: t.field({ type: 'DateTime', description: 'Upstream `createdDate` (search, device form) or `generalInfo.createdTime`.', resolve: field('createdAt') }),
    updatedAt: t.field({ type: 'DateTime', description: 'Upstream `updatedDate` (device form) or `generalInfo.updatedTime`.', resolve: field('updatedAt') }),
    location: t.field({ type: LocationRef, resolve: field('location') }),
    tags: t.field({ type: [TagRef], nullable: false, resolve: listField('tags') }),
    consoles: t.field({ type: ['JSON'], nullable: false, resolve: listField('consoles') }),
    dns: t.string({ description: 'Upstream `dns` (search) or `generalInfo.dns`.', resolve: field('dns') }),
    make: t.string({ resolve: field('make') }),
    model: t.string({ resolve: field('model') }),
    osName: t.string({ resolve: field('osName') }),
    description: t.string({ resolve: field('description') }),
    classCode: t.string({ description: 'Upstream `classCode` (search record).', resolve: field('classCode') }),
    deviceType: t.string({ description: 'Upstream `deviceType` (search record).', resolve: field('deviceType') }),
    devicePath: t.string({ description: 'Upstream `devicePath` (search record).', resolve: field('devicePath') }),
    gatewayProfileId: t.string({ description: 'Upstream `gatewayProfileId` (search record).', resolve: field('gatewayProfileId') }),
    client: t.field({ type: ClientRefType, description: 'Upstream `client` (search record).', resolve: field('client') }),
    clientId: t.int({ description: 'Upstream `clientId`.', resolve: field('clientId') }),
    networkAddresses: t.field({ type: [NetworkAddressRef], nullable: false, description: 'Upstream `attributes.network` (search record).', resolve: listField('networkAddresses') }),
    attributes: t.field({ type: 'JSON', description: 'Upstream `attributes` of the search record, as sent (network is also mapped in networkAddresses).', resolve: field('attributes') }),
    assetManagedAt: t.field({ type: 'DateTime', description: 'Most recent time the resource was managed or unmanaged (upstream `assetManagedTime`).', resolve: field('assetManagedAt') }),
    firstAssetManagedAt: t.field({ type: 'DateTime', description: 'First time the resource was managed (upstream `firstAssetManagedTime`).', resolve: field('firstAssetManagedAt') }),
    deleted: t.boolean({ resolve: field('deleted') }),
    ts: t.field({ type: 'SafeInt', description: 'Upstream `ts` (epoch milliseconds on synthetic checks; beyond 32 bits).', resolve: field('ts') }),
    locationOffset: t.int({ resolve: field('locationOffset') }),
    totalLocations: t.int({ resolve: field('totalLocations') }),
    applications: t.field({
      type: [InstalledApplicationRef],
      nullable: false,
      description: 'GET /resources/{id}/applications (DataLoader: once per resource per operation).',
      resolve: (view, _args, ctx) => ctx.loaders.applicationsByResource.load({ tenantId: view.tenantId, id: view.id }),
    }),
    availability: t.field({
      type: AvailabilityRef,
      nullable: false,
      description: 'GET /resources/{id}/availability over [from, to] (DataLoader keyed by resource and window).',
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
  fields: (t) => ({ systemSerial: t.exposeString('systemSerial'), systemModel: t.exposeString('systemModel') }),
});

const NetworkCardRef = builder.objectRef<NetworkCard>('NetworkCard').implement({
  description: 'A network card (upstream `networkCardDetails`).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name', { description: 'Upstream `networkName`.' }),
    status: t.exposeString('status'),
    ipAddress: t.exposeString('ipAddress'),
    macAddress: t.exposeString('macAddress'),
    dhcpEnabled: t.exposeBoolean('dhcpEnabled'),
    linkMode: t.exposeString('linkMode'),
    aliasIps: t.exposeStringList('aliasIps', { nullable: false, description: 'Upstream `aliasIps`, split on commas.' }),
  }),
});

const InstalledIntegrationRef = builder.objectRef<InstalledIntegration>('InstalledIntegration').implement({
  description: 'The integration that installed the resource (upstream `installedApp`).',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    displayName: t.exposeString('displayName'),
    integrationId: t.exposeString('integrationId', { description: 'Upstream `integration.id`.' }),
    integrationName: t.exposeString('integrationName', { description: 'Upstream `integration.name`.' }),
  }),
});

const MetricTypeRef = builder.objectRef<MetricType>('MetricType').implement({
  description: 'A metric collected for the resource.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Upstream `metricName`.' }),
    displayName: t.exposeString('displayName'),
    unit: t.exposeString('unit'),
    availabilityMetric: t.exposeBoolean('availabilityMetric'),
    thresholdType: t.exposeString('thresholdType'),
  }),
});

builder.objectRef<ResourceView>('GeneralResource').implement({
  description: 'A resource whose detail record is the general form (it has generalInfo).',
  interfaces: [ResourceRef],
  fields: (t) => ({
    extResourceId: t.string({ description: 'Third-party integration id.', resolve: field('extResourceId') }),
    physicalMemory: t.string({ description: 'Upstream `generalInfo.physicalMemory`.', resolve: field('physicalMemory') }),
    keyboardType: t.string({ resolve: field('keyboardType') }),
    encodingType: t.string({ resolve: field('encodingType') }),
    agentDeployedAt: t.field({ type: 'DateTime', description: 'Upstream `generalInfo.agentDeploytime`.', resolve: field('agentDeployedAt') }),
    components: t.stringList({ nullable: false, resolve: listField('components') }),
    bios: t.field({ type: BiosRef, resolve: field('bios') }),
    cpus: t.field({ type: ['JSON'], nullable: false, description: 'Upstream `cpus`, as sent.', resolve: listField('cpus') }),
    networkCards: t.field({ type: [NetworkCardRef], nullable: false, description: 'Upstream `networkCardDetails`.', resolve: listField('networkCards') }),
    installedIntegration: t.field({ type: InstalledIntegrationRef, description: 'Upstream `installedApp`.', resolve: field('installedIntegration') }),
    cloud: t.field({ type: CloudPropertiesRef, description: 'Upstream `properties`; null when empty.', resolve: field('cloud') }),
    metricTypes: t.field({ type: [MetricTypeRef], nullable: false, resolve: listField('metricTypes') }),
    clientUniqueId: t.string({ resolve: field('clientUniqueId') }),
    appRoles: t.stringList({ nullable: false, description: 'Upstream `appRoles[].name`.', resolve: listField('appRoles') }),
    wsusSettings: t.string({ resolve: field('wsusSettings') }),
  }),
});

builder.objectRef<ResourceView>('DeviceResource').implement({
  description: 'A resource whose detail record is the short device / cloud item form (EBS, load balancers, ...).',
  interfaces: [ResourceRef],
  fields: (t) => ({
    clientUniqueId: t.string({ resolve: field('clientUniqueId') }),
  }),
});

const SyntheticCredentialRef = builder.objectRef<SyntheticCredential>('SyntheticCredential').implement({
  description: 'Credential of a synthetic check. Secrets are never passed through unless the operator enables it (EXPOSE_CREDENTIAL_SECRETS); by default they are null and hasClientKey / hasClientSecret tell whether one is set.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    secure: t.exposeBoolean('secure'),
    port: t.exposeInt('port'),
    snmpVersion: t.exposeString('snmpVersion'),
    autoEnableMode: t.exposeBoolean('autoEnableMode'),
    universal: t.exposeBoolean('universal'),
    spSecure: t.exposeBoolean('spSecure'),
    spPort: t.exposeInt('spPort'),
    securityLevel: t.exposeString('securityLevel'),
    timeoutMs: t.exposeInt('timeoutMs'),
    oauthAccessTokenUrl: t.exposeString('oauthAccessTokenUrl'),
    oauthGrantType: t.exposeString('oauthGrantType'),
    hasClientKey: t.boolean({ nullable: false, resolve: (c) => c.oauthClientKey !== null }),
    hasClientSecret: t.boolean({ nullable: false, resolve: (c) => c.oauthClientSecret !== null }),
    oauthClientKey: t.string({ description: 'Null unless EXPOSE_CREDENTIAL_SECRETS is on.', resolve: (c, _a, ctx) => (ctx.config.exposeCredentialSecrets ? c.oauthClientKey : null) }),
    oauthClientSecret: t.string({ description: 'Null unless EXPOSE_CREDENTIAL_SECRETS is on.', resolve: (c, _a, ctx) => (ctx.config.exposeCredentialSecrets ? c.oauthClientSecret : null) }),
  }),
});

builder.objectRef<ResourceView>('SyntheticResource').implement({
  description: 'A synthetic check (detail record with resourceType SYNTHETIC).',
  interfaces: [ResourceRef],
  fields: (t) => ({
    checkType: t.string({ description: 'e.g. HTTP.', resolve: field('checkType') }),
    host: t.string({ resolve: field('host') }),
    url: t.string({ resolve: field('url') }),
    locationUuids: t.stringList({ nullable: false, resolve: listField('locationUuids') }),
    credential: t.field({ type: SyntheticCredentialRef, resolve: field('credential') }),
  }),
});

export const ResourceConnectionRef = connectionType('Resource', ResourceRef, 'resource');
