import type { LicenceWarning, SalesOrderDetail } from '@sales-order/client';
import { typedNumber } from '@sales-order/pricing';

import { addCheck, decimalRule, requiredRule } from './checks.js';
import type { Picker } from './combobox.js';
import { el, labelled, uniqueId } from './dom.js';
import type { FieldErrors } from './errors.js';
import { wordingOf } from './wording.js';

/** One order line as the clerk sees it: product, quantity, rate and the licence warnings. */
export interface LineRow {
  root: HTMLFieldSetElement;
  legend: HTMLLegendElement;
  product: HTMLInputElement;
  quantity: HTMLInputElement;
  rate: HTMLInputElement;
  remove: HTMLButtonElement;
  warnings: HTMLUListElement;
  /** The error slots of product, quantity and rate, and of the line as a whole. */
  slots: { product: HTMLElement; quantity: HTMLElement; rate: HTMLElement; line: HTMLElement };
  /** The warning codes shown, so an unchanged line is not touched when the warnings come back. */
  shownCodes: string;
  /** Kept from the stored line (the form does not edit them): sent back unchanged. */
  packsizeId: number | null;
  remarks: string | null;
  /** The product the packsize belongs to: choosing another product drops the packsize. */
  storedProductId: number | undefined;
  /** The stored line's id (an opened order's line), for what is shown beside it. */
  detailId: number | undefined;
}

/** One other charge (carriage, discount): description and signed amount. */
export interface ChargeRow {
  root: HTMLFieldSetElement;
  description: HTMLInputElement;
  amount: HTMLInputElement;
  remove: HTMLButtonElement;
}

/** The service's decimals: quantities 3, rates 4, amounts 2 (docs/api.md). */
const QUANTITY_PLACES = 3;
const RATE_PLACES = 4;
const AMOUNT_PLACES = 2;

/**
 * An opened order's lines come in parts: the first at once (the first screen), the rest a part
 * per task, so the page paints and answers between parts however long the order is.
 */
const FIRST_LINES = 20;
const LINES_PER_TASK = 60;

const decimalInput = (value = '') =>
  el('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', value, class: 'decimal' });

/** The next task: after the browser has had its turn to paint and to handle input. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The lines and other charges of the form. Paths of the envelope's details ("details.2.rate",
 * "other_charges.0.amount") are registered for each row in the order the rows are sent. Every
 * line is a copy of one template (its Product a field of the one product picker), its events
 * handled once for all lines.
 */
