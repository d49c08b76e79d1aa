/** What the schema passes to the data source (list arguments) and gets back besides domain types (src/datasource/data-source.ts). */
import type { ResourceType } from '../domain/records.js';
import type { ConnectionArgs } from '../domain/paging.js';
import type { SummaryPlan, SummaryState } from '../domain/summary.js';
import type { CheckedResourceFilter, DecommissionedResourceFilter, ResourceFilter } from '../domain/input.js';

export interface TenantShape { id: string }

export interface ResourceSearchArgs extends ConnectionArgs {
  filter?: ResourceFilter | null;
  orderBy?: { field: string; direction: 'ASC' | 'DESC' } | null;
  includeStatus?: boolean | null;
}

export interface MinimalListArgs {
  state?: string | null;
  locationId?: number | null;
  deviceGroupId?: number | null;
  deviceTypeId?: number | null;
  filter?: ResourceFilter | null;
}

/** A resource summary before its counts are read: the tenant, the checked filter and the plan of its reads. */
export interface ResourceSummaryShape { tenantId: string; filter: CheckedResourceFilter | null; plan: SummaryPlan }
export interface StateCount { state: SummaryState; count: number }
export interface ResourceTypeCount { resourceType: ResourceType; count: number }

export interface DecommissionedListArgs extends ConnectionArgs {
  filter?: DecommissionedResourceFilter | null;
}

export interface AntivirusListArgs extends ConnectionArgs {
  status?: string | null;
  orderBy?: { field: string; direction: 'ASC' | 'DESC' } | null;
}
