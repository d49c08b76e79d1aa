/**
 * GraphiQL as a browser gets it: `GET /` redirects to it, the page and large answers are
 * compressed for clients that accept it, and in headless Chromium (Debian's `chromium`, driven
 * by playwright-core) the page loads with no request leaving the gateway and running the
 * example shows data and what it cost upstream. The screenshot is kept at SCREENSHOT.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateEncoding } from '../../src/server/edge/content-encoding.js';
import { GRAPHIQL_HEADERS } from '../../src/server/edge/graphiql.js';
import { hasChromium, launchChromium, textOf, type Browser } from '../support/chromium.js';
import { startHarness, type Harness } from '../support/harness.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';

const SCREENSHOT = path.resolve('test/.scratch-artifacts/graphiql.png');
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const raw = rawRequest;

function decode(response: RawResponse): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'gzip') return zlib.gunzipSync(response.body).toString('utf8');
  if (encoding === 'deflate') return zlib.inflateSync(response.body).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(response.body).toString('utf8');
  if (encoding === undefined) return response.body.toString('utf8');
  throw new Error(`unexpected content-encoding ${encoding}`);
}

const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;

/** A page of 100 resources with their applications: about 30 kB of JSON. */
const LARGE_QUERY = /* GraphQL */ `
  query Large {
    tenant(id: "client_1") {
      resources(first: 100) {
        totalCount
        nodes { __typename id resourceId hostName ipAddress resourceType state applications { name version } ... on GeneralResource { osName location { name city } } }
      }
    }
  }
`;

let h: Harness;
let origin: string;

beforeAll(async () => {
  h = await startHarness();
  origin = new URL(h.url).origin;
});
afterAll(() => h?.close());

describe('GET / and compression over HTTP', () => {
  it('redirects GET / (and HEAD) to GraphiQL, keeping the query string', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await raw(`${origin}/?x=1`, { method, headers: { accept: HTML } });
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe('/graphql?x=1');
    }
    const followed = await fetch(`${origin}/`, { headers: { accept: HTML } });
    expect(followed.url).toBe(`${origin}/graphql`);
    expect(followed.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await followed.text()).includes('renderYogaGraphiQL'), 'GraphiQL is rendered').toBe(true);
  });

  it('serves GraphiQL compressed (br, gzip, deflate), with the example query and the x-upstream-stats header; identity without Accept-Encoding', async () => {
    const plain = await raw(h.url, { headers: { accept: HTML } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const html = plain.body.toString('utf8');
    // (Not toContain: a failure would print the 9 MB page.)
    expect(html.includes('query FirstLook'), 'the example query is in the page').toBe(true);
    // The options are embedded as JSON in the page: the header editor's text is a JSON string in it.
    const headers = JSON.stringify(JSON.stringify(GRAPHIQL_HEADERS, null, 2));
    expect(html.includes(headers), `the page sets the headers ${headers}`).toBe(true);

    const sizes: string[] = [`identity ${kB(plain.body.length)}`];
    // Chromium's header; and one where q-values make deflate the choice.
    for (const [accept, expected] of [['gzip, deflate, br, zstd', 'br'], ['gzip, deflate', 'gzip'], ['gzip;q=0.5, deflate', 'deflate']] as const) {
      const response = await raw(h.url, { headers: { accept: HTML, 'accept-encoding': accept } });
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(expected);
      expect(response.headers.vary).toMatch(/accept-encoding/i);
      expect(response.headers['content-length']).toBe(String(response.body.length));
      expect(decode(response) === html, `the ${expected} body decodes to the page`).toBe(true);
      expect(response.body.length).toBeLessThan(plain.body.length / 3);
      sizes.push(`${expected} ${kB(response.body.length)}`);
    }
    console.log(`GraphiQL page: ${sizes.join(', ')}`);
  });

  it('compresses a large answer, which decodes to the identity answer; small answers stay as they are', async () => {
    const body = JSON.stringify({ query: LARGE_QUERY });
    const post = (headers: Record<string, string>) =>
      raw(h.url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } });
    const plain = await post({});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const expected = JSON.parse(plain.body.toString('utf8'));
    expect(expected.errors).toBeUndefined();
    expect(expected.data.tenant.resources.nodes).toHaveLength(100);

    const br = await post({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decode(br))).toEqual(expected);
    const gzip = await post({ 'accept-encoding': 'gzip, deflate' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(decode(gzip))).toEqual(expected);
    expect(gzip.body.length).toBeLessThan(plain.body.length / 3);
    const deflate = await post({ 'accept-encoding': 'deflate' });
    expect(deflate.headers['content-encoding']).toBe('deflate');
    expect(JSON.parse(decode(deflate))).toEqual(expected);
    const refused = await post({ 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    console.log(`100 resources as JSON: identity ${kB(plain.body.length)}, br ${kB(br.body.length)}, gzip ${kB(gzip.body.length)}, deflate ${kB(deflate.body.length)}`);

    const small = JSON.stringify({ query: '{ __typename }' });
    const tiny = await raw(h.url, {
      method: 'POST',
      body: small,
      headers: { 'content-type': 'application/json', 'content-length': String(small.length), 'accept-encoding': 'gzip' },
    });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(tiny.body.toString('utf8'))).toEqual({ data: { __typename: 'Query' } });
  });

  it('negotiates Accept-Encoding with q-values and *', () => {
    expect(negotiateEncoding(null)).toBeNull();
    expect(negotiateEncoding('')).toBeNull();
    expect(negotiateEncoding('identity')).toBeNull();
    expect(negotiateEncoding('br')).toBe('br');
    expect(negotiateEncoding('br, gzip')).toBe('br');
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding('br;q=0.5, gzip')).toBe('gzip');
    expect(negotiateEncoding('deflate, gzip')).toBe('gzip');
    expect(negotiateEncoding('GZIP;q=0.2, deflate;q=0.8')).toBe('deflate');
    expect(negotiateEncoding('gzip;q=0, deflate;q=0')).toBeNull();
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('*, br;q=0')).toBe('gzip');
    expect(negotiateEncoding('*, br;q=0, gzip;q=0')).toBe('deflate');
  });
});