export const createLineEditor = (products: Picker, errors: FieldErrors, onChange: () => void) => {
  const lines: LineRow[] = [];
  const charges: ChargeRow[] = [];
  const rowOf = new WeakMap<Element, LineRow>();
  const linesBox = el('div', { class: 'lines' });
  const chargesBox = el('div', { class: 'charges' });
  /** Bumped by clear(): lines still coming in for an order no longer shown stop. */
  let generation = 0;
  let locked = false;

  const template = (() => {
    const field = (label: string, control: HTMLElement, kind: string) =>
      el(
        'div',
        { class: `field ${kind}` },
        el('label', {}, label),
        control,
        el('span', { class: 'field-error', hidden: true }),
      );
    return el(
      'fieldset',
      { class: 'line' },
      el('legend', {}),
      el(
        'div',
        { class: 'line-fields' },
        field('Product', products.field(), 'product'),
        field('Quantity', decimalInput(), 'quantity'),
        field('Rate', decimalInput(), 'rate'),
        el('div', { class: 'field remove' }, el('button', { type: 'button', class: 'remove-line' }, 'Remove line')),
      ),
      el('ul', { class: 'warnings', 'aria-label': 'Licence warnings' }),
      el('span', { class: 'field-error line-error', hidden: true }),
    );
  })();

  const register = (line: LineRow, index: number) => {
    errors.register(`details.${index}.product_id`, line.slots.product);
    errors.register(`details.${index}.quantity`, line.slots.quantity);
    errors.register(`details.${index}.rate`, line.slots.rate);
    errors.register(`details.${index}`, line.slots.line);
  };

  const canRemove = () => !locked && lines.length > 1;

  const renumber = () => {
    errors.unregisterUnder('details');
    errors.unregisterUnder('other_charges');
    lines.forEach((line, index) => {
      line.legend.textContent = `Line ${index + 1}`;
      register(line, index);
      line.remove.disabled = !canRemove();
    });
    charges.forEach((charge, index) => {
      charge.root.querySelector('legend')!.textContent = `Charge ${index + 1}`;
      errors.register(
        `other_charges.${index}.description`,
        charge.description.parentElement!.querySelector('.field-error')!,
      );
      errors.register(`other_charges.${index}.amount`, charge.amount.parentElement!.querySelector('.field-error')!);
    });
  };

  /** A line from the template; with `stored`, a line of an opened order. Numbered and registered as line `index`. */
  const buildLine = (index: number, stored?: SalesOrderDetail): LineRow => {
    const root = template.cloneNode(true) as HTMLFieldSetElement;
    const [product, quantity, rate] = root.querySelectorAll<HTMLInputElement>('input');
    const errorSlots = root.querySelectorAll<HTMLElement>('.field-error');
    const base = uniqueId('line');
    const row: LineRow = {
      root,
      legend: root.querySelector('legend')!,
      product: product!,
      quantity: quantity!,
      rate: rate!,
      remove: root.querySelector('button')!,
      warnings: root.querySelector('ul')!,
      slots: { product: errorSlots[0]!, quantity: errorSlots[1]!, rate: errorSlots[2]!, line: errorSlots[3]! },
      shownCodes: '',
      packsizeId: stored?.packsize_id ?? null,
      remarks: stored?.remarks ?? null,
      storedProductId: stored?.product_id,
      detailId: stored?.sales_order_detail_id,
    };
    const labels = root.querySelectorAll('label');
    for (const [n, control] of [row.product, row.quantity, row.rate].entries()) {
      control.id = `${base}-${n}`;
      labels[n]!.htmlFor = control.id;
    }
    for (const [n, slot] of [...errorSlots].entries()) slot.id = `${base}-e${n}`;
    row.legend.textContent = `Line ${index + 1}`;
    if (stored) {
      products.set(row.product, { id: stored.product_id, name: stored.product_name });
      row.quantity.value = String(stored.quantity);
      row.rate.value = String(stored.rate);
    } else products.set(row.product, undefined);
    for (const control of [row.product, row.quantity, row.rate]) control.disabled = locked;
    const at = () => `details.${lines.indexOf(row)}`;
    addCheck(
      row.product,
      row.slots.product,
      () => `${at()}.product_id`,
      () => (products.valueOf(row.product) === undefined ? 'required' : undefined),
    );
    addCheck(
      row.quantity,
      row.slots.quantity,
      () => `${at()}.quantity`,
      decimalRule(row.quantity, { above: 0, places: QUANTITY_PLACES }),
    );
    addCheck(row.rate, row.slots.rate, () => `${at()}.rate`, decimalRule(row.rate, { min: 0, places: RATE_PLACES }));
    rowOf.set(root, row);
    register(row, index);
    return row;
  };

  const append = (rows: LineRow[]) => {
    lines.push(...rows);
    linesBox.append(...rows.map((row) => row.root));
  };

  linesBox.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button.remove-line') : null;
    const row = button ? rowOf.get(button.closest('fieldset')!) : undefined;
    if (!row) return;
    lines.splice(lines.indexOf(row), 1);
    row.root.remove();
    renumber();
    onChange();
  });

  /** A new empty line. */
  const addLine = () => {
    const row = buildLine(lines.length);
    append([row]);
    for (const line of lines) line.remove.disabled = !canRemove();
    return row;
  };

  /**
   * An opened order's lines: the first screen's at once, then the rest a part per task. Resolves
   * true once all are in, false when the form moved on (cleared) meanwhile.
   */
  const addStoredLines = async (stored: readonly SalesOrderDetail[]) => {
    const mine = generation;
    for (let from = 0; from < stored.length;) {
      const to = from === 0 ? FIRST_LINES : from + LINES_PER_TASK;
      append(stored.slice(from, to).map((detail, offset) => buildLine(from + offset, detail)));
      from = to;
      if (from < stored.length) await nextTask();
      if (mine !== generation) return false;
    }
    for (const line of lines) line.remove.disabled = !canRemove();
    return true;
  };

  const addCharge = (stored?: { description: string; amount: number }) => {
    const description = labelled('Charge description', el('input', { type: 'text', value: stored?.description ?? '' }));
    const amount = labelled('Charge amount', decimalInput(stored ? String(stored.amount) : ''));
    const remove = el('button', { type: 'button' }, 'Remove charge');
    const root = el(
      'fieldset',
      { class: 'charge' },
      el('legend', {}),
      el(
        'div',
        { class: 'charge-fields' },
        description.wrapper,
        amount.wrapper,
        el('div', { class: 'field remove' }, remove),
      ),
    );
    const row: ChargeRow = { root, description: description.control, amount: amount.control, remove };
    const at = () => `other_charges.${charges.indexOf(row)}`;
    addCheck(description.control, description.error, () => `${at()}.description`, requiredRule(description.control));
    addCheck(
      amount.control,
      amount.error,
      () => `${at()}.amount`,
      decimalRule(amount.control, { places: AMOUNT_PLACES }),
    );
    for (const control of [description.control, amount.control, remove]) control.disabled = locked;
    charges.push(row);
    chargesBox.append(root);
    remove.addEventListener('click', () => {
      charges.splice(charges.indexOf(row), 1);
      root.remove();
      renumber();
      onChange();
    });
    renumber();
    return row;
  };

  const clear = () => {
    generation += 1;
    products.close();
    lines.splice(0).forEach((line) => line.root.remove());
    charges.splice(0).forEach((charge) => charge.root.remove());
    errors.unregisterUnder('details');
    errors.unregisterUnder('other_charges');
  };

  return {
    lines,
    charges,
    linesBox,
    chargesBox,
    addLine,
    addStoredLines,
    addCharge,
    clear,
    /** The row a control of a line belongs to. */
    rowOf: (control: Element) => {
      const root = control.closest('fieldset.line');
      return root ? rowOf.get(root) : undefined;
    },
    /**
     * Locks or unlocks what the order's status freezes (lines and charges after confirm): lines
     * built from here on are built so, those in place are switched. A change to a confirmed
     * order unlocks the lines only (`charges`).
     */
    setLocked(lock: boolean, lockCharges = lock) {
      locked = lock;
      for (const line of lines) {
        for (const control of [line.product, line.quantity, line.rate]) control.disabled = lock;
        line.remove.disabled = !canRemove();
      }
      for (const charge of charges)
        for (const control of [charge.description, charge.amount, charge.remove]) control.disabled = lockCharges;
    },
    productOf: (line: LineRow) => products.valueOf(line.product),
    /** The lines as the create and update bodies take them (the page's checks passed before this is sent). */
    detailsBody: () =>
      lines.map((line) => {
        const productId = products.valueOf(line.product);
        return {
          product_id: productId ?? null,
          quantity: typedNumber(line.quantity.value) ?? null,
          rate: typedNumber(line.rate.value) ?? null,
          ...(line.packsizeId !== null && productId === line.storedProductId ? { packsize_id: line.packsizeId } : {}),
          ...(line.remarks !== null ? { remarks: line.remarks } : {}),
        };
      }),
    chargesBody: () =>
      charges.map((charge) => ({
        description: charge.description.value,
        amount: typedNumber(charge.amount.value) ?? null,
      })),
    /**
     * Licence warnings beside the lines of the products they concern: each once per line, in the
     * clerk's words. A line whose warnings did not change is not touched.
     */
    showWarnings(warnings: readonly LicenceWarning[]) {
      const byProduct = new Map<number, Set<string>>();
      for (const warning of warnings)
        byProduct.set(warning.product_id, (byProduct.get(warning.product_id) ?? new Set()).add(warning.code));
      for (const line of lines) {
        const productId = products.valueOf(line.product);
        const codes = [...((productId !== undefined && byProduct.get(productId)) || [])];
        const shown = codes.join(' ');
        if (shown === line.shownCodes) continue;
        line.shownCodes = shown;
        line.warnings.replaceChildren(
          ...codes.map((code) => el('li', { 'data-code': code }, wordingOf({ code, path: '', message: '' }))),
        );
      }
    },
  };
};

export type LineEditor = ReturnType<typeof createLineEditor>;
