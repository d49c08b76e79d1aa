/** A resource card: a fragment on the Resource interface that can refetch itself through node(id:). */
import { graphql } from 'relay-runtime';

export const ResourceCardFragment = graphql`
  fragment ResourceCard_resource on Resource @refetchable(queryName: "ResourceCardRefetchQuery") {
    id
    __typename
    resourceId
    hostName
    ipAddress
    resourceType
    state
    applications {
      name
      version
    }
    ... on GeneralResource {
      osName
      location {
        name
        city
      }
    }
    ... on SyntheticResource {
      checkType
      url
    }
  }
`;
