// The control plane in a real browser: headless Chromium from the Debian
// `chromium` package driven by playwright-core. Every page at 1280×800 and
// 390×844 (no horizontal overflow, axe-core finds no violation, a screenshot
// of each is written to test-results/ui/), keyboard navigation, live updates,
// a verification's test results, apply, invalidate and profile activation
// from the page, and a page on another loopback origin that can neither read
// nor change anything.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadChange } from '../../src/changes/store.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { activateProfile, createProfileRevision, getActiveProfile } from '../../src/store/profiles.js';
import { getCertificate } from '../../src/store/evidence/certificates.js';
import { startUi, type UiServer } from '../../src/ui/server.js';
import { FIXED_ADD } from '../changes/fixture.js';
import { fill, resolveNeed, type Filled } from './fixture.js';

const CHROMIUM = process.env.NEEDLE_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
// In CI the browser is installed by .ci/run, so its absence is a failure there, not a skip.
const run = CHROMIUM !== undefined || process.env.CI === 'true';
const SHOTS = join(process.cwd(), 'test-results', 'ui');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const STEP_MS = 15_000;
/** A cold Chromium on a busy 2-core machine has needed more than 30 s to answer on its debugging pipe (once, in a clean-clone CI run). */
const BROWSER_LAUNCH_MS = 120_000;

let f: Filled;
let ui: UiServer;
let browser: Browser;
let context: BrowserContext;
let evil: Server;
let checker: BrowserContext;

beforeAll(async () => {
  if (!run) return;
  if (CHROMIUM === undefined) throw new Error('chromium is not installed (apt-get install chromium); .ci/run installs it');
  f = await fill();
  ui = await startUi({ dataDir: f.env.dataDir, repository: f.env.root, pollMs: 100 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'], timeout: BROWSER_LAUNCH_MS });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(STEP_MS);
  mkdirSync(SHOTS, { recursive: true });
  // The printed URL, once: the cookie it sets is what every later page load uses.
  const first = await context.newPage();
  await first.goto(ui.url);
  await first.close();
  // A CSP-bypassing context only for the axe checker itself: the pages it loads are the same HTML.
  checker = await browser.newContext({ bypassCSP: true, storageState: await context.storageState() });
  checker.setDefaultTimeout(STEP_MS);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await new Promise<void>((r) => (evil ? evil.close(() => r()) : r()));
  f?.env.cleanup();
});

async function open(path: string, size: { width: number; height: number } = SIZES[0]): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width: size.width, height: size.height });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  const outside: string[] = [];
  page.on('request', (r) => void (new URL(r.url()).origin !== ui.origin && outside.push(r.url())));
  await page.goto(`${ui.origin}${path}`);
  Object.assign(page, { errors, outside });
  return page;
}

