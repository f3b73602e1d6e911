import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { type CsvError, type Info, type Options as CsvOptions, parse as parseCsv } from 'csv-parse';

import {
  checkCsvHeader,
  type ImportFormat,
  NOT_UTF8,
  readJsonLine,
  REPEATED_REF,
  UnreadableImportError,
} from './import-file.js';

/**
 * Reading an upload as it streams in: each row (a CSV record, a JSON Lines line) is given its
 * order's number and handed on in batches (`write`), so the file is never held whole. What is
 * held is bounded whatever the file's size: two batches (the one being written and the one being
 * filled), the parser's buffer, and each order's ref (at most IMPORT_MAX_ORDERS of them).
 */

/** A row as it is staged (importStore.stageRows). */
export interface StagedRow {
  orderNo: number;
  seq: number;
  line: number;
  flags: number;
  content: string;
}

/** A batch is written once it holds this many rows, or this many characters of content. */
const BATCH_ROWS = 1_000;
const BATCH_CHARS = 1024 * 1024;

export interface StagedFile {
  /** SHA-256 of the bytes read, in hex (the upload's fingerprint). */
  digest: string;
  orders: number;
  /** A CSV file's header row (empty for JSON Lines). */
  header: string[];
}

/** More orders than the import may hold: refused whole once the file passes the bound. */
export class TooManyOrdersError extends Error {
  constructor(readonly maxOrders: number) {
    super(
      `The file holds more than ${maxOrders} orders; at most ${maxOrders} (IMPORT_MAX_ORDERS) are imported at once`,
    );
  }
}

/** Whitespace a file of nothing else is empty of: space, tab, LF, VT, FF, CR and a BOM's bytes. */
const BLANK = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0xef, 0xbb, 0xbf]);

/**
 * The bytes as they pass, checked: hashed, refused when binary (a NUL) or empty, and split into
 * lines to say which are not valid UTF-8 (`onLine` for each, with its 1-based number).
 */
const inspectBytes = (
  hash: ReturnType<typeof createHash>,
  onLine: (line: number, bytes: Buffer) => void,
): ((source: Source) => AsyncGenerator<Buffer>) =>
  async function* (source) {
    let text = false;
    let line = 1;
    let partial: Buffer[] = [];
    for await (const chunk of source) {
      hash.update(chunk);
      // A NUL byte is in no text file: a spreadsheet's binary form, an archive, an image.
      if (chunk.includes(0)) throw new UnreadableImportError('the file is binary, not text');
      if (!text) text = chunk.some((byte) => !BLANK.has(byte));
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, end);
        onLine(line, partial.length === 0 ? piece : Buffer.concat([...partial, piece]));
        partial = [];
        line += 1;
        start = end + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
      yield chunk;
    }
    if (!text) throw new UnreadableImportError('the file is empty');
    if (partial.length > 0) onLine(line, Buffer.concat(partial));
  };

/** Collects rows into batches, writing one while the next fills (at most two held). */
const batcher = (write: (rows: StagedRow[]) => Promise<void>) => {
  let rows: StagedRow[] = [];
  let chars = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    await writing;
    const batch = rows;
    rows = [];
    chars = 0;
    writing = batch.length === 0 ? Promise.resolve() : write(batch);
    // Awaited by the next flush or the last one; a failure fails the upload there.
    writing.catch(() => {});
  };
  return {
    add: async (row: StagedRow) => {
      rows.push(row);
      chars += row.content.length;
      if (rows.length >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
    },
    end: async () => {
      await flush();
      await writing;
    },
  };
};

/** Gives each order its number, in the order of its first row; refuses the order past the bound. */
const orderNumbering = (maxOrders: number) => {
  const numbers = new Map<string, number>();
  let count = 0;
  return {
    get count() {
      return count;
    },
    /** The number of the order `ref` names (undefined: a row that is an order of its own). */
    of: (ref: string | undefined): number => {
      const known = ref === undefined ? undefined : numbers.get(ref);
      if (known !== undefined) return known;
      if (count >= maxOrders) throw new TooManyOrdersError(maxOrders);
      if (ref !== undefined) numbers.set(ref, count);
      count += 1;
      return count - 1;
    },
    has: (ref: string) => numbers.has(ref),
    /** Remembers `ref` as the ref of order `orderNo`. */
    remember: (ref: string, orderNo: number) => {
      numbers.set(ref, orderNo);
    },
  };
};

/** Lines not valid UTF-8 seen by the byte check and not yet asked for by a row. */
const badLines = () => {
  const lines = new Set<number>();
  return {
    onLine: (line: number, bytes: Buffer) => {
      if (!isUtf8(bytes)) lines.add(line);
    },
    /** Whether `line` was not valid UTF-8; forgets every line up to it (rows come in line order). */
    take: (line: number): boolean => {
      const bad = lines.has(line);
      for (const seen of lines) if (seen <= line) lines.delete(seen);
      return bad;
    },
  };
};

