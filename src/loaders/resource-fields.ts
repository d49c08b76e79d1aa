/**
 * Resolving a resource field wherever the resource was reached: from the record at hand when
 * its shape carries the field, else from the detail record (one call per resource, shared by
 * all fields), else from the search form (search by id) for fields only the search carries.
 */
import {
  ANY_DETAIL_FIELDS, DETAIL_FIELDS, SEARCH_FIELDS, type ResourceFieldName, type ResourceFields, type ResourceKind, type ResourceView,
} from '../domain/resource.js';
import type { Loaders } from './index.js';

const keyOf = (view: ResourceView) => ({ tenantId: view.tenantId, id: view.id });

export async function resourceField<K extends ResourceFieldName>(view: ResourceView, field: K, loaders: Loaders): Promise<ResourceFields[K] | null> {
  if (view.carries.has(field)) return view.fields[field] ?? null;
  let kind = view.kind;
  if (kind === null ? ANY_DETAIL_FIELDS.has(field) : DETAIL_FIELDS[kind].has(field)) {
    const detail = await loaders.resourceDetail.load(keyOf(view));
    if (detail === null) return null;
    if (detail.carries.has(field)) return detail.fields[field] ?? null;
    kind = detail.kind;
  }
  if (SEARCH_FIELDS.has(field)) {
    const hit = await loaders.resourceSearchById.load(keyOf(view));
    return hit?.fields[field] ?? null;
  }
  return null;
}

/**
 * The concrete GraphQL type. Decided without a call when the record says SYNTHETIC or came from
 * a detail read; otherwise the detail shape decides. If the detail cannot be read, the resource
 * is shown as the least specific type (DeviceResource) and its detail fields carry the error.
 */
export async function resourceKind(view: ResourceView, loaders: Loaders): Promise<ResourceKind> {
  if (view.kind) return view.kind;
  try {
    const detail = await loaders.resourceDetail.load(keyOf(view));
    return detail?.kind ?? 'device';
  } catch {
    return 'device';
  }
}
