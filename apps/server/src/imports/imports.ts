import { setImmediate } from 'node:timers/promises';

import {
  AccessCode,
  type CreateSalesOrderBody,
  type ErrorDetail,
  type Import,
  ImportCode,
  type ImportResult,
  ImportSchema,
  Permission,
  permissionsForBody,
  salesOrdersContract,
} from '@sales-order/contract';

import {
  type AccessContext,
  type AuthMethod,
  hasPermission,
  identityOf,
  type LocationList,
} from '../auth/access-context.js';
import { currentAccessOf } from '../auth/current-access.js';
import { covers, scopeOf } from '../auth/scope.js';
import type { Db, TransactionPort } from '../db/transactions.js';
import { notFound, stateConflict } from '../errors/domain-error.js';
import type { IdempotencyService } from '../idempotency/idempotency-service.js';
import type { Foreground } from '../jobs/foreground.js';
import type { WriteTurn } from '../orders/bulk-create-orders.js';
import type { OrderUseCases } from '../orders/order-use-cases.js';
import {
  type ImportFormat,
  type ImportOrder,
  locateAll,
  ordersOfRows,
  UnreadableImportError,
  validateOrder,
} from './import-file.js';
import type { ImportJob, ImportQueue } from './import-queue.js';
import { toImport } from './import-shape.js';
import { stageImportFile } from './import-staging.js';
import {
  type ImportEnd,
  type ImportProgress,
  type ImportRow,
  importStore,
  type ImportViewer,
  type ResultToStore,
} from './import-store.js';
import { createStartImport } from './start-import.js';
import type { UploadTurns } from './upload-turns.js';

/** An import's orders, read a chunk at a time (`slice`: `size` orders from position `start`). */
interface FileOrders {
  total: number;
  slice(start: number, size: number): Promise<ImportOrder[]>;
}

/** A chunk whose orders are being made: settles once they are written, and once committed. */
interface ChunkUnderWay {
  written: Promise<void>;
  committed: Promise<ResultToStore[]>;
}

/** Orders checked between two turns of the event loop while a chunk is prepared. */
const PREPARE_SLICE = 20;

/**
 * While requests are under way (`Foreground`), an import gives way to them
 * (docs/decisions/imports-give-way-to-requests.md): one chunk at a time instead of two, of a tenth of the
 * chunk size, each followed by a pause of three times all the job did since the chunk before
 * (checking, writing and recording) unless the requests end first. The import then takes about
 * a quarter of the time, in short steps, and goes on at full speed once no request is under way.
 */
const BUSY_CHUNK_DIVISOR = 10;
const BUSY_PAUSE_FACTOR = 3;

/**
 * The starter's BULK_ORDERS_PER_MINUTE window (http/rate-limit.ts): a chunk takes its orders
 * from it, as a bulk create does, and the import waits for the reset when none are left.
 */
export interface BulkQuota {
  takeUpTo(key: string, wanted: number): Promise<{ granted: number; resetAt: Date }>;
}

/**
 * The `error` of an import ended because its starter's access ended: its credential no longer
 * works (revoked, expired, signed out, past a token's exp), or no longer holds
 * sales_orders.import, sales_orders.create or every location of the import.
 */
export const OWNER_ACCESS_REVOKED = 'owner_access_revoked';

const accessEnded: ImportEnd = {
  state: 'failed',
  error: `${OWNER_ACCESS_REVOKED}: the starter's credential no longer works, or no longer holds sales_orders.import, sales_orders.create or every location of the import`,
};

/** Who asks to see or cancel imports (ImportViewer): the owner, or an imports.admin inside its locations. */
export const importViewerOf = (access: AccessContext): ImportViewer => ({
  owner: identityOf(access),
  all: hasPermission(access, Permission.importsAdmin),
  scope: scopeOf(access),
});

/** A permission held at the start and still held now: `*` stands for whatever the other holds. */
const heldBoth = (before: readonly string[], now: ReadonlySet<string>): ReadonlySet<string> => {
  if (now.has(Permission.all)) return new Set(before);
  if (before.includes(Permission.all)) return now;
  return new Set(before.filter((permission) => now.has(permission)));
};

export interface ImportDeps {
  transactions: TransactionPort;
  orders: Pick<OrderUseCases, 'bulkCreate'>;
  /** Set once the job queue has started (it starts after the routes are built). */
  queue: () => Promise<ImportQueue>;
  maxOrders: number;
  chunkSize: number;
  /** How long one job goes on with chunk after chunk before it queues the next job (well within its expiry). */
  jobSeconds: number;
  /** The requests this process serves: chunks give way to them. */
  foreground: Foreground;
  idempotency: IdempotencyService;
  /** How many uploads are read at once (IMPORT_UPLOADS_CONCURRENT). */
  uploadTurns: UploadTurns;
  /** How long each statement of an upload waits for a connection, counted from the statement. */
  uploadStatementWaitMs: number;
  bulkQuota?: BulkQuota;
}

