import { existsSync } from 'node:fs';

import { type Browser, chromium, type Page } from 'playwright-core';

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

/**
 * What goes wrong in `page` from now on: script errors, and Content-Security-Policy violations
 * (the service's CSP refuses inline scripts and styles; a violation is a console error).
 */
export const pageProblems = (page: Page): string[] => {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/.test(message.text())) problems.push(message.text());
  });
  return problems;
};
