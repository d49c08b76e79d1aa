/**
 * Trusted documents: with TRUSTED_DOCUMENTS naming a manifest ({ "<hash>": "<document>" }, as
 * GraphQL Code Generator's client preset writes it with `persistedDocuments: true`), the gateway
 * runs only the operations it lists, sent by hash (Apollo's persisted-query extension:
 * `extensions: { persistedQuery: { version: 1, sha256Hash } }`, over GET or POST). A document
 * in the request, an unknown hash or no hash is refused before parsing: no upstream call.
 * Off by default (GraphiQL and ad-hoc clients send documents). The manifest is read by
 * src/config.ts at start-up.
 */
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';

import { bareHash } from '../../config.js';

/** The manifest's document a request names by hash (Apollo's persisted-query extension), if any. */
export function trustedDocumentOf(documents: ReadonlyMap<string, string>, extensions: Record<string, unknown> | null | undefined): string | undefined {
  const hash = (extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
  return typeof hash === 'string' ? documents.get(bareHash(hash)) : undefined;
}

const refusal = (message: string, code: string, status: number) => ({ message, extensions: { code, http: { status } } });

export function trustedDocumentsPlugin(documents: ReadonlyMap<string, string>): Plugin {
  return usePersistedOperations({
    allowArbitraryOperations: false,
    getPersistedOperation: (hash) => documents.get(bareHash(hash)) ?? null,
    customErrors: {
      notFound: refusal('No trusted document has this hash.', 'PERSISTED_QUERY_NOT_FOUND', 404),
      persistedQueryOnly: refusal('This gateway runs only trusted documents: send the hash of one (extensions.persistedQuery.sha256Hash), not a document.', 'PERSISTED_QUERY_ONLY', 400),
      keyNotFound: refusal('This gateway runs only trusted documents: send the hash of one in extensions.persistedQuery.sha256Hash.', 'PERSISTED_QUERY_ID_REQUIRED', 400),
    },
  }) as Plugin;
}
