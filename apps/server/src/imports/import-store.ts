import type { ErrorDetail } from '@sales-order/contract';

import type { LocationList } from '../auth/access-context.js';
import type { Scope } from '../auth/scope.js';
import { type Db, type Reader, readRows } from '../db/transactions.js';
import { withinLocations } from '../db/within-locations.js';
import { recordSubjectEvent, type SubjectEvent } from '../events/store/outbox-store.js';
import { type Import, Prisma } from '../generated/prisma/client.js';
import type { FileRow } from './import-file.js';
import type { StagedRow } from './import-staging.js';

/** The SQL of imports: their rows, their results, and the progress a chunk records. */

/** An import's row without its file (what GET answers from). */
export type ImportRow = Omit<Import, 'file' | 'locations' | 'csvHeader'>;

const withoutFile = {
  id: true,
  owner: true,
  actor: true,
  permissions: true,
  sessionDigest: true,
  tokenExpiresAt: true,
  format: true,
  state: true,
  cancelRequested: true,
  ordersTotal: true,
  rowsRead: true,
  ordersCreated: true,
  ordersFailed: true,
  error: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  quotaKey: true,
  waitingUntil: true,
  allowDuplicates: true,
} satisfies Prisma.ImportSelect;

export interface ResultToStore {
  position: number;
  orderRef: string;
  lines: number[];
  status: 'created' | 'failed';
  salesOrderId: number | null;
  orderNumber: string | null;
  errors: ErrorDetail[];
}

/** How an import ends: every order tried, cancelled, or unable to go on (with why). */
export interface ImportEnd {
  state: 'completed' | 'cancelled' | 'failed';
  error?: string;
}

/** Whether an import goes on: its state, and whether its owner asked it to stop. */
export type ImportProgress = Pick<ImportRow, 'state' | 'cancelRequested'>;

export const LIST_LIMIT = 100;

/**
 * Who reads and cancels an import: its owner (the starter's identity), or, with imports.admin
 * (`all`), any caller whose locations hold every location of the import. Any other import reads
 * as if it did not exist.
 */
export interface ImportViewer {
  owner: string;
  all: boolean;
  scope: Scope;
}

/** The imports `viewer` may see (imports `i`). */
const inScope = ({ owner, all, scope }: ImportViewer) =>
  // An import still uploading is nobody's yet: it answers once its file is read, or never.
  all
    ? Prisma.sql`(i.owner = ${owner} OR ${withinLocations(scope, { allOf: 'i.locations' })}) AND i.state <> 'uploading'`
    : Prisma.sql`i.owner = ${owner} AND i.state <> 'uploading' /* location scope: the owner's own imports (its starter's scope) */`;

