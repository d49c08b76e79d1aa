/** Resource types are Node objects: their global ids key the records Relay normalizes. */
import { graphql } from 'relay-runtime';

export const TenantResourceTypesFragment = graphql`
  fragment TenantResourceTypes_tenant on Tenant {
    resourceTypes {
      id
      number
      name
      path
      levels
    }
  }
`;

export const TenantResourceTypesQuery = graphql`
  query TenantResourceTypesQuery($tenantId: ID!) {
    tenant(id: $tenantId) {
      id
      tenantId
      ...TenantResourceTypes_tenant
    }
  }
`;
