/**
 * The list arguments' defaults, once: the schema declares them (src/schema/types/tenant.ts's
 * defaultValue) and the data source applies them to callers that leave them out (a
 * ResourceType's resources, federation), from here.
 */
export const LIST_DEFAULTS = {
  resources: { orderBy: { field: 'name', direction: 'ASC' }, includeStatus: false },
  resourceList: { state: 'active' },
  antivirusDefinitions: { orderBy: { field: 'scanDate', direction: 'DESC' } },
} as const;