/** A cancel of an import that has ended: 409, the import stays as it ended. */
const importEnded = (state: string) =>
  stateConflict(`The import has ended (${state}): there is nothing to cancel`, [
    { path: '', message: `the import is ${state}`, code: ImportCode.importEnded },
  ]);

/** Why an order whose order_ref made an order in an earlier import is skipped. */
const duplicateOf = (
  order: ImportOrder,
  made: { importId: number; orderNumber: string | null },
): ImportResult['errors'][number] => ({
  path: 'order_ref',
  code: ImportCode.duplicateOrderRef,
  message:
    `line ${order.lines[0] ?? 1}: order_ref ${JSON.stringify(order.ref)} already made order ` +
    `${made.orderNumber ?? '(deleted)'} in import ${made.importId}; send allow_duplicates=true to import it again`,
});

/**
 * Each order of an import is made through the bulk create with its own idempotency key, derived
 * from the import and the order's ref, in the starter's key space: a chunk run again after a
 * crash gets the orders it had made back instead of making them twice.
 */
export const importKeyOf = (importId: number, ref: string) => `import:${importId}:${ref}`;

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
  await importStore.recordEvent(tx, {
    type: `import.${finish.state}`,
    subjectId: id,
    data: ImportSchema.parse(toImport(row!, now)),
  });
};

/**
 * Why an order of the file is not even sent to the create: its row's problems, or a permission
 * the single create's route would ask of the import's starter that is not among `permissions`
 * (those it held at the start and still holds now): its own, and what the body's values ask
 * for (status confirmed, acknowledge_warnings, as the contract declares). Undefined when it goes.
 */
const refusalOf = (
  permissions: ReadonlySet<string>,
  order: ImportOrder,
  { body, problems }: ReturnType<typeof validateOrder>,
): ErrorDetail[] | undefined => {
  if (!body || problems.length > 0) return problems;
  const access = salesOrdersContract.createSalesOrder.metadata;
  const missing = [access.permission, ...permissionsForBody(access, body)].filter(
    (permission) => !permissions.has(Permission.all) && !permissions.has(permission),
  );
  if (missing.length === 0) return undefined;
  return [
    {
      path: '',
      message: `${order.locate('')}: this order needs the permission${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}, which the import's starter lacks`,
      code: AccessCode.missingPermission,
    },
  ];
};

/**
 * A bulk item's details as its single create's: the paths without the bulk's `orders.{index}`
 * and no `index`, so that a result names the body's path (then the file's line and column).
 */
const orderDetails = (index: number, details: readonly ErrorDetail[]): ErrorDetail[] =>
  details.map(({ index: _index, ...detail }) => {
    const prefix = `orders.${index}`;
    const path = detail.path.startsWith(prefix) ? detail.path.slice(prefix.length).replace(/^\./, '') : detail.path;
    return { ...detail, path };
  });

/**
 * The starter as the caller its orders are made by: the access context stored on the import's row
 * (its subject, permissions and locations as they were at the start, and how to look its
 * credential up again). The way it authenticated is the part of its identity (`owner`,
 * identityOf) before its subject; an API key's identity is its subject.
 */
const accessOfImport = (row: ImportRow, locations: LocationList): AccessContext => {
  const method = (row.owner === row.actor ? 'api_key' : row.owner.slice(0, row.owner.indexOf(':'))) as AuthMethod;
  const access: AccessContext = {
    subject: row.actor,
    method,
    permissions: new Set(row.permissions),
    locations,
    credential:
      row.sessionDigest !== null
        ? { sessionDigest: row.sessionDigest }
        : row.tokenExpiresAt !== null
          ? { tokenExpiresAt: row.tokenExpiresAt }
          : undefined,
  };
  // The orders' idempotency keys are in the starter's space: never another caller's.
  if (identityOf(access) !== row.owner) throw new Error(`import ${row.id}: its owner is not its starter's identity`);
  return access;
};

/**
 * The caller a chunk's orders are made as, now: the starter's credential looked up again
 * (auth/current-access.ts), which must still work, be the same subject, hold sales_orders.import
 * and sales_orders.create and reach every location of the import; its permissions are those held
 * both at the start and now. Undefined when the import cannot go on as its starter.
 */
