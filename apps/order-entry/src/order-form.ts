import {
  type CreateSalesOrderBody,
  type LicenceValidation,
  LicenceWarningCode,
  SalesOrderApiError,
  type SalesOrderClient,
  SalesOrderPreconditionFailedError,
  type UpdateSalesOrderBody,
} from '@sales-order/client';
import type { SalesOrder, Totals } from '@sales-order/contract';

import { addCheck, numberOf, requiredRule, runCheck, runChecks } from './checks.js';
import { el, errorSlot, labelled, showError } from './dom.js';
import { describe, FieldErrors, isSessionEnded } from './errors.js';
import { formatAmount } from './format.js';
import { createHistoryView } from './history.js';
import { latestOnly } from './latest-only.js';
import { createLineEditor } from './lines.js';
import { reportOn, say, statusLine } from './notice.js';
import { type Chosen, fillSelect, type Options, searchableSelect, selectedId } from './options.js';
import { FIELDS } from './wording.js';

/** Pause after the last keystroke before totals and licence warnings are asked for. */
const LIVE_DELAY_MS = 300;

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

const optionalText = (control: HTMLInputElement | HTMLTextAreaElement) =>
  control.value.trim() === '' ? null : control.value;

const LICENCE_CODES = new Set<string>(Object.values(LicenceWarningCode));

const NOT_SAVED = 'Not saved: correct the marked fields.';

/**
 * The order form: a new order, or an opened one edited with If-Match, confirmed or cancelled.
 * Totals and licence warnings follow the clerk's typing through calculate-totals and
 * validate-licence. `onSaved` tells the list that an order changed.
 */
