import type { DropdownType, SalesOrderClient } from '@sales-order/client';

import { latestOnly } from './latest-only.js';

/** A record a select must offer whatever the list holds: an order's own customer or product. */
export interface Chosen {
  id: number;
  name: string;
}

/**
 * Each type's options, asked once (GET /sales-orders/dropdown-options/{type}, unfiltered) and
 * kept while the page lives: every select of a type is filled from that one answer, so opening
 * an order of 500 lines asks for products once, not once a line. The service's `<option>` HTML
 * is parsed once into a detached select and copied from there (the service HTML-escapes every
 * name and value).
 */
export const createOptions = (client: SalesOrderClient) => {
  const kept = new Map<DropdownType, Promise<HTMLSelectElement>>();
  const load = (type: DropdownType) => {
    let list = kept.get(type);
    if (!list) {
      list = client.getDropdownOptions(type).then((answer) => {
        const template = document.createElement('select');
        template.innerHTML = answer.html;
        return template;
      });
      kept.set(type, list);
      // A failed ask is asked again next time.
      list.catch(() => kept.delete(type));
    }
    return list;
  };
  return {
    load,
    /** The name of a record of `type`, when the kept list has it (the history joins names with this). */
    async nameOf(type: DropdownType, id: number): Promise<string | undefined> {
      const template = await load(type);
      return [...template.options].find((option) => option.value === String(id))?.text;
    },
  };
};

export type Options = ReturnType<typeof createOptions>;

/** Fills `select` from a kept list, after a placeholder, with `chosen` selected (added when the list lacks it). */
export const fillSelect = (
  select: HTMLSelectElement,
  template: HTMLSelectElement,
  placeholder: string,
  chosen?: Chosen,
) => {
  select.replaceChildren(new Option(placeholder, ''), ...template.cloneNode(true).childNodes);
  if (chosen === undefined) {
    select.value = '';
    return;
  }
  const value = String(chosen.id);
  if (![...select.options].some((option) => option.value === value)) select.add(new Option(chosen.name, value));
  select.value = value;
};

export const selectedId = (select: HTMLSelectElement): number | undefined =>
  select.value === '' ? undefined : Number(select.value);

/**
 * A search box beside a long select: typing narrows the options with the route's `q` (after a
 * short pause; a slow earlier answer never replaces a later one); an empty box puts the kept
 * list back without asking.
 */
export const searchableSelect = (
  client: SalesOrderClient,
  options: Options,
  select: HTMLSelectElement,
  search: HTMLInputElement,
  type: DropdownType,
  placeholder: string,
  fail: (error: unknown) => void,
) => {
  const refill = latestOnly<HTMLSelectElement>(
    250,
    (template) => {
      const keep = select.selectedOptions[0];
      const chosen = keep && keep.value !== '' ? { id: Number(keep.value), name: keep.text } : undefined;
      fillSelect(select, template, placeholder, chosen);
      select.dispatchEvent(new Event('change', { bubbles: true }));
    },
    fail,
  );
  search.addEventListener('input', () => {
    refill.schedule(() => {
      const q = search.value.trim();
      if (q === '') return options.load(type);
      return client.getDropdownOptions(type, selectedId(select), { q }).then((answer) => {
        const template = document.createElement('select');
        template.innerHTML = answer.html;
        return template;
      });
    });
  });
};
