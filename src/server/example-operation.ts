/** The query GraphiQL opens with: it returns data from the embedded simulator at once. */
export const EXAMPLE_OPERATION = /* GraphQL */ `# A first look at tenant client_1 of the embedded simulator.
# Add the header {"x-upstream-stats": "1"} to see what the query cost upstream.
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
