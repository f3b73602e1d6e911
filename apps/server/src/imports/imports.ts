import {
  AccessCode,
  CreatedSalesOrderSchema,
  type Import,
  ImportCode,
  type ImportMediaType,
  type ImportResult,
  ImportSchema,
  Permission,
  permissionsForBody,
  salesOrdersContract,
} from '@sales-order/contract';
import { LRUCache } from 'lru-cache';

import type { LocationScope } from '../auth/access-context.js';
import type { Db, TransactionPort } from '../db/transactions.js';
import { DomainError, notFound } from '../errors/domain-error.js';
import { recordSubjectEvent } from '../events/store/outbox-store.js';
import type { IdempotencyService } from '../idempotency/idempotency-service.js';
import type { OrderUseCases } from '../orders/order-use-cases.js';
import { formatDateTime } from '../shared/calendar.js';
import {
  FORMAT_OF_MEDIA_TYPE,
  type ImportFormat,
  type ImportOrder,
  locateAll,
  readImportFile,
  UnreadableImportError,
} from './import-file.js';
import type { ImportJob, ImportQueue } from './import-queue.js';
import { type ImportEnd, type ImportRow, importStore, type ResultToStore } from './import-store.js';

/** Who starts an import: the orders are created as this caller, with its permissions. */
export interface ImportCaller {
  /** auth/access-context.ts identityOf: whose imports these are, and the space of the orders' idempotency keys. */
  owner: string;
  /** Recorded as each order's created_by. */
  actor: string;
  permissions: ReadonlySet<string>;
  /** The orders go only into these locations (the starter's scope). */
  locations: LocationScope;
}

export interface ImportDeps {
  transactions: TransactionPort;
  orders: Pick<OrderUseCases, 'create'>;
  idempotency: IdempotencyService;
  /** Set once the job queue has started (it starts after the routes are built). */
  queue: () => Promise<ImportQueue>;
  maxOrders: number;
  chunkSize: number;
}

/** The file was refused whole at upload: 400, nothing stored. */
export class RefusedImportError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/**
 * Each order of an import is made by the single create, with an idempotency key derived from
 * the import and the order's ref in the starter's key space: a chunk run again after a crash
 * gets the orders it had made back instead of making them twice.
 */
export const importKeyOf = (importId: number, ref: string) => `import:${importId}:${ref}`;

const toImport = (row: ImportRow, now: Date): Import => {
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
  };
};

/**
 * Records a chunk's results and counts in the transaction `tx` holds; `finish` ends the import,
 * and an import that ends now completed or failed gets its `import.completed` / `import.failed`
 * event in that transaction (events/store/event-visibility.ts: its owner's alone). The event
 * carries the import as GET /imports/{id} reads it, through the contract's schema, which keeps
 * only its fields (never the file, the starter's permissions or scope).
 */
const recordChunk = async (
  tx: Db,
  id: number,
  results: ResultToStore[],
  finish: ImportEnd | undefined,
  now: Date,
): Promise<void> => {
  const ended = await importStore.recordChunk(tx, id, results, finish, now);
  if (!ended || finish === undefined || finish.state === 'cancelled') return;
  const row = await importStore.forJob(tx, id);
  await recordSubjectEvent(tx, {
    type: `import.${finish.state}`,
    subjectId: id,
    data: ImportSchema.parse(toImport(row!, now)),
  });
};

