import type { DropdownFilters, DropdownOptions, DropdownType } from '@sales-order/contract';
import escapeHtml from 'escape-html';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import { masterDataRepository, type NamedRecord } from './master-data-repository.js';

/** The active records of one type as read once: by name, with their option markup ready. */
type ActiveList = {
  records: NamedRecord[];
  /** `<option value="ID">NAME</option>` per record, same order; every value escaped. */
  options: string[];
  /** Names in lower case, for `q`. */
  lowerNames: string[];
  /** Position of each record by id. */
  positions: Map<number, number>;
};

const toActiveList = (records: NamedRecord[]): ActiveList => ({
  records,
  options: records.map(
    (record) => `<option value="${escapeHtml(String(record.id))}">${escapeHtml(record.name)}</option>`,
  ),
  lowerNames: records.map((record) => record.name.toLowerCase()),
  positions: new Map(records.map((record, index) => [record.id, index])),
});

const selectedOption = (record: NamedRecord) =>
  `<option value="${escapeHtml(String(record.id))}" selected>${escapeHtml(record.name)}</option>`;

/** The options a request asks for, out of the whole list: matching `q`, the first `limit`, plus the selected one. */
const answer = (type: DropdownType, list: ActiveList, { selected_id, q, limit }: DropdownFilters): DropdownOptions => {
  const needle = q?.toLowerCase();
  const picked: number[] = [];
  let truncated = false;
  for (let index = 0; index < list.records.length; index += 1) {
    if (needle !== undefined && !list.lowerNames[index]!.includes(needle)) continue;
    if (picked.length === limit) {
      truncated = true;
      break;
    }
    picked.push(index);
  }
  const selectedAt = selected_id === undefined ? undefined : list.positions.get(selected_id);
  if (selectedAt !== undefined && !picked.includes(selectedAt)) {
    // In its sorted place: after every picked record that sorts before it.
    const at = picked.findIndex((index) => index > selectedAt);
    picked.splice(at === -1 ? picked.length : at, 0, selectedAt);
  }
  return {
    type,
    html: picked
      .map((index) => (index === selectedAt ? selectedOption(list.records[index]!) : list.options[index]!))
      .join('\n'),
    selected_id: selected_id ?? null,
    truncated,
  };
};

/**
 * HTML option lists for the host ERP's forms: the active records of a master table, sorted by
 * name. No placeholder option: the form decides whether it wants one.
 *
 * Each type's active records are read once and kept for at most `cacheTtlMs` (0: read on every
 * call); a change the database announces (triggers on the master tables, which the host writes
 * with SQL) drops that type at once, `clear` drops all when announcements may have been missed.
 * A read under way when its type is dropped still answers the calls waiting on it, but is not kept.
 */
export const createDropdownService = (db: Db, { cacheTtlMs }: { cacheTtlMs: number }) => {
  const lists = new Map<DropdownType, { list: Promise<ActiveList>; expiresAt: number }>();

  const read = async (type: DropdownType) => toActiveList(await masterDataRepository.listActive(db, type));

  const activeList = (type: DropdownType): Promise<ActiveList> => {
    if (cacheTtlMs === 0) return read(type);
    const now = performance.now();
    const kept = lists.get(type);
    if (kept && kept.expiresAt > now) return kept.list;
    const list = read(type);
    const entry = { list, expiresAt: now + cacheTtlMs };
    // Kept from the start, so concurrent calls share one read; a change announced meanwhile
    // removes it (invalidate), so what was read before the change is not kept.
    lists.set(type, entry);
    list.catch(() => {
      if (lists.get(type) === entry) lists.delete(type);
    });
    return list;
  };

  return {
    async options(access: AccessContext, type: DropdownType, filters: DropdownFilters): Promise<DropdownOptions> {
      const list = await activeList(type);
      // A scoped caller is offered only its own locations (the form must not offer a depot the
      // clerk cannot use); the other lists are the same for everyone.
      const { locations } = access;
      if (type !== 'locations' || locations === null) return answer(type, list, filters);
      return answer(type, toActiveList(list.records.filter((record) => locations.includes(record.id))), filters);
    },
    /** Forgets one type's records (its table changed). */
    invalidate: (type: DropdownType) => {
      lists.delete(type);
    },
    /** Forgets every type's records. */
    clear: () => {
      lists.clear();
    },
  };
};

export type DropdownService = ReturnType<typeof createDropdownService>;
