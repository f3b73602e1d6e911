import type { Foreground } from '../jobs/foreground.js';
import type { ImportRow } from './import-store.js';

/**
 * How fast an import goes: its chunks' sizes and the pauses between them.
 *
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

export interface ImportPaceDeps {
  /** IMPORT_CHUNK_SIZE. */
  chunkSize: number;
  /** The requests this process serves: chunks give way to them. */
  foreground: Foreground;
  bulkQuota?: BulkQuota;
}

/** The chunk size now: IMPORT_CHUNK_SIZE, or the smaller one while requests are under way. */
const chunkSizeNow = ({ chunkSize, foreground }: ImportPaceDeps) =>
  foreground.active > 0 ? Math.max(1, Math.ceil(chunkSize / BUSY_CHUNK_DIVISOR)) : chunkSize;

/**
 * The size of the chunk from `start` of the import's `total` orders: as many of its orders as the
 * starter's bulk-order window lets through now (counted there), and when the window resets
 * (null: not counted).
 */
export const nextChunkSize = async (
  pace: ImportPaceDeps,
  row: Pick<ImportRow, 'quotaKey'>,
  total: number,
  start: number,
): Promise<{ size: number; resetAt: Date | null }> => {
  const wanted = Math.min(chunkSizeNow(pace), total - start);
  if (wanted <= 0 || row.quotaKey === null || !pace.bulkQuota) return { size: wanted, resetAt: null };
  const { granted, resetAt } = await pace.bulkQuota.takeUpTo(row.quotaKey, wanted);
  return { size: granted, resetAt };
};

/**
 * Before the next chunk is begun: while requests are under way, the chunk under way (`underWay`)
 * ends first, then a pause of three times all the job did since it went on (`since`, from
 * performance.now()). Its failure is met by the job. Answers when the job goes on again.
 */
export const giveWay = async ({ foreground }: ImportPaceDeps, underWay: Promise<unknown>, since: number) => {
  if (foreground.active > 0) {
    await underWay.catch(() => {});
    await foreground.quiet(BUSY_PAUSE_FACTOR * (performance.now() - since));
  }
  return performance.now();
};
