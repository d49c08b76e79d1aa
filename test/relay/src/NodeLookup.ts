/** Global Object Identification: node(id:) and nodes(ids:) with type-conditioned selections. */
import { graphql } from 'relay-runtime';

export const NodeLookupQuery = graphql`
  query NodeLookupQuery($id: ID!) {
    node(id: $id) {
      id
      __typename
      ... on Tenant {
        tenantId
      }
      ... on ResourceType {
        number
        name
      }
      ...ResourceCard_resource @alias(as: "resource")
    }
  }
`;

export const NodeLookupManyQuery = graphql`
  query NodeLookupManyQuery($ids: [ID!]!) {
    nodes(ids: $ids) {
      id
      __typename
      ...ResourceCard_resource @alias(as: "resource")
    }
  }
`;
