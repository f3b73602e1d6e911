import './style.css';

import { createSalesOrderClient } from '@sales-order/client';

import { report } from './notice.js';
import { createOrderForm } from './order-form.js';
import { createOrderList } from './order-list.js';

/**
 * The reference order entry page. It authenticates with the host ERP's session cookie only
 * (`auth: { type: 'session' }`: the browser attaches the cookie; the page never sees it).
 * The API's address comes from <meta name="sales-order-api">, absolute or relative to the page.
 */
const apiBase = new URL(
  document.querySelector<HTMLMetaElement>('meta[name="sales-order-api"]')?.content ?? '/api',
  document.baseURI,
).href;
const client = createSalesOrderClient({ baseUrl: apiBase, auth: { type: 'session' } });

const list = createOrderList(document.getElementById('orders')!, client, (id) => {
  form.open(id).catch(report);
});
const form = createOrderForm(document.getElementById('order')!, client, () => {
  list.refresh().catch(report);
});

Promise.all([form.startNew(), list.refresh()]).catch(report);
