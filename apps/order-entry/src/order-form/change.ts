import {
  ChangeCode,
  type ChangeDifference,
  type ChangeLineInput,
  LicenceWarningCode,
  type OrderChange,
  SalesOrderApiError,
  SalesOrderPreconditionFailedError,
} from '@sales-order/client';
import type { SalesOrder } from '@sales-order/contract';
import { typedNumber } from '@sales-order/pricing';

import { addCheck, requiredRule, runCheck, runChecks } from '../checks.js';
import { acknowledgement, el, labelled, showError } from '../dom.js';
import { isSessionEnded } from '../errors.js';
import { formatAmount, formatQuantity } from '../format.js';
import type { LineEditor, LineRow } from '../lines.js';
import { reportOn, say, statusLine, whileOff } from '../notice.js';
import type { Options } from '../options.js';
import { wordingOf } from '../wording.js';
import type { FormContext } from './context.js';

/** What the change panel needs of the form around it. */
interface ChangeHost {
  editor: LineEditor;
  /** Applies the order's status and `state.changing` to the form. */
  applyStatus: () => void;
  show: (order: SalesOrder) => Promise<void>;
  open: (id: number) => Promise<SalesOrder>;
  onSaved: () => void;
}

const LICENCE_CODES = new Set<string>(Object.values(LicenceWarningCode));
const NONE = '—';

/** "10 → 12", or "12" when it stays; "—" for the side a line added or removed lacks. */
const fromTo = (before: number | null, after: number | null, format: (value: number) => string) =>
  before === after && after !== null
    ? format(after)
    : `${before === null ? NONE : format(before)} → ${after === null ? NONE : format(after)}`;

/**
 * The change's lines as the open body takes them, from the lines typed against the order's
 * stored ones: a stored line gone is removed, one typed differently names what differs, a line
 * without a stored one is added. `rows[i]` is the line of the body's `details[i]` (for errors).
 */
const changeBody = (order: SalesOrder, editor: LineEditor) => {
  const details: ChangeLineInput[] = [];
  const rows: (LineRow | undefined)[] = [];
  for (const stored of order.details) {
    const row = editor.lines.find((line) => line.detailId === stored.sales_order_detail_id);
    if (!row) {
      details.push({ sales_order_detail_id: stored.sales_order_detail_id, remove: true });
      rows.push(undefined);
      continue;
    }
    const productId = editor.productOf(row);
    const quantity = typedNumber(row.quantity.value);
    const rate = typedNumber(row.rate.value);
    const line: ChangeLineInput = {
      ...(productId !== stored.product_id ? { product_id: productId, packsize_id: null } : {}),
      ...(quantity !== stored.quantity ? { quantity } : {}),
      ...(rate !== stored.rate ? { rate } : {}),
    };
    if (Object.keys(line).length === 0) continue;
    details.push({ sales_order_detail_id: stored.sales_order_detail_id, ...line });
    rows.push(row);
  }
  for (const row of editor.lines.filter((line) => line.detailId === undefined)) {
    details.push({
      product_id: editor.productOf(row),
      quantity: typedNumber(row.quantity.value),
      rate: typedNumber(row.rate.value),
    });
    rows.push(row);
  }
  return { details, rows };
};

/** A table with a caption, its head row and body rows (the first cell of each row its header). */
const table = (caption: string, head: string[], rows: string[][]) =>
  el(
    'div',
    { class: 'table-box' },
    el(
      'table',
      { class: 'change-table' },
      el('caption', {}, caption),
      el('thead', {}, el('tr', {}, ...head.map((text) => el('th', { scope: 'col' }, text)))),
      el(
        'tbody',
        {},
        ...rows.map(([first, ...rest]) =>
          el('tr', {}, el('th', { scope: 'row' }, first ?? ''), ...rest.map((text) => el('td', {}, text))),
        ),
      ),
    ),
  );

/**
 * The preview of a change as a clerk reads it: the difference line by line (quantity, rate and
 * amount before and after, what was delivered), the totals before and after, and the licence
 * warnings of what the change adds, each in the page's words.
 */
