/**
 * GraphiQL shows a live query's updates: in headless Chromium (Debian's `chromium`, driven by
 * playwright-core; skipped with one line when missing) a `@live` query runs over SSE, and an
 * update made through the gateway appears in the result pane without running it again.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.log('GraphiQL live query test skipped: Debian chromium is not installed (apt-get install -y chromium)');

/** Monaco renders spaces as no-break spaces. */
const textOf = async (locator: Locator) => (await locator.innerText()).replace(/\u00a0/g, ' ');

describe.skipIf(!hasChromium)('a live query in GraphiQL (headless Chromium)', () => {
  let h: Harness;
  let context: BrowserContext | undefined;
  let userDataDir = '';
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    await h?.close();
  });

  it('shows the first result, then the update, in the result pane', async () => {
    const resource = h.simulator.dataset.tenants.get('client_1')!.resources.filter((r) => r.shape === 'general')[8]!;
    const query = `query LiveCard @live {\n  tenant(id: "client_1") {\n    resource(id: "${resource.id}") {\n      resourceId\n      aliasName\n    }\n  }\n}`;
    userDataDir = await mkdtemp(path.join(tmpdir(), 'graphiql-live-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1600, height: 1000 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${h.url}?query=${encodeURIComponent(query)}`, { waitUntil: 'load', timeout: 30_000 });
    const run = page.locator('.graphiql-execute-button');
    await run.waitFor({ timeout: 30_000 });
    await expect.poll(() => textOf(page.locator('.graphiql-query-editor'))).toContain('LiveCard @live');
    await run.click();
    const pane = page.locator('.graphiql-response');
    await expect.poll(() => textOf(pane), { timeout: 10_000 }).toContain(`"resourceId": "${resource.id}"`);
    expect(h.live.openOperations).toBe(1);

    const update = await h.query(`mutation { updateResource(input: { tenantId: "client_1", id: "${resource.id}", aliasName: "seen-in-graphiql" }) { userErrors { code } } }`);
    expect(update.errors).toBeUndefined();
    await expect.poll(() => textOf(pane), { timeout: 5_000 }).toContain('"aliasName": "seen-in-graphiql"');
    expect(await textOf(pane)).not.toContain('"patch"');
  }, 60_000);
});
