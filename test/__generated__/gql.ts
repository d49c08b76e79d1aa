/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "# A first look at tenant client_1 of the embedded simulator.\n# Run it (Ctrl+Enter). The header x-upstream-stats: 1 (Headers, below) makes\n# the answer say what it cost upstream, at its end: extensions.upstream.\nquery FirstLook {\n  tenant(id: \"client_1\") {\n    resources(first: 5, filter: { state: ACTIVE }) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      nodes {\n        __typename\n        id\n        hostName\n        ipAddress\n        resourceType\n        applications { name version }\n        ... on GeneralResource { osName location { name city } }\n        ... on SyntheticResource { checkType url }\n      }\n    }\n    resourceTypes { name levels }\n  }\n}\n": typeof types.FirstLookDocument,
    "query NestedPage($tenant: ID!, $first: Int!, $from: DateTime!, $to: DateTime!) {\n  tenant(id: $tenant) {\n    resources(first: $first) {\n      nodes {\n        id\n        resourceId\n        hostName\n        applications {\n          name\n          version\n        }\n        availability(from: $from, to: $to) {\n          availabilityPercent\n          downtimeSeconds\n        }\n      }\n    }\n  }\n}": typeof types.NestedPageDocument,
    "query ResourceDetail($tenant: ID!, $id: ID!) {\n  tenant(id: $tenant) {\n    resource(id: $id) {\n      __typename\n      id\n      resourceId\n      name\n      status\n      location {\n        name\n      }\n      applications {\n        name\n      }\n      ... on GeneralResource {\n        osName\n        cloud {\n          provider\n        }\n      }\n      ... on SyntheticResource {\n        checkType\n        credential {\n          hasClientSecret\n          oauthClientSecret\n        }\n      }\n    }\n  }\n}": typeof types.ResourceDetailDocument,
    "query ResourcePage($tenant: ID!, $first: Int, $after: String, $last: Int, $before: String, $offset: Int) {\n  tenant(id: $tenant) {\n    resources(\n      first: $first\n      after: $after\n      last: $last\n      before: $before\n      offset: $offset\n    ) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n      edges {\n        cursor\n        node {\n          id\n          resourceId\n        }\n      }\n    }\n  }\n}": typeof types.ResourcePageDocument,
    "mutation UpdateResource($input: UpdateResourceInput!) {\n  updateResource(input: $input) {\n    resource {\n      __typename\n      id\n      resourceId\n      aliasName\n      ... on GeneralResource {\n        extResourceId\n      }\n    }\n    userErrors {\n      field\n      message\n      code\n    }\n  }\n}": typeof types.UpdateResourceDocument,
};
const documents: Documents = {
    "# A first look at tenant client_1 of the embedded simulator.\n# Run it (Ctrl+Enter). The header x-upstream-stats: 1 (Headers, below) makes\n# the answer say what it cost upstream, at its end: extensions.upstream.\nquery FirstLook {\n  tenant(id: \"client_1\") {\n    resources(first: 5, filter: { state: ACTIVE }) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      nodes {\n        __typename\n        id\n        hostName\n        ipAddress\n        resourceType\n        applications { name version }\n        ... on GeneralResource { osName location { name city } }\n        ... on SyntheticResource { checkType url }\n      }\n    }\n    resourceTypes { name levels }\n  }\n}\n": types.FirstLookDocument,
    "query NestedPage($tenant: ID!, $first: Int!, $from: DateTime!, $to: DateTime!) {\n  tenant(id: $tenant) {\n    resources(first: $first) {\n      nodes {\n        id\n        resourceId\n        hostName\n        applications {\n          name\n          version\n        }\n        availability(from: $from, to: $to) {\n          availabilityPercent\n          downtimeSeconds\n        }\n      }\n    }\n  }\n}": types.NestedPageDocument,
    "query ResourceDetail($tenant: ID!, $id: ID!) {\n  tenant(id: $tenant) {\n    resource(id: $id) {\n      __typename\n      id\n      resourceId\n      name\n      status\n      location {\n        name\n      }\n      applications {\n        name\n      }\n      ... on GeneralResource {\n        osName\n        cloud {\n          provider\n        }\n      }\n      ... on SyntheticResource {\n        checkType\n        credential {\n          hasClientSecret\n          oauthClientSecret\n        }\n      }\n    }\n  }\n}": types.ResourceDetailDocument,
    "query ResourcePage($tenant: ID!, $first: Int, $after: String, $last: Int, $before: String, $offset: Int) {\n  tenant(id: $tenant) {\n    resources(\n      first: $first\n      after: $after\n      last: $last\n      before: $before\n      offset: $offset\n    ) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n      edges {\n        cursor\n        node {\n          id\n          resourceId\n        }\n      }\n    }\n  }\n}": types.ResourcePageDocument,
    "mutation UpdateResource($input: UpdateResourceInput!) {\n  updateResource(input: $input) {\n    resource {\n      __typename\n      id\n      resourceId\n      aliasName\n      ... on GeneralResource {\n        extResourceId\n      }\n    }\n    userErrors {\n      field\n      message\n      code\n    }\n  }\n}": types.UpdateResourceDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "# A first look at tenant client_1 of the embedded simulator.\n# Run it (Ctrl+Enter). The header x-upstream-stats: 1 (Headers, below) makes\n# the answer say what it cost upstream, at its end: extensions.upstream.\nquery FirstLook {\n  tenant(id: \"client_1\") {\n    resources(first: 5, filter: { state: ACTIVE }) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      nodes {\n        __typename\n        id\n        hostName\n        ipAddress\n        resourceType\n        applications { name version }\n        ... on GeneralResource { osName location { name city } }\n        ... on SyntheticResource { checkType url }\n      }\n    }\n    resourceTypes { name levels }\n  }\n}\n"): (typeof documents)["# A first look at tenant client_1 of the embedded simulator.\n# Run it (Ctrl+Enter). The header x-upstream-stats: 1 (Headers, below) makes\n# the answer say what it cost upstream, at its end: extensions.upstream.\nquery FirstLook {\n  tenant(id: \"client_1\") {\n    resources(first: 5, filter: { state: ACTIVE }) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      nodes {\n        __typename\n        id\n        hostName\n        ipAddress\n        resourceType\n        applications { name version }\n        ... on GeneralResource { osName location { name city } }\n        ... on SyntheticResource { checkType url }\n      }\n    }\n    resourceTypes { name levels }\n  }\n}\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query NestedPage($tenant: ID!, $first: Int!, $from: DateTime!, $to: DateTime!) {\n  tenant(id: $tenant) {\n    resources(first: $first) {\n      nodes {\n        id\n        resourceId\n        hostName\n        applications {\n          name\n          version\n        }\n        availability(from: $from, to: $to) {\n          availabilityPercent\n          downtimeSeconds\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query NestedPage($tenant: ID!, $first: Int!, $from: DateTime!, $to: DateTime!) {\n  tenant(id: $tenant) {\n    resources(first: $first) {\n      nodes {\n        id\n        resourceId\n        hostName\n        applications {\n          name\n          version\n        }\n        availability(from: $from, to: $to) {\n          availabilityPercent\n          downtimeSeconds\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ResourceDetail($tenant: ID!, $id: ID!) {\n  tenant(id: $tenant) {\n    resource(id: $id) {\n      __typename\n      id\n      resourceId\n      name\n      status\n      location {\n        name\n      }\n      applications {\n        name\n      }\n      ... on GeneralResource {\n        osName\n        cloud {\n          provider\n        }\n      }\n      ... on SyntheticResource {\n        checkType\n        credential {\n          hasClientSecret\n          oauthClientSecret\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query ResourceDetail($tenant: ID!, $id: ID!) {\n  tenant(id: $tenant) {\n    resource(id: $id) {\n      __typename\n      id\n      resourceId\n      name\n      status\n      location {\n        name\n      }\n      applications {\n        name\n      }\n      ... on GeneralResource {\n        osName\n        cloud {\n          provider\n        }\n      }\n      ... on SyntheticResource {\n        checkType\n        credential {\n          hasClientSecret\n          oauthClientSecret\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ResourcePage($tenant: ID!, $first: Int, $after: String, $last: Int, $before: String, $offset: Int) {\n  tenant(id: $tenant) {\n    resources(\n      first: $first\n      after: $after\n      last: $last\n      before: $before\n      offset: $offset\n    ) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n      edges {\n        cursor\n        node {\n          id\n          resourceId\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query ResourcePage($tenant: ID!, $first: Int, $after: String, $last: Int, $before: String, $offset: Int) {\n  tenant(id: $tenant) {\n    resources(\n      first: $first\n      after: $after\n      last: $last\n      before: $before\n      offset: $offset\n    ) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n      edges {\n        cursor\n        node {\n          id\n          resourceId\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UpdateResource($input: UpdateResourceInput!) {\n  updateResource(input: $input) {\n    resource {\n      __typename\n      id\n      resourceId\n      aliasName\n      ... on GeneralResource {\n        extResourceId\n      }\n    }\n    userErrors {\n      field\n      message\n      code\n    }\n  }\n}"): (typeof documents)["mutation UpdateResource($input: UpdateResourceInput!) {\n  updateResource(input: $input) {\n    resource {\n      __typename\n      id\n      resourceId\n      aliasName\n      ... on GeneralResource {\n        extResourceId\n      }\n    }\n    userErrors {\n      field\n      message\n      code\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;