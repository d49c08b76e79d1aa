/** The benchmarked operations, and the upstream calls an ideal client would make for each. */

export const WINDOW_FROM = 1793404800; // 2026-10-31T00:00:00Z
export const WINDOW_TO = WINDOW_FROM + 86_400;

export interface Scenario {
  name: string;
  description: string;
  query: string;
  /** The same upstream work done by hand: a first call, then calls that depend on its answer. */
  ideal: { first: (tenant: string) => string; then: (firstAnswer: any, tenant: string) => string[] };
}

const searchPath = (tenant: string) => `/api/v2/tenants/${tenant}/resources/search?pageNo=1&pageSize=100&sortName=id&isDescendingOrder=true`;

export function scenarios(ids: string[]): Scenario[] {
  return [
    {
      name: 'a',
      description: '100-resource page, hostName only',
      query: '{ tenant(id: "client_1") { resources(first: 100, orderBy: { field: ID, direction: DESC }) { nodes { id hostName } } } }',
      ideal: { first: searchPath, then: () => [] },
    },
    {
      name: 'b',
      description: 'same page + applications + 24 h availability',
      query: `{ tenant(id: "client_1") { resources(first: 100, orderBy: { field: ID, direction: DESC }) { nodes { id hostName
        applications { name version }
        availability(from: ${WINDOW_FROM}, to: ${WINDOW_TO}) { availabilityPercent downtimeSeconds }
      } } } }`,
      ideal: {
        first: searchPath,
        then: (page, tenant) =>
          page.results.flatMap((r: { id: string }) => [
            `/api/v2/tenants/${tenant}/resources/${r.id}/applications`,
            `/api/v2/tenants/${tenant}/resources/${r.id}/availability?startTime=${WINDOW_FROM}&endTime=${WINDOW_TO}`,
          ]),
      },
    },
    {
      name: 'c',
      description: 'detail + applications for 20 ids by alias',
      query: `{ tenant(id: "client_1") { ${ids
        .slice(0, 20)
        .map((id, i) => `r${i}: resource(id: "${id}") { id status location { name } applications { name } }`)
        .join(' ')} } }`,
      ideal: {
        first: () => '',
        then: (_none, tenant) => ids.slice(0, 20).flatMap((id) => [`/api/v2/tenants/${tenant}/resources/${id}`, `/api/v2/tenants/${tenant}/resources/${id}/applications`]),
      },
    },
  ];
}
