import { existsSync } from 'node:fs';

import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium (`apt-get install chromium`, which .ci/run does when it is missing), or the
 * browser CHROMIUM_PATH names. Undefined when there is none: the browser tests then skip,
 * saying so.
 */
export const chromiumPath = (): string | undefined => {
  const candidate = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  return existsSync(candidate) ? candidate : undefined;
};

/**
 * A headless Chromium with nothing running in the background (no sync, updates, QUIC or
 * first-run pages): the only traffic is the test's, to loopback. Playwright gives each launch a
 * fresh temporary profile (--user-data-dir) and deletes it on close.
 */
export const launchChromium = (executablePath: string): Promise<Browser> =>
  chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
