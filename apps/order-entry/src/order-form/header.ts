import type { CreateSalesOrderBody } from '@sales-order/client';
import type { DropdownType, SalesOrder } from '@sales-order/contract';

import { addCheck } from '../checks.js';
import type { Picker } from '../combobox.js';
import { el, labelled, type LabelledControl } from '../dom.js';
import { type Chosen, fillSelect, type Kept, selectedId } from '../options.js';
import { type FormContext, isOpen, linesEditable } from './context.js';

/**
 * The header fields a clerk types or picks: every header field of the create body but those the
 * service decides (number, total) or the buttons send (status, acknowledgement). Typed by the
 * contract, so a header field added there does not compile until HEADER_FIELDS has it.
 */
export type HeaderField = Exclude<
  keyof CreateSalesOrderBody,
  'details' | 'other_charges' | 'sales_order_no' | 'grand_total' | 'status' | 'acknowledge_warnings'
>;

/** How a header field is typed or picked, and how the order's value is shown in it. */
type Input =
  /** The customers picker: type-to-search over the kept list. */
  | { kind: 'picker'; name: (order: SalesOrder) => string | null }
  /** A select filled from a kept dropdown list, after a placeholder. */
  | { kind: 'select'; list: DropdownType; placeholder: string; name: (order: SalesOrder) => string | null }
  /** A date; `initial` is a new order's. */
  | { kind: 'date'; initial?: () => string }
  | { kind: 'text'; maxLength: number }
  | { kind: 'notes' };

interface HeaderFieldSpec {
  /** Its visible label (wording.ts names the field the same way in errors). */
  label: string;
  input: Input;
  /** Until when the clerk may change it: a draft's only, or a confirmed order's too. */
  changes: 'draft' | 'open';
  /** Checked by the page before sending (`Choose a customer`). */
  required?: true;
  /** Shown under the charges instead of with the header. */
  below?: true;
}

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

/** The header, field by field, in the order the form shows them. */
export const HEADER_FIELDS = {
  customer_id: {
    label: 'Customer',
    input: { kind: 'picker', name: (order) => order.customer_name },
    changes: 'draft',
    required: true,
  },
  location_id: {
    label: 'Location',
    input: { kind: 'select', list: 'locations', placeholder: 'Choose a location', name: () => null },
    changes: 'draft',
    required: true,
  },
  sales_order_date: { label: 'Order date', input: { kind: 'date', initial: today }, changes: 'draft', required: true },
  field_officer_id: {
    label: 'Field officer',
    input: { kind: 'select', list: 'field-officers', placeholder: 'None', name: (order) => order.field_officer_name },
    changes: 'open',
  },
  port_id: {
    label: 'Port',
    input: { kind: 'select', list: 'ports', placeholder: 'None', name: (order) => order.port_name },
    changes: 'open',
  },
  customer_reference: { label: 'Customer reference', input: { kind: 'text', maxLength: 100 }, changes: 'open' },
  delivery_date: { label: 'Delivery date', input: { kind: 'date' }, changes: 'open' },
  remarks: { label: 'Remarks', input: { kind: 'notes' }, changes: 'open', below: true },
} satisfies Record<HeaderField, HeaderFieldSpec>;

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type Value = string | number | null;

/** One header field on the form: its control, how it reads into a body, how an order fills it. */
interface HeaderControl extends LabelledControl<Control> {
  value: () => Value;
  /** Nothing chosen or typed (a required field's check). */
  missing: () => boolean;
  /** Before the kept lists are in: what needs no list. */
  fillTyped: (order: SalesOrder | undefined) => void;
  /** Once the kept lists are in. */
  fillChosen: (order: SalesOrder | undefined) => void;
  load: () => Promise<void>;
}

const optionalText = (control: Control) => (control.value.trim() === '' ? null : control.value);

const chosen = (id: number | null | undefined, name: string | null | undefined, label: string): Chosen | undefined =>
  id === null || id === undefined ? undefined : { id, name: name ?? `${label} ${id}` };

/** The stored value of a header field of `order`, as text for a typed control. */
const typedValue = (order: SalesOrder | undefined, path: HeaderField) => {
  const value = order?.[path];
  return value === null || value === undefined ? '' : String(value);
};

