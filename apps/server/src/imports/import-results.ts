import type { ImportResult } from '@sales-order/contract';

import { covers } from '../auth/scope.js';
import type { Db, TransactionPort } from '../db/transactions.js';
import { importStore, type ImportViewer } from './import-store.js';
import { noImportOfYours, visibleImport } from './import-viewer.js';

export interface ImportResultsDeps {
  transactions: TransactionPort;
}

/** Every result so far, in file order, a page at a time. */
async function* resultPages(db: Db, id: number): AsyncGenerator<ImportResult[]> {
  for (let after = -1; ;) {
    const page = await importStore.results(db, id, after, 1_000);
    if (page.length === 0) return;
    yield page.map((result) => ({
      order_ref: result.orderRef,
      lines: result.lines,
      status: result.status as ImportResult['status'],
      sales_order_id: result.salesOrderId,
      order_number: result.orderNumber,
      errors: result.errors as ImportResult['errors'],
    }));
    after = page.at(-1)!.position;
  }
}

/**
 * GET /imports/{id}/results: the import's results, page by page (404 first when the caller may
 * not see the import). They name the orders it made: a caller whose scope no longer covers the
 * import's locations (its starter's scope) gets 404 too.
 */
export const createImportResults =
  ({ transactions }: ImportResultsDeps) =>
  async (id: number, viewer: ImportViewer): Promise<AsyncGenerator<ImportResult[]>> => {
    const { db } = transactions;
    await visibleImport(db, id, viewer);
    if (!covers(viewer.scope, await importStore.scopeOf(db, id))) throw noImportOfYours();
    return resultPages(db, id);
  };
