/**
 * Issue 40: the "Upstream cost" panel of the bundled GraphiQL, in headless Chromium against the
 * simulator at its documented rate limits: typing the dashboard query shows its calls per category
 * against the tenant's minute and the field that drives them (explain: no upstream call), running
 * it shows the actual cost beside the estimate, and an operation over a window is marked refused.
 * The screenshots go to docs/ with SCREENSHOTS=docs (the README shows them; `SCREENSHOTS=docs npx vitest run test/e2e/graphiql-cost-panel.test.ts` retakes them). The page does not grow: it is compared,
 * over HTTP, with the stock page of @graphql-yoga/render-graphiql for the same options.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROTLI_QUALITY } from '../../src/server/edge/content-encoding.js';
import { graphiqlOptions } from '../../src/server/edge/graphiql.js';
import { hasChromium, launchChromium, textOf, type Browser } from '../support/chromium.js';
import { startHarness, type Harness } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const DOCS = path.resolve('docs');
/** Where this run's screenshots go: docs/ (the README's) with SCREENSHOTS=docs, else a temporary folder, so a test run leaves the checkout as it was. */
const SHOTS = process.env.SCREENSHOTS === 'docs' ? DOCS : mkdtempSync(path.join(tmpdir(), 'graphiql-cost-shots-'));
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** One page of a 100-resource dashboard: hosts, their applications and a day's availability. */
const DASHBOARD = `query Dashboard {
  tenant(id: "client_1") {
    resources(first: 100) {
      pageInfo { endCursor }
      nodes { id hostName applications { name } availability(from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z") { availabilityPercent } }
    }
  }
}`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ simulator: { rateLimit: {} } });
});
afterAll(() => h?.close());

describe('the GraphiQL page with the panel', () => {
  it('is not larger than the stock bundled page for the same options (identity and Brotli)', async () => {
    const served = await rawRequest(h.url, { headers: { accept: HTML } });
    expect(served.status).toBe(200);
    const page = served.body;
    expect(page.includes('window.inventoryCostPanel'), 'the panel is in the page').toBe(true);
    // main's page: the stock renderer and options without the panel's (the favicon is the bundle's own).
    const { favicon: _favicon, ...before } = graphiqlOptions();
    const stock = Buffer.from(renderGraphiQL(before));
    const br = (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }).length;
    const [pageBr, stockBr] = [br(page), br(stock)];
    console.log(`GraphiQL page: before ${stock.length} B (br ${stockBr} B), with the panel ${page.length} B (br ${pageBr} B)`);
    expect(page.length).toBeLessThan(stock.length);
    expect(pageBr).toBeLessThan(stockBr);
  });
});

if (!hasChromium) console.log('GraphiQL cost panel test skipped: Debian chromium is not installed (apt-get install -y chromium)');

describe.skipIf(!hasChromium)('the cost panel in headless Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('typing the dashboard shows its calls per category and the driving field; running it shows the actual cost beside the estimate', async () => {
    browser = await launchChromium('graphiql-cost-');
    const { page } = browser;
    await page.goto(h.url, { waitUntil: 'load', timeout: 30_000 });
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    // The bundle's own plugins stay beside the panel.
    expect(await page.locator('.graphiql-sidebar button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label'))))
      .toEqual(expect.arrayContaining(['Show Documentation Explorer', 'Show GraphiQL Explorer', 'Show Upstream cost']));
    await page.locator('.graphiql-sidebar button[aria-label="Show Upstream cost"]').click();
    const panel = page.locator('[data-testid="cost-panel"]');
    await panel.waitFor({ timeout: 10_000 });
    // The example the page opens with is explained at once.
    await expect.poll(() => panel.getAttribute('data-testid').then(() => textOf(panel)), { timeout: 30_000 }).toContain('upstream calls');

    h.resetCounts();
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    /**
     * Replaces the query: pasted (Monaco would add closing brackets to typed ones, and indent typed
     * or inserted lines) but its last brace, which is typed. On a loaded machine the editor can miss an edit made while it is
     * still busy with the previous one: the text is entered again until the editor holds it.
     */
    const enter = async (query: string) => {
      for (let attempt = 1; ; attempt++) {
        await editor.click();
        await page.keyboard.press('Control+A');
        await page.keyboard.press('Delete');
        await page.evaluate((text) => navigator.clipboard.writeText(text), query.slice(0, -1));
        await page.keyboard.press('Control+V');
        await page.keyboard.type(query.slice(-1));
        // GraphiQL keeps the query in the address: the editor holds exactly this text.
        try {
          await expect.poll(() => new URL(page.url()).searchParams.get('query'), { timeout: 10_000 }).toBe(query);
          return;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    };
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(h.url).origin });
    await enter(DASHBOARD);
    await expect.poll(() => textOf(page.locator('.graphiql-query-editor'))).toContain('query Dashboard');
    const other = panel.locator('[data-category="other"]');
    await expect.poll(() => textOf(other), { timeout: 30_000 }).toContain('other: 200 calls');
    expect(await textOf(panel.locator('[data-category="paginated"]'))).toContain('paginated: 1 call ');
    expect(await textOf(other)).toMatch(/\d+ of 500 left/);
    const drivers = await textOf(panel.locator('[data-testid="cost-drivers"]'));
    expect(drivers).toContain('tenant.resources.nodes.applications: 100 other · 100 resources × one applications read');
    expect(await panel.locator('[data-testid="cost-verdict"]').getAttribute('data-verdict')).toBe('full');
    // Only explain so far: nothing reached the upstream.
    expect(h.simulator.stats().totalCalls).toBe(0);
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'graphiql-cost-panel.png') });

    await page.locator('.graphiql-execute-button').click();
    const actual = panel.locator('[data-testid="cost-actual"]');
    await expect.poll(() => textOf(actual).catch(() => ''), { timeout: 30_000 }).toContain('Last run: 201 calls (estimated 201)');
    expect(await textOf(actual.locator('[data-actual="other"]'))).toMatch(/other\s+200\s+200/);
    expect(await textOf(actual.locator('[data-actual="paginated"]'))).toMatch(/paginated\s+1\s+1/);
    expect(h.simulator.stats().totalCalls).toBe(201);
    // Explained again after the run: the tenant's minute now holds the run's 200 other calls.
    await expect.poll(() => textOf(other), { timeout: 30_000 }).toMatch(/other: 200 calls · (29\d|300) of 500 left/);
    await page.screenshot({ path: path.join(SHOTS, 'graphiql-cost-panel-run.png') });

    // 500 resources with their applications and availability: over a whole window, marked refused.
    await enter(DASHBOARD.replace('first: 100', 'first: 500'));
    const verdict = panel.locator('[data-testid="cost-verdict"]');
    await expect.poll(() => verdict.getAttribute('data-verdict'), { timeout: 30_000, message: 'the panel marks the query refused' }).toBe('refused');
    expect(await textOf(verdict)).toContain('✕ refused');
    expect(h.simulator.stats().totalCalls).toBe(201);
  }, 90_000);
});
