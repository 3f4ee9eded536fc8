/**
 * Browser tests' helpers (docs/development.md "The console and browser tests"): Debian's Chromium driven by playwright-core (never a browser
 * download), launched with the flags a closed network needs, and a page signed in to a test app's
 * console. `CHROMIUM_PATH` overrides `/usr/bin/chromium`; scripts/ensure-chromium.sh installs it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { startTestApp, type TestApp, type TestAppOptions } from './app';
import { freePort } from '../../src/net/free-port';

/** Launch flags for a machine with no internet (the closed network refuses Chromium's own calls). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. Throws, saying how to install it, when missing. */
export function chromiumPath(): string {
  const p = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(p))
    throw new Error(
      `No Chromium at ${p}: run scripts/ensure-chromium.sh (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  return p;
}

/** A headless Chromium. Close it in `after`. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS, headless: true });
}

/**
 * A test app for the console: as {@link startTestApp}, but on a port chosen first, with
 * `ASSAY_PUBLIC_URL` set to it, so the addresses the console shows (webhook URLs, mock addresses,
 * library URLs) are real ones a test (and a screenshot reader) can use.
 */
export async function startConsoleApp(options: TestAppOptions = {}): Promise<TestApp> {
  const port = await freePort();
  return startTestApp({
    ...options,
    env: { ASSAY_PORT: String(port), ASSAY_PUBLIC_URL: `http://127.0.0.1:${port}`, ...options.env },
  });
}

/** A fresh browser context (its own storage) and page at `app.url`, 1280×800, dark or light. */
export async function openConsole(
  browser: Browser,
  app: TestApp,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  await page.goto(app.url);
  return { context, page };
}

/** Signs in through the form with `key` (the app's own by default) and waits for the workspace name. */
export async function signIn(page: Page, key: string, options: { remember?: boolean } = {}): Promise<void> {
  await page.getByLabel('API key').fill(key);
  if (options.remember) await page.getByLabel('Remember on this device').check();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByTestId('workspace').waitFor();
}

/** A context and page signed in to `app` with its key. */
export async function signedIn(
  browser: Browser,
  app: TestApp,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await openConsole(browser, app, options);
  await signIn(opened.page, app.key);
  return opened;
}

/**
 * Saves a screenshot named `name`.png: into docs/console/ when ASSAY_SCREENSHOTS=1 (`make
 * screenshots`, for docs/console.md), else into a temporary folder (the tests still take it).
 * Returns the file's path.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir =
    process.env.ASSAY_SCREENSHOTS === '1'
      ? path.resolve(__dirname, '../../../docs/console')
      : path.join(os.tmpdir(), 'assay-screenshots');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/** Every request the page sends to the Assay API (`/v1…`) from now on, with its body. */
export function recordApiRequests(page: Page, app: TestApp): Request[] {
  const seen: Request[] = [];
  page.on('request', (req) => {
    if (req.url().startsWith(`${app.url}/v1`)) seen.push(req);
  });
  return seen;
}
