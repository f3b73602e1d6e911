import {
  type CreateSalesOrderBody,
  type LicenceValidation,
  LicenceWarningCode,
  SalesOrderApiError,
  type SalesOrderClient,
  SalesOrderPreconditionFailedError,
  type UpdateSalesOrderBody,
} from '@sales-order/client';
import type { DropdownType, SalesOrder, Totals } from '@sales-order/contract';
import { typedNumber, typedTotals } from '@sales-order/pricing';

import { addCheck, requiredRule, runCheck, runChecks } from './checks.js';
import { createPicker } from './combobox.js';
import { mountDeliveries } from './deliveries-panel.js';
import { el, errorSlot, labelled, showError } from './dom.js';
import { describe, FieldErrors, isSessionEnded } from './errors.js';
import { formatAmount } from './format.js';
import { createHistoryView } from './history.js';
import { latestOnly } from './latest-only.js';
import { createLineEditor } from './lines.js';
import { reportOn, say, statusLine } from './notice.js';
import { type Chosen, fillSelect, type Options, selectedId } from './options.js';
import { FIELDS } from './wording.js';

/**
 * Pause in typing (in the lines, the charges or the order date) before licence warnings are asked
 * for; they are asked only when a product, a quantity or the date differs from the last ask.
 * Totals need no request: the page prices with the server's own module (@sales-order/pricing).
 */
const LICENCE_DELAY_MS = 700;

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

const optionalText = (control: HTMLInputElement | HTMLTextAreaElement) =>
  control.value.trim() === '' ? null : control.value;

const LICENCE_CODES = new Set<string>(Object.values(LicenceWarningCode));

const NOT_SAVED = 'Not saved: correct the marked fields.';

/**
 * The header fields a clerk types or picks: every header field of the create body but those the
 * service decides (number, total) or the buttons send (status, acknowledgement). Typed by the
 * contract, so a header field added there does not compile until the form has it.
 */
type FormHeaderField = Exclude<
  keyof CreateSalesOrderBody,
  'details' | 'other_charges' | 'sales_order_no' | 'grand_total' | 'status' | 'acknowledge_warnings'
