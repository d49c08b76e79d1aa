/**
 * The query GraphiQL opens with: it returns data from the embedded simulator at once, and with
 * the header GraphiQL opens with (src/server/edge/graphiql.ts) the answer says what it cost upstream.
 */
export const EXAMPLE_OPERATION = /* GraphQL */ `# A first look at tenant client_1 of the embedded simulator.
# Run it (Ctrl+Enter). The header x-upstream-stats: 1 (Headers, below) makes
# the answer say what it cost upstream, at its end: extensions.upstream.
query FirstLook {
  tenant(id: "client_1") {
    resources(first: 5, filter: { state: ACTIVE }) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes {
        __typename
        id
        hostName
        ipAddress
        resourceType
        applications { name version }
        ... on GeneralResource { osName location { name city } }
        ... on SyntheticResource { checkType url }
      }
    }
    resourceTypes { name levels }
  }
}
`;
