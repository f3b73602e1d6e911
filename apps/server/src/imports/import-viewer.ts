import { Permission } from '@sales-order/contract';

import { type AccessContext, hasPermission, identityOf } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { Db } from '../db/transactions.js';
import { notFound } from '../errors/domain-error.js';
import { type ImportRow, importStore, type ImportViewer } from './import-store.js';

/** Who asks to see or cancel imports (ImportViewer): the owner, or an imports.admin inside its locations. */
export const importViewerOf = (access: AccessContext): ImportViewer => ({
  owner: identityOf(access),
  all: hasPermission(access, Permission.importsAdmin),
  scope: scopeOf(access),
});

/** 404, the same whether the import does not exist or is not the viewer's to see. */
export const noImportOfYours = () => notFound('No import of yours has this id');

/** The import `id` as its row reads now, when `viewer` may see it; 404 otherwise. */
export const visibleImport = async (db: Db, id: number, viewer: ImportViewer): Promise<ImportRow> => {
  const row = await importStore.findVisible(db, id, viewer);
  if (!row) throw noImportOfYours();
  return row;
};