>;

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
  const customer = labelled('Customer', customers.field());
  const location = labelled('Location', el('select', {}));
  const orderDate = labelled('Order date', el('input', { type: 'date', value: today() }));
  const fieldOfficer = labelled('Field officer', el('select', {}));
  const port = labelled('Port', el('select', {}));
  const customerReference = labelled('Customer reference', el('input', { type: 'text', maxlength: '100' }));
  const deliveryDate = labelled('Delivery date', el('input', { type: 'date' }));
  const remarks = labelled('Remarks', el('textarea', { rows: '2' }));
  const headerFields = {
    customer_id: customer,
    location_id: location,
    sales_order_date: orderDate,
    field_officer_id: fieldOfficer,
    port_id: port,
    customer_reference: customerReference,
    delivery_date: deliveryDate,
    remarks,
  } satisfies Record<FormHeaderField, { error: HTMLElement }>;
  for (const [path, field] of Object.entries(headerFields)) {
    errors.register(path, field.error);
  }
  addCheck(
    customer.control,
    customer.error,
    () => 'customer_id',
    () => (customers.valueOf(customer.control) === undefined ? 'required' : undefined),
  );
  for (const [path, field] of [
    ['location_id', location],
    ['sales_order_date', orderDate],
  ] as const) {
    addCheck(field.control, field.error, () => path, requiredRule(field.control));
  }

  const liveChange = () => scheduleLive();
  const editor = createLineEditor(products, errors, liveChange);
  const linesError = el('span', { class: 'field-error', hidden: true });
  errors.register('details', linesError);
  errors.register('other_charges', linesError);
  const addLine = el('button', { type: 'button' }, 'Add line');
  /** Why the lines cannot be typed in, beside them. */
  const lockedNote = el('p', { class: 'hint locked-note', hidden: true });
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
      location.wrapper,
      orderDate.wrapper,
      fieldOfficer.wrapper,
      port.wrapper,
      customerReference.wrapper,
      deliveryDate.wrapper,
    ),
    el('h3', {}, 'Lines'),
    lockedNote,
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
    customers.popup,
    products.popup,
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

  /** Totals of what is typed, priced by the server's own module: no request, the same cents. */
  const computeTotals = () =>
    showTotals(
      typedTotals(
        editor.lines.map((line) => ({ quantity: line.quantity.value, rate: line.rate.value })),
        editor.charges.map((charge) => ({ amount: charge.amount.value })),
      ),
    );
  /** Once a frame at most, however fast the keys come. */
  let totalsFrame: number | undefined;
  const scheduleTotals = () => {
    totalsFrame ??= requestAnimationFrame(() => {
      totalsFrame = undefined;
      computeTotals();
    });
  };

  // Licence warnings: a sequence of their own, so a late answer never wins.
  const liveWarnings = latestOnly<LicenceValidation>(
    LICENCE_DELAY_MS,
    (answer) => editor.showWarnings(answer.warnings),
    report,
  );

  /** What the licence check depends on: the order, its date, and each line's product and quantity. */
  const licenceQuestion = () => {
    const lines = editor.lines.flatMap((line) => {
      const productId = editor.productOf(line);
      const quantity = typedNumber(line.quantity.value);
      return productId !== undefined && quantity !== undefined && quantity > 0
        ? [{ product_id: productId, quantity }]
        : [];
    });
    const date = orderDate.control.value;
    return {
      sales_order_details: lines,
      ...(/^\d{4}-\d{2}-\d{2}$/.test(date) ? { sales_order_date: date } : {}),
      ...(current ? { sales_order_id: current.sales_order_id } : {}),
    };
  };
  /** The question last asked (or answered with nothing to ask): the same one is not asked again. */
  let askedLicence = '';
  const askWarnings = () => {
    const question = licenceQuestion();
    askedLicence = JSON.stringify(question);
    if (question.sales_order_details.length === 0) {
      editor.showWarnings([]);
      return undefined;
    }
    return client.validateLicence(question);
  };
  /** After a pause in typing: asks when a product, quantity or the date changed since the last ask. */
  let licenceTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleWarnings = () => {
    clearTimeout(licenceTimer);
    licenceTimer = setTimeout(() => {
      if (!editable() || JSON.stringify(licenceQuestion()) === askedLicence) return;
      liveWarnings.now(askWarnings);
    }, LICENCE_DELAY_MS);
  };

  function scheduleLive() {
    scheduleTotals();
    scheduleWarnings();
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
    editor.addLine().product.focus();
    liveChange();
  });
  addCharge.addEventListener('click', () => {
    editor.addCharge().description.focus();
  });

  /** Whether the order's lines may change: a new order or a draft. */
  const editable = () => (current?.status ?? 'draft') === 'draft';

  /** What the order's status lets the clerk change (docs/api.md: confirmed orders keep their lines). */
  const applyStatus = () => {
    const status = current?.status ?? 'draft';
    const open = status === 'draft' || status === 'confirmed';
    for (const control of [customer, location, orderDate].map((field) => field.control)) control.disabled = !editable();
    for (const control of [fieldOfficer, port, customerReference, deliveryDate, remarks].map((field) => field.control))
      control.disabled = !open;
    editor.setLocked(!editable());
    lockedNote.hidden = editable();
    lockedNote.textContent =
      status === 'confirmed'
        ? 'Confirmed: the lines are locked. Field officer, port, customer reference, delivery date and remarks can still change.'
        : `This order is ${status}: nothing on it can change.`;
    addLine.disabled = !editable();
    addCharge.disabled = !editable();
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

  const fullBody = () =>
    ({
      customer_id: customers.valueOf(customer.control) ?? null,
      location_id: selectedId(location.control) ?? null,
      sales_order_date: orderDate.control.value,
      ...headerBody(),
      details: editor.detailsBody(),
      other_charges: editor.chargesBody(),
    }) satisfies Record<FormHeaderField | 'details' | 'other_charges', unknown>;

  const chosen = (id: number | null | undefined, name: string | null | undefined, kind: string): Chosen | undefined =>
    id === null || id === undefined ? undefined : { id, name: name ?? `${kind} ${id}` };

  /** The header fields from the kept lists (asked once for the page's life), with the order's own choices. */
  const loadSelects = async (order?: SalesOrder) => {
    const [locations, officers, ports] = await Promise.all([
      options.load('locations'),
      options.load('field-officers'),
      options.load('ports'),
      // The pickers' lists, so that a name typed and left at once is found.
      customers.preload(),
      products.preload(),
    ]);
    customers.set(customer.control, chosen(order?.customer_id, order?.customer_name, 'Customer'));
    fillSelect(
      location.control,
      locations.template,
      'Choose a location',
      chosen(order?.location_id, undefined, 'Location'),
    );
    fillSelect(
      fieldOfficer.control,
      officers.template,
      'None',
      chosen(order?.field_officer_id, order?.field_officer_name, 'Field officer'),
    );
    fillSelect(port.control, ports.template, 'None', chosen(order?.port_id, order?.port_name, 'Port'));
  };

  const loadHistory = async (order: SalesOrder) => {
    const page = await client.getSalesOrderHistory(order.sales_order_id);
    if (current !== order) return;
    history.replaceChildren(...(await historyView.items(order, page.entries)));
    historySection.hidden = false;
  };

  /**
   * Shows an order as read: its header and first lines at once, the other lines a part at a
   * time (Save waits for them), its history beside them. Its totals come with it; what is asked
   * is its history, and its licence warnings while it is a draft (they decide Confirm).
   */
  const show = async (order: SalesOrder) => {
    current = order;
    ready = false;
    heading.textContent = `Order ${order.sales_order_no} (${order.status})`;
    root.dataset.open = '';
    editor.clear();
    errors.clear();
    await loadSelects(order);
    orderDate.control.value = order.sales_order_date;
    customerReference.control.value = order.customer_reference ?? '';
    deliveryDate.control.value = order.delivery_date ?? '';
    remarks.control.value = order.remarks ?? '';
    acknowledge.checked = false;
    applyStatus();
    for (const charge of order.other_charges) editor.addCharge(charge);
    showTotals(order);
    mountDeliveries(root, client, order, open);
    const historyShown = loadHistory(order);
    if (!(await editor.addStoredLines(order.details))) return;
    ready = true;
    applyStatus();
    if (order.status === 'draft') liveWarnings.now(askWarnings);
    else editor.showWarnings([]);
    await historyShown;
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
    delete root.dataset.open;
    editor.clear();
    form.reset();
    orderDate.control.value = today();
    errors.clear();
    historySection.hidden = true;
    history.replaceChildren();
    mountDeliveries(root, client, undefined, open);
    await loadSelects();
    editor.addLine();
    askedLicence = '';
    editor.showWarnings([]);
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

  return { open, startNew, report, say: (message: string, problem = false) => say(notice, message, problem) };
};
