import type { Import } from '@sales-order/contract';

import type { TransactionPort } from '../db/transactions.js';
import { toImport } from './import-shape.js';
import { importStore, type ImportViewer } from './import-store.js';
import { visibleImport } from './import-viewer.js';

export interface ReadImportsDeps {
  transactions: TransactionPort;
}

/** GET /imports/{id}: the import as it is now, when the viewer may see it (404 otherwise). */
export const createGetImport =
  ({ transactions }: ReadImportsDeps) =>
  async (id: number, viewer: ImportViewer): Promise<Import> =>
    toImport(await visibleImport(transactions.db, id, viewer), new Date());

/** GET /imports: the last imports the viewer may see (importStore.listVisible), as they are now. */
export const createListImports =
  ({ transactions }: ReadImportsDeps) =>
  async (viewer: ImportViewer): Promise<{ items: Import[] }> => {
    const now = new Date();
    return { items: (await importStore.listVisible(transactions.db, viewer)).map((row) => toImport(row, now)) };
  };
