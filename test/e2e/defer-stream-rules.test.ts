/**
 * The validation rules @defer and @stream come with (the defer-stream plugin's, added by
 * deferStreamPlugin in src/server/yoga.ts once taken from it): a misplaced directive is refused
 * before execution (@stream on a field that is not a list, a label used twice), on the first request and on the ones after (validation is cached per document).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('@defer and @stream validation', () => {
  it('refuses @stream on a field that is not a list, and a label used twice, every time', async () => {
    const misplaced = [
      ['{ tenant(id: "client_1") { id @stream(initialCount: 1) } }', /list/i],
      ['{ tenant(id: "client_1") { ... @defer(label: "x") { id } ... @defer(label: "x") { name } } }', /label/i],
    ] as const;
    for (let round = 0; round < 2; round++) {
      for (const [query, message] of misplaced) {
        // As a client of incremental delivery asks (multipart), so that only validation can refuse it.
        const response = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'multipart/mixed, application/json' }, body: JSON.stringify({ query }) });
        const text = await response.text();
        expect(text).not.toContain('"data"');
        expect(text).toMatch(message);
      }
    }
  });
});
