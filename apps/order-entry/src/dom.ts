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

/** A control with its visible label and the slot where the envelope's errors for it appear. */
export interface LabelledControl<C extends HTMLElement> {
  wrapper: HTMLElement;
  control: C;
  error: HTMLElement;
}

export const labelled = <C extends HTMLElement>(text: string, control: C, extra: Node[] = []): LabelledControl<C> => {
  control.id ||= uniqueId('control');
  const error = el('span', { class: 'field-error', id: uniqueId('error'), hidden: true });
  control.setAttribute('aria-describedby', error.id);
  const wrapper = el('div', { class: 'field' }, el('label', { for: control.id }, text), control, ...extra, error);
  return { wrapper, control, error };
};

export const showError = (slot: HTMLElement, message: string | undefined) => {
  slot.textContent = message ?? '';
  slot.hidden = message === undefined;
  const control = slot.parentElement?.querySelector('input, select, textarea');
  if (control) control.toggleAttribute('aria-invalid', message !== undefined);
};
