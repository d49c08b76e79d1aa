/**
 * GraphiQL shows a live query's updates: in headless Chromium (Debian's `chromium`, driven by
 * playwright-core; skipped with one line when missing) a `@live` query runs over SSE, and an
 * update made through the gateway appears in the result pane without running it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, textOf, type Browser } from '../support/chromium.js';
import { startHarness, type Harness } from '../support/harness.js';

if (!hasChromium) console.log('GraphiQL live query test skipped: Debian chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!hasChromium)('a live query in GraphiQL (headless Chromium)', () => {
  let h: Harness;
  let browser: Browser | undefined;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows the first result, then the update, in the result pane', async () => {
    const resource = h.simulator.dataset.tenants.get('client_1')!.resources.filter((r) => r.shape === 'general')[8]!;
    const query = `query LiveCard @live {\n  tenant(id: "client_1") {\n    resource(id: "${resource.id}") {\n      resourceId\n      aliasName\n    }\n  }\n}`;
    browser = await launchChromium('graphiql-live-');
    const { page } = browser;
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
