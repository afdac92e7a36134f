// Signing in to the console with the server's own authorization server, in Debian's Chromium:
// the sign-in prompt's button, the consent page, and back on the console with a token of the
// person's own; a second sign-in in a new tab reuses the console's registration; an answer the
// console did not ask for is refused; the sign-in prompt passes an axe-core audit.
//
// Usage: node console-oauth.mjs BASE_URL SCREENSHOT_DIR

import path from 'node:path';

import { audit, checker, launch } from './launch.mjs';

const [base, screenshots] = process.argv.slice(2);
const check = checker('console-oauth');
const browser = await launch();
const errors = [];

/** From the sign-in prompt through the consent page and back, signed in. */
async function signIn(page, shots) {
  await page.goto(base);
  await page.getByRole('button', { name: 'Sign in with this server' }).click();
  await page.waitForURL(/\/oauth\/authorize/);
  check((await page.title()).startsWith('Allow'), `the consent page is shown: ${await page.title()}`);
  check((await page.locator('h1').innerText()).includes('Agent console'), 'the consent page names the console');
  if (shots) await page.screenshot({ path: path.join(screenshots, 'consent.png'), fullPage: true });
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(base, { timeout: 20000 });
  await page.locator('#skill-convert').waitFor({ timeout: 20000 });
}

try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => { if (response.status() >= 400) errors.push(`${response.status()} from ${response.url()}`); });

  await page.goto(base);
  await page.locator('#sign-in').waitFor();
  check((await page.locator('details.skill').count()) === 0, 'no skill is shown before signing in');
  await signIn(page, true);
  check(!page.url().includes('code='), `the code left the address bar: ${page.url()}`);
  const skill = page.locator('#skill-convert');
  await skill.locator('summary').click();
  await skill.locator('form').getByLabel('amount').fill('10');
  await skill.locator('form').getByRole('button', { name: 'Run convert' }).click();
  await page.locator('#run-status', { hasText: 'State: completed' }).waitFor({ timeout: 20000 });
  await page.screenshot({ path: path.join(screenshots, 'signed-in.png'), fullPage: true });

  // A new tab has no token, but the browser keeps the console's registration.
  const again = await context.newPage();
  await signIn(again, false);

  // An answer this tab never asked for is not redeemed.
  const forged = await context.newPage();
  await forged.goto(`${base}console?code=stolen&state=forged&iss=${encodeURIComponent(base)}`);
  await forged.locator('#notice', { hasText: 'not started here' }).waitFor();
  check(!forged.url().includes('code='), 'the forged code left the address bar');

  // The person signed in is no administrator: the page asked, and shows no administration.
  check(await page.locator('#admin').isHidden(), 'no administration is shown to a user');
  const refused = (text) => /status of 40[13]|^401 from|^403 from .*\/oauth\/clients(\?\S*)?$/.test(text);
  const unexpected = errors.filter((text) => !refused(text));
  check(unexpected.length === 0, `the browser reported errors: ${unexpected.join('; ')}`);
  // The sign-in prompt, with its button, audited.
  const auditPage = await (await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } })).newPage();
  await auditPage.goto(base);
  await auditPage.getByRole('button', { name: 'Sign in with this server' }).waitFor();
  await audit(auditPage, check);
  console.log('console ok');
} finally {
  await browser.close();
}
