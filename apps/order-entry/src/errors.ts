import { SalesOrderApiError, SalesOrderNetworkError } from '@sales-order/client';

import { el, showError } from './dom.js';

/**
 * Where the envelope's `details[].path` ("customer_id", "details.1.quantity", "") lands: each
 * control registers its error slot under the path of its input; a path without a slot of its
 * own goes to the nearest registered parent ("details.1.amount" -> "details.1"), else to the
 * form's general list.
 */
export class FieldErrors {
  private readonly slots = new Map<string, HTMLElement>();

  constructor(private readonly general: HTMLElement) {}

  register(path: string, slot: HTMLElement) {
    this.slots.set(path, slot);
  }

  unregisterUnder(prefix: string) {
    for (const path of [...this.slots.keys()])
      if (path === prefix || path.startsWith(`${prefix}.`)) this.slots.delete(path);
  }

  clear() {
    for (const slot of this.slots.values()) showError(slot, undefined);
    this.general.replaceChildren();
    this.general.hidden = true;
  }

  /** Shows every detail beside its field; returns false when the error had no details. */
  show(error: SalesOrderApiError): boolean {
    this.clear();
    const byslot = new Map<HTMLElement, string[]>();
    const unplaced: string[] = [];
    for (const detail of error.details) {
      const slot = this.slotFor(detail.path);
      if (slot) byslot.set(slot, [...(byslot.get(slot) ?? []), detail.message]);
      else unplaced.push(detail.path ? `${detail.path}: ${detail.message}` : detail.message);
    }
    for (const [slot, messages] of byslot) showError(slot, messages.join(' '));
    if (unplaced.length > 0) {
      this.general.replaceChildren(...unplaced.map((message) => el('li', {}, message)));
      this.general.hidden = false;
    }
    return error.details.length > 0;
  }

  private slotFor(path: string): HTMLElement | undefined {
    const parts = path.split('.');
    while (parts.length > 0) {
      const slot = this.slots.get(parts.join('.'));
      if (slot) return slot;
      parts.pop();
    }
    return undefined;
  }
}

export const isSessionEnded = (error: unknown) => error instanceof SalesOrderApiError && error.status === 401;

/** One sentence for the notice line. */
export const describe = (error: unknown): string => {
  if (error instanceof SalesOrderApiError) return error.message;
  if (error instanceof SalesOrderNetworkError) return 'The service could not be reached. Try again in a moment.';
  return error instanceof Error ? error.message : String(error);
};
