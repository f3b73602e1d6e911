import type { DropdownType, SalesOrderClient } from '@sales-order/client';

/** A record a field must offer whatever the list holds: an order's own customer or product. */
export interface Chosen {
  id: number;
  name: string;
}

/** A record of a kept list, with its name folded once for type-to-search. */
export interface Item extends Chosen {
  folded: string;
}

/** One dropdown type as the service answered it, unfiltered. */
export interface Kept {
  /** The service's `<option>`s parsed once (names and values HTML-escaped by the service): copied into selects. */
  template: HTMLSelectElement;
  /** The same records for the pickers' type-to-search. */
  items: readonly Item[];
  /** More records exist than the answer holds: a picker asks with `q` for what it lacks. */
  truncated: boolean;
}

export const fold = (text: string) => text.toLocaleLowerCase();

const keptOf = (html: string, truncated: boolean): Kept => {
  const template = document.createElement('select');
  template.innerHTML = html;
  const items = [...template.options].map((option) => ({
    id: Number(option.value),
    name: option.text,
    folded: fold(option.text),
  }));
  return { template, items, truncated };
};

/**
 * Each type's options, asked once (GET /sales-orders/dropdown-options/{type}, unfiltered) and
 * kept while the page lives: every field of a type is filled from that one answer, so opening
 * an order of 500 lines asks for products once, not once a line.
 */
export const createOptions = (client: SalesOrderClient) => {
  const kept = new Map<DropdownType, Promise<Kept>>();
  const load = (type: DropdownType) => {
    let list = kept.get(type);
    if (!list) {
      list = client.getDropdownOptions(type).then((answer) => keptOf(answer.html, answer.truncated));
      kept.set(type, list);
      // A failed ask is asked again next time.
      list.catch(() => kept.delete(type));
    }
    return list;
  };
  return {
    load,
    /** Records of `type` whose name contains `q`, asked of the service (for a kept list that is truncated). */
    search: async (type: DropdownType, q: string): Promise<readonly Item[]> =>
      keptOf((await client.getDropdownOptions(type, undefined, { q })).html, false).items,
    /** The name of a record of `type`, when the kept list has it (the history joins names with this). */
    async nameOf(type: DropdownType, id: number): Promise<string | undefined> {
      return (await load(type)).items.find((item) => item.id === id)?.name;
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
