import { type Import, ImportCode } from '@sales-order/contract';

import type { TransactionPort } from '../db/transactions.js';
import { stateConflict } from '../errors/domain-error.js';
import { toImport } from './import-shape.js';
import { importStore, type ImportViewer } from './import-store.js';
import { noImportOfYours } from './import-viewer.js';

export interface CancelImportDeps {
  transactions: TransactionPort;
}

/** A cancel of an import that has ended: 409, the import stays as it ended. */
const importEnded = (state: string) =>
  stateConflict(`The import has ended (${state}): there is nothing to cancel`, [
    { path: '', message: `the import is ${state}`, code: ImportCode.importEnded },
  ]);

/**
 * POST /imports/{id}/cancel: asks the import to stop. The job sees the request between chunks
 * (run-import-chunk.ts): the chunks under way are recorded, then the import ends cancelled.
 */
export const createCancelImport =
  ({ transactions }: CancelImportDeps) =>
  async (id: number, viewer: ImportViewer): Promise<Import> => {
    const cancel = await importStore.requestCancel(transactions.db, id, viewer, new Date());
    if (!cancel) throw noImportOfYours();
    if (!cancel.taken) throw importEnded(cancel.row.state);
    return toImport(cancel.row, new Date());
  };
