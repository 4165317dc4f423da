/**
 * The playground in a real browser: Debian's Chromium driven by playwright-core (headless, no
 * sandbox, background networking off). Opened from disk (the standalone build) and served by the
 * example server at /playground; a valid and an invalid query are typed into its CodeMirror editor,
 * and what the page shows is checked: the panels, the squiggles, and the editor's completion,
 * hover and signature tooltips. Screenshots go to test-artifacts/ (not committed). Skipped when
 * Chromium is missing, except in CI (.ci/run installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlayground } from '../../examples/playground/build.js';
import { startHarness, type Harness } from '../examples/asset-service/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = join(root, 'test-artifacts');

if (!present && process.env.CI !== undefined) {
  throw new Error(`Chromium is required in CI (${CHROMIUM}); .ci/run installs Debian's chromium package`);
}
if (!present) console.warn(`playground tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/** The text of the query editor. */
async function editorText(page: Page): Promise<string> {
  return (await page.locator('.cm-content').textContent()) ?? '';
}

/** Waits until the page's panels show `query` (they follow the editor by 120 ms). */
async function rendered(page: Page, query: string): Promise<void> {
  await page.waitForFunction((q) => document.getElementById('status')?.dataset.query === q, query);
}

/**
 * Replaces the query text in the editor (its first characters typed key by key, the rest inserted
 * at once), waits for the page to render it and closes the completion list that typing opened.
 */
async function type(page: Page, query: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(query.slice(0, 3));
  await page.keyboard.insertText(query.slice(3));
  expect(await editorText(page)).toBe(query);
  await rendered(page, query);
  await page.keyboard.press('Escape');
}

/** The names and texts of the editor's squiggles, once there are `count` of them. */
async function squiggles(page: Page, count: number): Promise<(string | null)[][]> {
  await page.waitForFunction((n) => document.querySelectorAll('.cm-content .cm-lintRange').length === n, count);
  return page.locator('.cm-content .cm-lintRange').evaluateAll((nodes) => nodes.map((n) => [/diagnostic-(\w+)/.exec(n.className)?.[1] ?? null, n.textContent]));
}

/** Moves the mouse over the middle of the first occurrence of `text` in the editor. */
async function hover(page: Page, text: string): Promise<void> {
  const point = await page.evaluate((wanted) => {
    // The line's text nodes (squiggles split it), to find the occurrence across them.
    const walker = document.createTreeWalker(document.querySelector('.cm-content .cm-line') as Node, NodeFilter.SHOW_TEXT);
    const nodes: { node: Text; at: number }[] = [];
    let all = '';
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      nodes.push({ node: node as Text, at: all.length });
      all += node.textContent ?? '';
    }
    const start = all.indexOf(wanted);
    if (start < 0) return undefined;
    const locate = (offset: number): [Text, number] => {
      const found = [...nodes].reverse().find((n) => n.at <= offset) ?? nodes[0]!;
      return [found.node, offset - found.at];
    };
    const range = document.createRange();
    range.setStart(...locate(start));
    range.setEnd(...locate(start + wanted.length));
    const box = range.getBoundingClientRect();
    return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
  }, text);
  if (point === undefined) throw new Error(`${text} is not in the editor`);
  await page.mouse.move(point.x, point.y);
}