if (!hasChromium) console.log('GraphiQL browser test skipped: Debian chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!hasChromium)('GraphiQL in headless Chromium', () => {
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  it('opens from / with the example and the header, loads nothing from outside, and running it shows data and the upstream cost', async () => {
    browser = await launchChromium('graphiql-chromium-');
    const { page } = browser;
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));

    const landing = await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 30_000 });
    expect(landing?.url()).toBe(`${origin}/graphql`);
    expect(await landing?.headerValue('content-encoding')).toBe('br'); // Chromium asks for Brotli first
    const run = page.locator('.graphiql-execute-button');
    await run.waitFor({ timeout: 30_000 });
    await expect.poll(() => textOf(page.locator('.graphiql-query-editor'))).toContain('query FirstLook');
    await expect.poll(() => textOf(page.locator('.graphiql-editor-tool'))).toContain('"x-upstream-stats": "1"');

    // The run, not the cost panel's explain request for the same query (x-explain: 1), which may come at any moment.
    const answered = page.waitForResponse((r) => r.url().startsWith(h.url) && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('FirstLook') && r.request().headers()['x-explain'] === undefined);
    await run.click();
    const response = await answered;
    expect(response.request().headers()['x-upstream-stats']).toBe('1');
    const result = await response.json();
    expect(result.errors).toBeUndefined();
    expect(result.data.tenant.resources.nodes).toHaveLength(5);
    expect(result.extensions.upstream.totalCalls).toBeGreaterThan(0);

    // The result pane: data at the top, extensions.upstream at the end (scrolled to).
    const pane = page.locator('.graphiql-response');
    const firstHost = result.data.tenant.resources.nodes[0].hostName as string;
    await expect.poll(() => textOf(pane), { timeout: 10_000 }).toContain(firstHost);
    await pane.locator('.monaco-editor').click();
    await page.keyboard.press('Control+End');
    await expect.poll(() => textOf(pane), { timeout: 10_000 }).toContain('"upstream"');
    const text = await textOf(pane);
    expect(text).toContain(`"totalCalls": ${result.extensions.upstream.totalCalls}`);
    expect(text).toContain(`"estimatedCalls": ${result.extensions.upstream.estimatedCalls}`);
    expect(text).toContain('"calls"');

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    console.log(`GraphiQL screenshot: ${SCREENSHOT}`);

    // Every request stayed on the gateway (blob: URLs are the page's own editor workers).
    expect(requested.length).toBeGreaterThan(2);
    const outside = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    expect(outside).toEqual([]);
  }, 60_000);
});
