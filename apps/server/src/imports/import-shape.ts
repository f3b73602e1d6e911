import type { Import } from '@sales-order/contract';

import { formatDateTime } from '../shared/calendar.js';
import type { ImportFormat } from './import-file.js';
import type { ImportRow } from './import-store.js';

/** An import as GET /imports/{id}, its events and the upload answer it, read from its row at `now`. */
export const toImport = (row: ImportRow, now: Date): Import => {
  const done = row.ordersCreated + row.ordersFailed;
  const elapsed = row.startedAt ? now.getTime() - row.startedAt.getTime() : 0;
  return {
    import_id: row.id,
    state: row.state as Import['state'],
    format: row.format as ImportFormat,
    orders_total: row.ordersTotal,
    rows_read: row.rowsRead,
    orders_created: row.ordersCreated,
    orders_failed: row.ordersFailed,
    created_at: formatDateTime(row.createdAt),
    started_at: row.startedAt ? formatDateTime(row.startedAt) : null,
    finished_at: row.finishedAt ? formatDateTime(row.finishedAt) : null,
    // The orders left at the rate so far; unknown until one is done.
    estimated_seconds_left:
      row.state === 'running' && done > 0 ? Math.round(((elapsed / done) * (row.ordersTotal - done)) / 1000) : null,
    error: row.error,
    waiting_until:
      row.waitingUntil && (row.state === 'queued' || row.state === 'running') ? formatDateTime(row.waitingUntil) : null,
  };
};
