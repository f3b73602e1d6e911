import { el, uniqueId } from './dom.js';
import { latestOnly } from './latest-only.js';
import { type Chosen, fold, type Item } from './options.js';

/** The most options the list shows at once: typing narrows it. */
const SHOWN = 100;
/** Pause in typing before a truncated list asks the service with `q`. */
const SEARCH_DELAY_MS = 250;

export interface PickerSource {
  /** The kept records (the dropdown answer, asked once). */
  items: () => Promise<readonly Item[]>;
  /** Whether the kept records are all there are; when not, typing also asks the service. */
  truncated: () => Promise<boolean>;
  /** The service's records whose name contains `q`. */
  search: (q: string) => Promise<readonly Item[]>;
}

/**
 * A type-to-search picker (the WAI-ARIA combobox pattern with a list popup): each of its fields
 * is a text input with `role="combobox"`, and one listbox serves all of them, shown under the
 * field being typed in. One picker serves every line's Product, however many lines: a 500-line
 * order has 500 inputs, not 500 copies of the product list. Events are handled once, on `root`,
 * for every field of the picker (fields are added and cloned freely).
 *
 * Keys: typing filters (names containing the text, those starting with it first); Down and Up
 * open the list and move through it; Enter chooses; Escape closes the list, or when it is closed
 * puts back the chosen name; Tab leaves. A field left with a text that is exactly a name has that
 * record (whatever the letter case); otherwise it has none, and its check says so. Choosing fires
 * `change` on the field.
 */
