import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';

import { accessibilityViolations } from './accessibility.js';
import { chromiumPath, launchChromium, pageProblems } from './chromium.js';
import { createSession } from './credentials.js';
import type { TestServer } from './test-server.js';

/**
 * What every browser suite repeats: skip without Chromium, one browser per describe block, a
 * context signed in with a host session, the order entry page opened with its problems
 * collected, and axe-core's verdict on a page.
 */

const executablePath = chromiumPath();

/**
 * A describe block of browser tests, skipped where there is no Chromium: its name says so
 * ("needs Chromium"), which the skipped-tests reporter prints.
 */
export const describeInChromium = (name: string, body: () => void): void => {
  describe.skipIf(!executablePath)(name, body);
};

export interface SignIn {
  /** The host session's fields (createSession's); user `clerk-1` with every permission unless given. */
  session?: Parameters<typeof createSession>[1];
  /** The browser context's options; a 1400 x 1000 viewport unless given. */
  context?: BrowserContextOptions;
}

export interface OpenPage {
  /** Under the server's origin; the order entry page unless given. */
  path?: string;
  /** Runs on the new page before it loads: routes and request listeners that must see the load. */
  beforeLoad?: (page: Page) => void | Promise<void>;
  /** Whether to wait until the page has loaded its lists (its main element no longer busy); true unless given. */
  untilLoaded?: boolean;
}

/**
 * One Chromium for the describe block's tests against `suite`'s server: launched before them,
 * closed after them. Call it inside a describeInChromium block, after the server's set-up.
 */
export const useChromiumPage = (suite: { readonly server: TestServer }) => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium(executablePath!);
  });
  afterAll(() => browser?.close());
  const launched = (): Browser => {
    if (!browser) throw new Error('Chromium is launched in beforeAll');
    return browser;
  };

  /** A browser context holding a fresh host session cookie for the server, as the host's login leaves it. */
  const signedIn = async ({ session, context }: SignIn = {}): Promise<{ context: BrowserContext; token: string }> => {
    const { token } = await createSession(suite.server.database.prisma, { userId: 'clerk-1', ...session });
    const signedInContext = await launched().newContext({ viewport: { width: 1400, height: 1000 }, ...context });
    await signedInContext.addCookies([
      { name: 'erp_session', value: token, url: suite.server.origin, httpOnly: true, sameSite: 'Lax' },
    ]);
    return { context: signedInContext, token };
  };

  /** A new page of `context` at the order entry page, its script errors and CSP violations collected from the start. */
  const openPage = async (
    context: BrowserContext,
    { path = '/order-entry/', beforeLoad, untilLoaded = true }: OpenPage = {},
  ): Promise<{ page: Page; problems: string[] }> => {
    const page = await context.newPage();
    const problems = pageProblems(page);
    await beforeLoad?.(page);
    await page.goto(`${suite.server.origin}${path}`);
    if (untilLoaded) {
      await expect
        .poll(() => page.locator('main').getAttribute('aria-busy'), { timeout: 30_000, interval: 100 })
        .toBeNull();
    }
    return { page, problems };
  };

  return {
    get browser(): Browser {
      return launched();
    },
    signedIn,
    openPage,
    /** signedIn, then openPage in that context. */
    open: async (signIn: SignIn = {}, options: OpenPage = {}) => {
      const { context, token } = await signedIn(signIn);
      return { context, token, ...(await openPage(context, options)) };
    },
  };
};

/** axe-core's WCAG 2.1 A and AA rules find nothing on the page as it stands; `what` names the state in a failure. */
export const expectAccessible = async (page: Page, what?: string): Promise<void> => {
  expect(await accessibilityViolations(page), what).toEqual([]);
};
