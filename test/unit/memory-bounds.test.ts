/**
 * The in-process structures that grow with what callers send, each bounded (issue 42; the
 * gateway process as a whole: test/e2e/memory-bounds.test.ts): the document cache by its
 * estimated bytes, credential proofs by count, whatever the documents, scopes and tenants.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DocumentCache } from '../../src/server/document-cache.js';
import { CredentialProofs } from '../../src/upstream/credential-proof.js';

describe('the document cache', () => {
  const documentText = (i: number) => `{ a${i}: tenant(id: "client_1") { resources(first: 2) { totalCount nodes { id hostName } } } }`;

  it('holds parsed documents and parse errors within its bound, the least recently used going first', () => {
    const cache = new DocumentCache(1024 * 1024);
    const { documentCache, errorCache } = cache.yogaCache();
    for (let i = 0; i < 1_000; i++) {
      documentCache.set(documentText(i), parse(documentText(i)));
      errorCache.set(`{ broken${i}`, new Error('Syntax Error'));
    }
    const { documents, bytes } = cache.stats();
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(documents).toBeGreaterThan(50);
    expect(documentCache.get(documentText(999))).toBeDefined();
    expect(documentCache.get(documentText(0))).toBeUndefined();
    // One key space, two views: a document is not an error, nor the reverse.
    expect(errorCache.get(documentText(999))).toBeUndefined();
    expect(documentCache.get('{ broken999')).toBeUndefined();
    expect(errorCache.get('{ broken999')).toBeInstanceOf(Error);
  });

  it('adds compiled code to its document\'s weight, keeps none for a document it does not hold or that would weigh too much', () => {
    const cache = new DocumentCache(1024 * 1024);
    const { documentCache } = cache.yogaCache();
    const held = parse(documentText(1));
    documentCache.set(documentText(1), held);
    const before = cache.stats().bytes;
    expect(cache.addCompiled(held, 50_000)).toBe(true);
    expect(cache.stats().bytes).toBe(before + 50_000);
    // More than an eighth of the bound with its code: not kept, the document stays as it was.
    expect(cache.addCompiled(held, cache.maxEntryBytes)).toBe(false);
    expect(cache.stats().bytes).toBe(before + 50_000);
    expect(cache.holds(held)).toBe(true);
    // The same text parsed elsewhere (a batch's estimate) is another document.
    expect(cache.addCompiled(parse(documentText(1)), 1_000)).toBe(false);
    // Compiled code of many documents: the bound holds, the least recently used go.
    for (let i = 2; i < 200; i++) {
      const document = parse(documentText(i));
      documentCache.set(documentText(i), document);
      cache.addCompiled(document, 90_000);
    }
    expect(cache.stats().bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.holds(held)).toBe(false);
  });
});

describe('credential proofs (passthrough)', () => {
  it('keep at most their bound of proofs, however many credentials and tenants come (100,000 and 10,000 per credential; here 1,000 and 100)', () => {
    const proofs = new CredentialProofs(10_000, () => 0, { proofs: 1_000, tenantsPerScope: 100 });
    for (let i = 0; i < 900; i++) proofs.accepted(`scope-${i % 90}`, `tenant-${i}`);
    expect(proofs.size).toBe(990);
    // One credential that reads 300 tenants keeps the latest 100 at most, the least recently used scopes making room.
    for (let i = 0; i < 300; i++) proofs.accepted('one-credential', `tenant-${i}`);
    expect(proofs.size).toBeLessThanOrEqual(1_000);
    expect(proofs.known('one-credential', 'tenant-299')).toBe(true);
    expect(proofs.known('one-credential', 'tenant-0')).toBe(false);
    expect(proofs.known('scope-0', 'tenant-0')).toBe(false);
    expect(proofs.known('scope-89', 'tenant-899')).toBe(true);
  });
});
