import './style.css';

import { createSalesOrderClient } from '@sales-order/client';

import { createImportScreen } from './import-screen.js';
import { createOptions } from './options.js';
import { createOrderForm } from './order-form/index.js';
import { createOrderList } from './order-list.js';
import { rateGate } from './rate-gate.js';
import { createReportsScreen } from './reports-screen.js';

/**
 * The reference order entry page. It authenticates with the host ERP's session cookie only
 * (`auth: { type: 'session' }`: the browser attaches the cookie; the page never sees it).
 * The API's address comes from <meta name="sales-order-api">, absolute or relative to the page.
 */
const apiBase = new URL(
  document.querySelector<HTMLMetaElement>('meta[name="sales-order-api"]')?.content ?? '/api',
  document.baseURI,
).href;
// After a 429 nothing is sent until its Retry-After has passed (rate-gate.ts).
const client = createSalesOrderClient({
  baseUrl: apiBase,
  auth: { type: 'session' },
  fetch: rateGate((seconds) =>
    form.say(`Too many requests from this computer's network just now: waiting ${seconds} s before the next.`, true),
  ),
});
// One options call per dropdown type, kept while the page lives.
const options = createOptions(client);

const main = document.querySelector('main')!;
const list = createOrderList(document.getElementById('orders')!, client, (id) => form.open(id));
const form = createOrderForm(document.getElementById('order')!, client, options, () => {
  list.refresh().catch(list.report);
});
// Only for a caller who may import (sales_orders.import): it shows itself once GET /imports answers.
const imports = createImportScreen(document.getElementById('import')!, client, options, () => {
  list.refresh().catch(list.report);
});

// Only for a caller who may read reports (reports.read): it shows itself once its first report answers.
const reports = createReportsScreen(document.getElementById('reports')!, client);

// While the dropdowns and the list load: a busy page, a message, and Save off (order-form/index.ts).
main.setAttribute('aria-busy', 'true');
form.say('Loading the order form…');
Promise.all([
  form.startNew().then(() => form.say('')),
  list.refresh().catch(list.report),
  imports.show(),
  reports.show(),
])
  .catch((error: unknown) => form.report(error))
  .finally(() => main.removeAttribute('aria-busy'));
