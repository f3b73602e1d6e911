import type { LicenceValidation } from '@sales-order/client';
import { typedNumber } from '@sales-order/pricing';

import { el } from '../dom.js';
import { latestOnly } from '../latest-only.js';
import type { LineEditor } from '../lines.js';
import { type FormContext, linesEditable, statusOf } from './context.js';

/**
 * Pause in typing (in the lines, the charges or the order date) before licence warnings are asked
 * for; they are asked only when a product, a quantity or the date differs from the last ask.
 */
const LICENCE_DELAY_MS = 700;

/**
 * The order's lines on the form: the line editor (lines.ts), Add line, the note that says why
 * they are locked, and the licence warnings that follow the clerk's typing (validate-licence).
 */
export const createLinesSection = (
  context: FormContext,
  editor: LineEditor,
  orderDate: { value: string },
  onChange: () => void,
) => {
  const { client, errors, report, state } = context;
  const linesError = el('span', { class: 'field-error', hidden: true });
  errors.register('details', linesError);
  errors.register('other_charges', linesError);
  const addLine = el('button', { type: 'button' }, 'Add line');
  /** Why the lines cannot be typed in, beside them. */
  const lockedNote = el('p', { class: 'hint locked-note', hidden: true });

  addLine.addEventListener('click', () => {
    editor.addLine().product.focus();
    onChange();
  });

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
    const date = orderDate.value;
    return {
      sales_order_details: lines,
      ...(/^\d{4}-\d{2}-\d{2}$/.test(date) ? { sales_order_date: date } : {}),
      ...(state.current ? { sales_order_id: state.current.sales_order_id } : {}),
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

  return {
    elements: [
      el('h3', {}, 'Lines'),
      lockedNote,
      editor.linesBox,
      linesError,
      el('div', { class: 'actions' }, addLine),
    ],
    scheduleWarnings() {
      clearTimeout(licenceTimer);
      licenceTimer = setTimeout(() => {
        if (!linesEditable(state) || JSON.stringify(licenceQuestion()) === askedLicence) return;
        liveWarnings.now(askWarnings);
      }, LICENCE_DELAY_MS);
    },
    /** Asks for the warnings at once (an opened draft: they decide Confirm). */
    warnNow: () => liveWarnings.now(askWarnings),
    /** No warnings shown, none asked yet. */
    clearWarnings() {
      askedLicence = '';
      editor.showWarnings([]);
    },
    /** Locks the lines unless the order is a draft or a change is typed in (not its charges), and says why. */
    applyStatus() {
      const status = statusOf(state);
      const changing = state.changing === 'editing';
      const editable = changing || linesEditable(state);
      editor.setLocked(!editable, !linesEditable(state));
      lockedNote.hidden = editable;
      lockedNote.textContent =
        state.changing === 'previewing'
          ? 'The change is open: apply it or discard it below.'
          : status === 'confirmed'
            ? 'Confirmed: the lines are locked. Field officer, port, customer reference, delivery date and remarks can still change.'
            : `This order is ${status}: nothing on it can change.`;
      addLine.disabled = !editable;
    },
  };
};
