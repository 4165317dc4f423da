/**
 * The playground in a real browser: Debian's Chromium driven by playwright-core (headless, no
 * sandbox, background networking off). Opened from disk (the standalone build) and served by the
 * example server at /playground; a valid and an invalid query are typed, and what the page shows
 * is checked. Screenshots go to test-artifacts/ (not committed). Skipped when Chromium is missing,
 * except in CI (.ci/run installs it).
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

/** Replaces the query text and waits for the page to render it. */
async function type(page: Page, query: string): Promise<void> {
  const box = page.getByTestId('query');
  await box.fill('');
  await box.pressSequentially(query.slice(0, 3));
  await box.fill(query);
  await box.dispatchEvent('input');
  await page.waitForFunction((q) => (document.getElementById('backdrop')?.textContent ?? '').startsWith(q), query);
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
    await expect(page.locator('mark.squiggle').first().textContent()).resolves.toBe('matchesPattern');
    await page.getByTestId('target').selectOption('postgres');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'valid');
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
    const marks = await page.locator('#backdrop mark.squiggle').evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('data-code'), n.textContent]));
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
    await expect(page.locator('#backdrop mark.squiggle').count()).resolves.toBe(0);
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
      await page.waitForFunction((q) => (document.getElementById('backdrop')?.textContent ?? '').startsWith(q), example);
      await expect(page.getByTestId('status').textContent(), example).resolves.toBe('valid');
      expect(JSON.parse((await page.getByTestId('result').textContent()) ?? '{}'), example).toHaveProperty('value');
    }
    await page.getByTestId('entity-set').selectOption('localities');
    await expect(page.getByTestId('query').inputValue()).resolves.toContain('assets/any(');
    expect(errors).toEqual([]);
  });
});
