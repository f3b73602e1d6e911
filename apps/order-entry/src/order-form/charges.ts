import type { Totals } from '@sales-order/contract';
import { typedTotals } from '@sales-order/pricing';

import { el } from '../dom.js';
import { formatAmount } from '../format.js';
import type { LineEditor } from '../lines.js';

/**
 * The order's other charges (carriage, discounts) with Add charge, and the totals. Totals need no
 * request: the page prices with the server's own module (@sales-order/pricing), the same cents.
 */
export const createChargesSection = (editor: LineEditor) => {
  const addCharge = el('button', { type: 'button' }, 'Add charge');
  addCharge.addEventListener('click', () => {
    editor.addCharge().description.focus();
  });

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

  const showTotals = (answer: Totals | undefined) => {
    subtotal.value = answer ? formatAmount(answer.subtotal) : '—';
    chargesTotal.value = answer ? formatAmount(answer.other_charges_total) : '—';
    grandTotal.value = answer ? formatAmount(answer.grand_total) : '—';
  };

  /** Totals of what is typed. */
  const computeTotals = () =>
    showTotals(
      typedTotals(
        editor.lines.map((line) => ({ quantity: line.quantity.value, rate: line.rate.value })),
        editor.charges.map((charge) => ({ amount: charge.amount.value })),
      ),
    );
  /** Once a frame at most, however fast the keys come. */
  let totalsFrame: number | undefined;

  return {
    elements: [el('h3', {}, 'Other charges'), editor.chargesBox, el('div', { class: 'actions' }, addCharge)],
    totals,
    showTotals,
    scheduleTotals() {
      totalsFrame ??= requestAnimationFrame(() => {
        totalsFrame = undefined;
        computeTotals();
      });
    },
    /** Charges change only while the lines do (a draft). */
    applyStatus(editable: boolean) {
      addCharge.disabled = !editable;
    },
  };
};
