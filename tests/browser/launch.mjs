// What every browser test starts with: Debian's Chromium (A2A_TEST_CHROMIUM), headless, through
// npm's playwright-core (A2A_TEST_PLAYWRIGHT names its directory), a check that ends the test
// naming what failed, and an accessibility audit with axe-core (A2A_TEST_AXE).

import path from 'node:path';
import { pathToFileURL } from 'node:url';

const module = path.join(process.env.A2A_TEST_PLAYWRIGHT, 'index.mjs');
const { chromium } = await import(pathToFileURL(module).href);

/** A headless Chromium, nothing it does on its own reaching the network. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.A2A_TEST_CHROMIUM || '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** A check that exits the test with `what`, labelled `test`, when `condition` fails. */
export function checker(test) {
  return (condition, what) => {
    if (!condition) {
      console.error(`${test} failure: ${what}`);
      process.exit(1);
    }
  };
}

/**
 * Audits `page` with axe-core (A2A_TEST_AXE names it; scripts/test installs it), failing
 * through `check` on any serious or critical violation; prints how many minor ones there are.
 * The page must come from a context with `bypassCSP`: a page's own policy refuses the injected
 * script.
 */
export async function audit(page, check) {
  const axe = process.env.A2A_TEST_AXE;
  check(axe, 'A2A_TEST_AXE names axe-core (scripts/test installs it)');
  await page.addScriptTag({ path: axe });
  const found = await page.evaluate(async () => {
    const results = await window.axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }));
  });
  const serious = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  check(serious.length === 0, `serious accessibility violations: ${JSON.stringify(serious)}`);
  console.log(`accessibility: ${found.length} minor findings, none serious`);
}
