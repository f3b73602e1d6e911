import axe from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it stands. Injected through the DevTools
 * protocol (page.evaluate), which the page's CSP does not govern, so the page runs under its
 * real policy.
 */
export const accessibilityViolations = async (page: Page): Promise<string[]> => {
  await page.evaluate(axe.source);
  // Strings run in the page: this project's TypeScript has no DOM types.
  return page.evaluate<string[]>(`
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((result) => result.violations.map(
        (violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', '),
      ))
  `);
};
