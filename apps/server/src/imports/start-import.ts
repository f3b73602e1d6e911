import { type Import, ImportCode, type ImportMediaType, ImportSchema } from '@sales-order/contract';

import type { AccessContext, LocationList } from '../auth/access-context.js';
import { withRequestDeadline } from '../db/connection-gate.js';
import type { TransactionPort } from '../db/transactions.js';
import type { IdempotencyGuard, IdempotencyService } from '../idempotency/idempotency-service.js';
import { FORMAT_OF_MEDIA_TYPE, type ImportFormat, UnreadableImportError } from './import-file.js';
import type { ImportQueue } from './import-queue.js';
import { toImport } from './import-shape.js';
import { stageImportFile, TooManyOrdersError } from './import-staging.js';
import { importStore } from './import-store.js';
import { withSpooledFile } from './spooled-file.js';
import type { UploadTurns } from './upload-turns.js';

/** Who starts an import: the orders are created as this caller, with its permissions. */
export interface ImportCaller {
  /** auth/access-context.ts identityOf: whose imports these are, and the space of the orders' idempotency keys. */
  owner: string;
  /** Recorded as each order's created_by. */
  actor: string;
  permissions: ReadonlySet<string>;
  /** The orders go only into these locations (the starter's scope). */
  locations: LocationList;
  /** How each chunk looks at the starter's credential again (AccessContext.credential). */
  credential: AccessContext['credential'];
  /** The key its orders count under in the BULK_ORDERS_PER_MINUTE window (null: not counted). */
  quotaKey: string | null;
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
 * What an upload's Idempotency-Key stands for: the file (by its SHA-256, not its bytes), its
 * media type and whether duplicates are allowed. The same key with another file is refused.
 */
export const uploadRequestOf = (sha256: string, mediaType: ImportMediaType, allowDuplicates: boolean) => ({
  import: { sha256, media_type: mediaType, allow_duplicates: allowDuplicates },
});

export interface StartImportDeps {
  transactions: TransactionPort;
  idempotency: IdempotencyService;
  /** Set once the job queue has started (it starts after the routes are built). */
  queue: () => Promise<ImportQueue>;
  maxOrders: number;
  uploadTurns: UploadTurns;
  uploadStatementWaitMs: number;
}

export interface StartImportOptions {
  allowDuplicates?: boolean;
  /** The upload's Idempotency-Key: a retry with the same file answers the import it made. */
  idempotencyKey?: string;
}

/** The import's row as its upload begins (`uploading`, seen by nobody): its starter, as the chunks will make its orders. */
const uploadingRowOf = (caller: ImportCaller, format: ImportFormat, allowDuplicates: boolean) => ({
  owner: caller.owner,
  actor: caller.actor,
  permissions: [...caller.permissions],
  locations: caller.locations,
  sessionDigest: caller.credential && 'sessionDigest' in caller.credential ? caller.credential.sessionDigest : null,
  tokenExpiresAt: caller.credential && 'tokenExpiresAt' in caller.credential ? caller.credential.tokenExpiresAt : null,
  format,
  quotaKey: caller.quotaKey,
  allowDuplicates,
});

/** A file that cannot be read as `format`, or has too many orders, is refused whole (RefusedImportError). */
const refusedAs =
  (format: ImportFormat) =>
  (error: unknown): never => {
    if (error instanceof UnreadableImportError)
      throw new RefusedImportError(
        `The file is not ${format === 'csv' ? 'CSV' : 'JSON Lines'}: ${error.message}`,
        ImportCode.importNotReadable,
      );
    if (error instanceof TooManyOrdersError)
      throw new RefusedImportError(error.message, ImportCode.importTooManyOrders);
    throw error;
  };

/**
 * Starts an import: in its turn among uploads (UploadTurns), writes the import's row, receives
 * the file into a temporary file as it streams in (withSpooledFile), then reads it, staging its
 * rows in batches under that import, which nobody sees yet, then queues it with its first job
 * in one transaction, which also claims and completes the Idempotency-Key. A file refused, a
 * replay, or any failure drops what was staged: a failed upload leaves nothing.
 */
export const createStartImport =
  ({ transactions, idempotency, queue, maxOrders, uploadTurns, uploadStatementWaitMs }: StartImportDeps) =>
  async (
    access: AccessContext,
    caller: ImportCaller,
    mediaType: ImportMediaType,
    file: AsyncIterable<Buffer>,
    { allowDuplicates = false, idempotencyKey }: StartImportOptions = {},
  ): Promise<{ started: Import; replayed: boolean }> => {
    const { db } = transactions;
    const format = FORMAT_OF_MEDIA_TYPE[mediaType];
    let queued = false;
    // Once its turn came, the upload's request deadline no longer bounds it: a 20 MiB file on a
    // busy machine takes longer to read. Each of its statements waits for a connection within a
    // deadline of its own instead, so a database that does not answer still fails it.
    const inTime = <T>(work: () => Promise<T>) => withRequestDeadline(Date.now() + uploadStatementWaitMs, work);
    // The import's row, once written: an upload refused before its turn came wrote none.
    let uploading: number | undefined;
    try {
      const { id, ...staged } = await uploadTurns
        .run(async () => {
          const { id } = await inTime(() => importStore.insert(db, uploadingRowOf(caller, format, allowDuplicates)));
          uploading = id;
          const read = await withSpooledFile(file, (bytes) =>
            stageImportFile(bytes, format, {
              maxOrders,
              write: (rows) => inTime(() => importStore.stageRows(transactions.reader, id, rows)),
            }),
          );
          return { id, ...read };
        })
        .catch(refusedAs(format));
      const jobs = await queue();
      const enqueue = async (guard?: IdempotencyGuard<Import>) => {
        const started = await inTime(() =>
          transactions.withTransaction(async (tx) => {
            await guard?.claim(tx);
            const ready = await importStore.finishUpload(tx, id, {
              ordersTotal: staged.orders,
              header: staged.header,
            });
            if (!ready) throw new Error(`import ${id}: its upload was dropped while it was read`);
            await jobs.enqueue(id, tx);
            const answer = toImport(ready, new Date());
            await guard?.complete(tx, [answer]);
            return answer;
          }),
        );
        queued = true;
        return started;
      };
      if (idempotencyKey === undefined) return { started: await enqueue(), replayed: false };
      const { result, replayed } = await inTime(() =>
        idempotency.run(
          access,
          { key: idempotencyKey, request: uploadRequestOf(staged.digest, mediaType, allowDuplicates) },
          ImportSchema,
          enqueue,
          () => access.locations ?? [],
        ),
      );
      return { started: result, replayed };
    } finally {
      const written = uploading;
      if (written !== undefined && !queued) await inTime(() => importStore.dropUpload(db, written));
    }
  };