const previewOf = async (change: OrderChange, order: SalesOrder, options: Options) => {
  const stored = new Map(order.details.map((detail, index) => [detail.sales_order_detail_id, { detail, index }]));
  const productName = async (id: number) =>
    order.details.find((detail) => detail.product_id === id)?.product_name ??
    (await options.nameOf('products', id)) ??
    `Product ${id}`;
  const lineName = (difference: ChangeDifference) => {
    const at = difference.sales_order_detail_id === null ? undefined : stored.get(difference.sales_order_detail_id);
    if (!at) return 'New line';
    return `Line ${at.index + 1}${difference.kind === 'removed' ? ' (removed)' : ''}`;
  };
  const differences = await Promise.all(
    change.differences.map(async (difference) => [
      lineName(difference),
      await productName(difference.product_id),
      fromTo(difference.quantity_before, difference.quantity_after, formatQuantity),
      fromTo(difference.rate_before, difference.rate_after, formatQuantity),
      fromTo(difference.amount_before, difference.amount_after, formatAmount),
      formatQuantity(difference.delivered_quantity),
    ]),
  );
  const before = change.totals_before;
  const after = change.order;
  const warnings = await Promise.all(
    change.licence.warnings.map(
      async (warning) =>
        `${await productName(warning.product_id)}: ${wordingOf({ code: warning.code, path: '', message: '' })}`,
    ),
  );
  return [
    table('What the change does', ['Line', 'Product', 'Quantity', 'Rate', 'Amount', 'Delivered'], differences),
    table(
      'Totals before and after',
      ['Total', 'Before', 'After'],
      [
        ['Subtotal', formatAmount(before.subtotal), formatAmount(after.subtotal)],
        ['Other charges total', formatAmount(before.other_charges_total), formatAmount(after.other_charges_total)],
        ['Grand total', formatAmount(before.grand_total), formatAmount(after.grand_total)],
      ],
    ),
    ...(warnings.length === 0
      ? []
      : [
          el(
            'ul',
            { class: 'warnings', 'aria-label': 'Licence warnings of the change' },
            ...warnings.map((text) => el('li', {}, text)),
          ),
        ]),
  ];
};

/** Where a refusal of the change panel is told, and how an open change is shown. */
interface RefusalTargets {
  status: HTMLElement;
  report: (error: unknown) => void;
  acknowledgeError: HTMLElement;
  showChange: (change: OrderChange, order: SalesOrder) => Promise<void>;
}

/**
 * A refusal of open, apply or discard, in the clerk's words: beside the lines of the body it
 * names (`rows`), or the open change shown when there is one already, or the order reloaded when
 * it moved on.
 */
const refusalOf =
  (
    { client, errors }: FormContext,
    host: ChangeHost,
    { status, report, acknowledgeError, showChange }: RefusalTargets,
  ) =>
  async (error: unknown, order: SalesOrder, rows: (LineRow | undefined)[] = []) => {
    if (!(error instanceof SalesOrderApiError) || isSessionEnded(error)) {
      report(error);
      return;
    }
    const codes = new Set(error.details.map((detail) => detail.code));
    const words = error.details.map((detail) => wordingOf(detail));
    if (codes.has(ChangeCode.changeAlreadyOpen)) {
      const open = (await client.listChanges(order.sales_order_id)).changes.find((c) => c.status === 'open');
      if (open) await showChange(open, order);
      say(status, `${words[0]}.`, true);
      return;
    }
    if (codes.has(ChangeCode.changeNotOpen) || error instanceof SalesOrderPreconditionFailedError) {
      if (error.details.some((detail) => detail.code === ChangeCode.changeNoLongerHolds)) {
        say(status, `${[...new Set(words)].join('. ')}.`, true);
        return;
      }
      await host.open(order.sales_order_id);
      say(status, `${words[0] ?? 'Someone else changed this order after you opened it'}. It has been reloaded.`, true);
      return;
    }
    if ([...codes].some((code) => code !== undefined && LICENCE_CODES.has(code))) {
      showError(acknowledgeError, "Tick 'Apply despite the licence warnings' to apply the change");
      say(status, "Not applied: tick 'Apply despite the licence warnings' to apply it despite them.", true);
      return;
    }
    // The body's line i is the form's line rows[i]: its errors go beside that line.
    errors.show(
      error.details.map((detail) => {
        const [, index, ...rest] = /^details\.(\d+)(.*)$/.exec(detail.path) ?? [];
        const row = index === undefined ? undefined : rows[Number(index)];
        const path =
          detail.path === 'reason'
            ? 'change_reason'
            : row
              ? `details.${host.editor.lines.indexOf(row)}${rest.join('')}`
              : index === undefined
                ? detail.path
                : 'details';
        return { ...detail, path };
      }),
    );
    say(status, words.length === 1 ? `${words[0]}.` : 'The change was not previewed: correct the marked lines.', true);
  };

/** The panel's elements: the button that starts a change, the reason and Preview, the preview with Apply and Discard. */
const changeElements = () => {
  const start = el('button', { type: 'button', hidden: true }, 'Change this order');
  const reason = labelled('Reason for the change', el('textarea', { rows: '2', maxlength: '500' }));
  addCheck(reason.control, reason.error, () => 'change_reason', requiredRule(reason.control));
  const preview = el('button', { type: 'button' }, 'Preview change');
  const leave = el('button', { type: 'button' }, 'Leave the order as it is');
  const editBox = el(
    'div',
    { class: 'change-edit', hidden: true },
    el(
      'p',
      { class: 'hint' },
      'Change quantities and rates, add or remove lines, then preview the change. Nothing changes until you apply it.',
    ),
    reason.wrapper,
    el('div', { class: 'actions' }, preview, leave),
  );
  const shown = el('div', { class: 'change-preview-body' });
  const {
    control: acknowledge,
    error: acknowledgeError,
    box: acknowledgeBox,
  } = acknowledgement('acknowledge-change-warnings', 'Apply despite the licence warnings');
  const apply = el('button', { type: 'button' }, 'Apply change');
  const discard = el('button', { type: 'button' }, 'Discard change');
  const previewBox = el(
    'div',
    { class: 'change-preview', role: 'region', hidden: true, 'aria-labelledby': 'change-preview-heading' },
    el('h3', { id: 'change-preview-heading' }, 'Preview of the change'),
    shown,
    el('div', { class: 'actions' }, apply, discard, acknowledgeBox),
  );
  const status = statusLine('change-status');
  const box = el('div', { class: 'change-box' }, el('div', { class: 'actions' }, start), editBox, previewBox, status);
  return {
    box,
    start,
    reason,
    preview,
    leave,
    editBox,
    previewBox,
    shown,
    acknowledge,
    acknowledgeBox,
    acknowledgeError,
    apply,
    discard,
    status,
  };
};