export const createPicker = ({
  root,
  name,
  source,
  fail,
}: {
  root: HTMLElement;
  /** The listbox's accessible name: "Products". */
  name: string;
  source: PickerSource;
  fail: (error: unknown) => void;
}) => {
  const listbox = el('ul', { role: 'listbox', id: uniqueId('picker'), 'aria-label': name, class: 'picker-list' });
  const hint = el('p', { class: 'picker-hint', hidden: true });
  const popup = el('div', { class: 'picker-popup', hidden: true }, listbox, hint);
  const chosen = new WeakMap<HTMLInputElement, Chosen>();
  const key = uniqueId('picker-field');
  let open: HTMLInputElement | undefined;
  /** The kept records once loaded: a field is settled with them without waiting. */
  let cache: readonly Item[] = [];
  const items = async () => (cache = await source.items());
  let shown: readonly Item[] = [];
  let active = -1;

  const isField = (target: EventTarget | null): target is HTMLInputElement =>
    target instanceof HTMLInputElement && target.dataset.picker === key;

  const optionId = (item: Item) => `${listbox.id}-${item.id}`;

  const setActive = (index: number) => {
    listbox.children[active]?.setAttribute('aria-selected', 'false');
    active = index;
    const option = listbox.children[active];
    if (!open) return;
    if (option) {
      option.setAttribute('aria-selected', 'true');
      open.setAttribute('aria-activedescendant', option.id);
      option.scrollIntoView({ block: 'nearest' });
    } else open.removeAttribute('aria-activedescendant');
  };

  const render = (items: readonly Item[], q: string) => {
    const folded = fold(q.trim());
    const starting = folded === '' ? items : items.filter((item) => item.folded.startsWith(folded));
    const containing =
      folded === '' ? [] : items.filter((item) => !item.folded.startsWith(folded) && item.folded.includes(folded));
    const matches = [...starting, ...containing];
    shown = matches.slice(0, SHOWN);
    listbox.replaceChildren(
      ...shown.map((item) => el('li', { role: 'option', id: optionId(item), 'aria-selected': 'false' }, item.name)),
    );
    hint.hidden = matches.length <= SHOWN && matches.length > 0;
    hint.textContent =
      matches.length === 0
        ? `No ${name.toLocaleLowerCase()} match.`
        : `The first ${SHOWN} of ${matches.length}: type more to narrow.`;
    const current = open ? chosen.get(open) : undefined;
    const at = current ? shown.findIndex((item) => item.id === current.id) : -1;
    setActive(at >= 0 ? at : folded === '' ? -1 : 0);
  };

  const close = () => {
    if (!open) return;
    open.setAttribute('aria-expanded', 'false');
    open.removeAttribute('aria-activedescendant');
    open.closest('fieldset')?.classList.remove('picking');
    open = undefined;
    popup.hidden = true;
    active = -1;
  };

  const searchRemote = latestOnly<{ field: HTMLInputElement; q: string; items: readonly Item[] }>(
    SEARCH_DELAY_MS,
    ({ field, q, items }) => {
      if (open === field && field.value === q) render(items, q);
    },
    fail,
  );

  const show = async (field: HTMLInputElement) => {
    if (open !== field) {
      close();
      open = field;
      field.parentElement!.append(popup);
      field.closest('fieldset')?.classList.add('picking');
      field.setAttribute('aria-expanded', 'true');
      popup.hidden = false;
    }
    const q = field.value;
    // What the field shows is its record's name: the whole list, that record active.
    const typed = chosen.get(field)?.name === q ? '' : q;
    render(await items(), typed);
    if (typed.trim() !== '' && (await source.truncated()))
      searchRemote.schedule(() => source.search(typed.trim()).then((items) => ({ field, q, items })));
  };

  const set = (field: HTMLInputElement, record: Chosen | undefined) => {
    if (record) chosen.set(field, record);
    else chosen.delete(field);
    field.value = record?.name ?? '';
  };

  const choose = (field: HTMLInputElement, item: Item) => {
    set(field, item);
    close();
    field.dispatchEvent(new Event('change', { bubbles: true }));
  };

  /** The text typed is exactly a record's name: that record; otherwise none. */
  const settle = (field: HTMLInputElement) => {
    const text = fold(field.value.trim());
    const current = chosen.get(field);
    if (current && fold(current.name) === text) return;
    const exact = text === '' ? undefined : cache.find((item) => item.folded === text);
    if (exact) set(field, exact);
    else chosen.delete(field);
  };

  // Typing keeps the record the field had until it is settled (left, or its text changed and
  // committed): Escape can still put it back.
  root.addEventListener('input', (event) => {
    if (isField(event.target)) show(event.target).catch(fail);
  });
  root.addEventListener('click', (event) => {
    if (isField(event.target) && !event.target.disabled && open !== event.target) show(event.target).catch(fail);
  });
  root.addEventListener('keydown', (event) => {
    if (!isField(event.target)) return;
    const field = event.target;
    const { key: pressed } = event;
    if (pressed === 'ArrowDown' || pressed === 'ArrowUp') {
      event.preventDefault();
      if (open !== field) {
        show(field).catch(fail);
        return;
      }
      if (event.altKey) return;
      const last = shown.length - 1;
      if (pressed === 'ArrowDown') setActive(active >= last ? 0 : active + 1);
      else setActive(active <= 0 ? last : active - 1);
    } else if (pressed === 'Enter') {
      const item = open === field ? shown[active] : undefined;
      if (item) {
        event.preventDefault();
        choose(field, item);
      }
    } else if (pressed === 'Escape') {
      if (open === field) close();
      else field.value = chosen.get(field)?.name ?? '';
    }
  });
  // Settled before the form's own change listeners run (capture): its check sees the record.
  root.addEventListener(
    'change',
    (event) => {
      if (isField(event.target)) settle(event.target);
    },
    true,
  );
  root.addEventListener('focusout', (event) => {
    if (!isField(event.target)) return;
    if (open === event.target) close();
    settle(event.target);
  });
  // A press on an option keeps the focus in the field; the click chooses it.
  popup.addEventListener('mousedown', (event) => event.preventDefault());
  popup.addEventListener('click', (event) => {
    const option = event.target instanceof Element ? event.target.closest('[role="option"]') : null;
    const item = shown.find((candidate) => optionId(candidate) === option?.id);
    if (open && item) choose(open, item);
  });

  /** The attributes of every field of this picker (a line template's field is cloned with them). */
  const attributes = {
    type: 'text',
    role: 'combobox',
    'aria-autocomplete': 'list',
    'aria-expanded': 'false',
    'aria-controls': listbox.id,
    autocomplete: 'off',
    spellcheck: 'false',
    'data-picker': key,
  };

  return {
    /** Placed once in the page (hidden): a field's `aria-controls` names its listbox. */
    popup,
    /** A new field of this picker, holding `record`. */
    field: (record?: Chosen) => {
      const field = el('input', attributes);
      set(field, record);
      return field;
    },
    set,
    /** The id of the field's record; undefined while none is chosen. */
    valueOf: (field: HTMLInputElement) => chosen.get(field)?.id,
    /** Settles a field the clerk is still in (a Save while typing): its text decides, as when leaving it. */
    settle,
    /** Loads the kept records ahead of the first use. */
    preload: () => items().then(() => undefined),
    close,
  };
};

export type Picker = ReturnType<typeof createPicker>;
