import type { LicenceWarning, SalesOrderDetail } from '@sales-order/client';

import { addCheck, decimalRule, numberOf, requiredRule } from './checks.js';
import { el, labelled } from './dom.js';
import type { FieldErrors } from './errors.js';
import { type Chosen, fillSelect, type Options, searchableSelect, selectedId } from './options.js';
import { wordingOf } from './wording.js';

/** One order line as the clerk sees it: product, quantity, rate and the licence warnings. */
export interface LineRow {
  root: HTMLFieldSetElement;
  product: HTMLSelectElement;
  quantity: HTMLInputElement;
  rate: HTMLInputElement;
  remove: HTMLButtonElement;
  warnings: HTMLUListElement;
  /** Kept from the stored line (the form does not edit them): sent back unchanged. */
  packsizeId: number | null;
  remarks: string | null;
  /** The product the packsize belongs to: choosing another product drops the packsize. */
  storedProductId: number | undefined;
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

const decimalInput = (value = '') =>
  el('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', value, class: 'decimal' });

/**
 * The lines and other charges of the form. Paths of the envelope's details ("details.2.rate",
 * "other_charges.0.amount") are registered for each row in the order the rows are sent.
 */
export const createLineEditor = (
  client: Parameters<typeof searchableSelect>[0],
  options: Options,
  errors: FieldErrors,
  onChange: () => void,
  fail: (error: unknown) => void,
) => {
  const lines: LineRow[] = [];
  const charges: ChargeRow[] = [];
  const linesBox = el('div', { class: 'lines' });
  const chargesBox = el('div', { class: 'charges' });

  const renumber = () => {
    errors.unregisterUnder('details');
    errors.unregisterUnder('other_charges');
    lines.forEach((line, index) => {
      line.root.querySelector('legend')!.textContent = `Line ${index + 1}`;
      for (const [field, control] of [
        ['product_id', line.product],
        ['quantity', line.quantity],
        ['rate', line.rate],
      ] as const) {
        errors.register(`details.${index}.${field}`, control.parentElement!.querySelector('.field-error')!);
      }
      errors.register(`details.${index}`, line.root.querySelector(':scope > .field-error')!);
    });
    charges.forEach((charge, index) => {
      charge.root.querySelector('legend')!.textContent = `Charge ${index + 1}`;
      errors.register(
        `other_charges.${index}.description`,
        charge.description.parentElement!.querySelector('.field-error')!,
      );
      errors.register(`other_charges.${index}.amount`, charge.amount.parentElement!.querySelector('.field-error')!);
    });
    for (const line of lines) line.remove.disabled = lines.length === 1 || line.product.disabled;
  };

  /**
   * A line from the kept product list; with `stored`, a line of an opened order (its product
   * offered even when the list lacks it). The caller renumbers: once for all of an order's lines.
   */
  const buildLine = (products: HTMLSelectElement, stored?: SalesOrderDetail) => {
    const product = labelled('Product', el('select', {}));
    const search = el('input', { type: 'search', placeholder: 'Type to narrow', autocomplete: 'off' });
    const searchField = labelled('Search products', search);
    const quantity = labelled('Quantity', decimalInput(stored ? String(stored.quantity) : ''));
    const rate = labelled('Rate', decimalInput(stored ? String(stored.rate) : ''));
    const remove = el('button', { type: 'button' }, 'Remove line');
    const warnings = el('ul', { class: 'warnings', 'aria-label': 'Licence warnings' });
    const root = el(
      'fieldset',
      { class: 'line' },
      el('legend', {}),
      el(
        'div',
        { class: 'line-fields' },
        product.wrapper,
        searchField.wrapper,
        quantity.wrapper,
        rate.wrapper,
        el('div', { class: 'field remove' }, remove),
      ),
      warnings,
      el('span', { class: 'field-error', hidden: true }),
    );
    const row: LineRow = {
      root,
      product: product.control,
      quantity: quantity.control,
      rate: rate.control,
      remove,
      warnings,
      packsizeId: stored?.packsize_id ?? null,
      remarks: stored?.remarks ?? null,
      storedProductId: stored?.product_id,
    };
    const at = () => `details.${lines.indexOf(row)}`;
    addCheck(product.control, product.error, () => `${at()}.product_id`, requiredRule(product.control));
    addCheck(
      quantity.control,
      quantity.error,
      () => `${at()}.quantity`,
      decimalRule(quantity.control, { above: 0, places: QUANTITY_PLACES }),
    );
    addCheck(
      rate.control,
      rate.error,
      () => `${at()}.rate`,
      decimalRule(rate.control, { min: 0, places: RATE_PLACES }),
    );
    lines.push(row);
    linesBox.append(root);
    remove.addEventListener('click', () => {
      lines.splice(lines.indexOf(row), 1);
      root.remove();
      renumber();
      onChange();
    });
    searchableSelect(client, options, row.product, search, 'products', 'Choose a product', fail);
    const chosen: Chosen | undefined = stored ? { id: stored.product_id, name: stored.product_name } : undefined;
    fillSelect(row.product, products, 'Choose a product', chosen);
    return row;
  };

  /** A new empty line. */
  const addLine = async () => {
    const row = buildLine(await options.load('products'));
    renumber();
    return row;
  };

  /** An opened order's lines, numbered once (numbering after each would be quadratic in 500 lines). */
  const addStoredLines = async (stored: readonly SalesOrderDetail[]) => {
    const products = await options.load('products');
    const rows = stored.map((detail) => buildLine(products, detail));
    renumber();
    return rows;
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
    lines.splice(0).forEach((line) => line.root.remove());
    charges.splice(0).forEach((charge) => charge.root.remove());
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
    /** Locks or unlocks what the order's status freezes (lines and charges after confirm). */
    setLocked(locked: boolean) {
      for (const line of lines)
        for (const control of line.root.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLButtonElement>(
          'input, select, button',
        ))
          control.disabled = locked;
      for (const charge of charges)
        for (const control of charge.root.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input, button'))
          control.disabled = locked;
      if (!locked) renumber();
    },
    /** The lines as the create and update bodies take them (the page's checks passed before this is sent). */
    detailsBody: () =>
      lines.map((line) => {
        const productId = selectedId(line.product);
        return {
          product_id: productId ?? null,
          quantity: numberOf(line.quantity.value) ?? null,
          rate: numberOf(line.rate.value) ?? null,
          ...(line.packsizeId !== null && productId === line.storedProductId ? { packsize_id: line.packsizeId } : {}),
          ...(line.remarks !== null ? { remarks: line.remarks } : {}),
        };
      }),
    chargesBody: () =>
      charges.map((charge) => ({
        description: charge.description.value,
        amount: numberOf(charge.amount.value) ?? null,
      })),
    /** Licence warnings beside the lines of the products they concern: each once per line, in the clerk's words. */
    showWarnings(warnings: readonly LicenceWarning[]) {
      for (const line of lines) {
        const productId = selectedId(line.product);
        const codes = new Set(warnings.filter((warning) => warning.product_id === productId).map((w) => w.code));
        line.warnings.replaceChildren(
          ...[...codes].map((code) => el('li', { 'data-code': code }, wordingOf({ code, path: '', message: '' }))),
        );
      }
    },
  };
};

export type LineEditor = ReturnType<typeof createLineEditor>;
