/** A tenant's resources as a Relay connection (@connection) that paginates through node(id:) (@refetchable on Tenant). */
import { graphql } from 'relay-runtime';

export const TenantResourcesFragment = graphql`
  fragment TenantResources_tenant on Tenant
  @refetchable(queryName: "TenantResourcesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 3 }, cursor: { type: "String" }) {
    id
    tenantId
    resources(first: $count, after: $cursor, filter: { state: ACTIVE }) @connection(key: "TenantResources_resources") {
      totalCount
      edges {
        cursor
        node {
          id
          ...ResourceCard_resource
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

export const TenantResourcesQuery = graphql`
  query TenantResourcesQuery($tenantId: ID!, $count: Int) {
    tenant(id: $tenantId) {
      id
      ...TenantResources_tenant @arguments(count: $count)
    }
  }
`;
