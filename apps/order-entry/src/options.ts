import type { DropdownType, SalesOrderClient } from '@sales-order/client';

import { latestOnly } from './latest-only.js';
import { report } from './notice.js';

/**
 * Fills a select from GET /sales-orders/dropdown-options/{type}: the service's `<option>` list
 * is dropped in as it comes (the service HTML-escapes every name and value), after a
 * placeholder. `selectedId` keeps the current choice even when `q` would not list it.
 */
export const fillSelect = async (
  client: SalesOrderClient,
  select: HTMLSelectElement,
  type: DropdownType,
  { selectedId, q, placeholder }: { selectedId?: number | undefined; q?: string | undefined; placeholder: string },
): Promise<boolean> => {
  const answer = await client.getDropdownOptions(type, selectedId, q ? { q } : {});
  select.innerHTML = answer.html;
  select.prepend(new Option(placeholder, '', false, selectedId === undefined));
  if (selectedId === undefined) select.value = '';
  return answer.truncated;
};

export const selectedId = (select: HTMLSelectElement): number | undefined =>
  select.value === '' ? undefined : Number(select.value);

/**
 * A search box beside a long select: typing narrows the options with the route's `q` (after a
 * short pause; a slow earlier answer never replaces a later one).
 */
export const searchableSelect = (
  client: SalesOrderClient,
  select: HTMLSelectElement,
  search: HTMLInputElement,
  type: DropdownType,
  placeholder: string,
) => {
  const refill = latestOnly<{ html: string }>(
    250,
    ({ html }) => {
      const keep = selectedId(select);
      select.innerHTML = html;
      select.prepend(new Option(placeholder, '', false, keep === undefined));
      if (keep === undefined) select.value = '';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    },
    report,
  );
  search.addEventListener('input', () => {
    refill.schedule(() => {
      const q = search.value.trim();
      return client.getDropdownOptions(type, selectedId(select), q ? { q } : {});
    });
  });
};
