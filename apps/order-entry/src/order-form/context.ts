import type { SalesOrderClient } from '@sales-order/client';
import type { SalesOrder } from '@sales-order/contract';

import type { FieldErrors } from '../errors.js';
import type { Options } from '../options.js';

/** What the parts of the order form share: the service, the kept lists, the form and its state. */
export interface FormContext {
  client: SalesOrderClient;
  options: Options;
  form: HTMLFormElement;
  errors: FieldErrors;
  /** Tells a failed call that its caller did not handle, beside Save. */
  report: (error: unknown) => void;
  state: FormState;
}

export interface FormState {
  /** The order being edited; undefined for a new one. */
  current: SalesOrder | undefined;
  /** Save waits for the dropdowns: an order saved before its selects are filled would lose its choices. */
  ready: boolean;
  /**
   * A change to the confirmed order under way (change.ts): its lines typed in (`editing`), or the
   * change opened and previewed; the header and the other buttons wait meanwhile.
   */
  changing: 'editing' | 'previewing' | undefined;
}

export type OrderStatus = SalesOrder['status'];

/** The status of the order on the form (a new order is a draft). */
export const statusOf = (state: FormState): OrderStatus => state.current?.status ?? 'draft';

/** Whether the order's lines may change: a new order or a draft. */
export const linesEditable = (state: FormState) => statusOf(state) === 'draft';

/** Whether anything on the order may change: a draft or a confirmed order. */
export const isOpen = (state: FormState) => ['draft', 'confirmed'].includes(statusOf(state));