/**
 * A change to a confirmed order (docs/api.md, "Changing a confirmed order"): "Change this order"
 * unlocks its lines; "Preview change" opens the change with If-Match (the order does not change)
 * and shows the difference, the totals and the licence warnings; "Apply change" applies it, and
 * "Discard change" ends it and returns to the typed lines. Refusals in the clerk's words, beside
 * the lines they name.
 */
export const createChangePanel = (context: FormContext, host: ChangeHost) => {
  const { client, options, errors, state } = context;
  const parts = changeElements();
  const { start, reason, preview, leave, editBox, previewBox, shown, apply, discard, status } = parts;
  const { acknowledge, acknowledgeBox, acknowledgeError } = parts;
  const report = reportOn(status);
  errors.register('change_reason', reason.error);
  /** The change opened and shown, until applied or discarded. */
  let opened: OrderChange | undefined;

  const enter = (mode: typeof state.changing) => {
    state.changing = mode;
    host.applyStatus();
    start.hidden = mode !== undefined || state.current?.status !== 'confirmed';
    editBox.hidden = mode !== 'editing';
    previewBox.hidden = mode !== 'previewing';
  };

  const showChange = async (change: OrderChange, order: SalesOrder) => {
    opened = change;
    shown.replaceChildren(...(await previewOf(change, order, options)));
    acknowledge.checked = false;
    showError(acknowledgeError, undefined);
    acknowledgeBox.hidden = change.licence.warnings.length === 0;
    enter('previewing');
  };

  const refused = refusalOf(context, host, { status, report, acknowledgeError, showChange });

  start.addEventListener('click', () => {
    errors.clear();
    enter('editing');
    say(status, '');
    host.editor.lines[0]?.quantity.focus();
  });
  leave.addEventListener('click', () => {
    if (state.current) host.show(state.current).catch(report);
  });

  preview.addEventListener('click', () => {
    const order = state.current;
    if (!order) return;
    errors.clear();
    if (!runChecks(host.editor.linesBox) || !runCheck(reason.control)) {
      say(status, 'Not previewed: correct the marked fields.', true);
      errors.firstInvalid(editBox.closest('form')!)?.focus();
      return;
    }
    const { details, rows } = changeBody(order, host.editor);
    say(status, 'Opening the change…');
    whileOff(preview, report, () =>
      client
        .openChange(order.sales_order_id, { reason: reason.control.value, details }, { ifMatch: order.version })
        .then(
          async (change) => {
            await showChange(change, order);
            say(status, 'Check the change below, then apply or discard it.');
          },
          (error: unknown) => refused(error, order, rows),
        ),
    );
  });

  apply.addEventListener('click', () => {
    const order = state.current;
    const change = opened;
    if (!order || !change) return;
    say(status, 'Applying the change…');
    const body = change.licence.warnings.length > 0 ? { acknowledge_warnings: acknowledge.checked } : {};
    whileOff(apply, report, () =>
      client.applyChange(order.sales_order_id, change.change_id, body).then(
        async () => {
          await host.open(order.sales_order_id);
          say(status, `Change applied: ${order.sales_order_no} now reads as previewed.`);
          host.onSaved();
        },
        (error: unknown) => refused(error, order),
      ),
    );
  });

  discard.addEventListener('click', () => {
    const order = state.current;
    const change = opened;
    if (!order || !change) return;
    whileOff(discard, report, () =>
      client.discardChange(order.sales_order_id, change.change_id).then(
        () => {
          opened = undefined;
          enter('editing');
          say(status, 'Change discarded: the order is as it was. Change the lines again, or leave the order as it is.');
        },
        (error: unknown) => refused(error, order),
      ),
    );
  });

  return {
    box: parts.box,
    /** An order shown afresh: no change under way; "Change this order" on a confirmed one. */
    show(order: SalesOrder | undefined) {
      opened = undefined;
      state.changing = undefined;
      reason.control.value = '';
      shown.replaceChildren();
      start.hidden = order?.status !== 'confirmed';
      editBox.hidden = true;
      previewBox.hidden = true;
      say(status, '');
    },
  };
};
