import type { SalesOrderClient, SalesOrderListItem } from '@sales-order/client';

import { el, labelled } from './dom.js';
import { report } from './notice.js';

const PAGE_SIZE = 10;

/** The orders: search (the list's `q`) and `Load more` (its keyset cursor). */
export const createOrderList = (root: HTMLElement, client: SalesOrderClient, onOpen: (id: number) => void) => {
  const search = labelled('Search orders', el('input', { type: 'search', autocomplete: 'off' }));
  const form = el('form', { role: 'search' }, search.wrapper, el('button', { type: 'submit' }, 'Search'));
  const body = el('tbody');
  const table = el(
    'table',
    { 'aria-label': 'Orders' },
    el(
      'thead',
      {},
      el('tr', {}, el('th', {}, 'Number'), el('th', {}, 'Customer'), el('th', {}, 'Status'), el('th', {}, 'Total')),
    ),
    body,
  );
  const more = el('button', { type: 'button', hidden: true }, 'Load more');
  const empty = el('p', { hidden: true });
  root.replaceChildren(el('h2', { id: 'orders-heading' }, 'Orders'), form, table, empty, more);

  let cursor: string | undefined;
  let query = '';

  const row = (order: SalesOrderListItem) =>
    el(
      'tr',
      {},
      el(
        'td',
        {},
        (() => {
          const button = el('button', { type: 'button', class: 'link' }, order.sales_order_no);
          button.addEventListener('click', () => onOpen(order.sales_order_id));
          return button;
        })(),
      ),
      el('td', {}, order.customer_name),
      el('td', {}, order.status),
      el('td', { class: 'number' }, order.grand_total.toFixed(2)),
    );

  const load = async (append: boolean) => {
    const page = await client.listSalesOrders({
      limit: PAGE_SIZE,
      sort: '-updated_at',
      ...(query ? { q: query } : {}),
      ...(append && cursor ? { cursor } : {}),
    });
    if (!append) body.replaceChildren();
    body.append(...page.items.map(row));
    cursor = page.next_cursor ?? undefined;
    more.hidden = cursor === undefined;
    empty.textContent = query ? 'No orders match.' : 'No orders yet.';
    empty.hidden = body.childElementCount > 0;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    query = search.control.value.trim();
    load(false).catch(report);
  });
  more.addEventListener('click', () => {
    load(true).catch(report);
  });

  return { refresh: () => load(false) };
};
