/**
 * Headless Chromium for the GraphiQL tests: Debian's `chromium` (installed by `.ci/run`), driven
 * by playwright-core, each launch with a throwaway profile.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

export async function launchChromium(profilePrefix: string): Promise<Browser> {
  const userDataDir = await mkdtemp(path.join(tmpdir(), profilePrefix));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1600, height: 1000 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** An editor pane's text: Monaco renders spaces as no-break spaces. */
export const textOf = async (locator: Locator) => (await locator.innerText()).replace(/\u00a0/g, ' ');
