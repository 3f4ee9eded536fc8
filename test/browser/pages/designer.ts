/**
 * The test-case designer as a page object (docs/console.md "The designer"):
 * the tree, the palette, the node form, the debug panel and the
 * JSON view, found by role and label as a user finds them. Used by test/browser/designer.test.ts.
 */
import type { Locator, Page } from 'playwright-core';
import { eventually } from '../../helpers/app';

/** The designer at `/test-cases/{id}` or `/test-cases/new`. */
export class DesignerPage {
  constructor(readonly page: Page) {}

  /** The flow tree (role tree, named "Flow"). */
  get tree(): Locator {
    return this.page.getByRole('tree', { name: 'Flow' });
  }

  /** The tree item of the node named (or with id) `name`. */
  item(name: string): Locator {
    return this.tree.getByRole('treeitem', { name, exact: true });
  }

  /** The row line of a tree item (what a drag starts from and drops on). */
  row(name: string): Locator {
    return this.item(name).locator('.dz-row').first();
  }

  /** The names of the tree items, in tree order, each with its level (`2:login`). */
  async levels(): Promise<string[]> {
    return this.tree
      .getByRole('treeitem')
      .evaluateAll((items) => items.map((i) => `${i.getAttribute('aria-level')}:${i.getAttribute('aria-label')}`));
  }

  /** The text after a tree item's name: type, summary, debug status, problems. */
  async description(name: string): Promise<string> {
    const id = await this.item(name).getAttribute('aria-describedby');
    return (await this.page.locator(`[id="${id}"]`).innerText()).replace(/\s+/g, ' ').trim();
  }

  /** Opens the palette with the first "Add node here" (an empty list) or "Add node", and picks `type`. */
  async addFromPalette(type: string, via: 'here' | 'add' = 'add'): Promise<void> {
    await this.page
      .getByRole('button', { name: via === 'here' ? 'Add node here' : 'Add node', exact: true })
      .first()
      .click();
    await this.pickInPalette(type);
  }

  /** Types `type` into the open palette's search and chooses it with Enter. */
  async pickInPalette(type: string): Promise<void> {
    const palette = this.page.getByRole('dialog', { name: 'Add a node' });
    await palette.getByRole('combobox').fill(type);
    await palette.getByRole('combobox').press('Enter');
    await palette.waitFor({ state: 'detached' });
  }

  /** Runs an entry of a node's "⋯" menu. */
  async menu(name: string, entry: string | RegExp): Promise<void> {
    await this.item(name)
      .getByRole('button', { name: `Actions for ${name}` })
      .first()
      .click();
    await this.page.getByRole('menuitem', { name: entry }).click();
  }

  /** The node form's field named `label` (the form of the selected node). */
  field(label: string): Locator {
    return this.page.getByRole('region', { name: 'Node' }).getByLabel(label, { exact: true });
  }

  /** Fills a node form field (a text input, or a CodeMirror editor by its label). */
  async fill(label: string, value: string): Promise<void> {
    const f = this.field(label);
    await f.fill(value);
  }

  /** Chooses `option` in a node form select. */
  async choose(label: string, option: string): Promise<void> {
    await this.field(label).selectOption(option);
  }

  /** Selects the node `name` in the tree (a click on its row). */
  async select(name: string): Promise<void> {
    await this.row(name).click();
    await eventually(async () => (await this.item(name).getAttribute('aria-selected')) === 'true', 5000);
  }

  /** The Save button, then waits until the page says it is saved (or `expectProblem`). */
  async save(): Promise<void> {
    await this.page.getByRole('button', { name: /^(Save|Create test case)$/ }).click();
  }

  /** Waits until the page says there is nothing unsaved. */
  async saved(): Promise<void> {
    await this.page.getByText(/^Saved at /).waitFor();
  }

  /** Runs the test case in the environment chosen, and waits for the debug run to end. */
  async run(environment: string): Promise<void> {
    await this.page.getByLabel('Run in environment', { exact: true }).selectOption(environment);
    await this.page.getByRole('button', { name: 'Run', exact: true }).click();
    await this.page.getByText(/Debug run run_\w+: (completed|failed)/).waitFor({ timeout: 60_000 });
  }

  /** Switches the view: the tree ("Designer") or the JSON. */
  async view(which: 'Designer' | 'JSON'): Promise<void> {
    await this.page.getByRole('tab', { name: which, exact: true }).click();
  }

  /** The flow as the JSON view shows it, parsed (needs clipboard permissions). */
  async json(): Promise<unknown> {
    await this.view('JSON');
    // CodeMirror draws only the lines in view: copy the whole text as a user would.
    const editor = this.page.getByRole('textbox', { name: 'Flow', exact: true });
    await editor.click();
    await this.page.keyboard.press('Control+A');
    await this.page.keyboard.press('Control+C');
    const text = await this.page.evaluate(() => navigator.clipboard.readText());
    await this.view('Designer');
    return JSON.parse(text);
  }
}