/** The file's bytes as they arrive (a request), or all at once (a file stored whole). */
type Source = AsyncIterable<Buffer> | Iterable<Buffer>;

interface StageOptions {
  maxOrders: number;
  write: (rows: StagedRow[]) => Promise<void>;
}

/** A CSV record as csv-parse's on_record makes it: its cells and the line it starts on. */
interface CsvRecord {
  line: number;
  cells: string[];
}

const stageCsv = async (source: Source, { maxOrders, write }: StageOptions) => {
  const hash = createHash('sha256');
  const bad = badLines();
  const batch = batcher(write);
  const orders = orderNumbering(maxOrders);
  const skipped: { line: number; message: string }[] = [];
  let header: string[] | undefined;
  let refColumn = 0;
  let seq = 0;
  // Records made by on_record: csv-parse's types tie its records to `columns` instead.
  const options: CsvOptions<CsvRecord, string[]> = {
    bom: true,
    // Each record with the line it starts on (`lines` is where it ended).
    on_record: (record: string[], { lines }: Info): CsvRecord => ({
      line: lines - record.reduce((sum, cell) => sum + (cell.includes('\n') ? cell.split('\n').length - 1 : 0), 0),
      cells: record,
    }),
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined) => {
      if (error) skipped.push({ line: Number(error.lines ?? 0), message: error.message });
    },
  };
  const parser = parseCsv(options as unknown as CsvOptions);
  try {
    await pipeline(
      Readable.from(source),
      inspectBytes(hash, bad.onLine),
      parser,
      async (records: AsyncIterable<CsvRecord>) => {
        for await (const record of records) {
          const flags = bad.take(record.line) ? NOT_UTF8 : 0;
          if (header === undefined) {
            header = checkCsvHeader(record.cells);
            refColumn = header.indexOf('order_ref');
            continue;
          }
          const ref = (record.cells[refColumn] ?? '').trim() || undefined;
          const orderNo = orders.of(ref);
          await batch.add({ orderNo, seq: seq++, line: record.line, flags, content: JSON.stringify(record.cells) });
        }
      },
    );
  } catch (error) {
    if (error instanceof UnreadableImportError || error instanceof TooManyOrdersError) throw error;
    // csv-parse's own refusals (it skips what it can): the file is not CSV.
    if ((error as { code?: string }).code?.startsWith('CSV_'))
      throw new UnreadableImportError(`the file is not CSV: ${(error as Error).message}`);
    throw error;
  }
  if (header === undefined) throw new UnreadableImportError('the file has no header row');
  // A record csv-parse could not read at all (an unclosed quote) is an order of its own that failed.
  for (const { line, message } of skipped)
    await batch.add({
      orderNo: orders.of(undefined),
      seq: seq++,
      line,
      flags: 0,
      content: JSON.stringify({ skipped: message }),
    });
  await batch.end();
  return { digest: hash.digest('hex'), orders: orders.count, header };
};

const stageJsonLines = async (source: Source, { maxOrders, write }: StageOptions) => {
  const hash = createHash('sha256');
  const batch = batcher(write);
  const orders = orderNumbering(maxOrders);
  let seq = 0;
  const lines: { line: number; bytes: Buffer }[] = [];
  const check = inspectBytes(hash, (line, bytes) => lines.push({ line, bytes }));
  for await (const _chunk of check(source)) {
    // Each complete line, as the byte check found it; none is held past its chunk.
    for (const { line, bytes } of lines.splice(0)) await stageLine(line, bytes);
  }
  for (const { line, bytes } of lines.splice(0)) await stageLine(line, bytes);
  await batch.end();
  return { digest: hash.digest('hex'), orders: orders.count, header: [] };

  async function stageLine(line: number, bytes: Buffer) {
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    // Its order_ref as the job reads it; only a given one can repeat an earlier line's.
    const { object, ref, given } = readJsonLine(text, line);
    // The first line decides whether this is JSON Lines at all.
    if (orders.count === 0 && !object)
      throw new UnreadableImportError(`line ${line} is not a JSON object: the file is not JSON Lines`);
    const repeated = given && orders.has(ref);
    // Each line is an order of its own; a repeated ref fails its line, not the earlier one.
    const orderNo = orders.of(undefined);
    const flags = (isUtf8(bytes) ? 0 : NOT_UTF8) | (repeated ? REPEATED_REF : 0);
    if (given && !repeated) orders.remember(ref, orderNo);
    await batch.add({ orderNo, seq: seq++, line, flags, content: text });
  }
};

/** Reads `source` as an import file of `format`, writing its rows in batches; throws UnreadableImportError or TooManyOrdersError. */
export const stageImportFile = (source: Source, format: ImportFormat, options: StageOptions): Promise<StagedFile> =>
  format === 'csv' ? stageCsv(source, options) : stageJsonLines(source, options);