export const createImports = ({ transactions, orders, idempotency, queue, maxOrders, chunkSize }: ImportDeps) => {
  const { db } = transactions;
  // Each chunk needs its import's orders: those of the last few files are kept, so that the
  // file (up to IMPORT_MAX_BYTES) is read and parsed again only by another process, or after them.
  const files = new LRUCache<number, ImportOrder[]>({ max: 2 });
  /** The import's orders; undefined after failing the import when its file cannot be read as it was at upload. */
  const ordersOf = async (row: { id: number; format: string }): Promise<ImportOrder[] | undefined> => {
    const cached = files.get(row.id);
    if (cached) return cached;
    // A database that fails here fails the chunk, which runs again.
    const file = await importStore.fileOf(db, row.id);
    try {
      const read = readImportFile(file, row.format as ImportFormat).orders;
      files.set(row.id, read);
      return read;
    } catch (error) {
      // Read at upload, so only a file changed since could fail here: the import cannot go on.
      await transactions.withTransaction((tx) =>
        recordChunk(tx, row.id, [], { state: 'failed', error: (error as Error).message.slice(0, 500) }, new Date()),
      );
      return undefined;
    }
  };

  const ownedOrNotFound = async (id: number, owner: string) => {
    const row = await importStore.findOwned(db, id, owner);
    if (!row) throw notFound('No import of yours has this id');
    return row;
  };

  /** One order of a chunk: made (or found again) by the single create, or why not. */
  const createOne = async (
    row: ImportRow,
    locations: LocationScope,
    order: ImportOrder,
    position: number,
  ): Promise<ResultToStore> => {
    const result = { position, orderRef: order.ref, lines: order.lines, salesOrderId: null, orderNumber: null };
    const failed = (errors: ResultToStore['errors']) => ({ ...result, status: 'failed' as const, errors });
    if (!order.body || order.problems.length > 0) return failed(order.problems);
    const body = order.body;
    // What the single create's route would ask of this caller: its own permission and what the
    // body's values ask for (status confirmed, acknowledge_warnings), as the contract declares.
    const access = salesOrdersContract.createSalesOrder.metadata;
    const missing = [access.permission, ...permissionsForBody(access, body)].filter(
      (permission) => !row.permissions.includes(Permission.all) && !row.permissions.includes(permission),
    );
    if (missing.length > 0)
      return failed([
        {
          path: '',
          message: `${order.locate('')}: this order needs the permission${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}, which the import's starter lacks`,
          code: AccessCode.missingPermission,
        },
      ]);
    try {
      const { result: created } = await idempotency.run(
        { subject: row.owner, key: importKeyOf(row.id, order.ref), request: body },
        CreatedSalesOrderSchema,
        (guard) => orders.create({ subject: row.actor, locations }, body, guard),
      );
      return {
        ...result,
        status: 'created',
        salesOrderId: created.sales_order_id,
        orderNumber: created.order_number,
        errors: [],
      };
    } catch (error) {
      // The order's data is refused: its result says why. Anything else (the database away,
      // a key still held) fails the chunk, which runs again.
      if (error instanceof DomainError && error.kind === 'unprocessable')
        return failed(locateAll(error.details, order.locate));
      throw error;
    }
  };

  /** Every result so far, in file order, a page at a time. */
  async function* resultPages(id: number): AsyncGenerator<ImportResult[]> {
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

  return {
    /** Checks the file, stores it and queues its first chunk. */
    start: async (caller: ImportCaller, mediaType: ImportMediaType, file: Buffer): Promise<Import> => {
      const format = FORMAT_OF_MEDIA_TYPE[mediaType];
      let count: number;
      try {
        count = readImportFile(file, format).orders.length;
      } catch (error) {
        if (error instanceof UnreadableImportError)
          throw new RefusedImportError(
            `The file is not ${format === 'csv' ? 'CSV' : 'JSON Lines'}: ${error.message}`,
            ImportCode.importNotReadable,
          );
        throw error;
      }
      if (count > maxOrders)
        throw new RefusedImportError(
          `The file holds ${count} orders; at most ${maxOrders} (IMPORT_MAX_ORDERS) are imported at once`,
          ImportCode.importTooManyOrders,
        );
      const jobs = await queue();
      const row = await transactions.withTransaction(async (tx) => {
        const inserted = await importStore.insert(tx, {
          owner: caller.owner,
          actor: caller.actor,
          permissions: [...caller.permissions],
          locations: caller.locations,
          format,
          ordersTotal: count,
          file: new Uint8Array(file),
        });
        await jobs.enqueue(inserted.id, tx);
        return inserted;
      });
      return toImport(row, new Date());
    },

    get: async (id: number, owner: string): Promise<Import> => toImport(await ownedOrNotFound(id, owner), new Date()),

    list: async (owner: string): Promise<{ items: Import[] }> => {
      const now = new Date();
      return { items: (await importStore.listOwned(db, owner)).map((row) => toImport(row, now)) };
    },

    cancel: async (id: number, owner: string): Promise<Import> => {
      const row = await importStore.requestCancel(db, id, owner, new Date());
      if (!row) throw notFound('No import of yours has this id');
      return toImport(row, new Date());
    },

    /** The import's results, page by page (404 first when the caller has no such import). */
    results: async (id: number, owner: string): Promise<AsyncGenerator<ImportResult[]>> => {
      await ownedOrNotFound(id, owner);
      return resultPages(id);
    },

    /** One chunk of an import (the queue's job): its orders, then its progress and the next chunk, in one transaction. */
    runChunk: async ({ import_id: id }: ImportJob): Promise<void> => {
      const row = await importStore.forJob(db, id);
      if (!row || (row.state !== 'queued' && row.state !== 'running')) return;
      if (row.cancelRequested) {
        await recordChunk(db, id, [], { state: 'cancelled' }, new Date());
        return;
      }
      await importStore.markRunning(db, id, new Date());
      const fileOrders = await ordersOf(row);
      if (!fileOrders) return;
      const start = await importStore.nextPosition(db, id);
      const chunk = fileOrders.slice(start, start + chunkSize);
      const results: ResultToStore[] = [];
      const locations = await importStore.scopeOf(db, id);
      // One by one, in file order: the orders of one series are numbered in the file's order.
      for (const [offset, order] of chunk.entries())
        results.push(await createOne(row, locations, order, start + offset));
      const done = start + chunk.length >= fileOrders.length;
      const jobs = await queue();
      await transactions.withTransaction(async (tx) => {
        await recordChunk(tx, id, results, done ? { state: 'completed' } : undefined, new Date());
        if (!done) await jobs.enqueue(id, tx);
      });
      if (done) files.delete(id);
    },
  };
};

export type Imports = ReturnType<typeof createImports>;
