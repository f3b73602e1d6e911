/** Small DOM helpers: the page builds its elements with these instead of HTML strings. */

type Attributes = Record<string, string | boolean | undefined>;

export const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  element.append(...children);
  return element;
};

let nextId = 0;
/** A unique element id, for label `for` and `aria-describedby`. */
export const uniqueId = (prefix: string) => `${prefix}-${++nextId}`;

/** A control with its visible label and the slot where its errors appear. */
export interface LabelledControl<C extends HTMLElement> {
  wrapper: HTMLElement;
  control: C;
  error: HTMLElement;
}

export const labelled = <C extends HTMLElement>(text: string, control: C, extra: Node[] = []): LabelledControl<C> => {
  control.id ||= uniqueId('control');
  const error = errorSlot();
  const wrapper = el('div', { class: 'field' }, el('label', { for: control.id }, text), control, ...extra, error);
  return { wrapper, control, error };
};

/** Where an error of a control appears; `showError` links it to the control. */
export const errorSlot = () => el('span', { class: 'field-error', id: uniqueId('error'), hidden: true });

/** The control an error slot belongs to: the input, select or textarea of its field. */
export const controlOf = (slot: HTMLElement) =>
  slot.parentElement?.querySelector<HTMLElement>(
    ':scope > input, :scope > select, :scope > textarea, :scope > label > input',
  ) ?? undefined;

/**
 * Shows or clears an error: the control gets `aria-invalid="true"` and `aria-describedby` naming
 * the message while there is one, and neither once it is cleared (an empty aria-invalid reads as
 * false to assistive technology).
 */
export const showError = (slot: HTMLElement, message: string | undefined) => {
  slot.textContent = message ?? '';
  slot.hidden = message === undefined;
  const control = controlOf(slot);
  if (!control) return;
  if (message === undefined) {
    control.removeAttribute('aria-invalid');
    control.removeAttribute('aria-describedby');
  } else {
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', slot.id);
  }
};

/** A checkbox that acknowledges licence warnings, with its error slot, in a box hidden until they stand. */
export const acknowledgement = (id: string, text: string) => {
  const control = el('input', { type: 'checkbox', id });
  const error = errorSlot();
  const box = el('span', { class: 'acknowledge', hidden: true }, el('label', {}, control, ` ${text}`), error);
  return { control, error, box };
};
