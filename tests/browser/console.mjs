// The console in a real browser: Debian's Chromium, headless, driven by Playwright (npm's
// playwright-core; A2A_TEST_PLAYWRIGHT names its directory, A2A_TEST_CHROMIUM the browser),
// against the currency agent: the card, a form filled and run, a streamed report with its
// progress, questions answered in forms of their own, a canceled task, an image shown and
// downloaded, the tasks listed and filtered, one task's history, a running one followed. Screenshots go to
// SCREENSHOT_DIR; nothing the page loads may be refused by its content security policy, and
// nothing may scroll sideways on a phone's width.
//
// Usage: node console.mjs BASE_URL SCREENSHOT_DIR [API_KEY]
// With API_KEY the agent requires one: the page must ask to sign in and show no skill until
// the key is entered.

import fs from 'node:fs/promises';
import path from 'node:path';

import { audit, checker, launch } from './launch.mjs';

const [base, screenshots, apiKey] = process.argv.slice(2);
const check = checker('console');
const browser = await launch();
const errors = [];
const shot = (page, name) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

/** Opens skill `id`'s form. */
async function open(page, id) {
  const skill = page.locator(`#skill-${id}`);
  if (await skill.evaluate((details) => !details.open)) await skill.locator('summary').click();
  return skill.locator('form');
}

/** Waits until the task's state line reads `state`. */
async function settled(page, state) {
  await page.locator('#run-status', { hasText: `State: ${state}` }).waitFor({ timeout: 20000 });
}

