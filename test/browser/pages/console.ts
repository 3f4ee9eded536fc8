/**
 * The console's frame and the workspace pages as page objects (docs/console.md "Signing in",
 * "Members", "API keys", "Audit", "Versions"): sign in with single sign-on or a key, read who is
 * signed in, and drive the audit table and a resource's versions panel, found by role and label
 * as a user finds them. Used by test/browser/teams.test.ts.
 */
import type { Locator, Page } from 'playwright-core';
import type { TestApp } from '../../helpers/app';

/** The console of `app` in `page`: sign-in, the header, navigation. */
export class ConsolePage {
  constructor(
    readonly page: Page,
    readonly app: TestApp,
  ) {}

  /** Opens `path` (`/test-cases/…`) of the console. */
  async goto(path: string): Promise<void> {
    await this.page.goto(`${this.app.url}${path}`);
  }

  /** The sign-in page's single sign-on button ("Sign in with <provider>"). */
  get ssoButton(): Locator {
    return this.page.getByRole('button', { name: /^Sign in with / });
  }

  /**
   * Signs in through the identity provider (the test's provider signs in whoever it was told to,
   * test/helpers/oidc.ts) and waits for the user's name in the header.
   */
  async signInWithSso(): Promise<void> {
    await this.ssoButton.click();
    await this.page.getByTestId('user').waitFor();
  }

  /**
   * Signs in with an API key through the form below the single sign-on button. (The button "Sign
   * in" is matched exactly: "Sign in with …" is another one.)
   */
  async signInWithKey(key: string): Promise<void> {
    await this.page.getByLabel('API key').fill(key);
    await this.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await this.page.getByTestId('workspace').waitFor();
  }

  /** The signed-in user's name in the header. */
  async userName(): Promise<string> {
    return ((await this.page.getByTestId('user').textContent()) ?? '').trim();
  }

  /** The signed-in user's role in the current workspace (the header's badge, as written: lower case). */
  async role(): Promise<string> {
    return ((await this.page.getByTestId('role').textContent()) ?? '').trim();
  }

  /** The labels of the navigation's links, in order. */
  async sections(): Promise<string[]> {
    const links = this.page.getByRole('navigation', { name: 'Sections' }).getByRole('link');
    return (await links.allTextContents()).map((s) => s.trim());
  }

  /** Signs out with the header's button and waits for the sign-in page. */
  async signOut(): Promise<void> {
    await this.page.getByRole('button', { name: 'Sign out' }).click();
    await this.page.getByRole('heading', { name: 'Sign in to Assay' }).waitFor();
  }

  /** The buttons named exactly `name` now on the page. */
  buttons(name: string): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }
}

/** `/audit`: the events table, a row's changes. */
export class AuditPage {
  constructor(readonly page: Page) {}

  get table(): Locator {
    return this.page.getByRole('table', { name: 'Audit events' });
  }

  /** The rows of events whose action is `action` (`test-case.update`). */
  rows(action: string): Locator {
    return this.table.locator(`tr[data-action="${action}"]`);
  }

  /** Opens the changes of the first row of `action` on resource `name` and gives its changes table. */
  async openChanges(action: string, name: string): Promise<Locator> {
    await this.page
      .getByRole('button', { name: `Changes of ${action} ${name}`, exact: true })
      .first()
      .click();
    return this.page.getByRole('table', { name: `Changes of ${action} ${name}`, exact: true }).first();
  }
}

/** The "Versions" panel of a resource page. */
export class VersionsPanel {
  constructor(readonly page: Page) {}

  get region(): Locator {
    return this.page.getByRole('region', { name: 'Versions', exact: true });
  }

  get table(): Locator {
    return this.region.getByRole('table', { name: 'Versions', exact: true });
  }

  /** The version numbers listed, newest first. */
  async versions(): Promise<number[]> {
    const cells = this.table.locator('tbody tr td:nth-child(2)');
    return (await cells.allTextContents()).map((s) => Number(s.trim()));
  }

  /** The row of version `n`. */
  row(n: number): Locator {
    return this.table
      .locator('tbody tr')
      .filter({ has: this.page.getByLabel(`Compare version ${n}`, { exact: true }) });
  }

  /** Ticks version `n` for a comparison. */
  async tick(n: number): Promise<void> {
    await this.region.getByLabel(`Compare version ${n}`, { exact: true }).check();
  }

  /** The flow tree of the comparison from `from` to `to`. */
  flowChanges(from: number, to: number): Locator {
    return this.region.getByRole('region', { name: `Flow changes from version ${from} to ${to}` });
  }

  /** Restores version `n`, accepting the confirmation, and waits for the panel to say so. */
  async restore(n: number): Promise<void> {
    this.page.once('dialog', (d) => void d.accept());
    await this.region.getByRole('button', { name: `Restore version ${n}`, exact: true }).click();
    await this.region.getByText(`Version ${n} restored`).waitFor();
  }
}
