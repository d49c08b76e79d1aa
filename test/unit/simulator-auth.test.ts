/** The simulator's auth room on an injected clock: grants, scopes, expiry and revocation. */
import { describe, expect, it } from 'vitest';
import { createAuth } from '../../src/simulator/auth.js';
import { createRandom } from '../../src/simulator/random.js';
import { settingsFrom } from '../../src/simulator/settings.js';

function setup() {
  let t = 1_000_000;
  const settings = settingsFrom({
    auth: { enabled: true, tokenTtlSeconds: 60, clients: [{ clientId: 'reader-1', clientSecret: 's1', tenants: ['client_1'] }] },
  });
  const auth = createAuth({ settings, random: createRandom(7), now: () => t });
  const issue = (clientId: string, clientSecret: string) => {
    const answer = auth.issueToken(new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString());
    return { status: answer.status, token: (answer.body as { access_token?: string }).access_token };
  };
  const bearer = (token: string | undefined) => `Bearer ${token}`;
  return { auth, settings, issue, bearer, advance: (ms: number) => { t += ms; } };
}

describe('simulator auth room', () => {
  it('grants the main client every tenant and a scoped client only its own (403 elsewhere)', () => {
    const { auth, issue, bearer } = setup();
    const main = issue('sim-client', 'sim-secret');
    const scoped = issue('reader-1', 's1');
    expect([main.status, scoped.status]).toEqual([200, 200]);
    expect(auth.refusal(bearer(main.token), 'client_2')).toBeNull();
    expect(auth.refusal(bearer(scoped.token), 'client_1')).toBeNull();
    expect(auth.refusal(bearer(scoped.token), 'client_2')).toEqual({ status: 403, message: "This client may not access tenant 'client_2'" });
    expect(auth.grantOf(bearer(scoped.token))?.clientId).toBe('reader-1');
  });

  it('refuses bad credentials and other grant types without issuing a token', () => {
    const { auth, issue } = setup();
    expect(issue('reader-1', 'sim-secret')).toEqual({ status: 401, token: undefined });
    expect(auth.issueToken('grant_type=password&client_id=sim-client&client_secret=sim-secret').status).toBe(400);
    expect(auth.refusal(undefined, 'client_1')?.status).toBe(401);
  });

  it('lets a token lapse exactly at the end of its lifetime', () => {
    const { auth, issue, bearer, advance } = setup();
    const { token } = issue('sim-client', 'sim-secret');
    advance(59_999);
    expect(auth.grantOf(bearer(token))).toBeDefined();
    advance(1);
    expect(auth.grantOf(bearer(token))).toBeUndefined();
    expect(auth.refusal(bearer(token), 'client_1')?.status).toBe(401);
  });

  it('revokes one token while the others stay valid, and expires them all at once', () => {
    const { auth, issue, bearer } = setup();
    const first = issue('sim-client', 'sim-secret').token!;
    const second = issue('reader-1', 's1').token!;
    expect(first).not.toBe(second);
    expect(auth.revokeToken(first)).toBe(true);
    expect(auth.revokeToken(first)).toBe(false);
    expect(auth.revokeToken('never-issued')).toBe(false);
    expect(auth.grantOf(bearer(first))).toBeUndefined();
    expect(auth.grantOf(bearer(second))?.clientId).toBe('reader-1');
    auth.expireTokens();
    expect(auth.grantOf(bearer(second))).toBeUndefined();
  });

  it('checks nothing while auth is off, and follows a change of the live settings', () => {
    const { auth, settings } = setup();
    settings.auth.enabled = false;
    expect(auth.refusal(undefined, 'client_1')).toBeNull();
    settings.auth.enabled = true;
    expect(auth.refusal(undefined, 'client_1')?.status).toBe(401);
  });
});
