/**
 * The GraphQL-over-HTTP audits of graphql-http (the reference implementation of the spec) against
 * the gateway on a real port, in development: every MUST and every SHOULD holds (a malformed
 * request answers 400 whatever the Accept, issue 30, and GraphQL errors in the document still 200
 * to application/json).
 */
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('graphql-http audits (development)', () => {
  it('passes every audit', async () => {
    const results = await Promise.all(serverAudits({ url: () => h.url, fetchFn: fetch }).map(async (audit) => ({ audit, result: await audit.fn() })));
    const errors = results.filter((r) => r.result.status === 'error').map((r) => `${r.audit.id} ${r.audit.name}: ${(r.result as { reason?: string }).reason}`);
    const warnings = results.filter((r) => r.result.status === 'warn').map((r) => `${r.audit.id} ${r.audit.name}`);
    console.log(`graphql-http audits: ${results.length}, ok ${results.length - errors.length - warnings.length}, warnings:\n  ${warnings.join('\n  ')}`);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
