import { ImportSchema } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db, TransactionPort } from '../db/transactions.js';
import type { OrderUseCases } from '../orders/order-use-cases.js';
import { type ChunkUnderWay, type FileOrders, prepareChunk, startChunk } from './import-chunk.js';
import { type ImportFormat, ordersOfRows, UnreadableImportError } from './import-file.js';
import { giveWay, type ImportPaceDeps, nextChunkSize } from './import-pace.js';
import type { ImportJob, ImportQueue } from './import-queue.js';
import { toImport } from './import-shape.js';
import { stageImportFile } from './import-staging.js';
import { accessEnded, accessOfImport, starterNow } from './import-starter.js';
import {
  type ImportEnd,
  type ImportProgress,
  type ImportRow,
  importStore,
  type ResultToStore,
} from './import-store.js';

export interface RunImportChunkDeps extends ImportPaceDeps {
  transactions: TransactionPort;
  orders: Pick<OrderUseCases, 'bulkCreate'>;
  /** Set once the job queue has started (it starts after the routes are built). */
  queue: () => Promise<ImportQueue>;
  /** How long one job goes on with chunk after chunk before it queues the next job (well within its expiry). */
  jobSeconds: number;
}

/** One job of an import as it goes from chunk to chunk. */
interface ChunkJob {
  deps: RunImportChunkDeps;
  row: ImportRow;
  /** The starter as it was at the start (accessOfImport); each chunk runs as it is now (starterNow). */
  starter: AccessContext;
  fileOrders: FileOrders;
  jobs: ImportQueue;
  /** When the job stops going on to new chunks (Date.now()). */
  until: number;
  /** The position of the next chunk's first order. */
  start: number;
  /** When the job last went on to a new chunk, after its pause if it gave way (performance.now()). */
  resumed: number;
}

/** Whether the import goes on: queued or running. */
const goesOn = <T extends ImportProgress>(current: T | null): current is T =>
  current !== null && (current.state === 'queued' || current.state === 'running');

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
 * The import's orders, read a chunk at a time from its staged rows. An import uploaded before
 * files were staged as rows has its file staged first (once: its file then goes); undefined
 * after failing the import when that file cannot be read.
 */
