/** One page of a 100-resource dashboard: the hosts, their applications and 24 h availability (rate limits and explain measure it). */
export const DASHBOARD = `query Dashboard($tenant: ID!, $after: String, $from: DateTime!, $to: DateTime!) {
  tenant(id: $tenant) {
    resources(first: 100, after: $after) {
      pageInfo { endCursor }
      nodes { id hostName applications { name } availability(from: $from, to: $to) { availabilityPercent } }
    }
  }
}`;