describe.skipIf(!present)('playground in Chromium', () => {
  let browser: Browser;
  let harness: Harness;
  let dir: string;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    [browser, harness] = await Promise.all([
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        // A cold first start (fontconfig caches empty, as on a fresh machine or HOME) can take tens of seconds.
        timeout: 170_000,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
      startHarness(),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'playground-'));
    await buildPlayground(dir);
    mkdirSync(artifacts, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('standalone (opened from disk): a valid query shows AST, canonical text, SQL, MongoDB and rows', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`file://${join(dir, 'index.html')}`);
    await page.waitForSelector('body[data-ready="true"]');
    await expect(page.locator('#model-source').textContent()).resolves.toBe('the built-in demo model');
    await page.getByTestId('entity-set').selectOption('assets');
    await type(page, "$filter=contains(name,'Pump') and status eq 'active'&$orderby=code&$top=3&$count=true");
    await expect(page.getByTestId('status').textContent()).resolves.toBe('valid');
    await expect(page.getByTestId('diagnostics').textContent()).resolves.toBe('No problems');
    await expect(page.getByTestId('canonical').textContent()).resolves.toContain("contains(name,'Pump') and status eq 'active'");
    const sql = (await page.getByTestId('sql').textContent()) ?? '';
    for (const dialect of ['postgres', 'mysql', 'sqlite', 'mssql']) expect(sql).toContain(`-- ${dialect}\nSELECT`);
    expect(sql).toContain('"%Pump%"');
    await expect(page.getByTestId('mongo').textContent()).resolves.toContain('"$regex": "Pump"');
    const result = JSON.parse((await page.getByTestId('result').textContent()) ?? '{}') as { value: { name: string }[]; count: number };
    expect(result.value.length).toBeGreaterThan(0);
    expect(result.value.length).toBeLessThanOrEqual(3);
    expect(result.value.every((row) => row.name.includes('Pump'))).toBe(true);
    expect(result.count).toBeGreaterThanOrEqual(result.value.length);
    await expect(page.getByTestId('ast').textContent()).resolves.toContain('"kind": "query"');
    // The built-in model's examples: its own navigation names (tickets), not the server's.
    const examples = await page
      .getByTestId('examples')
      .locator('option')
      .evaluateAll((nodes) => nodes.map((n) => (n as HTMLOptionElement).value));
    expect(examples.some((e) => e.includes('tickets/any('))).toBe(true);
    expect(examples.filter((e) => e.includes('maintenanceTickets'))).toEqual([]);
    await page.screenshot({ path: join(artifacts, 'playground-valid.png'), fullPage: true });
    // Checked for a backend: what SQLite cannot run is underlined; PostgreSQL runs it.
    await page.getByTestId('target').selectOption('sqlite');
    await type(page, "$filter=matchesPattern(name,'^P')");
    await expect(page.getByTestId('status').textContent()).resolves.toBe('1 problem');
    await expect(page.getByTestId('diagnostics').textContent()).resolves.toContain('unsupported_feature');
    await expect(squiggles(page, 1)).resolves.toEqual([['unsupported_feature', 'matchesPattern']]);
    await page.getByTestId('target').selectOption('postgres');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'valid');
    await expect(squiggles(page, 0)).resolves.toEqual([]);
    expect(errors).toEqual([]);
  });

  it('the editor: completion while typing, hover descriptions, signature help and squiggles', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`file://${join(dir, 'index.html')}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByTestId('entity-set').selectOption('assets');
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');

    // (a) Completion opens while typing, offers the set's properties that start with what was typed, and Enter takes one.
    await page.keyboard.type('$filter=na');
    const list = page.locator('.cm-tooltip-autocomplete');
    // The list shown may still be the one of a shorter prefix for a moment: polled until it is this one's.
    const labels = (): Promise<string[]> => list.locator('.cm-completionLabel').allTextContents();
    await expect.poll(labels).toContain('name');
    // CodeMirror takes no key for a list until it has been open for 75 ms (interactionDelay).
    await page.waitForTimeout(150);
    // The service's order is kept (other items, such as `NaN`, may come first): the arrow keys move to `name`.
    const position = (await labels()).indexOf('name');
    for (let i = 0; i < position; i++) await page.keyboard.press('ArrowDown');
    await expect(list.locator('li[aria-selected] .cm-completionLabel').textContent()).resolves.toBe('name');
    await expect(list.locator('li[aria-selected] .cm-completionDetail').textContent()).resolves.toBe('Edm.String');
    await page.screenshot({ path: join(artifacts, 'playground-completion.png') });
    await page.keyboard.press('Enter');
    await expect(editorText(page)).resolves.toBe('$filter=name');
    await list.waitFor({ state: 'detached' });
    // After a space: the operators that fit a string.
    await page.keyboard.type(' ');
    await expect.poll(labels).toEqual(expect.arrayContaining(['eq', 'ne']));
    // An option's name at the start of the next option: `$` offers them, and taking one reopens the list for its value.
    await page.keyboard.press('Escape');
    await page.keyboard.type("eq 'x'&$to");
    await expect.poll(labels).toEqual(['$top']);
    await page.waitForTimeout(150);
    await page.keyboard.press('Enter');
    await expect(editorText(page)).resolves.toBe("$filter=name eq 'x'&$top=");
    await page.keyboard.type('5');
    await page.keyboard.press('Escape');
    await rendered(page, "$filter=name eq 'x'&$top=5");
    await expect(page.getByTestId('status').textContent()).resolves.toBe('valid');

    // (b) Hovering a property of a valid query shows its name and type.
    await hover(page, 'name');
    const tooltip = page.locator('.cm-tooltip-hover');
    await tooltip.waitFor();
    await expect(tooltip.textContent()).resolves.toContain('name: Edm.String');
    await page.screenshot({ path: join(artifacts, 'playground-hover.png') });
    await page.mouse.move(0, 0);
    await tooltip.waitFor({ state: 'detached' });

    // Signature help inside a call's parentheses: the argument at the cursor marked.
    await page.locator('.cm-content').click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and contains(name,');
    const signature = page.locator('.cm-query-signature');
    await expect.poll(() => signature.textContent()).toBe('contains(Edm.String, Edm.String): Edm.Boolean');
    // The second argument's parameter is the one in bold.
    await expect.poll(() => signature.innerHTML()).toBe('contains(<span>Edm.String</span>, <strong>Edm.String</strong>): Edm.Boolean');
    await page.keyboard.press('Escape');

    // (c) An invalid query: the squiggle in the editor, its message on hover, and the page's list.
    await type(page, '$filter=nam eq 1');
    await expect(squiggles(page, 1)).resolves.toEqual([['unknown_property', 'nam']]);
    await expect(page.locator('.cm-content .cm-lintRange-error').count()).resolves.toBe(1);
    await expect(page.getByTestId('diagnostics').textContent()).resolves.toContain('unknown_property');
    await hover(page, 'nam');
    await expect(tooltip.locator('.cm-diagnostic-error').textContent()).resolves.toContain('nam');
    await page.screenshot({ path: join(artifacts, 'playground-lint.png') });
    // The quick fix of the language service, a button of the diagnostic: applied, the name is known
    // (what is left is the comparison of a string with a number).
    const fix = tooltip.locator('.cm-diagnosticAction', { hasText: "Change to 'name'" });
    await expect.poll(() => fix.count()).toBe(1);
    await fix.click();
    await expect.poll(() => page.locator('.cm-content').textContent()).toBe('$filter=name eq 1');
    await expect.poll(() => page.getByTestId('diagnostics').textContent()).not.toContain('unknown_property');
    await expect(page.getByTestId('diagnostics').textContent()).resolves.toContain('type_mismatch');
    expect(errors).toEqual([]);
  });

  it('served by the example server: its model, and an invalid query underlined in place', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${harness.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    await expect(page.locator('#model-source').textContent()).resolves.toContain('example server');
    await page.getByTestId('entity-set').selectOption('assets');
    const query = "$filter=nam eq 'Pump' and statuss eq 'active'&$top=5000";
    await type(page, query);
    await expect(page.getByTestId('status').textContent()).resolves.toBe('3 problems');
    const marks = await squiggles(page, 3);
    expect(marks).toEqual([
      ['unknown_property', 'nam'],
      ['unknown_property', 'statuss'],
      ['top_limit_exceeded', '$top=5000'],
    ]);
    const diagnostics = (await page.getByTestId('diagnostics').textContent()) ?? '';
    expect(diagnostics).toContain("The limit of '1000' for Top query has been exceeded");
    await expect(page.getByTestId('sql').textContent()).resolves.toBe('(fix the problems above first)');
    await page.screenshot({ path: join(artifacts, 'playground-invalid.png'), fullPage: true });
    // Fixing the query clears the squiggles.
    await type(page, "$filter=name eq 'Pump'&$top=5");
    await expect(squiggles(page, 0)).resolves.toEqual([]);
    expect(errors).toEqual([]); // The examples menu offers the server model's one-to-many navigation, each example valid.
    const examples = await page
      .getByTestId('examples')
      .locator('option')
      .evaluateAll((nodes) => nodes.map((n) => (n as HTMLOptionElement).value));
    expect(examples.some((e) => e.includes('maintenanceTickets/any('))).toBe(true);
    // The built-in model's examples (its navigation is named `tickets`) are not valid here: not offered.
    expect(examples.filter((e) => /(?<![A-Za-z])tickets\//.test(e))).toEqual([]);
    for (const example of examples) {
      await page.getByTestId('examples').selectOption(example);
      await rendered(page, example);
      await expect(editorText(page), example).resolves.toBe(example);
      await expect(page.getByTestId('status').textContent(), example).resolves.toBe('valid');
      expect(JSON.parse((await page.getByTestId('result').textContent()) ?? '{}'), example).toHaveProperty('value');
    }
    await page.getByTestId('entity-set').selectOption('localities');
    await page.waitForFunction(() => (document.querySelector('.cm-content')?.textContent ?? '').includes('assets/any('));
    await rendered(page, await editorText(page));
    await expect(page.getByTestId('status').textContent()).resolves.toBe('valid');
    expect(errors).toEqual([]);
  });
});
