import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/index.js';
import type { RunReport } from '../../src/report/model.js';
import { REPO, v1DryRunReport } from './fixture.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

let browser: Browser;
let report: RunReport;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is needed to test the HTML report and is not at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH).`);
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  report = await v1DryRunReport();
});
afterAll(async () => {
  await browser?.close();
});

describe('--format html', () => {
  it('renders the summary and side-by-side diffs in Chromium, with nothing loaded from outside', async () => {
    const out = path.join(REPO, 'test-output/report');
    mkdirSync(out, { recursive: true });
    const file = path.join(out, 'report.html');
    writeFileSync(file, renderHtml(report));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    page.on('request', request => {
      if (!request.url().startsWith('file:')) outside.push(request.url());
    });
    await page.goto(`file://${file}`);
    expect(await page.title()).toBe('mrtr-migrate report');
    const count = (key: string) => page.locator(`#summary .card[data-count="${key}"] .n`).textContent();
    expect(await count('sites')).toBe(String(report.sites.length));
    expect(await count('refused')).toBe('1');
    await expect(page.locator('#summary .card').first().isVisible()).resolves.toBe(true);
    expect(await page.locator('article.site').count()).toBe(report.sites.length);
    expect(await page.locator('article.site[data-status="refused"] .badge').textContent()).toBe('refused: loop');

    const diff = page.locator('details.file').filter({ hasText: 'src/index.ts' }).locator('table.diff');
    await expect(diff.isVisible()).resolves.toBe(true);
    expect(await diff.locator('td.del').count()).toBeGreaterThan(0);
    expect(await diff.locator('td.add').count()).toBeGreaterThan(0);
    // Side by side: the removed import on the left, its replacement on the right of the same row.
    const firstChange = diff.locator('tr', { has: page.locator('td.del') }).first();
    expect(await firstChange.locator('td.code').nth(0).textContent()).toContain('@modelcontextprotocol/sdk');
    expect(await firstChange.locator('td.code').nth(1).textContent()).toContain('@modelcontextprotocol/server');
    const [left, right] = await Promise.all([firstChange.locator('td.code').nth(0).boundingBox(), firstChange.locator('td.code').nth(1).boundingBox()]);
    expect(left!.x + left!.width).toBeLessThanOrEqual(right!.x + 1);
    expect(Math.abs(left!.y - right!.y)).toBeLessThan(2);

    await page.screenshot({ path: path.join(out, 'report.png'), fullPage: false });
    expect(existsSync(path.join(out, 'report.png'))).toBe(true);
    expect(outside).toEqual([]);
    await page.close();
  });
});