try {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => { if (response.status() >= 400) errors.push(`${response.status()} from ${response.url()}`); });

  // The agent's own URL, asked for by a browser, is the console.
  await page.goto(base);
  if (apiKey) {
    await page.locator('#sign-in').waitFor();
    check(await page.locator('#skills').isHidden(), 'no skill is shown before signing in');
    check((await page.locator('details.skill').count()) === 0, 'no skill form exists before signing in');
    await shot(page, 'console-sign-in');
    await page.getByLabel('Kind').selectOption({ label: 'API key (X-API-Key)' });
    await page.getByLabel('Credential').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
  await page.locator('#skill-convert').waitFor();
  check((await page.locator('h1').innerText()) === 'Currency Agent', 'the heading names the agent');
  const skills = await page.locator('details.skill').count();
  check(skills === 6, `a form per skill, not ${skills}`);
  await shot(page, 'console-card');

  // Convert: a nested object, an enum as a select, a number.
  const convert = await open(page, 'convert');
  await convert.getByLabel('amount').fill('10');
  await convert.getByLabel('currency').selectOption({ label: 'USD' });
  await convert.getByLabel('to').selectOption({ label: 'EUR' });
  await convert.getByRole('button', { name: 'Run convert' }).click();
  await settled(page, 'completed');
  const output = await page.locator('#run-output').innerText();
  check(output.includes('EUR') && output.includes('9.26'), `the converted amount is shown: ${output}`);
  const exchange = await page.locator('#raw').textContent();
  check(exchange.includes('SendStreamingMessage') && exchange.includes('statusUpdate'), 'the raw exchange is shown');
  await shot(page, 'console-convert');

  // Report: streamed, with progress, one artifact.
  const report = await open(page, 'report');
  await report.getByLabel('pace_ms').fill('300');
  await report.getByRole('button', { name: 'Run report' }).click();
  await page.locator('#run-progress', { hasText: 'Researching' }).waitFor({ timeout: 20000 });
  await settled(page, 'completed');
  const markdown = await page.locator('[data-artifact="market-report"]').innerText();
  check(markdown.includes('# Market report'), `the report artifact is shown: ${markdown.slice(0, 200)}`);
  await shot(page, 'console-report');

  // Exchange: two questions, each a form of its own schema.
  const exchangeForm = await open(page, 'exchange');
  await exchangeForm.getByLabel('amount').fill('25');
  await exchangeForm.getByLabel('currency').selectOption({ label: 'EUR' });
  await exchangeForm.getByLabel('to').selectOption({ label: 'CHF' });
  await exchangeForm.getByRole('button', { name: 'Run exchange' }).click();
  await settled(page, 'input-required');
  const question = page.locator('#run-question form');
  check((await question.innerText()).includes('Which account'), 'the first question is asked');
  await question.getByLabel('answer').fill('ACC-42');
  await shot(page, 'console-question');
  await question.getByRole('button', { name: 'Answer' }).click();
  await page.locator('#run-question form', { hasText: 'Book it' }).waitFor({ timeout: 20000 });
  await page.locator('#run-question form').getByLabel('answer').selectOption({ label: 'yes' });
  await page.locator('#run-question form').getByRole('button', { name: 'Answer' }).click();
  await settled(page, 'completed');
  check((await page.locator('#run-output').innerText()).includes('ACC-42'), 'the booking names the account');

  // A slow report, canceled while it works.
  const slow = await open(page, 'report');
  await slow.getByLabel('pace_ms').fill('3000');
  await slow.getByRole('button', { name: 'Run report' }).click();
  await settled(page, 'working');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await settled(page, 'canceled');
  await shot(page, 'console-canceled');

  // Chart: an image shown, and downloadable as the file the skill named.
  const chart = await open(page, 'chart');
  await chart.getByRole('button', { name: 'Run chart' }).click();
  await settled(page, 'completed');
  const image = page.locator('#run-output img');
  await image.waitFor();
  check(await image.evaluate((img) => img.complete && img.naturalWidth > 0), 'the chart is drawn');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /Download rates-EUR\.svg/ }).click(),
  ]);
  check(download.suggestedFilename() === 'rates-EUR.svg', `the file keeps its name: ${download.suggestedFilename()}`);
  const saved = await fs.readFile(await download.path(), 'utf8');
  check(saved.startsWith('<svg'), 'the downloaded file is the chart');
  await shot(page, 'console-chart');

  // Watch: the tasks run so far, filtered by state; one task's history; a running one followed.
  await page.locator('#task-rows tr').nth(4).waitFor({ timeout: 20000 });
  await page.getByLabel('State').selectOption({ label: 'canceled' });
  await page.getByRole('button', { name: 'List tasks' }).click();
  await page.locator('#watch-summary', { hasText: '1 of 1 task shown' }).waitFor({ timeout: 20000 });
  await page.locator('#task-rows button').first().click();
  await page.locator('#task-state', { hasText: 'canceled' }).waitFor();
  check((await page.locator('#task-history').innerText()).includes('"pace_ms": 3000'), 'the history shows the request');
  const follow = await open(page, 'report');
  await follow.getByLabel('pace_ms').fill('1000');
  await follow.getByRole('button', { name: 'Run report' }).click();
  await settled(page, 'working');
  await page.getByLabel('State').selectOption({ label: 'working' });
  await page.getByRole('button', { name: 'List tasks' }).click();
  await page.locator('#watch-summary', { hasText: '1 of 1 task shown' }).waitFor({ timeout: 20000 });
  await page.locator('#task-rows button').first().click();
  await page.getByRole('button', { name: 'Follow' }).click();
  await page.locator('#task-state', { hasText: 'Researching' }).waitFor({ timeout: 20000 });
  await page.locator('#task-state', { hasText: 'State: completed' }).waitFor({ timeout: 30000 });
  const followed = await page.locator('#task-artifacts').innerText();
  check(followed.includes('# Market report'), `the followed task's artifact arrived: ${followed.slice(0, 100)}`);
  check(await page.getByRole('button', { name: 'Follow' }).isHidden(), 'a finished task cannot be followed');
  await shot(page, 'console-watch');

  // The MCP view: what an MCP host sees, and a tool called through /mcp.
  await page.locator('#mcp-resources summary').click();
  check((await page.locator('#mcp-resource-list').innerText()).includes('currency://rates'), 'the resources are listed');
  await page.locator('#mcp-prompts summary').click();
  check((await page.locator('#mcp-prompt-list').innerText()).includes('explain_conversion'), 'the prompts are listed');
  await page.locator('#mcp-tools summary').click();
  const tool = page.locator('#tool-convert');
  await tool.getByLabel('amount').fill('10');
  await tool.getByLabel('currency').selectOption({ label: 'USD' });
  await tool.getByLabel('to').selectOption({ label: 'EUR' });
  await tool.getByRole('button', { name: 'Call convert' }).click();
  await page.locator('#mcp-output', { hasText: 'Result of convert' }).waitFor({ timeout: 20000 });
  check((await page.locator('#mcp-output').innerText()).includes('9.26'), 'the tool result is shown');
  await shot(page, 'console-mcp');

  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  // Before signing in, the agent's 401 is how the page learns to ask; nothing else may fail.
  const unexpected = errors.filter((text) => !(apiKey && /status of 401|^401 from/.test(text)));
  check(unexpected.length === 0, `the browser reported errors: ${unexpected.join('; ')}`);

  // Accessibility, with axe-core (A2A_TEST_AXE), on the page with a skill's form open and a
  // result shown. axe is injected, which the page's own policy refuses: this context alone
  // bypasses it.
  const auditPage = await (await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } })).newPage();
  await auditPage.goto(base);
  if (apiKey) {
    await auditPage.getByLabel('Kind').selectOption({ label: 'API key (X-API-Key)' });
    await auditPage.getByLabel('Credential').fill(apiKey);
    await auditPage.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
  const auditForm = await open(auditPage, 'convert');
  await auditForm.getByLabel('amount').fill('10');
  await auditForm.getByLabel('currency').selectOption({ label: 'USD' });
  await auditForm.getByLabel('to').selectOption({ label: 'EUR' });
  await auditForm.getByRole('button', { name: 'Run convert' }).click();
  await settled(auditPage, 'completed');
  await audit(auditPage, check);
  console.log('console ok');
} finally {
  await browser.close();
}
