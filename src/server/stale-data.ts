/**
 * `extensions.stale`: when part of an answer came from the response cache after its TTL (the
 * upstream failing, or a background refresh under way), the answer says which data, which
 * fields, which objects (their global ids, as clients cache them) and how old.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { DETAIL_FORMS, documents, RESOURCE_FIELDS, type RecordForm, type ResourceFieldName } from '../domain/resource.js';
import { globalIdOf } from '../schema/global-id.js';
import type { RouteName, StaleRead } from '../core/operation-stats.js';
import { onFinalResult } from './result-extensions.js';

const resourceFields = (forms: readonly RecordForm[]) =>
  (Object.keys(RESOURCE_FIELDS) as ResourceFieldName[]).filter((f) => forms.some((form) => documents(form, f))).map((f) => `Resource.${f}`);

/** What each kind of read feeds, in product words and schema coordinates. */
const FED_BY: Record<RouteName, { data: string; fields: string[]; about: 'tenant' | 'resource' | 'decommissioned' }> = {
  search: { data: 'resource search', fields: ['Tenant.resources', 'Tenant.resourceSummary', ...resourceFields(['search'])], about: 'tenant' },
  minimal: { data: 'resource list', fields: ['Tenant.resourceList', 'Tenant.resourceSummary', ...resourceFields(['minimal'])], about: 'tenant' },
  detail: { data: 'resource details', fields: ['Tenant.resource', 'Query.node', ...resourceFields(DETAIL_FORMS)], about: 'resource' },
  applications: { data: 'installed applications', fields: ['Resource.applications'], about: 'resource' },
  availability: { data: 'availability', fields: ['Resource.availability'], about: 'resource' },
  resourceTypes: { data: 'resource types', fields: ['Tenant.resourceTypes', 'Tenant.resourceSummary'], about: 'tenant' },
  history: { data: 'decommissioned resources', fields: ['Tenant.decommissionedResources'], about: 'tenant' },
  historyDetail: { data: 'decommissioned resource', fields: ['Tenant.decommissionedResource', 'DecommissionedResource.hardware'], about: 'decommissioned' },
  antivirus: { data: 'antivirus status', fields: ['Tenant.antivirusDefinitions'], about: 'tenant' },
  update: { data: 'update', fields: [], about: 'resource' },
};

function idOf(read: StaleRead): string {
  const about = FED_BY[read.route].about;
  if (about === 'tenant' || read.resourceId === undefined) return globalIdOf({ kind: 'Tenant', tenantId: read.tenantId });
  return globalIdOf({ kind: about === 'resource' ? 'Resource' : 'DecommissionedResource', tenantId: read.tenantId, id: read.resourceId });
}

export interface StaleReport {
  /** The gravest reason of any part: upstream-error, then rate-limited, then revalidating. */
  reason: StaleRead['reason'];
  maxAgeSeconds: number;
  /** rate-limited: when the tenant's window resets (the latest of the parts'). */
  resetAt?: string;
  reads: { data: string; fields: string[]; ids: string[]; reason: StaleRead['reason']; maxAgeSeconds: number; resetAt?: string }[];
}

const GRAVITY: Record<StaleRead['reason'], number> = { revalidating: 0, 'rate-limited': 1, 'upstream-error': 2 };
const graver = (a: StaleRead['reason'], b: StaleRead['reason']) => (GRAVITY[b] > GRAVITY[a] ? b : a);
const later = (a: string | undefined, b: string | undefined) => (a === undefined || (b !== undefined && b > a) ? b : a);

export function staleReport(reads: readonly StaleRead[]): StaleReport {
  const byRoute = new Map<RouteName, StaleReport['reads'][number]>();
  for (const read of reads) {
    const ageSeconds = Math.floor(read.ageMs / 1000);
    let entry = byRoute.get(read.route);
    if (!entry) byRoute.set(read.route, (entry = { data: FED_BY[read.route].data, fields: FED_BY[read.route].fields, ids: [], reason: read.reason, maxAgeSeconds: 0 }));
    const id = idOf(read);
    if (!entry.ids.includes(id)) entry.ids.push(id);
    entry.maxAgeSeconds = Math.max(entry.maxAgeSeconds, ageSeconds);
    entry.reason = graver(entry.reason, read.reason);
    const resetAt = later(entry.resetAt, read.resetAt);
    if (resetAt) entry.resetAt = resetAt;
  }
  const out = [...byRoute.values()];
  const resetAt = out.reduce<string | undefined>((at, r) => later(at, r.resetAt), undefined);
  return {
    reason: out.reduce<StaleRead['reason']>((reason, r) => graver(reason, r.reason), 'revalidating'),
    maxAgeSeconds: Math.max(...out.map((r) => r.maxAgeSeconds)),
    ...(resetAt ? { resetAt } : {}),
    reads: out,
  };
}

export function staleDataPlugin(): Plugin<GatewayContext> {
  return {
    onExecute({ args }) {
      const stats = (args.contextValue as GatewayContext).stats;
      return onFinalResult((extensions) => (stats.staleReads.length > 0 ? { ...extensions, stale: staleReport(stats.staleReads) } : extensions));
    },
  };
}