const ordersOf = async (transactions: TransactionPort, row: ImportRow): Promise<FileOrders | undefined> => {
  const { db } = transactions;
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

/** Nothing left in the starter's window: the import waits for its reset, saying so, with its next job queued then. */
const waitFor = ({ deps, row, jobs }: ChunkJob, resetAt: Date) =>
  deps.transactions.withTransaction(async (tx) => {
    await importStore.waitUntil(tx, row.id, resetAt);
    await jobs.enqueue(row.id, tx, resetAt);
  });

/**
 * The chunk after `current`, begun while it is made: checked, its keys claimed and its orders
 * priced, then written behind it (its numbers follow these) and committed after it. None when
 * the starter's access ended (`ends`: the import fails) or its window is spent (`waitingUntil`:
 * `current` is the job's last chunk, and the next job waits for the reset).
 */
const beginNext = async (
  job: ChunkJob,
  current: ChunkUnderWay,
): Promise<{ next: ChunkUnderWay } | { ends?: ImportEnd; waitingUntil?: Date }> => {
  const { deps, row, fileOrders } = job;
  // Requests under way: `current` ends before the next (a smaller one) is begun, and a pause
  // follows it. Its failure is met by the job.
  job.resumed = await giveWay(deps, current.committed, job.resumed);
  const access = await starterNow(deps.transactions.db, job.starter);
  if (!access) return { ends: accessEnded };
  const { size, resetAt } = await nextChunkSize(deps, row, fileOrders.total, job.start);
  if (size === 0 && resetAt) return { waitingUntil: resetAt };
  const prepared = await prepareChunk(deps.transactions.db, row, access, fileOrders, job.start, size);
  job.start += prepared.chunk.length;
  return { next: startChunk(deps.orders, row, access, prepared, current) };
};

/**
 * The job's last chunk: its results with the next job queued (at `waitingUntil`, the window's
 * reset, when it waits for one), or with the import's end (`ends`), in one transaction.
 */
const recordLast = (
  { deps, row, jobs }: ChunkJob,
  results: ResultToStore[],
  ends: ImportEnd | undefined,
  waitingUntil: Date | null,
): Promise<undefined> =>
  deps.transactions.withTransaction(async (tx) => {
    await recordChunk(tx, row.id, results, ends, new Date());
    if (waitingUntil) await importStore.waitUntil(tx, row.id, waitingUntil);
    if (!ends) await jobs.enqueue(row.id, tx, waitingUntil ?? undefined);
    return undefined;
  });

/**
 * Chunk after chunk from `first` until the file ends, the job's time is up, the starter's
 * access or window ends, or the import was cancelled. Two chunks are under way at once
 * (beginNext); results are recorded in file order, one chunk after the other, while the
 * following chunk's orders are made.
 */
const chunkAfterChunk = async (job: ChunkJob, first: ChunkUnderWay): Promise<void> => {
  const { transactions } = job.deps;
  const { id } = job.row;
  let current = first;
  // The chunk before's results being recorded: the import's state as that statement left it.
  let recording: Promise<ImportProgress | undefined> = Promise.resolve(undefined);
  for (;;) {
    const done = job.start >= job.fileOrders.total;
    let last = done || Date.now() >= job.until;
    // How the import ends with this chunk: completed, or failed when its starter's access ended.
    let ends: ImportEnd | undefined = done ? { state: 'completed' } : undefined;
    let waitingUntil: Date | null = null;
    let next: ChunkUnderWay | undefined;
    if (!last) {
      const following = await beginNext(job, current);
      if ('next' in following) next = following.next;
      else {
        last = true;
        ends = following.ends;
        waitingUntil = following.waitingUntil ?? null;
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
      const finish: ImportEnd | undefined = goesOn(recorded) ? { state: 'cancelled' } : undefined;
      await transactions.withTransaction((tx) => recordChunk(tx, id, [...results, ...underWay], finish, new Date()));
      return;
    }
    recording = last
      ? recordLast(job, results, ends, waitingUntil)
      : importStore.recordResults(transactions.db, id, results);
    // Awaited before the next chunk's results, or on the way out; a failure fails the job then.
    recording.catch(() => {});
    if (last) {
      await recording;
      return;
    }
    current = next!;
  }
};

/**
 * One job of an import: chunks one after another for up to `jobSeconds`, each chunk's orders
 * in their own transaction (import-chunk.ts createChunk) and its results and counts in the next
 * statement (importStore.recordResults). Two chunks are under way at once: the next one is
 * checked, its keys claimed and its orders priced while this one is written, and it writes once
 * this one has committed. The last chunk of the job records its results with the next job
 * queued, or the import's end, in one transaction. A process that dies in between leaves this
 * job active: it runs again once it expires, from the last chunk recorded.
 */
export const createRunImportChunk =
  (deps: RunImportChunkDeps) =>
  async ({ import_id: id }: ImportJob): Promise<void> => {
    const { transactions, queue, jobSeconds } = deps;
    const { db } = transactions;
    const until = Date.now() + jobSeconds * 1_000;
    const row = await importStore.forJob(db, id);
    if (!goesOn(row)) return;
    if (row.cancelRequested) {
      await recordChunk(db, id, [], { state: 'cancelled' }, new Date());
      return;
    }
    await importStore.markRunning(db, id, new Date());
    const fileOrders = await ordersOf(transactions, row);
    if (!fileOrders) return;
    // Each chunk runs as its starter is now (starterNow): a credential that ended, or lost
    // what the import needs, ends the import before its next chunk.
    const starter = accessOfImport(row, await importStore.scopeOf(db, id));
    const access = await starterNow(db, starter);
    if (!access) {
      await transactions.withTransaction((tx) => recordChunk(tx, id, [], accessEnded, new Date()));
      return;
    }
    const jobs = await queue();
    const start = await importStore.nextPosition(db, id);
    const job: ChunkJob = { deps, row, starter, fileOrders, jobs, until, start, resumed: performance.now() };
    const firstSize = await nextChunkSize(deps, row, fileOrders.total, start);
    if (firstSize.size === 0 && firstSize.resetAt) return waitFor(job, firstSize.resetAt);
    const first = await prepareChunk(db, row, access, fileOrders, start, firstSize.size);
    job.start += first.chunk.length;
    await chunkAfterChunk(job, startChunk(deps.orders, row, access, first));
  };
