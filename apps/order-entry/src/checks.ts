import { typedNumber } from '@sales-order/pricing';

import { showError } from './dom.js';
import { wordingOf } from './wording.js';

/**
 * Checks the page makes before sending (a quantity that is not a number, a customer not
 * chosen), so the clerk hears what is wrong at the field at once. Each returns the detail code
 * the service would answer, worded by the same table as the service's refusals.
 */
type Rule = () => string | undefined;

interface Checked {
  rule: Rule;
  /** The envelope path the field answers to, for the wording ("details.0.quantity"). */
  path: () => string;
  slot: HTMLElement;
}

const checked = new WeakMap<HTMLElement, Checked>();

export const addCheck = (control: HTMLElement, slot: HTMLElement, path: () => string, rule: Rule) => {
  checked.set(control, { rule, path, slot });
};

/** Runs a control's check and shows or clears its error; true when it passes (or has no check). */
export const runCheck = (control: HTMLElement): boolean => {
  const check = checked.get(control);
  if (!check) return true;
  const code = check.rule();
  showError(check.slot, code === undefined ? undefined : wordingOf({ code, path: check.path(), message: '' }));
  return code === undefined;
};

/** Runs every check under `root` (disabled and hidden controls aside); true when all pass. */
export const runChecks = (root: HTMLElement): boolean => {
  let ok = true;
  for (const control of root.querySelectorAll<HTMLInputElement>('input, select, textarea'))
    if (!control.disabled && control.closest('[hidden]') === null && !runCheck(control)) ok = false;
  return ok;
};

const decimals = (text: string) => text.trim().split('.')[1]?.length ?? 0;

/** A decimal field's rule: present, a number, at least (or above) its least value, at most `places` decimals. */
export const decimalRule =
  (control: HTMLInputElement, { min, above, places }: { min?: number; above?: number; places: number }): Rule =>
  () => {
    const text = control.value;
    if (text.trim() === '') return 'required';
    const value = typedNumber(text);
    if (value === undefined) return 'invalid_number';
    if ((min !== undefined && value < min) || (above !== undefined && value <= above)) return 'too_small';
    if (decimals(text) > places) return 'too_many_decimals';
    return undefined;
  };

/** A select or text that must not be empty. */
export const requiredRule =
  (control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): Rule =>
  () =>
    control.value.trim() === '' ? 'required' : undefined;
