// The console on a host of several agents (the agent-host example), signed in with an
// administrator's token, in Debian's Chromium: the agent picker from the host's catalog, each
// agent's console under its own path with its own skills and tasks, and the administration
// views: the authorization server's registered clients (one deleted), usage from the usage
// records and a metrics summary. An accessibility audit with axe-core covers these views.
//
// Usage: node console-host.mjs BASE_URL SCREENSHOT_DIR TOKEN CLIENT_NAME
// TOKEN is a bearer token of an administrator holding the usage admin scope; CLIENT_NAME names
// a client registered beforehand, which the page deletes.

import path from 'node:path';

import { audit, checker, launch } from './launch.mjs';

const [base, screenshots, token, clientName] = process.argv.slice(2);
const check = checker('console-host');
const browser = await launch();
const errors = [];
const shot = (page, name) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

async function signIn(page) {
  await page.locator('#sign-in').waitFor();
  await page.getByLabel('Kind').selectOption({ label: 'Bearer token' });
  await page.getByLabel('Credential').fill(token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Runs convert on the agent shown, to completion. */
async function convert(page) {
  const skill = page.locator('#skill-convert');
  await skill.locator('summary').click();
  const form = skill.locator('form');
  await form.getByLabel('amount').fill('10');
  await form.getByLabel('currency').selectOption({ label: 'USD' });
  await form.getByLabel('to').selectOption({ label: 'EUR' });
  await form.getByRole('button', { name: 'Run convert' }).click();
  await page.locator('#run-status', { hasText: 'State: completed' }).waitFor({ timeout: 20000 });
}

/** Clicks Refresh until `locator` shows `text` (usage rows are written in the background). */
async function refreshedUntil(page, locator, text) {
  for (let attempt = 0; attempt < 40; attempt++) {
    if ((await locator.innerText()).includes(text)) return true;
    await page.waitForTimeout(250);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  }
  return false;
}

try {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => { if (response.status() >= 400) errors.push(`${response.status()} from ${response.url()}`); });
  page.on('dialog', (dialog) => dialog.accept());

  // The host's console: the primary agent, and a picker of every agent.
  await page.goto(`${base}console`);
  await signIn(page);
  await page.locator('#skill-convert').waitFor();
  const agents = page.getByRole('navigation', { name: 'Agents of this server' });
  check((await agents.getByRole('link').count()) === 4, 'the picker lists the four agents');
  const gone = agents.getByRole('listitem').filter({ hasText: 'gone' });
  check((await gone.innerText()).includes('(remote, unreachable)'), 'the remote says it is unreachable');
  check((await agents.locator('[aria-current=page]').innerText()) === 'Currency Agent', 'the primary agent is shown');
  await convert(page);
  await page.locator('#watch-summary', { hasText: '1 of 1 task shown' }).waitFor({ timeout: 20000 });

  // Administration: the registered client, deleted; usage and metrics name the skill called.
  const clients = page.locator('#admin-clients');
  await clients.waitFor();
  check((await clients.innerText()).includes(clientName), 'the registered client is listed');
  await clients.getByRole('button', { name: `Delete client ${clientName}` }).click();
  await page.locator('#admin-status', { hasText: `Deleted ${clientName}` }).waitFor();
  await clients.getByText('No client has registered.').waitFor();
  check(await refreshedUntil(page, page.locator('#admin-usage'), 'convert'), 'usage lists convert');
  // The credential's own calls: the administrator ran convert, so theirs lists it too.
  check(await refreshedUntil(page, page.locator('#mine'), 'convert'), 'your usage lists convert');
  check(await refreshedUntil(page, page.locator('#admin-metrics'), 'convert'), 'the metrics list convert');
  const metrics = await page.locator('#admin-metrics tbody').innerText();
  check(/convert\s+1\s+0/.test(metrics), `one convert call, completed: ${metrics}`);
  await shot(page, 'host-currency');

  // Another agent, picked: its own skills, and none of the other agent's tasks.
  await agents.getByRole('link', { name: 'Booking Agent' }).click();
  await page.waitForURL(`${base}booking/console`);
  await page.locator('#skill-book_table').waitFor();
  check((await page.locator('h1').innerText()) === 'Booking Agent', 'the heading names the agent picked');
  check((await page.locator('#skill-convert').count()) === 0, "the other agent's skills are not shown");
  await page.locator('#watch-summary', { hasText: '0 of 0 tasks shown' }).waitFor({ timeout: 20000 });
  await shot(page, 'host-booking');

  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  const unexpected = errors.filter((text) => !/status of 401|^401 from/.test(text));
  check(unexpected.length === 0, `the browser reported errors: ${unexpected.join('; ')}`);

  // Accessibility of the watch and administration views: a task open, every panel shown.
  const auditPage = await (await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } })).newPage();
  await auditPage.goto(`${base}currency/console`);
  await signIn(auditPage);
  await auditPage.locator('#task-rows button').first().click();
  await auditPage.locator('#task-state', { hasText: 'completed' }).waitFor();
  await auditPage.locator('#admin-metrics tbody').waitFor();
  await audit(auditPage, check);
  console.log('console ok');
} finally {
  await browser.close();
}
