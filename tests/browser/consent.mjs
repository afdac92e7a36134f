// The consent page in a real browser: Debian's Chromium, headless, driven by Playwright
// (npm's playwright-core; A2A_TEST_PLAYWRIGHT names its directory, A2A_TEST_CHROMIUM the
// browser). Opens the authorization URL, checks what the page shows, approves, and prints the
// URL the browser was sent back to. Screenshots go to SCREENSHOT_DIR.
//
// Usage: node consent.mjs AUTHORIZE_URL REDIRECT_PREFIX SCREENSHOT_DIR

import path from 'node:path';

import { checker, launch } from './launch.mjs';

const [authorizeUrl, redirectPrefix, screenshots] = process.argv.slice(2);
const check = checker('browser');
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const blocked = [];
  page.on('console', (message) => {
    if (message.type() === 'error') blocked.push(message.text());
  });
  await page.goto(authorizeUrl);
  check((await page.title()).startsWith('Allow'), `the page title is ${await page.title()}`);
  const heading = await page.locator('h1').innerText();
  check(heading.includes('Browser test client'), `the heading names the client: ${heading}`);
  const body = await page.locator('main').innerText();
  check(body.includes('127.0.0.1'), 'the page names the redirect host');
  check(body.includes('alice'), 'the page names who is signed in');
  const scopes = await page.locator('input[name=scope]').count();
  check(scopes === 2, `two scopes offered, not ${scopes}`);
  check(await page.locator('input[name=scope]').first().isChecked(), 'scopes start ticked');
  // The page fits a phone's width: nothing scrolls sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  await page.screenshot({ path: path.join(screenshots, 'consent.png'), fullPage: true });
  // Nothing the page loads is refused by its content security policy.
  check(blocked.length === 0, `the browser reported errors: ${blocked.join('; ')}`);
  // Untick the second scope: the token gets only what stays ticked.
  await page.locator('input[name=scope]').nth(1).uncheck();
  await page.getByRole('button', { name: 'Allow' }).click();
  try {
    await page.waitForURL((url) => url.href.startsWith(redirectPrefix), { timeout: 20000 });
  } catch (error) {
    const text = await page.locator('body').innerText().catch(() => '');
    check(false, `not sent back to the client: at ${page.url()}: ${text.slice(0, 500)}; ${blocked.join('; ')}`);
  }
  await page.screenshot({ path: path.join(screenshots, 'returned.png') });
  console.log(page.url());
} finally {
  await browser.close();
}