export const importStore = {
  /** An import whose file is being uploaded (state `uploading`): its rows are staged next (stageRows). */
  insert: (
    db: Db,
    {
      locations,
      ...row
    }: Pick<
      Import,
      'owner' | 'actor' | 'permissions' | 'sessionDigest' | 'tokenExpiresAt' | 'format' | 'quotaKey' | 'allowDuplicates'
    > & {
      locations: LocationList;
    },
  ): Promise<ImportRow> =>
    // An omitted list stays NULL (every location); Prisma's types have no null for a list.
    db.import.create({
      data: {
        ...row,
        ...(locations === null ? {} : { locations: [...locations] }),
        state: 'uploading',
        ordersTotal: 0,
      },
      select: withoutFile,
    }),

  /**
   * A batch of the uploading file's rows, in one statement of fixed text whatever its size; on
   * the pool where there is one (`reader`): Prisma would carry its megabyte of parameters through
   * JSON and back.
   */
  stageRows: async (reader: Reader, id: number, rows: readonly StagedRow[]): Promise<void> => {
    await readRows(
      reader,
      Prisma.sql`
      -- location scope: the uploading import's, written by its starter
      INSERT INTO import_file_rows (import_id, order_no, seq, line, flags, content)
      SELECT ${id}::int, r.order_no, r.seq, r.line, r.flags, r.content
      FROM unnest(${rows.map((row) => row.orderNo)}::int[], ${rows.map((row) => row.seq)}::int[],
        ${rows.map((row) => row.line)}::int[], ${rows.map((row) => row.flags)}::int2[],
        ${rows.map((row) => row.content)}::text[]) AS r(order_no, seq, line, flags, content)`,
    );
  },

  /** The file is read whole: the import is queued (answers the row, or null when it was dropped meanwhile). */
  finishUpload: async (
    db: Db,
    id: number,
    { ordersTotal, header }: { ordersTotal: number; header: string[] },
  ): Promise<ImportRow | null> => {
    const updated = await db.$executeRaw`
      -- location scope: the uploading import's, written by its starter
      UPDATE imports SET state = 'queued', orders_total = ${ordersTotal}::int, csv_header = ${header}::text[],
        created_at = now()
      WHERE id = ${id}::int AND state = 'uploading'`;
    return updated === 0 ? null : importStore.forJob(db, id);
  },

  /** An upload that failed or was refused leaves nothing: the import and its staged rows go. */
  dropUpload: async (db: Db, id: number): Promise<void> => {
    await db.$executeRaw`
      DELETE FROM imports WHERE id = ${id}::int AND state = 'uploading' /* location scope: the uploading import's */`;
  },

  /** Uploads that began before `before` and never finished (their process died): dropped. */
  dropAbandonedUploads: (db: Db, before: Date): Promise<number> =>
    db.$executeRaw`
      DELETE FROM imports WHERE state = 'uploading' AND created_at < ${before} /* location scope: the system's, every location */`,

  /** The staged rows of orders `from` to `to` (exclusive), each order's rows together in file order. */
  rowsOf: (db: Db, id: number, from: number, to: number): Promise<FileRow[]> =>
    db.$queryRaw<FileRow[]>`
      SELECT order_no AS "orderNo", line, flags, content FROM import_file_rows
      WHERE import_id = ${id}::int AND order_no >= ${from}::int AND order_no < ${to}::int
      ORDER BY order_no, seq /* location scope: the job's, for its starter */`,

  /** A CSV import's header row, the columns of its rows' cells. */
  headerOf: async (db: Db, id: number): Promise<string[]> => {
    const [row] = await db.$queryRaw<{ header: string[] | null }[]>`
      SELECT csv_header AS header FROM imports WHERE id = ${id}::int /* location scope: the job's, for its starter */`;
    return row?.header ?? [];
  },

  /** Forgets the staged rows of an import whose file is staged again (legacyFileOf). */
  dropStagedRows: async (db: Db, id: number): Promise<void> => {
    await db.$executeRaw`
      DELETE FROM import_file_rows WHERE import_id = ${id}::int /* location scope: the job's, for its starter */`;
  },

  /** The whole file of an import uploaded before files were staged as rows (null: it has none). */
  legacyFileOf: async (db: Db, id: number): Promise<Buffer | null> => {
    const row = await db.import.findUnique({ where: { id }, select: { file: true } });
    return row?.file ? Buffer.from(row.file) : null;
  },

  /** Once its rows are staged, such an import keeps them instead of its file. */
  replaceLegacyFile: async (db: Db, id: number, header: string[]): Promise<void> => {
    await db.$executeRaw`
      UPDATE imports SET file = NULL, csv_header = ${header}::text[]
      WHERE id = ${id}::int /* location scope: the job's, for its starter */`;
  },

  /**
   * The starter's location scope. Read in SQL: Prisma reads a NULL list as [], which would turn
   * "every location" into "none".
   */
  scopeOf: async (db: Db, id: number): Promise<LocationList> => {
    const [row] = await db.$queryRaw<
      { locations: number[] | null }[]
    >`SELECT locations FROM imports WHERE id = ${id}::int /* location scope: the job's, for its starter */`;
    // No such import: no location (it has nothing to create anyway).
    return row === undefined ? [] : row.locations;
  },

  /**
   * Of `refs`, those that made an order in an earlier import of `owner` (an import with a lower
   * id), each with the order it made first: what an import without allow_duplicates skips.
   */
  earlierOrdersOf: async (
    db: Db,
    owner: string,
    importId: number,
    refs: readonly string[],
  ): Promise<Map<string, { importId: number; orderNumber: string | null }>> => {
    if (refs.length === 0) return new Map();
    const rows = await db.$queryRaw<{ order_ref: string; import_id: number; order_number: string | null }[]>`
      SELECT DISTINCT ON (r.order_ref) r.order_ref, r.import_id, r.order_number
      FROM import_results r JOIN imports i ON i.id = r.import_id
      WHERE r.order_ref = ANY(${[...refs]}::text[]) AND r.status = 'created'
        AND i.owner = ${owner} AND i.id < ${importId}::int /* location scope: the owner's own imports */
      ORDER BY r.order_ref, r.import_id`;
    return new Map(rows.map((row) => [row.order_ref, { importId: row.import_id, orderNumber: row.order_number }]));
  },

  /** The import's `import.*` event, in the transaction that ends it (the outbox: events/store/outbox-store.ts). */
  recordEvent: (db: Db, event: SubjectEvent): Promise<void> => recordSubjectEvent(db, event),

  /** The import, if `viewer` may see it. */
  findVisible: async (db: Db, id: number, viewer: ImportViewer): Promise<ImportRow | null> => {
    const [row] = await db.$queryRaw<{ id: number }[]>`
      SELECT i.id FROM imports i WHERE i.id = ${id}::int AND ${inScope(viewer)}`;
    return row ? db.import.findUnique({ where: { id: row.id }, select: withoutFile }) : null;
  },

  /** The last LIST_LIMIT imports `viewer` may see, newest first. */
  listVisible: async (db: Db, viewer: ImportViewer): Promise<ImportRow[]> => {
    const ids = await db.$queryRaw<{ id: number }[]>`
      SELECT i.id FROM imports i WHERE ${inScope(viewer)} ORDER BY i.id DESC LIMIT ${LIST_LIMIT}::int`;
    return db.import.findMany({
      where: { id: { in: ids.map(({ id }) => id) } },
      select: withoutFile,
      orderBy: { id: 'desc' },
    });
  },

  /** The row a chunk works from, without its rows (rowsOf) or scope (scopeOf). */
  forJob: (db: Db, id: number): Promise<ImportRow | null> =>
    db.import.findUnique({ where: { id }, select: withoutFile }),

  /** Where the next chunk starts: results are written in position order, a chunk at a time. */
  nextPosition: async (db: Db, id: number): Promise<number> => {
    const last = await db.importResult.findFirst({
      where: { importId: id },
      orderBy: { position: 'desc' },
      select: { position: true },
    });
    return last ? last.position + 1 : 0;
  },

  markRunning: (db: Db, id: number, now: Date) =>
    db.$executeRaw`/* location scope: the job's, for its starter */ UPDATE imports SET state = 'running', started_at = COALESCE(started_at, ${now}),
      waiting_until = NULL
      WHERE id = ${id} AND state IN ('queued', 'running')`,

  /** Says the import waits for its starter's bulk-order window until `until` (null: no longer). */
  waitUntil: (db: Db, id: number, until: Date | null) =>
    db.$executeRaw`/* location scope: the job's, for its starter */ UPDATE imports SET waiting_until = ${until}
      WHERE id = ${id} AND state IN ('queued', 'running')`,

  /**
   * A chunk's results (once each: a chunk run twice writes nothing the second time) and the
   * counts they add, in one statement: the counts grow by the results this statement wrote, so
   * they stay those of every result so far without reading them again (a chunk's cost does not
   * grow with the import). One statement needs no transaction of its own; `finish` (endChunk)
   * does. Answers the import's state and whether a cancel was asked, as the statement left them
   * (the job's look between chunks, without a round trip of its own).
   */
  recordResults: async (db: Db, id: number, results: ResultToStore[]): Promise<ImportProgress | undefined> => {
    if (results.length === 0) return importStore.forJob(db, id).then((row) => row ?? undefined);
    // The rows as one JSON parameter: a fixed statement text whatever the chunk's size.
    const rows = JSON.stringify(
      results.map((result) => ({
        position: result.position,
        order_ref: result.orderRef,
        lines: result.lines,
        status: result.status,
        sales_order_id: result.salesOrderId,
        order_number: result.orderNumber,
        errors: result.errors,
      })),
    );
    const [progress] = await db.$queryRaw<{ state: string; cancelRequested: boolean }[]>`
      -- location scope: the job's, for its starter
      WITH written AS (
        INSERT INTO import_results (import_id, position, order_ref, lines, rows, status, sales_order_id, order_number, errors)
        SELECT ${id}::int, r.position, r.order_ref,
          ARRAY(SELECT jsonb_array_elements_text(r.lines)::int), jsonb_array_length(r.lines),
          r.status, r.sales_order_id, r.order_number, r.errors
        FROM jsonb_to_recordset(${rows}::jsonb) AS r(position int, order_ref varchar, lines jsonb, status varchar,
          sales_order_id int, order_number varchar, errors jsonb)
        ON CONFLICT (import_id, position) DO NOTHING
        RETURNING rows, status
      )
      UPDATE imports SET rows_read = rows_read + c.rows, orders_created = orders_created + c.created,
        orders_failed = orders_failed + c.failed
      FROM (
        SELECT COALESCE(sum(rows), 0)::int AS rows,
          count(*) FILTER (WHERE status = 'created')::int AS created,
          count(*) FILTER (WHERE status = 'failed')::int AS failed
        FROM written
      ) c
      WHERE id = ${id}::int
      RETURNING state, cancel_requested AS "cancelRequested"`;
    return progress;
  },

  /**
   * A chunk's results (recordResults) and `finish`, which ends the import in that state if it
   * has not ended already, in the transaction `db` holds: answers whether it ended now (the row
   * stays locked until the transaction ends, so of two chunks racing to end it one does).
   */
  recordChunk: async (
    db: Db,
    id: number,
    results: ResultToStore[],
    finish: ImportEnd | undefined,
    now: Date,
  ): Promise<boolean> => {
    await importStore.recordResults(db, id, results);
    return (
      finish !== undefined &&
      (await db.$executeRaw`
        -- location scope: the job's, for its starter
        UPDATE imports SET state = ${finish.state}, error = COALESCE(${finish.error ?? null}::varchar, error),
          finished_at = ${now}
        WHERE id = ${id} AND state IN ('queued', 'running')`) > 0
    );
  },

  /**
   * Asks a running import to stop after its chunk; a queued one stops at once; one that has
   * ended is left as it is. Returns the row as it now reads and whether the request was taken,
   * or null when `viewer` has no such import.
   */
  requestCancel: async (
    db: Db,
    id: number,
    viewer: ImportViewer,
    now: Date,
  ): Promise<{ row: ImportRow; taken: boolean } | null> => {
    const taken = await db.$executeRaw`
      UPDATE imports i SET cancel_requested = true,
        state = CASE WHEN i.state = 'queued' THEN 'cancelled' ELSE i.state END,
        finished_at = CASE WHEN i.state = 'queued' THEN ${now} ELSE i.finished_at END
      WHERE i.id = ${id} AND ${inScope(viewer)} AND i.state IN ('queued', 'running')`;
    const row = await importStore.findVisible(db, id, viewer);
    return row && { row, taken: taken > 0 };
  },

  /** Results in file order from `after` (exclusive), `limit` at a time. */
  results: (db: Db, id: number, after: number, limit: number) =>
    db.importResult.findMany({
      where: { importId: id, position: { gt: after } },
      orderBy: { position: 'asc' },
      take: limit,
    }),
};