const buildControl = (
  path: HeaderField,
  spec: HeaderFieldSpec,
  { options, customers }: { options: FormContext['options']; customers: Picker },
): HeaderControl => {
  const { input, label } = spec;
  const idOf = (order: SalesOrder | undefined) => (order?.[path] ?? null) as number | null;
  switch (input.kind) {
    case 'picker': {
      const field = labelled(label, customers.field());
      return {
        ...field,
        value: () => customers.valueOf(field.control) ?? null,
        missing: () => customers.valueOf(field.control) === undefined,
        fillTyped: () => {},
        fillChosen: (order) => customers.set(field.control, order && chosen(idOf(order), input.name(order), label)),
        load: async () => {
          await customers.preload();
        },
      };
    }
    case 'select': {
      const field = labelled(label, el('select', {}));
      let kept: Kept | undefined;
      return {
        ...field,
        value: () => selectedId(field.control) ?? null,
        missing: () => field.control.value === '',
        fillTyped: () => {},
        fillChosen: (order) => {
          if (kept)
            fillSelect(
              field.control,
              kept.template,
              input.placeholder,
              order && chosen(idOf(order), input.name(order), label),
            );
        },
        load: async () => {
          kept = await options.load(input.list);
        },
      };
    }
    case 'date': {
      const field = labelled(label, el('input', { type: 'date' }));
      return {
        ...field,
        value: () => (spec.required || field.control.value !== '' ? field.control.value : null),
        missing: () => field.control.value.trim() === '',
        fillTyped: (order) => {
          field.control.value = order ? typedValue(order, path) : (input.initial?.() ?? '');
        },
        fillChosen: () => {},
        load: async () => {},
      };
    }
    case 'text':
    case 'notes': {
      const control =
        input.kind === 'text'
          ? el('input', { type: 'text', maxlength: String(input.maxLength) })
          : el('textarea', { rows: '2' });
      const field = labelled(label, control);
      return {
        ...field,
        value: () => optionalText(field.control),
        missing: () => field.control.value.trim() === '',
        fillTyped: (order) => {
          field.control.value = typedValue(order, path);
        },
        fillChosen: () => {},
        load: async () => {},
      };
    }
  }
};

/**
 * The order's header on the form, built from HEADER_FIELDS: each field registered for the
 * service's errors under its path, checked when required, locked by the order's status.
 */
export const createHeader = (context: FormContext, customers: Picker) => {
  const entries = (Object.entries(HEADER_FIELDS) as [HeaderField, HeaderFieldSpec][]).map(
    ([path, spec]) => [path, spec, buildControl(path, spec, { options: context.options, customers })] as const,
  );
  const fields = Object.fromEntries(entries.map(([path, , field]) => [path, field])) as Record<
    HeaderField,
    HeaderControl
  >;
  for (const [path, spec, field] of entries) {
    context.errors.register(path, field.error);
    if (spec.required)
      addCheck(
        field.control,
        field.error,
        () => path,
        () => (field.missing() ? 'required' : undefined),
      );
  }

  const bodyOf = (which: (spec: HeaderFieldSpec) => boolean) =>
    Object.fromEntries(entries.filter(([, spec]) => which(spec)).map(([path, , field]) => [path, field.value()]));

  return {
    /** The fields shown with the header, and those shown under the charges. */
    top: el('div', { class: 'header-fields' }, ...entries.filter(([, s]) => !s.below).map(([, , f]) => f.wrapper)),
    below: entries.filter(([, s]) => s.below).map(([, , f]) => f.wrapper),
    /** The order date: the licence warnings depend on it. */
    orderDate: fields.sales_order_date.control,
    /** Every header field, as a draft's create or update body takes them. */
    fullBody: () => bodyOf(() => true) as Record<HeaderField, Value>,
    /** The fields a confirmed order still takes. */
    openBody: () => bodyOf((spec) => spec.changes === 'open'),
    /**
     * Shows `order`'s header (a new order's when undefined): the typed fields at once, the
     * chosen ones once the kept lists are in (asked once for the page's life).
     */
    async fill(order: SalesOrder | undefined, alsoLoad: Promise<unknown>[] = []) {
      for (const [, , field] of entries) field.fillTyped(order);
      await Promise.all([...entries.map(([, , field]) => field.load()), ...alsoLoad]);
      for (const [, , field] of entries) field.fillChosen(order);
    },
    /** What the order's status lets the clerk change (docs/api.md: confirmed orders keep their lines). */
    applyStatus() {
      const editable = { draft: linesEditable(context.state), open: isOpen(context.state) };
      for (const [, spec, field] of entries)
        field.control.disabled = !editable[spec.changes] || context.state.changing !== undefined;
    },
  };
};

export type Header = ReturnType<typeof createHeader>;
