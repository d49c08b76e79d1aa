/**
 * Trusted documents (TRUSTED_DOCUMENTS=test/__generated__/persisted-documents.json, the manifest
 * codegen's client preset writes): the manifest's operations run by hash over GET and POST;
 * an unknown hash, a request without one and an ad-hoc document are refused with their code
 * and HTTP status, before any upstream call. Without the setting, documents run as before.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NestedPageDocument, ResourcePageDocument } from '../__generated__/graphql.js';
import { loadConfig } from '../../src/config.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

const MANIFEST = 'test/__generated__/persisted-documents.json';
const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
const pageHash = (ResourcePageDocument as unknown as { __meta__: { hash: string } }).__meta__.hash;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bareHash = pageHash.replace('sha256:', '');
const variables = { tenant: 'client_1', first: 3 };
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { TRUSTED_DOCUMENTS: MANIFEST } });
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

async function post(body: Record<string, unknown>) {
  const response = await h.fetch(h.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}
async function get(params: Record<string, unknown>) {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const response = await h.fetch(`${h.endpoint}?${query}`, { headers: { accept: 'application/graphql-response+json, application/json' } });
  return { status: response.status, body: (await response.json()) as any };
}

describe('TRUSTED_DOCUMENTS', () => {
  it('the manifest is keyed by the sha256 of each document (what a persisted-query link computes)', () => {
    expect(Object.keys(manifest).length).toBeGreaterThanOrEqual(5);
    for (const [hash, document] of Object.entries(manifest)) expect(hash).toBe(`sha256:${sha256(document)}`);
    expect(manifest[pageHash]).toContain('query ResourcePage');
  });

  it('runs a manifest operation by hash over POST and GET (with or without the sha256: prefix)', async () => {
    const byPost = await post({ operationName: 'ResourcePage', variables, extensions: persisted(bareHash) });
    expect(byPost.status).toBe(200);
    expect(byPost.body.errors).toBeUndefined();
    expect(byPost.body.data.tenant.resources.edges).toHaveLength(3);
    const byGet = await get({ operationName: 'ResourcePage', variables, extensions: persisted(pageHash) });
    expect(byGet.status).toBe(200);
    expect(byGet.body).toEqual(byPost.body);
    // The GET's read was answered by the response cache.
    expect(upstreamCalls(h)).toEqual({ search: 1 });
  });

  it('refuses an unknown hash with PERSISTED_QUERY_NOT_FOUND (404), no upstream call', async () => {
    for (const send of [post, get]) {
      const { status, body } = await send({ variables, extensions: persisted(sha256('query X { __typename }')) });
      expect(status).toBe(404);
      expect(body.data).toBeUndefined();
      expect(body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('refuses an ad-hoc document (even one of the manifest) with PERSISTED_QUERY_ONLY (400), and no hash with PERSISTED_QUERY_ID_REQUIRED', async () => {
    const adHoc = await post({ query: manifest[pageHash], variables });
    expect(adHoc.status).toBe(400);
    expect(adHoc.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const adHocGet = await get({ query: '{ tenant(id: "client_1") { resources(first: 1) { totalCount } } }' });
    expect(adHocGet.status).toBe(400);
    expect(adHocGet.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const none = await post({ variables });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('is off by default, and a bad manifest stops start-up naming the setting', () => {
    expect(loadConfig({}).trustedDocuments).toBeNull();
    expect(() => loadConfig({ TRUSTED_DOCUMENTS: 'no/such/manifest.json' })).toThrow(/^TRUSTED_DOCUMENTS must name a persisted-documents manifest: cannot read/);
  });

  it('judges a batch of trusted documents as a whole: together over MAX_UPSTREAM_CALLS, refused with no upstream call', async () => {
    const nested = (NestedPageDocument as unknown as { __meta__: { hash: string } }).__meta__.hash.replace('sha256:', '');
    const page = (day: number) => ({
      extensions: persisted(nested),
      variables: { tenant: 'client_1', first: 100, from: new Date(Date.now() - (day + 1) * 86_400_000).toISOString(), to: new Date(Date.now() - day * 86_400_000).toISOString() },
    });
    // Three pages of 201 calls each: each under the limit (575), not together.
    const response = await h.fetch(h.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' }, body: JSON.stringify([page(1), page(2), page(3)]) });
    const answers = (await response.json()) as { errors?: { extensions: Record<string, unknown> }[] }[];
    expect(answers.map((a) => a.errors?.[0]?.extensions)).toEqual(Array(3).fill(expect.objectContaining({ code: 'OPERATION_TOO_EXPENSIVE', estimate: 603, limit: 575 })));
    expect(h.simulator.stats().totalCalls).toBe(0);
  });
});
