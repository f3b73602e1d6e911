import {
  type CreateSalesOrderBody,
  LicenceWarningCode,
  SalesOrderApiError,
  SalesOrderPreconditionFailedError,
  type UpdateSalesOrderBody,
} from '@sales-order/client';
import type { SalesOrder } from '@sales-order/contract';

import { addCheck, requiredRule, runCheck, runChecks } from '../checks.js';
import { acknowledgement, el, labelled, showError } from '../dom.js';
import { describe, isSessionEnded } from '../errors.js';
import type { LineEditor } from '../lines.js';
import { say, statusLine, whileOff } from '../notice.js';
import { FIELDS } from '../wording.js';
import { type FormContext, isOpen, statusOf } from './context.js';
import type { Header } from './header.js';

const LICENCE_CODES = new Set<string>(Object.values(LicenceWarningCode));

const NOT_SAVED = 'Not saved: correct the marked fields.';

/** What the actions need of the form around them. */
interface ActionsHost {
  header: Header;
  editor: LineEditor;
  /** Beside Save, Confirm and Cancel order: what the last of them did. */
  notice: HTMLElement;
  /** Shows an order as read. */
  show: (order: SalesOrder) => Promise<void>;
  /** Reads a stored order and shows it. */
  open: (id: number) => Promise<SalesOrder>;
  startNew: () => Promise<void>;
  /** Tells the list that an order changed. */
  onSaved: () => void;
}

/** A transition of the order from `button`, told on `line` (createActions). */
type Transition = (
  button: HTMLButtonElement,
  line: HTMLElement,
  run: (order: SalesOrder) => Promise<SalesOrder>,
  done: (order: SalesOrder) => string,
) => void;

/**
 * A refusal: in the clerk's words beside the fields it names (licence warnings ask for the
 * acknowledgement beside Confirm); a stale version reloads the order.
 */
const refusalOf =
  ({ errors, report, state }: FormContext, host: ActionsHost, acknowledgeError: HTMLElement) =>
  async (error: unknown, line: HTMLElement) => {
    if (error instanceof SalesOrderPreconditionFailedError && state.current) {
      say(
        line,
        `Someone else changed ${state.current.sales_order_no} after you opened it. It has been reloaded with their changes: make yours again.`,
        true,
      );
      await host.open(state.current.sales_order_id);
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

/** Cancel order: asks for the reason in a box of its own, then cancels with If-Match. */
const createCancelBox = ({ client, errors }: FormContext, transition: Transition) => {
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

  return { cancel, cancelBox };
};

/**
 * The order's buttons: Save (a new order with an Idempotency-Key, an opened one with If-Match),
 * Confirm (with the acknowledgement of licence warnings), Cancel order (with its reason) and New
 * order; a refusal in the clerk's words beside the fields it names.
 */
export const createActions = (context: FormContext, host: ActionsHost) => {
  const { client, form, errors, report, state } = context;
  const { header, editor, notice } = host;
  const save = el('button', { type: 'submit', class: 'primary', disabled: true }, 'Save');
  const newOrder = el('button', { type: 'button' }, 'New order');
  const confirm = el('button', { type: 'button', hidden: true }, 'Confirm');
  const {
    control: acknowledge,
    error: acknowledgeError,
    box: acknowledgeBox,
  } = acknowledgement('acknowledge-warnings', 'Acknowledge licence warnings');
  errors.register('acknowledge_warnings', acknowledgeError);

  /** One key per new-order draft: a second Save of the same draft (a double click, a retry) makes no second order. */
  let draftKey = crypto.randomUUID();
  let saving = false;

  const refused = refusalOf(context, host, acknowledgeError);

  const fullBody = () => ({
    ...header.fullBody(),
    details: editor.detailsBody(),
    other_charges: editor.chargesBody(),
  });

  /** Saves the form: creates a new order, or updates the opened one (a confirmed one's header only). */
  const send = () => {
    const editing = state.current;
    return editing
      ? client
          .updateSalesOrder(
            editing.sales_order_id,
            (editing.status === 'draft' ? fullBody() : header.openBody()) as UpdateSalesOrderBody,
            { ifMatch: editing.version },
          )
          .then(async () => {
            await host.open(editing.sales_order_id);
            say(notice, `Saved ${editing.sales_order_no}.`);
          })
      : client
          .createSalesOrder(fullBody() as CreateSalesOrderBody, { idempotencyKey: draftKey })
          .then(async (created) => {
            await host.open(created.sales_order_id);
            say(notice, `Saved as order ${created.order_number}.`);
          });
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (saving || !state.ready) return;
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
    send()
      .then(host.onSaved, (error: unknown) => refused(error, notice))
      .catch(report)
      .finally(() => {
        saving = false;
        applyStatus();
      });
  });

  newOrder.addEventListener('click', () => {
    host.startNew().then(() => say(notice, 'New order.'), report);
  });

  /**
   * A transition of the order on the form, from its button: the button is off while it runs,
   * then the form shows the order as it now reads and `line` says `done` of it.
   */
  const transition: Transition = (button, line, run, done) => {
    if (!state.current) return;
    const order = state.current;
    errors.clear();
    whileOff(button, report, () =>
      run(order).then(
        async (changed) => {
          await host.show(changed);
          say(notice, done(changed));
          host.onSaved();
        },
        (error: unknown) => refused(error, line),
      ),
    );
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

  const { cancel, cancelBox } = createCancelBox(context, transition);

  /** Which buttons the order's status offers. */
  function applyStatus() {
    const open = isOpen(state) && state.changing === undefined;
    save.disabled = !open || !state.ready;
    confirm.hidden = statusOf(state) !== 'draft' || state.current === undefined;
    acknowledgeBox.hidden = confirm.hidden;
    cancel.hidden = !open || state.current === undefined;
    cancelBox.hidden = true;
  }

  return {
    /** The buttons with the status line beside them. */
    row: el('div', { class: 'actions' }, save, confirm, acknowledgeBox, cancel, newOrder, notice),
    cancelBox,
    applyStatus,
    /** An order shown afresh: nothing acknowledged yet. */
    reset() {
      acknowledge.checked = false;
    },
    /** A new draft: a Save of it makes a new order. */
    newDraft() {
      draftKey = crypto.randomUUID();
    },
    refused,
  };
};

export type Actions = ReturnType<typeof createActions>;
