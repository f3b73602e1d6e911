import type { DropdownOptions, DropdownType } from '@sales-order/contract';
import escapeHtml from 'escape-html';

import type { PrismaClient } from '../generated/prisma/client.js';
import { masterDataRepository, type NamedRecord } from './master-data-repository.js';

/** `<option value="ID">NAME</option>`, with `selected` on the chosen one; every value escaped. */
const toOption = (record: NamedRecord, selectedId: number | null): string =>
  `<option value="${escapeHtml(String(record.id))}"${record.id === selectedId ? ' selected' : ''}>${escapeHtml(record.name)}</option>`;

/**
 * HTML option lists for the host ERP's forms: the active records of a master table, sorted by
 * name. No placeholder option: the form decides whether it wants one.
 */
export const createDropdownService = (prisma: PrismaClient) => ({
  async options(type: DropdownType, selectedId: number | null): Promise<DropdownOptions> {
    const records = await masterDataRepository.listActive(prisma, type);
    return {
      type,
      html: records.map((record) => toOption(record, selectedId)).join('\n'),
      selected_id: selectedId,
    };
  },
});