const starterNow = async (db: Db, starter: AccessContext): Promise<AccessContext | undefined> => {
  const now = await currentAccessOf(db, starter, new Date());
  if (
    !now ||
    now.subject !== starter.subject ||
    !hasPermission(now, Permission.import) ||
    !hasPermission(now, Permission.create) ||
    !covers(scopeOf(now), starter.locations)
  )
    return undefined;
  return { ...starter, permissions: heldBoth([...starter.permissions], now.permissions) };
};

export const createImports = ({
  transactions,
  orders,
  queue,
  maxOrders,
  chunkSize,
  jobSeconds,
  foreground,
  bulkQuota,
  idempotency,
  uploadTurns,
  uploadStatementWaitMs,
}: ImportDeps) => {
  const { db } = transactions;
  /**
   * The import's orders, read a chunk at a time from its staged rows. An import uploaded before
   * files were staged as rows has its file staged first (once: its file then goes); undefined
   * after failing the import when that file cannot be read.
   */
  const ordersOf = async (row: ImportRow): Promise<FileOrders | undefined> => {
    const format = row.format as ImportFormat;
    const legacy = await importStore.legacyFileOf(db, row.id);
    if (legacy) {
      try {
        await transactions.withTransaction(async (tx) => {
          await importStore.dropStagedRows(tx, row.id);
          const read = await stageImportFile([legacy], format, {
            maxOrders: Number.MAX_SAFE_INTEGER,
            write: (rows) => importStore.stageRows(tx, row.id, rows),
          });
          await importStore.replaceLegacyFile(tx, row.id, read.header);
        });
      } catch (error) {
        if (!(error instanceof UnreadableImportError)) throw error;
        await transactions.withTransaction((tx) =>
          recordChunk(tx, row.id, [], { state: 'failed', error: error.message.slice(0, 500) }, new Date()),
        );
        return undefined;
      }
    }
    const header = format === 'csv' ? await importStore.headerOf(db, row.id) : [];
    return {
      total: row.ordersTotal,
      slice: async (start, size) =>
        ordersOfRows(format, header, await importStore.rowsOf(db, row.id, start, start + size)),
    };
  };

  /** The chunk size now: IMPORT_CHUNK_SIZE, or the smaller one while requests are under way. */
  const chunkSizeNow = () =>
    foreground.active > 0 ? Math.max(1, Math.ceil(chunkSize / BUSY_CHUNK_DIVISOR)) : chunkSize;

  /**
   * The size of the chunk from `start`: as many of its orders as the starter's bulk-order window
   * lets through now (counted there), and when the window resets (null: not counted).
   */
  const nextChunkSize = async (row: ImportRow, fileOrders: FileOrders, start: number) => {
    const wanted = Math.min(chunkSizeNow(), fileOrders.total - start);
    if (wanted <= 0 || row.quotaKey === null || !bulkQuota) return { size: wanted, resetAt: null };
    const { granted, resetAt } = await bulkQuota.takeUpTo(row.quotaKey, wanted);
    return { size: granted, resetAt };
  };

  const visibleOrNotFound = async (id: number, viewer: ImportViewer) => {
    const row = await importStore.findVisible(db, id, viewer);
    if (!row) throw notFound('No import of yours has this id');
    return row;
  };

  /**
   * The chunk of the file's orders from `start`, checked (validateOrder, refusalOf): what goes to
   * the bulk create, and the results of the rest. A few orders at a time, giving the event loop
   * back in between: it runs while the chunk before it is written, and beside requests.
   */
  const prepareChunk = async (
    row: ImportRow,
    access: AccessContext,
    fileOrders: FileOrders,
    start: number,
    size: number,
  ) => {
    const chunk = await fileOrders.slice(start, size);
    // An order_ref that made an order in an earlier import of the owner is skipped, unless allowed.
    const earlier = row.allowDuplicates
      ? new Map<string, { importId: number; orderNumber: string | null }>()
      : await importStore.earlierOrdersOf(
          db,
          row.owner,
          row.id,
          chunk.map((order) => order.ref),
        );
    const results: ResultToStore[] = chunk.map((order, offset) => ({
      position: start + offset,
      orderRef: order.ref,
      lines: order.lines,
      status: 'failed',
      salesOrderId: null,
      orderNumber: null,
      errors: [],
    }));
    const sent: { at: number; body: CreateSalesOrderBody }[] = [];
    for (const [at, order] of chunk.entries()) {
      if (at > 0 && at % PREPARE_SLICE === 0) await setImmediate();
      const made = earlier.get(order.ref);
      if (made) {
        results[at]!.errors = [duplicateOf(order, made)];
        continue;
      }
      const validated = validateOrder(order);
      const refused = refusalOf(access.permissions, order, validated);
      if (refused) results[at]!.errors = refused;
      else sent.push({ at, body: validated.body! });
    }
    return { chunk, results, sent };
  };

  /**
   * A chunk's orders, made (or found again) through the bulk create, in one transaction under
   * `reject_failed_rows`: each order stands alone, as its single create would, and the orders of
   * one series are numbered in the file's order (in turn with the chunk before, `turn`).
   * What a malformed row or a missing permission refuses never reaches it.
   */
  const createChunk = async (
    row: ImportRow,
    access: AccessContext,
    { chunk, results, sent }: Awaited<ReturnType<typeof prepareChunk>>,
    turn: WriteTurn,
  ): Promise<ResultToStore[]> => {
    if (sent.length === 0) {
      // Nothing to write, but written and done no sooner than the chunk before it.
      await turn.after?.written;
      turn.written?.();
      await turn.after?.committed;
      return results;
    }
    const answer = await orders.bulkCreate(
      access,
      {
        orders: sent.map(({ at, body }) => ({ ...body, idempotency_key: importKeyOf(row.id, chunk[at]!.ref) })),
        error_policy: 'reject_failed_rows',
      },
      undefined,
      turn,
    );
    for (const [index, { at }] of sent.entries()) {
      const outcome = answer.results[index]!;
      const result = results[at]!;
      if (outcome.order) {
        result.status = 'created';
        result.salesOrderId = outcome.order.sales_order_id;
        result.orderNumber = outcome.order.order_number;
      } else result.errors = locateAll(orderDetails(index, outcome.error?.details ?? []), chunk[at]!.locate);
    }
    return results;
  };

  /**
   * Starts making a chunk's orders, in turn with the chunk before (`before`): a chunk under way,
   * settled once written and once committed (its results).
   */
  const startChunk = (
    row: ImportRow,
    access: AccessContext,
    prepared: Awaited<ReturnType<typeof prepareChunk>>,
    before?: ChunkUnderWay,
  ): ChunkUnderWay => {
    let wrote!: () => void;
    let failed!: (error: unknown) => void;
    const written = new Promise<void>((resolve, reject) => {
      wrote = resolve;
      failed = reject;
    });
    const committed = createChunk(row, access, prepared, {
      after: before && { written: before.written, committed: before.committed },
      written: wrote,
    });
    // A chunk that failed before writing fails the one after it before that one writes.
    committed.then(wrote, failed);
    // Each is awaited by the chunk after it or by the job.
    written.catch(() => {});
    committed.catch(() => {});
    return { written, committed };
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
    start: createStartImport({ transactions, idempotency, queue, maxOrders, uploadTurns, uploadStatementWaitMs }),

    get: async (id: number, viewer: ImportViewer): Promise<Import> =>
      toImport(await visibleOrNotFound(id, viewer), new Date()),

    list: async (viewer: ImportViewer): Promise<{ items: Import[] }> => {
      const now = new Date();
      return { items: (await importStore.listVisible(db, viewer)).map((row) => toImport(row, now)) };
    },

    cancel: async (id: number, viewer: ImportViewer): Promise<Import> => {
      const cancel = await importStore.requestCancel(db, id, viewer, new Date());
      if (!cancel) throw notFound('No import of yours has this id');
      if (!cancel.taken) throw importEnded(cancel.row.state);
      return toImport(cancel.row, new Date());
    },

    /**
     * The import's results, page by page (404 first when the caller may not see the import). They
     * name the orders it made: a caller whose scope no longer covers the import's locations (its
     * starter's scope) gets 404 too.
     */
    results: async (id: number, viewer: ImportViewer) => {
      await visibleOrNotFound(id, viewer);
      if (!covers(viewer.scope, await importStore.scopeOf(db, id))) throw notFound('No import of yours has this id');
      return resultPages(id);
    },

    /**
     * One job of an import: chunks one after another for up to `jobSeconds`, each chunk's orders
     * in their own transaction (createChunk) and its results and counts in the next statement
     * (importStore.recordResults). Two chunks are under way at once: the next one is checked,
     * its keys claimed and its orders priced while this one is written, and it writes once this
     * one has committed; results are recorded in file order, one chunk after the other, while
     * the following chunk's orders are made. The last chunk of the job records its results with
     * the next job queued, or the import's end, in one transaction. A process that dies in between leaves this job
     * active: it runs again once it expires, from the last chunk recorded.
     */
    runChunk: async ({ import_id: id }: ImportJob): Promise<void> => {
      const until = Date.now() + jobSeconds * 1_000;
      const row = await importStore.forJob(db, id);
      const goesOn = <T extends ImportProgress>(current: T | null): current is T =>
        current !== null && (current.state === 'queued' || current.state === 'running');
      if (!goesOn(row)) return;
      if (row.cancelRequested) {
        await recordChunk(db, id, [], { state: 'cancelled' }, new Date());
        return;
      }
      await importStore.markRunning(db, id, new Date());
      const fileOrders = await ordersOf(row);
      if (!fileOrders) return;
      // Each chunk runs as its starter is now (starterNow): a credential that ended, or lost
      // what the import needs, ends the import before its next chunk.
      const starter = accessOfImport(row, await importStore.scopeOf(db, id));
      let access = await starterNow(db, starter);
      if (!access) {
        await transactions.withTransaction((tx) => recordChunk(tx, id, [], accessEnded, new Date()));
        return;
      }
      const jobs = await queue();
      let start = await importStore.nextPosition(db, id);
      // The chunk before's results being recorded: the import's state as that statement left it.
      let recording: Promise<ImportProgress | undefined> = Promise.resolve(undefined);
      // When the job last went on to a new chunk (after its pause, if it gave way).
      let resumed = performance.now();
      // Nothing left in the starter's window: the import waits for its reset, saying so.
      const waitFor = (resetAt: Date) =>
        transactions.withTransaction(async (tx) => {
          await importStore.waitUntil(tx, id, resetAt);
          await jobs.enqueue(id, tx, resetAt);
        });
      const firstSize = await nextChunkSize(row, fileOrders, start);
      if (firstSize.size === 0 && firstSize.resetAt) return waitFor(firstSize.resetAt);
      const first = await prepareChunk(row, access, fileOrders, start, firstSize.size);
      start += first.chunk.length;
      let current = startChunk(row, access, first);
      for (;;) {
        const done = start >= fileOrders.total;
        let last = done || Date.now() >= until;
        // How the import ends with this chunk: completed, or failed when its starter's access ended.
        let ends: ImportEnd | undefined = done ? { state: 'completed' } : undefined;
        let waitingUntil: Date | null = null;
        // The next chunk is under way while this one is made: checked, its keys claimed and its
        // orders priced, then written behind this one (its numbers follow these) and committed
        // after it.
        let next: ChunkUnderWay | undefined;
        if (!last) {
          // Requests under way: this chunk ends before the next (a smaller one) is begun, and a
          // pause follows it. Its failure is met below.
          if (foreground.active > 0) {
            await current.committed.catch(() => {});
            // Three times all it did since the chunk before: checking, writing and recording.
            await foreground.quiet(BUSY_PAUSE_FACTOR * (performance.now() - resumed));
          }
          resumed = performance.now();
          access = await starterNow(db, starter);
          const { size, resetAt } = access ? await nextChunkSize(row, fileOrders, start) : { size: 0, resetAt: null };
          if (!access) {
            last = true;
            ends = accessEnded;
          } else if (size === 0 && resetAt) {
            // The window is spent: this chunk is the job's last, and the next job waits for the reset.
            waitingUntil = resetAt;
            last = true;
          } else {
            const prepared = await prepareChunk(row, access, fileOrders, start, size);
            start += prepared.chunk.length;
            next = startChunk(row, access, prepared, current);
          }
        }
        const results = await current.committed.catch(async (error: unknown) => {
          await next?.committed.catch(() => {});
          throw error;
        });
        // A cancel (or anything else that ended it) takes effect between chunks: the ones made
        // are recorded, then the import ends. It is seen in the chunk before's record.
        const recorded = await recording;
        if (recorded && (!goesOn(recorded) || recorded.cancelRequested)) {
          const underWay = next ? await next.committed : [];
          await transactions.withTransaction((tx) =>
            recordChunk(
              tx,
              id,
              [...results, ...underWay],
              goesOn(recorded) ? { state: 'cancelled' } : undefined,
              new Date(),
            ),
          );
          return;
        }
        recording = last
          ? transactions.withTransaction(async (tx) => {
              await recordChunk(tx, id, results, ends, new Date());
              if (waitingUntil) await importStore.waitUntil(tx, id, waitingUntil);
              if (!ends) await jobs.enqueue(id, tx, waitingUntil ?? undefined);
              return undefined;
            })
          : importStore.recordResults(db, id, results);
        // Awaited before the next chunk's results, or on the way out; a failure fails the job then.
        recording.catch(() => {});
        if (last) {
          await recording;
          return;
        }
        current = next!;
      }
    },
  };
};

export type Imports = ReturnType<typeof createImports>;
