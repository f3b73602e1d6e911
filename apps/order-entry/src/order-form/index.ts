import type { SalesOrderClient } from '@sales-order/client';
import type { DropdownType, SalesOrder } from '@sales-order/contract';

import { runCheck } from '../checks.js';
import { createPicker } from '../combobox.js';
import { mountDeliveries } from '../deliveries-panel.js';
import { el, showError } from '../dom.js';
import { FieldErrors } from '../errors.js';
import { createHistoryView } from '../history.js';
import { createLineEditor } from '../lines.js';
import { reportOn, say, statusLine } from '../notice.js';
import type { Options } from '../options.js';
import { createActions } from './actions.js';
import { createChangePanel } from './change.js';
import { createChargesSection } from './charges.js';
import { type FormContext, type FormState, linesEditable } from './context.js';
import { createHeader } from './header.js';
import { createLinesSection } from './lines.js';

/**
 * A field's error follows its correction: a field with a check of the page's own is checked
 * again as it changes (and, for a typed value, when the clerk leaves it), one without loses
 * the service's complaint as soon as it is changed.
 */
const recheck = (event: Event) => {
  const control = event.target;
  if (!(
    control instanceof HTMLInputElement ||
    control instanceof HTMLSelectElement ||
    control instanceof HTMLTextAreaElement
  ))
    return;
  const invalid = control.getAttribute('aria-invalid') === 'true';
  const typedAndLeft = event.type === 'change' && control.value.trim() !== '';
  if (!invalid && !typedAndLeft) return;
  if (runCheck(control) && invalid) {
    const slot = document.getElementById(control.getAttribute('aria-describedby') ?? '');
    if (slot) showError(slot, undefined);
  }
};

/**
 * The order form: a new order, or an opened one edited with If-Match, confirmed or cancelled.
 * Its parts: the header (header.ts), the lines with their licence warnings (lines.ts), the
 * other charges and totals (charges.ts) and the buttons (actions.ts). Totals and licence warnings
 * follow the clerk's typing. `onSaved` tells the list that an order changed. An order is shown
 * by `show`: what shows something of an opened order hooks in there.
 */
export const createOrderForm = (root: HTMLElement, client: SalesOrderClient, options: Options, onSaved: () => void) => {
  const heading = el('h2', { id: 'order-heading' }, 'New order');
  const generalErrors = el('ul', { class: 'form-errors', 'aria-label': 'Problems with the order', hidden: true });
  const errors = new FieldErrors(generalErrors);
  const form = el('form', { novalidate: true, 'aria-labelledby': 'order-heading' });
  const notice = statusLine('notice');
  const report = reportOn(notice);
  const state: FormState = { current: undefined, ready: false, changing: undefined };
  const context: FormContext = { client, options, form, errors, report, state };

  /** A picker over a kept dropdown list: type-to-search, asking the service only for a list that is truncated. */
  const pickerOf = (type: DropdownType, name: string) =>
    createPicker({
      root: form,
      name,
      source: {
        items: () => options.load(type).then((kept) => kept.items),
        truncated: () => options.load(type).then((kept) => kept.truncated),
        search: (q) => options.search(type, q),
      },
      fail: report,
    });
  const customers = pickerOf('customers', 'Customers');
  // One product picker for every line: its list is in the page once, however many lines.
  const products = pickerOf('products', 'Products');
  const header = createHeader(context, customers);
  const liveChange = () => {
    charges.scheduleTotals();
    lines.scheduleWarnings();
  };
  const editor = createLineEditor(products, errors, liveChange);
  const lines = createLinesSection(context, editor, header.orderDate, liveChange);
  const charges = createChargesSection(editor);
  const actions = createActions(context, { header, editor, notice, show, open, startNew, onSaved });
  const change = createChangePanel(context, { editor, applyStatus, show, open, onSaved });

  const history = el('ol', { class: 'history', 'aria-label': 'History' });
  const historySection = el(
    'section',
    { class: 'history-section', hidden: true, 'aria-labelledby': 'history-heading' },
    el('h3', { id: 'history-heading' }, 'History'),
    history,
  );
  const historyView = createHistoryView(options);

  form.append(
    header.top,
    ...lines.elements,
    ...charges.elements,
    ...header.below,
    charges.totals,
    generalErrors,
    actions.row,
    actions.cancelBox,
    change.box,
    customers.popup,
    products.popup,
  );
  root.replaceChildren(heading, form, historySection);

  // Totals and warnings depend on the lines, the charges and the order date only: typing remarks asks nothing.
  const affectsLive = (target: EventTarget | null) =>
    target instanceof Node &&
    (editor.linesBox.contains(target) || editor.chargesBox.contains(target) || target === header.orderDate);
  for (const type of ['input', 'change'])
    form.addEventListener(type, (event) => {
      recheck(event);
      if (affectsLive(event.target)) liveChange();
    });
  actions.cancelBox.addEventListener('input', recheck);
  // Enter in a field does not send the form: a half-typed order is saved by Save only.
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target instanceof HTMLInputElement) event.preventDefault();
  });

  /** What the order's status lets the clerk change (docs/api.md: confirmed orders keep their lines). */
  function applyStatus() {
    header.applyStatus();
    lines.applyStatus();
    charges.applyStatus(linesEditable(state));
    actions.applyStatus();
  }

  const loadHistory = async (order: SalesOrder) => {
    const page = await client.getSalesOrderHistory(order.sales_order_id);
    if (state.current !== order) return;
    history.replaceChildren(...(await historyView.items(order, page.entries)));
    historySection.hidden = false;
  };

  /**
   * Shows an order as read: its header and first lines at once, the other lines a part at a
   * time (Save waits for them), its history beside them. Its totals come with it; what is asked
   * is its history, and its licence warnings while it is a draft (they decide Confirm).
   */
  async function show(order: SalesOrder) {
    state.current = order;
    state.ready = false;
    change.show(order);
    heading.textContent = `Order ${order.sales_order_no} (${order.status})`;
    root.dataset.open = '';
    editor.clear();
    errors.clear();
    await header.fill(order, [products.preload()]);
    actions.reset();
    applyStatus();
    for (const charge of order.other_charges) editor.addCharge(charge);
    charges.showTotals(order);
    mountDeliveries(root, client, order, open);
    const historyShown = loadHistory(order);
    if (!(await editor.addStoredLines(order.details))) return;
    state.ready = true;
    applyStatus();
    if (order.status === 'draft') lines.warnNow();
    else editor.showWarnings([]);
    await historyShown;
  }

  /** Opens a stored order: the list's entry point. */
  async function open(id: number) {
    const order = await client.getSalesOrder(id);
    await show(order);
    return order;
  }

  async function startNew() {
    state.current = undefined;
    change.show(undefined);
    actions.newDraft();
    heading.textContent = 'New order';
    delete root.dataset.open;
    editor.clear();
    form.reset();
    errors.clear();
    historySection.hidden = true;
    history.replaceChildren();
    mountDeliveries(root, client, undefined, open);
    await header.fill(undefined, [products.preload()]);
    editor.addLine();
    lines.clearWarnings();
    state.ready = true;
    applyStatus();
    charges.showTotals(undefined);
  }

  return { open, startNew, report, say: (message: string, problem = false) => say(notice, message, problem) };
};