export const createOrderForm = (root: HTMLElement, client: SalesOrderClient, options: Options, onSaved: () => void) => {
  const heading = el('h2', { id: 'order-heading' }, 'New order');
  const generalErrors = el('ul', { class: 'form-errors', 'aria-label': 'Problems with the order', hidden: true });
  const errors = new FieldErrors(generalErrors);
  const form = el('form', { novalidate: true, 'aria-labelledby': 'order-heading' });
  // Beside Save, Confirm and Cancel order: what the last of them did.
  const notice = statusLine('notice');
  const report = reportOn(notice);

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
  for (const [path, field] of [
    ['customer_id', customer],
    ['location_id', location],
    ['sales_order_date', orderDate],
  ] as const) {
    addCheck(field.control, field.error, () => path, requiredRule(field.control));
  }

  const liveChange = () => scheduleLive();
  const editor = createLineEditor(client, options, errors, liveChange, report);
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
    { class: 'totals' },
    el('label', { for: subtotal.id }, 'Subtotal'),
    subtotal,
    el('label', { for: chargesTotal.id }, 'Other charges total'),
    chargesTotal,
    el('label', { for: grandTotal.id }, 'Grand total'),
    grandTotal,
  );

  const save = el('button', { type: 'submit', class: 'primary', disabled: true }, 'Save');
  const newOrder = el('button', { type: 'button' }, 'New order');
  const confirm = el('button', { type: 'button', hidden: true }, 'Confirm');
  const acknowledge = el('input', { type: 'checkbox', id: 'acknowledge-warnings' });
  const acknowledgeError = errorSlot();
  const acknowledgeBox = el(
    'span',
    { class: 'acknowledge', hidden: true },
    el('label', {}, acknowledge, ' Acknowledge licence warnings'),
    acknowledgeError,
  );
  errors.register('acknowledge_warnings', acknowledgeError);
  const cancel = el('button', { type: 'button', hidden: true }, 'Cancel order');
  const reason = labelled('Cancellation reason', el('textarea', { rows: '2', maxlength: '500' }));
  errors.register('reason', reason.error);
  addCheck(reason.control, reason.error, () => 'reason', requiredRule(reason.control));
  const cancelSubmit = el('button', { type: 'button' }, 'Cancel this order');
  const cancelKeep = el('button', { type: 'button' }, 'Keep the order');
  const cancelStatus = statusLine('cancel-status');
  const cancelBox = el(
    'div',
    { class: 'cancel-box', hidden: true },
    reason.wrapper,
    el('div', { class: 'actions' }, cancelSubmit, cancelKeep, cancelStatus),
  );
  const history = el('ol', { class: 'history', 'aria-label': 'History' });
  const historySection = el(
    'section',
    { class: 'history-section', hidden: true, 'aria-labelledby': 'history-heading' },
    el('h3', { id: 'history-heading' }, 'History'),
    history,
  );
  const historyView = createHistoryView(options);

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
    el('div', { class: 'actions' }, save, confirm, acknowledgeBox, cancel, newOrder, notice),
    cancelBox,
  );
  root.replaceChildren(heading, form, historySection);

  /** The order being edited; undefined for a new one. */
  let current: SalesOrder | undefined;
  /** One key per new-order draft: a second Save of the same draft (a double click, a retry) makes no second order. */
  let draftKey = crypto.randomUUID();
  let saving = false;
  /** Save waits for the dropdowns: an order saved before its selects are filled would lose its choices. */
  let ready = false;

  const showTotals = (answer: Totals | undefined) => {
    subtotal.value = answer ? formatAmount(answer.subtotal) : '—';
    chargesTotal.value = answer ? formatAmount(answer.other_charges_total) : '—';
    grandTotal.value = answer ? formatAmount(answer.grand_total) : '—';
  };

  // Live totals and licence warnings: each its own sequence, so a late answer never wins.
  const liveTotals = latestOnly<Totals>(LIVE_DELAY_MS, showTotals, report);
  const liveWarnings = latestOnly<LicenceValidation>(
    LIVE_DELAY_MS,
    (answer) => editor.showWarnings(answer.warnings),
    report,
  );

  const askWarnings = () => {
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
  };

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
        showTotals(undefined);
        return undefined;
      }
      return client.calculateTotals({ details, other_charges: otherCharges });
    });
    liveWarnings.schedule(askWarnings);
  }

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
  // Totals and warnings depend on the lines, the charges and the order date only: typing remarks asks nothing.
  const affectsLive = (target: EventTarget | null) =>
    target instanceof Node &&
    (editor.linesBox.contains(target) || editor.chargesBox.contains(target) || target === orderDate.control);
  for (const type of ['input', 'change'])
    form.addEventListener(type, (event) => {
      recheck(event);
      if (affectsLive(event.target)) liveChange();
    });
  cancelBox.addEventListener('input', recheck);
  // Enter in a field does not send the form: a half-typed order is saved by Save only.
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target instanceof HTMLInputElement) event.preventDefault();
  });

  addLine.addEventListener('click', () => {
    editor.addLine().then((row) => {
      row.product.focus();
      liveChange();
    }, report);
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
    save.disabled = !open || !ready;
    confirm.hidden = status !== 'draft' || current === undefined;
    acknowledgeBox.hidden = confirm.hidden;
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

  const fullBody = () => ({
    customer_id: selectedId(customer.control) ?? null,
    location_id: selectedId(location.control) ?? null,
    sales_order_date: orderDate.control.value,
    ...headerBody(),
    details: editor.detailsBody(),
    other_charges: editor.chargesBody(),
  });

  const chosen = (id: number | null | undefined, name: string | null | undefined, kind: string): Chosen | undefined =>
    id === null || id === undefined ? undefined : { id, name: name ?? `${kind} ${id}` };

  /** The header selects from the kept lists (asked once for the page's life), with the order's own choices. */
  const loadSelects = async (order?: SalesOrder) => {
    const [customers, locations, officers, ports] = await Promise.all([
      options.load('customers'),
      options.load('locations'),
      options.load('field-officers'),
      options.load('ports'),
    ]);
    fillSelect(
      customer.control,
      customers,
      'Choose a customer',
      chosen(order?.customer_id, order?.customer_name, 'Customer'),
    );
    fillSelect(location.control, locations, 'Choose a location', chosen(order?.location_id, undefined, 'Location'));
    fillSelect(
      fieldOfficer.control,
      officers,
      'None',
      chosen(order?.field_officer_id, order?.field_officer_name, 'Field officer'),
    );
    fillSelect(port.control, ports, 'None', chosen(order?.port_id, order?.port_name, 'Port'));
  };

  const loadHistory = async (order: SalesOrder) => {
    const page = await client.getSalesOrderHistory(order.sales_order_id);
    history.replaceChildren(...(await historyView.items(order, page.entries)));
    historySection.hidden = false;
  };

  /**
   * Shows an order as read. Its totals come with it and its selects from the kept lists: what is
   * asked is its history, and its licence warnings while it is a draft (they decide Confirm).
   */
  const show = async (order: SalesOrder) => {
    current = order;
    heading.textContent = `Order ${order.sales_order_no} (${order.status})`;
    editor.clear();
    await loadSelects(order);
    orderDate.control.value = order.sales_order_date;
    customerReference.control.value = order.customer_reference ?? '';
    deliveryDate.control.value = order.delivery_date ?? '';
    remarks.control.value = order.remarks ?? '';
    acknowledge.checked = false;
    await editor.addStoredLines(order.details);
    for (const charge of order.other_charges) editor.addCharge(charge);
    errors.clear();
    applyStatus();
    liveTotals.now(() => Promise.resolve(order));
    if (order.status === 'draft') liveWarnings.now(askWarnings);
    else editor.showWarnings([]);
    await loadHistory(order);
  };

  /** Opens a stored order. */
  const open = async (id: number) => {
    const order = await client.getSalesOrder(id);
    await show(order);
    return order;
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
    ready = true;
    applyStatus();
    showTotals(undefined);
  };

  /** A refusal: in the clerk's words beside the fields it names; a stale version reloads the order. */
  const refused = async (error: unknown, line: HTMLElement) => {
    if (error instanceof SalesOrderPreconditionFailedError && current) {
      say(
        line,
        `Someone else changed ${current.sales_order_no} after you opened it. It has been reloaded with their changes: make yours again.`,
        true,
      );
      await open(current.sales_order_id);
      return;
    }
    if (error instanceof SalesOrderApiError && !isSessionEnded(error)) {
      // Licence warnings already stand (amber) beside their lines: a refused confirm asks for the acknowledgement instead.
      const warnings = error.details.filter((detail) => detail.code !== undefined && LICENCE_CODES.has(detail.code));
      errors.show(error.details.filter((detail) => !warnings.includes(detail)));
      if (warnings.length > 0) {
        showError(acknowledgeError, FIELDS.acknowledge_warnings!.missing);
        say(line, `${FIELDS.acknowledge_warnings!.missing}.`, true);
        return;
      }
      say(line, describe(error), true);
      return;
    }
    report(error);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (saving || !ready) return;
    errors.clear();
    // The page's own checks first: nothing is sent while a field is wrong.
    if (!runChecks(form)) {
      say(notice, NOT_SAVED, true);
      errors.firstInvalid(form)?.focus();
      return;
    }
    saving = true;
    save.disabled = true;
    say(notice, 'Saving…');
    const editing = current;
    const done = editing
      ? client
          .updateSalesOrder(
            editing.sales_order_id,
            (editing.status === 'draft' ? fullBody() : headerBody()) as UpdateSalesOrderBody,
            { ifMatch: editing.version },
          )
          .then(async () => {
            await open(editing.sales_order_id);
            say(notice, `Saved ${editing.sales_order_no}.`);
          })
      : client
          .createSalesOrder(fullBody() as CreateSalesOrderBody, { idempotencyKey: draftKey })
          .then(async (created) => {
            await open(created.sales_order_id);
            say(notice, `Saved as order ${created.order_number}.`);
          });
    done
      .then(onSaved, (error: unknown) => refused(error, notice))
      .catch(report)
      .finally(() => {
        saving = false;
        applyStatus();
      });
  });

  newOrder.addEventListener('click', () => {
    startNew().then(() => say(notice, 'New order.'), report);
  });

  /**
   * A transition of the order on the form, from its button: the button is off while it runs,
   * then the form shows the order as it now reads and `line` says `done` of it.
   */
  const transition = (
    button: HTMLButtonElement,
    line: HTMLElement,
    run: (order: SalesOrder) => Promise<SalesOrder>,
    done: (order: SalesOrder) => string,
  ) => {
    if (!current) return;
    const order = current;
    button.disabled = true;
    errors.clear();
    run(order)
      .then(
        async (changed) => {
          await show(changed);
          say(notice, done(changed));
          onSaved();
        },
        (error: unknown) => refused(error, line),
      )
      .catch(report)
      .finally(() => {
        button.disabled = false;
      });
  };

  confirm.addEventListener('click', () => {
    transition(
      confirm,
      notice,
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
    say(cancelStatus, '');
    reason.control.focus();
  });
  cancelKeep.addEventListener('click', () => {
    cancelBox.hidden = true;
    cancel.focus();
  });
  cancelSubmit.addEventListener('click', () => {
    if (!runCheck(reason.control)) {
      say(cancelStatus, 'Not cancelled: give the reason.', true);
      reason.control.focus();
      return;
    }
    transition(
      cancelSubmit,
      cancelStatus,
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

  searchableSelect(client, options, customer.control, customerSearch.control, 'customers', 'Choose a customer', report);

  return { open, startNew, report, say: (message: string, problem = false) => say(notice, message, problem) };
};
