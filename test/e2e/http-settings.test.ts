/** Settings for facing the internet: GraphiQL, introspection, CORS, credential secrets. */
import { getIntrospectionQuery } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('production switches', () => {
  it('turns GraphiQL and introspection off, and federation _service with it unless FEDERATION_SECRET is sent', async () => {
    const secret = 'a-federation-secret-of-32-chars!';
    h = await startHarness({ env: { GRAPHIQL: 'false', INTROSPECTION: 'false', FEDERATION_SECRET: secret } });
    const page = await h.fetch(h.endpoint, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('<html');
    const intro = await h.query(getIntrospectionQuery());
    expect(intro.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(intro.errors?.[0]?.message).toMatch(/introspection/i);
    const refused = await h.query('{ _service { sdl } }');
    expect(refused.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const sdl = await h.query('{ _service { sdl } }', undefined, { 'x-federation-secret': secret });
    expect(sdl.data?._service.sdl).toContain('type Tenant');
  });

  it('defaults to NODE_ENV: production means no GraphiQL and no introspection', async () => {
    h = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off' } });
    expect(h.config.graphiql).toBe(false);
    expect(h.config.introspection).toBe(false);
  });
});

describe('CORS', () => {
  it('answers preflights for configured origins only', async () => {
    h = await startHarness({ env: { CORS_ORIGINS: 'https://app.example.com' } });
    const preflight = (origin: string) =>
      h!.fetch(h!.endpoint, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const denied = await preflight('https://evil.example.net');
    expect(denied.headers.get('access-control-allow-origin')).not.toBe('https://evil.example.net');
  });

  it('sends no CORS headers when none are configured', async () => {
    h = await startHarness();
    const res = await h.fetch(h.endpoint, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('credential secrets', () => {
  const QUERY = 'query($id: ID!) { tenant(id: "client_1") { resource(id: $id) { ... on SyntheticResource { credential { hasClientKey hasClientSecret oauthClientKey oauthClientSecret } } } } }';

  it('passes them through only with EXPOSE_CREDENTIAL_SECRETS', async () => {
    h = await startHarness({ env: { EXPOSE_CREDENTIAL_SECRETS: 'true' } });
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.synthetic?.credential.oauthClientSecret)!;
    const res = await h.query(QUERY, { id: sim.id });
    expect(res.data!.tenant.resource.credential).toMatchObject({ hasClientSecret: true, oauthClientSecret: sim.synthetic!.credential.oauthClientSecret });
    await h.close();
    h = await startHarness();
    const hidden = await h.query(QUERY, { id: sim.id });
    expect(hidden.data!.tenant.resource.credential).toMatchObject({ hasClientSecret: true, oauthClientSecret: null, oauthClientKey: null });
  });
});
