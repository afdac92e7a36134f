// The coordination hub's page for the person overseeing its agents, in Debian's Chromium through
// Playwright: it asks for a credential when the hub wants one, then shows each agent with what
// it holds, its open todos and the questions it has not answered; it refreshes by itself when
// another agent arrives. Screenshots go to SCREENSHOT_DIR; the page may not be refused by its
// own content security policy, nor scroll sideways on a phone's width.
//
// Usage: node hub.mjs BASE_URL SCREENSHOT_DIR API_KEY ARRIVAL_FILE
// Once the first view is checked the script creates ARRIVAL_FILE; the test then registers a
// third agent, `carl`, holding `src/ui/app.ts`, which the page must come to show unasked.

import fs from 'node:fs/promises';
import path from 'node:path';

import { audit, checker, launch } from './launch.mjs';

const [base, screenshots, apiKey, arrivalFile] = process.argv.slice(2);
const check = checker('hub page');
const browser = await launch();
const errors = [];
const shot = (page, name) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

/** Enters the API key and shows the hub's default project. */
async function signIn(page) {
  await page.getByLabel('Credential').selectOption({ label: 'API key (X-API-Key)' });
  await page.getByLabel('Value').fill(apiKey);
  await page.getByRole('button', { name: 'Show' }).click();
}

try {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} from ${response.url()}`);
  });

  // Without a credential the hub's 401 is shown as what to do, and no agent.
  await page.goto(`${base}hub`);
  await page.locator('#notice', { hasText: 'enter a credential' }).waitFor({ timeout: 20000 });
  check((await page.locator('article').count()) === 0, 'no agent is shown before the credential');

  await signIn(page);
  await page.locator('#summary', { hasText: 'Project shop: 2 active agents' }).waitFor({ timeout: 20000 });
  check(await page.locator('#notice').isHidden(), 'the notice is gone once the hub answers');
  const ann = page.locator('article[data-session="ann"]');
  const bob = page.locator('article[data-session="bob"]');
  check((await ann.locator('h2').innerText()) === 'ann', 'ann has a heading of her own');
  const held = await ann.getByRole('table', { name: 'Reservations of ann' }).innerText();
  check(held.includes('src/api/**') && held.includes('exclusive'), `ann's glob is shown: ${held}`);
  const annText = await ann.innerText();
  check(annText.includes('[p1] write the tests (pending)'), `ann's todo is shown: ${annText}`);
  const bobText = await bob.innerText();
  check(bobText.includes('docs/guide.md') && bobText.includes('shared'), `bob's file is shown: ${bobText}`);
  check(
    bobText.includes('Unanswered questions') && bobText.includes('from ann') && bobText.includes('Which fields?'),
    `ann's question to bob is shown as unanswered: ${bobText}`,
  );
  await shot(page, 'hub-two-agents');

  // A third agent arrives; the page shows it without being asked.
  await fs.writeFile(arrivalFile, 'checked');
  await page.locator('#summary', { hasText: '3 active agents' }).waitFor({ timeout: 20000 });
  const carl = await page.locator('article[data-session="carl"]').innerText();
  check(carl.includes('src/ui/app.ts'), `carl's reservation is shown: ${carl}`);
  await shot(page, 'hub-three-agents');

  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  const unexpected = errors.filter((text) => !/status of 401|^401 from/.test(text));
  check(unexpected.length === 0, `the browser reported errors: ${unexpected.join('; ')}`);

  // Accessibility with axe-core, in a context that lets it be injected despite the policy; the
  // project named in the address (a bookmark) fills the form.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } });
  const auditPage = await context.newPage();
  await auditPage.goto(`${base}hub?project=shop`);
  check((await auditPage.getByLabel('Project').inputValue()) === 'shop', 'the address names the project');
  await signIn(auditPage);
  await auditPage.locator('#summary', { hasText: '3 active agents' }).waitFor({ timeout: 20000 });
  await audit(auditPage, check);
  console.log('hub page ok');
} finally {
  await browser.close();
}
