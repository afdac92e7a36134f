// What every browser test starts with: Debian's Chromium (A2A_TEST_CHROMIUM), headless, through
// npm's playwright-core (A2A_TEST_PLAYWRIGHT names its directory), and a check that ends the
// test naming what failed.

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