async function axe(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  const p = await checker.newPage();
  try {
    await p.setViewportSize(page.viewportSize()!);
    await p.emulateMedia({ colorScheme: (await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)) ? 'dark' : 'light' });
    await p.goto(page.url());
    await p.addScriptTag({ content: AXE });
    return await p.evaluate(async () => {
      const w = window as unknown as { axe: { run: (ctx: Document, o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } };
      const r = await w.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
  } finally {
    await p.close();
  }
}

describe.runIf(run)('needle ui in headless Chromium', () => {
  it('lets the printed URL in once and then works from its cookie', async () => {
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    const refused = await page.goto(`${ui.origin}/`);
    expect(refused?.status()).toBe(401);
    await page.goto(ui.url);
    expect(page.url()).toBe(`${ui.origin}/`);
    expect(await page.locator('h1').textContent()).toBe('Overview');
    await page.goto(`${ui.origin}/needs`);
    expect(await page.locator('h1').textContent()).toBe('Needs');
    await fresh.close();
  });

  it('renders every page at 1280×800 and 390×844 without overflow, errors, outside requests or axe violations', async () => {
    const resolutions = JSON.parse(await (await context.request.get(`${ui.origin}/api/needs`)).text()) as { rows: { id: number; kind: string }[] };
    const hit = resolutions.rows.find((r) => r.kind === 'exact_hit')!;
    const pages: [string, string][] = [
      ['overview', '/'],
      ['needs', '/needs'],
      ['need', `/needs/${hit.id}`],
      ['cache', '/cache'],
      ['certificate', `/cache/${f.certificate}`],
      ['changes', '/changes'],
      ['change', `/changes/${f.verifiedChange}`],
      ['change-unverified', `/changes/${f.unverifiedChange}`],
      ['change-failing-tests', `/changes/${f.failingTestsChange}`],
      ['profiles', '/profiles'],
      ['runs', '/runs'],
    ];
    for (const size of SIZES) {
      for (const [name, path] of pages) {
        const page = await open(path, size);
        expect(await page.locator('h1').count(), name).toBe(1);
        const overflow = await page.evaluate(() => ({
          by: document.documentElement.scrollWidth - window.innerWidth,
          wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 3).map((e) => `${e.tagName}.${e.className}`),
        }));
        expect(overflow.by, `${name} at ${size.name}: ${overflow.wide.join(', ')}`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(SHOTS, `${name}-${size.name}.png`), fullPage: true });
        expect((page as unknown as { errors: string[] }).errors, name).toEqual([]);
        expect((page as unknown as { outside: string[] }).outside, name).toEqual([]);
        expect(await axe(page), `${name} at ${size.name}`).toEqual([]);
        await page.close();
      }
    }
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open(`/changes/${f.verifiedChange}`);
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SHOTS, `change-${scheme}.png`) });
      expect(await axe(page), scheme).toEqual([]);
      await page.close();
    }
  }, 300_000);

  it('is usable from the keyboard: skip link first, then the sections in order', async () => {
    const page = await open('/');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => location.hash)).toBe('#main');
    await page.keyboard.press('Shift+Tab');
    const names: string[] = [];
    await page.goto(`${ui.origin}/`);
    await page.keyboard.press('Tab');
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      names.push((await page.evaluate(() => document.activeElement?.textContent)) ?? '');
    }
    expect(names).toEqual(['Overview', 'Needs', 'Cache', 'Changes', 'Profiles', 'Worker runs']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${ui.origin}/profiles`);
    await page.close();
  });

  it('offers a refresh when a need resolves while the page is open (server-sent events)', async () => {
    const page = await open('/needs');
    await page.waitForSelector('body[data-live="connected"]');
    expect(await page.locator('#live a').count()).toBe(0);
    await resolveNeed(f.env, 'locate.implementation', 'symbol:add');
    await page.locator('#live a', { hasText: 'Refresh' }).waitFor();
    await page.locator('#live a').click();
    await page.waitForLoadState('load');
    await page.close();
  });

  it('a page on another loopback origin can neither read nor change anything', async () => {
    const target = ui.origin;
    const certificate = f.certificate;
    const change = f.verifiedChange;
    const html = `<!doctype html><title>evil</title><form id="f" method="post" action="${target}/api/changes/${change}/apply" target="sink"><input name="if_match" value="x"></form><iframe name="sink"></iframe>
<script>
(async () => {
  const out = {};
  try { const r = await fetch('${target}/api/overview', { credentials: 'include' }); out.read = 'read ' + (await r.text()).slice(0, 20); } catch (e) { out.read = 'blocked'; }
  try { await fetch('${target}/api/cache/${certificate}/invalidate', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ confirm: '${certificate}' }) }); out.post = 'sent'; } catch (e) { out.post = 'blocked'; }
  try { await fetch('${target}/api/cache/${certificate}/invalidate', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-needle-token': 'guess' }, body: '{}' }); out.preflight = 'sent'; } catch (e) { out.preflight = 'blocked'; }
  const sink = document.querySelector('iframe');
  sink.addEventListener('load', () => { out.form = 'done'; document.title = JSON.stringify(out); }, { once: true });
  document.getElementById('f').submit();
})();
</script>`;
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
    const evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    const page = await context.newPage();
    await page.goto(`${evilOrigin}/`);
    await page.waitForFunction(() => document.title.startsWith('{'));
    const out = JSON.parse(await page.title()) as Record<string, string>;
    expect(out.read).toBe('blocked');
    expect(out.preflight).toBe('blocked');
    expect(getCertificate(f.env.db, f.certificate)!.invalidatedUnixMs).toBeNull();
    expect(loadChange(f.env.db, f.verifiedChange)!.state).toBe('verified');
    expect(readFileSync(join(f.env.root, 'src/add.mjs'), 'utf8')).not.toBe(FIXED_ADD);
    await page.close();
  });

  it('invalidates a certificate from the page only after confirmation', async () => {
    const page = await open(`/cache/${f.certificate}`);
    await page.getByRole('link', { name: 'Invalidate…' }).click();
    await page.getByRole('button', { name: 'Invalidate now' }).waitFor();
    expect(getCertificate(f.env.db, f.certificate)!.invalidatedUnixMs).toBeNull();
    await page.getByRole('button', { name: 'Invalidate now' }).click();
    await page.waitForURL(`${ui.origin}/cache/${f.certificate}`);
    await page.locator('.badge', { hasText: 'invalidated' }).first().waitFor();
    expect(getCertificate(f.env.db, f.certificate)!.invalidatedUnixMs).not.toBeNull();
    await page.close();
  });

  it("shows a verification's test results: which tests ran, passed or failed, and their output", async () => {
    const page = await open(`/changes/${f.failingTestsChange}`);
    const tests = page.getByRole('table', { name: 'Certified test plans run on the patched checkout' });
    const row = (name: string) => tests.getByRole('row').filter({ hasText: name });
    expect(await row('subtracts').locator('.badge').textContent()).toBe('failed');
    expect(await row('subtracts').textContent()).toContain('node --test --test-name-pattern subtracts test/sub.test.mjs');
    expect(await row('subtracts').textContent()).toContain('exited with code 1');
    expect(await row('adds').locator('.badge').textContent()).toBe('passed');
    // A failure's output is open at once; a pass's is one click away.
    const failed = page.getByLabel('Output of subtracts');
    expect(await failed.isVisible()).toBe(true);
    expect(await failed.textContent()).toMatch(/8 !== 2/);
    const passed = page.getByLabel('Output of adds');
    expect(await passed.isVisible()).toBe(false);
    await page.locator('summary', { hasText: 'Output of adds' }).click();
    expect(await passed.isVisible()).toBe(true);
    expect(await passed.textContent()).toMatch(/pass 1/);
    expect(await page.locator('#refusal').textContent()).toMatch(/only a change whose latest revision passed verification/);
    await page.screenshot({ path: join(SHOTS, 'change-failing-tests-open-desktop.png'), fullPage: true });
    await page.close();

    const ok = await open(`/changes/${f.verifiedChange}`);
    const okRows = ok.getByRole('table', { name: 'Certified test plans run on the patched checkout' }).getByRole('row');
    expect(await okRows.count()).toBe(2);
    expect(await okRows.nth(1).locator('.badge').textContent()).toBe('passed');
    await ok.close();
  });

  it('activates a profile revision from the Profiles page after confirmation', async () => {
    const first = createProfileRevision(f.env.db, 'reviewer', { ...BUILTIN_LOCAL_PROFILE, require_sandbox: true });
    activateProfile(f.env.db, 'reviewer', first);
    const second = createProfileRevision(f.env.db, 'reviewer', { ...BUILTIN_LOCAL_PROFILE, test_execution: 'trusted' });
    const page = await open('/profiles');
    const activeBadge = (digest: string) => page.locator('summary', { hasText: digest }).locator('.badge', { hasText: 'active' });
    expect(await activeBadge(first).count()).toBe(1);
    expect(await activeBadge(second).count()).toBe(0);
    await page.getByRole('link', { name: `Activate… revision ${second.slice(0, 19)}… of reviewer` }).click();
    const confirm = page.getByRole('group', { name: 'Activate this revision of reviewer?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain(`needle profile activate reviewer --revision ${second}`);
    expect(getActiveProfile(f.env.db, 'reviewer')!.digest).toBe(first);
    await page.screenshot({ path: join(SHOTS, 'profile-activate-desktop.png'), fullPage: true });
    await confirm.getByRole('button', { name: 'Activate now' }).click();
    await page.waitForURL(`${ui.origin}/profiles`);
    await activeBadge(second).waitFor();
    expect(await activeBadge(first).count()).toBe(0);
    expect(getActiveProfile(f.env.db, 'reviewer')!.digest).toBe(second);
    expect(await page.getByRole('link', { name: `Activate… revision ${first.slice(0, 19)}… of reviewer` }).count()).toBe(1);
    await page.close();
  });

  it('explains why an unverified change cannot be applied and offers no button', async () => {
    const page = await open(`/changes/${f.unverifiedChange}`);
    expect(await page.locator('#refusal').textContent()).toMatch(/only a change whose latest revision passed verification/);
    expect(await page.getByRole('button', { name: 'Apply now' }).count()).toBe(0);
    await page.close();
  });

  it('applies the verified change from the page: digest shown, confirmed, the worktree holds the patch', async () => {
    const page = await open(`/changes/${f.verifiedChange}`);
    await page.getByRole('link', { name: 'Apply…' }).click();
    const digest = await page.locator('#digest').textContent();
    expect(digest).toMatch(/^b3:[0-9a-f]{64}$/);
    expect(readFileSync(join(f.env.root, 'src/add.mjs'), 'utf8')).not.toBe(FIXED_ADD);
    await page.getByRole('button', { name: 'Apply now' }).click();
    await page.waitForURL(`${ui.origin}/changes/${f.verifiedChange}`);
    await page.locator('.badge', { hasText: 'applied' }).first().waitFor();
    expect(readFileSync(join(f.env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD);
    expect(loadChange(f.env.db, f.verifiedChange)!.state).toBe('applied');
    await page.screenshot({ path: join(SHOTS, 'change-applied-desktop.png'), fullPage: true });
    await page.close();
  });
});
