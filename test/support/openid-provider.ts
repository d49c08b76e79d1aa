/**
 * A real OpenID provider for tests: node-oidc-provider (the certified implementation behind many
 * identity services) on a loopback port, with the client-credentials grant issuing JWT access
 * tokens for the gateway's audience. Each client is a "person" of the tests: its tokens carry
 * `sub` = its client id, the scopes it asks for, and its tenant grants in the `tenants` claim.
 * The provider can be stopped and started again on the same port, and its signing key rotated
 * (a new key published and used while the gateway runs).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const AUDIENCE = 'inventory-gateway';

export interface TestPerson {
  clientId: string;
  /** Tenant ids, or ['*']. */
  tenants: string[];
  /** Scopes the client may ask for. */
  scopes: string[];
  /** Access token lifetime in seconds (default 3600). */
  ttlS?: number;
}

export interface OpenIdProvider {
  issuer: string;
  /** A fresh access token of that person (a client-credentials grant), with these scopes (default: all it may ask for). */
  token(clientId: string, scopes?: string[]): Promise<string>;
  /** Requests the provider answered for its key set (`/jwks`), since start. */
  readonly jwksFetches: number;
  /** Publishes a new signing key (first in the set, so it signs from now on); returns its kid. */
  rotateKeys(): Promise<string>;
  /** Stops answering (connections refused) / answers again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `key-${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}

export async function startOpenIdProvider(people: TestPerson[], options: { port?: number } = {}): Promise<OpenIdProvider> {
  const byClient = new Map(people.map((p) => [p.clientId, p]));
  let keys: JWK[] = [await signingKey()];
  let jwksFetches = 0;
  let issuer = '';
  let provider: Provider;
  const build = () => {
    provider = new Provider(issuer, {
      clients: people.map((p) => ({
        client_id: p.clientId, client_secret: `${p.clientId}-secret`, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: p.scopes.join(' '),
      })),
      jwks: { keys },
      scopes: [...new Set(people.flatMap((p) => p.scopes))],
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => `urn:${AUDIENCE}`,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, _indicator: string, client: { clientId: string }) => ({
            scope: byClient.get(client.clientId)?.scopes.join(' ') ?? '',
            audience: AUDIENCE,
            accessTokenFormat: 'jwt',
            accessTokenTTL: byClient.get(client.clientId)?.ttlS ?? 3600,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      ttl: { ClientCredentials: (_ctx: unknown, _token: unknown, client: { clientId: string }) => byClient.get(client.clientId)?.ttlS ?? 3600 },
      extraTokenClaims: (_ctx: unknown, token: unknown) => ({ tenants: byClient.get((token as { clientId?: string }).clientId ?? '')?.tenants ?? [] }),
    });
    provider.proxy = false;
  };
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) jwksFetches++;
    void provider.callback()(req, res);
  });
  const listen = (port: number) => new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const port = await listen(options.port ?? 0);
  issuer = `http://127.0.0.1:${port}`;
  build();
  return {
    issuer,
    get jwksFetches() { return jwksFetches; },
    async token(clientId, scopes) {
      const person = byClient.get(clientId);
      if (!person) throw new Error(`no test person ${clientId}`);
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: (scopes ?? person.scopes).join(' ') }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`the provider gave no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async rotateKeys() {
      const key = await signingKey();
      keys = [key, ...keys];
      build();
      return key.kid!;
    },
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    start: async () => void (await listen(port)),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
