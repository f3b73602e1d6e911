import { SalesOrderApiError, SalesOrderNetworkError } from '@sales-order/client';

import { el, showError } from './dom.js';
import { STATUS_WORDING, UNEXPECTED, UNREACHABLE, wordingOf } from './wording.js';

/**
 * Where the envelope's `details[].path` ("customer_id", "details.1.quantity", "") lands: each
 * control registers its error slot under the path of its input; a path without a slot of its
 * own goes to the nearest registered parent ("details.1.amount" -> "details.1"), else to the
 * form's general list. Every message is the clerk's wording of the detail's code (wording.ts).
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

  /** Shows each detail beside its field, worded for the clerk; one sentence per slot, said once. */
  show(details: readonly { path: string; message: string; code?: string | undefined }[]) {
    this.clear();
    const bySlot = new Map<HTMLElement, Set<string>>();
    const unplaced = new Set<string>();
    for (const detail of details) {
      const slot = this.slotFor(detail.path);
      const words = wordingOf(detail);
      if (slot) bySlot.set(slot, (bySlot.get(slot) ?? new Set()).add(words));
      else unplaced.add(words);
    }
    for (const [slot, messages] of bySlot) showError(slot, [...messages].join('. '));
    if (unplaced.size > 0) {
      this.general.replaceChildren(...[...unplaced].map((message) => el('li', {}, message)));
      this.general.hidden = false;
    }
  }

  /** The first control showing an error, to move the focus to. */
  firstInvalid(root: HTMLElement): HTMLElement | null {
    return root.querySelector<HTMLElement>('[aria-invalid="true"]');
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

/** One sentence for a status line, in the clerk's words. */
export const describe = (error: unknown): string => {
  if (error instanceof SalesOrderApiError) {
    // A refusal of the whole request (429 rate_limited, 503 busy, 403 missing_permission) says why in its one detail.
    const whole = error.details.find((detail) => detail.path === '');
    if (whole && error.details.length === 1) return wordingOf(whole);
    return STATUS_WORDING[error.status] ?? UNEXPECTED;
  }
  if (error instanceof SalesOrderNetworkError) return UNREACHABLE;
  return UNEXPECTED;
};
