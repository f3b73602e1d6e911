import {
  type CreateSalesOrderBody,
  type HistoryEntry,
  type LicenceValidation,
  SalesOrderApiError,
  type SalesOrderClient,
  SalesOrderPreconditionFailedError,
  type Totals,
  type UpdateSalesOrderBody,
} from '@sales-order/client';
import type { SalesOrder } from '@sales-order/contract';

import { el, labelled } from './dom.js';
import { FieldErrors, isSessionEnded } from './errors.js';
import { latestOnly } from './latest-only.js';
import { createLineEditor, numberOf } from './lines.js';
import { report, say } from './notice.js';
import { fillSelect, searchableSelect, selectedId } from './options.js';

/** Pause after the last keystroke before totals and licence warnings are asked for. */
const LIVE_DELAY_MS = 300;

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

const money = (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const optionalText = (control: HTMLInputElement | HTMLTextAreaElement) =>
  control.value.trim() === '' ? null : control.value;

/**
 * The order form: a new order, or an opened one edited with If-Match, confirmed or cancelled.
 * Totals and licence warnings follow the clerk's typing through calculate-totals and
 * validate-licence. `onSaved` tells the list that an order changed.
 */
export const createOrderForm = (root: HTMLElement, client: SalesOrderClient, onSaved: () => void) => {
  const heading = el('h2', { id: 'order-heading' }, 'New order');
  const generalErrors = el('ul', { class: 'form-errors', 'aria-label': 'Problems with the order', hidden: true });
  const errors = new FieldErrors(generalErrors);
  const form = el('form', { novalidate: true, 'aria-labelledby': 'order-heading' });

  const customer = labelled('Customer', el('select', {}));
  const customerSearch = labelled('Search customers', el('input', { type: 'search', autocomplete: 'off' }));
  const location = labelled('Location', el('select', {}));
  const orderDate = labelled('Order date', el('input', { type: 'date', value: today() }));
  const fieldOfficer = labelled('Field officer', el('select', {}));
  const port = labelled('Port', el('select', {}));
  const customerReference = labelled('Customer reference', el('input', { type: 'text', maxlength: '100' }));
  const deliveryDate = labelled('Delivery date', el('input', { type: 'date' }));
  const remarks = labelled('Remarks', el('textarea', { rows: '2' }));
  for (const [path, field] of [
    ['customer_id', customer],
    ['location_id', location],
    ['sales_order_date', orderDate],
    ['field_officer_id', fieldOfficer],
    ['port_id', port],
    ['customer_reference', customerReference],
    ['delivery_date', deliveryDate],
    ['remarks', remarks],
  ] as const) {
    errors.register(path, field.error);
  }

  const liveChange = () => scheduleLive();
  const editor = createLineEditor(client, errors, liveChange);
  const linesError = el('span', { class: 'field-error', hidden: true });
  errors.register('details', linesError);
  errors.register('other_charges', linesError);
  const addLine = el('button', { type: 'button' }, 'Add line');
  const addCharge = el('button', { type: 'button' }, 'Add charge');

  const subtotal = el('output', { id: 'subtotal' }, '—');
  const chargesTotal = el('output', { id: 'other-charges-total' }, '—');
  const grandTotal = el('output', { id: 'grand-total' }, '—');
  const totals = el(
    'div',
    { class: 'totals', 'aria-live': 'polite' },
    el('label', { for: subtotal.id }, 'Subtotal'),
    subtotal,
    el('label', { for: chargesTotal.id }, 'Other charges total'),
    chargesTotal,
    el('label', { for: grandTotal.id }, 'Grand total'),
    grandTotal,
  );

  const save = el('button', { type: 'submit', class: 'primary' }, 'Save');
  const newOrder = el('button', { type: 'button' }, 'New order');
  const confirm = el('button', { type: 'button', hidden: true }, 'Confirm');
  const acknowledge = el('input', { type: 'checkbox', id: 'acknowledge-warnings' });
  const acknowledgeLabel = el(
    'label',
    { class: 'acknowledge', hidden: true },
    acknowledge,
    ' Acknowledge licence warnings',
  );
  const cancel = el('button', { type: 'button', hidden: true }, 'Cancel order');
  const reason = labelled('Cancellation reason', el('textarea', { rows: '2', maxlength: '500' }));
  errors.register('reason', reason.error);
  const cancelSubmit = el('button', { type: 'button' }, 'Cancel this order');
  const cancelKeep = el('button', { type: 'button' }, 'Keep the order');
  const cancelBox = el(
    'div',
    { class: 'cancel-box', hidden: true },
    reason.wrapper,
    el('div', { class: 'actions' }, cancelSubmit, cancelKeep),
  );
  const history = el('ol', { class: 'history', 'aria-label': 'History' });
  const historySection = el('section', { class: 'history-section', hidden: true }, el('h3', {}, 'History'), history);

  form.append(
    el(
      'div',
      { class: 'header-fields' },
      customer.wrapper,
      customerSearch.wrapper,
      location.wrapper,
      orderDate.wrapper,
      fieldOfficer.wrapper,
      port.wrapper,
      customerReference.wrapper,
      deliveryDate.wrapper,
    ),
    el('h3', {}, 'Lines'),
    editor.linesBox,
    linesError,
    el('div', { class: 'actions' }, addLine),
    el('h3', {}, 'Other charges'),
    editor.chargesBox,
    el('div', { class: 'actions' }, addCharge),
    remarks.wrapper,
    totals,
    generalErrors,
    el('div', { class: 'actions' }, save, confirm, acknowledgeLabel, cancel, newOrder),
    cancelBox,
  );
  root.replaceChildren(heading, form, historySection);

  /** The order being edited; undefined for a new one. */
  let current: SalesOrder | undefined;
  /** One key per new-order draft: a second Save of the same draft (a double click, a retry) makes no second order. */
  let draftKey = crypto.randomUUID();
  let saving = false;

  // Live totals and licence warnings: each its own sequence, so a late answer never wins.
  const liveTotals = latestOnly<Totals>(
    LIVE_DELAY_MS,
    (answer) => {
      subtotal.value = money(answer.subtotal);
      chargesTotal.value = money(answer.other_charges_total);
      grandTotal.value = money(answer.grand_total);
    },
    report,
  );
  const liveWarnings = latestOnly<LicenceValidation>(
    LIVE_DELAY_MS,
    (answer) => editor.showWarnings(answer.warnings),
    report,
  );

  function scheduleLive() {
    liveTotals.schedule(() => {
      const details = editor.lines.flatMap((line) => {
        const quantity = numberOf(line.quantity.value);
        const rate = numberOf(line.rate.value);
        return quantity !== undefined && rate !== undefined && quantity > 0 && rate >= 0 ? [{ quantity, rate }] : [];
      });
      const otherCharges = editor.charges.flatMap((charge) => {
        const amount = numberOf(charge.amount.value);
        return amount === undefined ? [] : [{ amount }];
      });
      if (details.length === 0 && otherCharges.length === 0) {
        for (const output of [subtotal, chargesTotal, grandTotal]) output.value = '—';
        return undefined;
      }
      return client.calculateTotals({ details, other_charges: otherCharges });
    });
    liveWarnings.schedule(() => {
      const lines = editor.lines.flatMap((line) => {
        const productId = selectedId(line.product);
        const quantity = numberOf(line.quantity.value);
        return productId !== undefined && quantity !== undefined && quantity > 0
          ? [{ product_id: productId, quantity }]
          : [];
      });
      if (lines.length === 0) {
        editor.showWarnings([]);
        return undefined;
      }
      const date = orderDate.control.value;
      return client.validateLicence({
        sales_order_details: lines,
        ...(/^\d{4}-\d{2}-\d{2}$/.test(date) ? { sales_order_date: date } : {}),
        ...(current ? { sales_order_id: current.sales_order_id } : {}),
      });
    });
  }
  form.addEventListener('input', liveChange);
  form.addEventListener('change', liveChange);

  addLine.addEventListener('click', () => {
    editor.addLine().then(liveChange, report);
  });
  addCharge.addEventListener('click', () => {
    editor.addCharge().description.focus();
  });

  /** What the order's status lets the clerk change (docs/api.md: confirmed orders keep their lines). */
  const applyStatus = () => {
    const status = current?.status ?? 'draft';
    const editable = status === 'draft';
    const open = status === 'draft' || status === 'confirmed';
    for (const control of [customer, customerSearch, location, orderDate].map((field) => field.control))
      control.disabled = !editable;
    for (const control of [fieldOfficer, port, customerReference, deliveryDate, remarks].map((field) => field.control))
      control.disabled = !open;
    editor.setLocked(!editable);
    addLine.disabled = !editable;
    addCharge.disabled = !editable;
    save.disabled = !open;
    confirm.hidden = status !== 'draft' || current === undefined;
    acknowledgeLabel.hidden = confirm.hidden;
    cancel.hidden = !open || current === undefined;
    cancelBox.hidden = true;
  };

  const headerBody = () => ({
    field_officer_id: selectedId(fieldOfficer.control) ?? null,
    port_id: selectedId(port.control) ?? null,
    customer_reference: optionalText(customerReference.control),
    delivery_date: deliveryDate.control.value === '' ? null : deliveryDate.control.value,
    remarks: optionalText(remarks.control),
  });

  /**
   * The body as typed. Values the contract would refuse (an unchosen customer, a quantity
   * that is not a number) are sent as they are, so that the service names them in the
   * envelope and the form shows each beside its field.
   */
  const fullBody = () => ({
    customer_id: selectedId(customer.control) ?? null,
    location_id: selectedId(location.control) ?? null,
    sales_order_date: orderDate.control.value,
    ...headerBody(),
    details: editor.detailsBody(),
    other_charges: editor.chargesBody(),
  });

  const loadSelects = async (order?: SalesOrder) => {
    await Promise.all([
      fillSelect(client, customer.control, 'customers', {
        selectedId: order?.customer_id,
        placeholder: 'Choose a customer',
      }),
      fillSelect(client, location.control, 'locations', {
        selectedId: order?.location_id,
        placeholder: 'Choose a location',
      }),
      fillSelect(client, fieldOfficer.control, 'field-officers', {
        selectedId: order?.field_officer_id ?? undefined,
        placeholder: 'None',
      }),
      fillSelect(client, port.control, 'ports', { selectedId: order?.port_id ?? undefined, placeholder: 'None' }),
    ]);
  };

  const describeEntry = (entry: HistoryEntry) => {
    const fields = entry.changes.fields?.map((change) => change.field) ?? [];
    const parts = [
      `Version ${entry.version}: ${entry.action}`,
      entry.by ? `by ${entry.by}` : '',
      new Date(entry.at).toLocaleString(),
    ];
    if (fields.length > 0) parts.push(`(${fields.join(', ')})`);
    if (entry.reason) parts.push(`— reason: ${entry.reason}`);
    return parts.filter((part) => part !== '').join(' ');
  };

  const loadHistory = async (id: number) => {
    const page = await client.getSalesOrderHistory(id);
    history.replaceChildren(...page.entries.map((entry) => el('li', {}, describeEntry(entry))));
    historySection.hidden = false;
  };

  const show = async (order: SalesOrder) => {
    current = order;
    heading.textContent = `Order ${order.sales_order_no} (${order.status})`;
    editor.clear();
    await loadSelects(order);
    orderDate.control.value = order.sales_order_date;
    customerReference.control.value = order.customer_reference ?? '';
    deliveryDate.control.value = order.delivery_date ?? '';
    remarks.control.value = order.remarks ?? '';
    await Promise.all(order.details.map((detail) => editor.addLine(detail)));
    for (const charge of order.other_charges) editor.addCharge(charge);
    errors.clear();
    applyStatus();
    liveTotals.now(() => Promise.resolve(order as Totals));
    scheduleLive();
    await loadHistory(order.sales_order_id);
  };

  /** Opens a stored order; `quiet` keeps the notice (e.g. the stale-edit message). */
  const open = async (id: number, { quiet = false } = {}) => {
    const order = await client.getSalesOrder(id);
    await show(order);
    if (!quiet) say(`Opened ${order.sales_order_no}.`);
  };

  const startNew = async () => {
    current = undefined;
    draftKey = crypto.randomUUID();
    heading.textContent = 'New order';
    editor.clear();
    form.reset();
    orderDate.control.value = today();
    errors.clear();
    historySection.hidden = true;
    history.replaceChildren();
    await loadSelects();
    await editor.addLine();
    applyStatus();
    scheduleLive();
  };

  /** A refusal: the envelope's details beside their fields; a stale version reloads the order. */
  const refused = async (error: unknown) => {
    if (error instanceof SalesOrderPreconditionFailedError && current) {
      say(
        `Someone else changed ${current.sales_order_no} after you opened it. It has been reloaded with their changes: make yours again.`,
        true,
      );
      await open(current.sales_order_id, { quiet: true });
      return;
    }
    if (error instanceof SalesOrderApiError && !isSessionEnded(error)) {
      errors.show(error);
      say(error.message, true);
      return;
    }
    report(error);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (saving) return;
    saving = true;
    save.disabled = true;
    errors.clear();
    const editing = current;
    const done = editing
      ? client
          .updateSalesOrder(
            editing.sales_order_id,
            (editing.status === 'draft' ? fullBody() : headerBody()) as UpdateSalesOrderBody,
            { ifMatch: editing.version },
          )
          .then(async () => {
            await open(editing.sales_order_id, { quiet: true });
            say(`Saved ${editing.sales_order_no}.`);
          })
      : client
          .createSalesOrder(fullBody() as CreateSalesOrderBody, { idempotencyKey: draftKey })
          .then(async (created) => {
            await open(created.sales_order_id, { quiet: true });
            say(`Saved as order ${created.order_number}.`);
          });
    done
      .then(onSaved, refused)
      .catch(report)
      .finally(() => {
        saving = false;
        applyStatus();
      });
  });

  newOrder.addEventListener('click', () => {
    startNew().then(() => say('New order.'), report);
  });

  /**
   * A transition of the order on the form, from its button: the button is off while it runs,
   * then the form shows the order as it now reads and says `done` of it.
   */
  const transition = (
    button: HTMLButtonElement,
    run: (order: SalesOrder) => Promise<SalesOrder>,
    done: (order: SalesOrder) => string,
  ) => {
    if (!current) return;
    const order = current;
    button.disabled = true;
    errors.clear();
    run(order)
      .then(async (changed) => {
        await show(changed);
        say(done(changed));
        onSaved();
      }, refused)
      .catch(report)
      .finally(() => {
        button.disabled = false;
      });
  };

  confirm.addEventListener('click', () => {
    transition(
      confirm,
      (order) =>
        client.confirmSalesOrder(
          order.sales_order_id,
          { acknowledge_warnings: acknowledge.checked },
          { ifMatch: order.version },
        ),
      (confirmed) => `Confirmed ${confirmed.sales_order_no}.`,
    );
  });

  cancel.addEventListener('click', () => {
    cancelBox.hidden = false;
    reason.control.focus();
  });
  cancelKeep.addEventListener('click', () => {
    cancelBox.hidden = true;
  });
  cancelSubmit.addEventListener('click', () => {
    transition(
      cancelSubmit,
      async (order) => {
        const cancelled = await client.cancelSalesOrder(
          order.sales_order_id,
          { reason: reason.control.value },
          { ifMatch: order.version },
        );
        reason.control.value = '';
        return cancelled;
      },
      (cancelled) => `Cancelled ${cancelled.sales_order_no}.`,
    );
  });

  searchableSelect(client, customer.control, customerSearch.control, 'customers', 'Choose a customer');

  return { open, startNew };
};
