import type { SalesOrderClient, SalesOrderListItem } from '@sales-order/client';

import { el, labelled } from './dom.js';
import { formatAmount } from './format.js';
import { reportOn, say, statusLine } from './notice.js';

const PAGE_SIZE = 10;

/** The orders: search (the list's `q`) and `Load more` (its keyset cursor). */
export const createOrderList = (
  root: HTMLElement,
  client: SalesOrderClient,
  onOpen: (id: number, number: string) => Promise<unknown>,
) => {
  const search = labelled('Search orders', el('input', { type: 'search', autocomplete: 'off' }));
  // Beside Search, Load more and the orders' buttons: what the last of them did.
  const status = statusLine('list-status');
  const report = reportOn(status);
  const form = el(
    'form',
    { role: 'search', 'aria-label': 'Orders' },
    search.wrapper,
    el('button', { type: 'submit' }, 'Search'),
  );
  const body = el('tbody');
  const table = el(
    'table',
    { 'aria-labelledby': 'orders-heading', class: 'orders-table' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col', class: 'col-number' }, 'Number'),
        el('th', { scope: 'col', class: 'col-customer' }, 'Customer'),
        el('th', { scope: 'col', class: 'col-status' }, 'Status'),
        el('th', { scope: 'col', class: 'number col-total' }, 'Total'),
      ),
    ),
    body,
  );
  const more = el('button', { type: 'button', hidden: true }, 'Load more');
  const empty = el('p', { hidden: true });
  root.replaceChildren(
    el('h2', { id: 'orders-heading' }, 'Orders'),
    form,
    el('div', { class: 'table-box' }, table),
    empty,
    el('div', { class: 'actions' }, more, status),
  );

  let cursor: string | undefined;
  let query = '';

  const open = (order: SalesOrderListItem) => {
    say(status, `Opening ${order.sales_order_no}…`);
    onOpen(order.sales_order_id, order.sales_order_no).then(
      () => say(status, `Opened ${order.sales_order_no}.`),
      report,
    );
  };

  const row = (order: SalesOrderListItem) => {
    const button = el('button', { type: 'button', class: 'link' }, order.sales_order_no);
    button.addEventListener('click', () => open(order));
    return el(
      'tr',
      {},
      el('td', {}, button),
      el('td', { class: 'customer-cell', title: order.customer_name }, order.customer_name),
      el('td', { class: 'status-cell col-status' }, order.status),
      el('td', { class: 'number' }, formatAmount(order.grand_total)),
    );
  };

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
    load(false).then(() => say(status, ''), report);
  });
  more.addEventListener('click', () => {
    load(true).then(() => say(status, ''), report);
  });

  return { refresh: () => load(false), report };
};
