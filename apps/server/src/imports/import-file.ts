import { isUtf8 } from 'node:buffer';

import {
  type CreateSalesOrderBody,
  CreateSalesOrderBodySchema,
  type ErrorDetail,
  ImportCode,
  type ImportMediaType,
} from '@sales-order/contract';
import { type CsvError, parse as parseCsv } from 'csv-parse/sync';

import { issuesToDetails } from '../http/validation-details.js';

/**
 * Reading an import's file into orders: pure, and the same every time for the same bytes, so the
 * upload (counting and refusing) and every chunk of the job (after a restart too) see the same
 * orders at the same positions. A malformed row fails only its own order, with a message naming
 * its line and column; only a file that is not CSV or JSON Lines at all is refused whole.
 */

export type ImportFormat = 'csv' | 'ndjson';

export const FORMAT_OF_MEDIA_TYPE: Record<ImportMediaType, ImportFormat> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
};

/** One order of the file: its rows' lines and either its create body or why it has none. */
export interface ImportOrder {
  ref: string;
  /** 1-based line numbers in the file of its rows (CSV) or its line (JSON Lines). */
  lines: number[];
  body?: CreateSalesOrderBody;
  problems: ErrorDetail[];
  /**
   * Where a path of the body came from: the line and column to name in a message about it
   * (`details.2.quantity` -> line 7, column quantity).
   */
  locate: (path: string) => string;
}

/** The file as a whole is not one the service reads: refused at upload (400). */
export class UnreadableImportError extends Error {}

export const ORDER_REF_MAX_LENGTH = 100;

/**
 * The CSV columns: each row is one detail line (and/or one other charge) of the order its
 * `order_ref` names; order columns are repeated on each row (or left empty after the first).
 */
const ORDER_COLUMNS = {
  customer_id: 'id',
  location_id: 'id',
  sales_order_date: 'text',
  sales_order_no: 'text',
  status: 'text',
  acknowledge_warnings: 'boolean',
  grand_total: 'decimal',
  remarks: 'text',
  field_officer_id: 'id',
  port_id: 'id',
  customer_reference: 'text',
  delivery_date: 'text',
} as const;
/** Detail line columns, by the CSV's name and the body's. */
const LINE_COLUMNS = {
  product_id: ['product_id', 'id'],
  packsize_id: ['packsize_id', 'id'],
  quantity: ['quantity', 'decimal'],
  rate: ['rate', 'decimal'],
  amount: ['amount', 'decimal'],
  line_remarks: ['remarks', 'text'],
} as const;
const CHARGE_COLUMNS = {
  charge_description: ['description', 'text'],
  charge_amount: ['amount', 'decimal'],
} as const;
export const CSV_COLUMNS = [
  'order_ref',
  ...Object.keys(ORDER_COLUMNS),
  ...Object.keys(LINE_COLUMNS),
  ...Object.keys(CHARGE_COLUMNS),
];

type CellKind = 'id' | 'decimal' | 'text' | 'boolean';

const ID = /^[0-9]{1,10}$/;
const DECIMAL = /^-?[0-9]{1,16}(\.[0-9]{1,8})?$/;

/** A cell as the body's value; a cell that should be a number and is not is a problem. */
const readCell = (kind: CellKind, text: string): { value: unknown } | { problem: string } => {
  switch (kind) {
    case 'id':
      return ID.test(text) ? { value: Number(text) } : { problem: `"${clip(text)}" is not a whole number` };
    case 'decimal':
      return DECIMAL.test(text) ? { value: Number(text) } : { problem: `"${clip(text)}" is not a number` };
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { value: text === 'true' }
        : { problem: `"${clip(text)}" is not true or false` };
    case 'text':
      // Formulas (=, +, -, @) are kept as the text they are: nothing here evaluates a cell.
      return { value: text };
  }
};

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}...` : text);

/** A validation failure of the body, with each message naming where in the file it came from. */
const bodyProblems = (raw: unknown, locate: (path: string) => string) => {
  const parsed = CreateSalesOrderBodySchema.safeParse(raw);
  if (parsed.success) return { body: parsed.data, problems: [] };
  return { problems: locateAll(issuesToDetails(parsed.error), locate) };
};

/** The same details, each message starting with where its path came from in the file. */
export const locateAll = (details: ErrorDetail[], locate: (path: string) => string): ErrorDetail[] =>
  details.map((detail) => ({ ...detail, message: `${locate(detail.path)}: ${detail.message}` }));

/** Byte-level: the 1-based numbers of the lines that are not valid UTF-8. */
const linesNotUtf8 = (file: Buffer): Set<number> => {
  const bad = new Set<number>();
  let start = 0;
  for (let line = 1; start <= file.length; line += 1) {
    const end = file.indexOf(0x0a, start);
    const stop = end === -1 ? file.length : end;
    if (!isUtf8(file.subarray(start, stop))) bad.add(line);
    if (end === -1) break;
    start = end + 1;
  }
  return bad;
};

const encodingProblem = (line: number): ErrorDetail => ({
  path: '',
  message: `line ${line}: is not valid UTF-8`,
  code: ImportCode.invalidEncoding,
});

const refuseBinary = (file: Buffer) => {
  if (file.length === 0 || file.toString('utf8').trim() === '') throw new UnreadableImportError('the file is empty');
  // A NUL byte is in no text file: a spreadsheet's binary form, an archive, an image.
  if (file.includes(0)) throw new UnreadableImportError('the file is binary, not text');
};

/** Every order of the file, in file order; throws UnreadableImportError when it is not of its format. */
export const readImportFile = (file: Buffer, format: ImportFormat): { orders: ImportOrder[]; rows: number } => {
  refuseBinary(file);
  const notUtf8 = linesNotUtf8(file);
  const text = file.toString('utf8');
  return format === 'csv' ? readCsv(text, notUtf8) : readJsonLines(text, notUtf8);
};

interface CsvRow {
  line: number;
  cells: string[];
}

const readCsv = (text: string, notUtf8: Set<number>): { orders: ImportOrder[]; rows: number } => {
  const skipped: { line: number; message: string }[] = [];
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined) => {
        if (error) skipped.push({ line: Number(error.lines ?? 0), message: error.message });
      },
      // With `info`, each record comes with where it ended in the file.
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    throw new UnreadableImportError(`the file is not CSV: ${(error as Error).message}`);
  }
  const [head, ...data] = records;
  if (!head) throw new UnreadableImportError('the file has no header row');
  const header = head.record.map((name) => name.trim());
  if (!header.includes('order_ref'))
    throw new UnreadableImportError('the header row has no order_ref column (which groups rows into orders)');
  const unknown = header.filter((name) => !CSV_COLUMNS.includes(name));
  if (unknown.length > 0)
    throw new UnreadableImportError(
      `the header row names columns this service does not read: ${unknown.join(', ')} (columns: ${CSV_COLUMNS.join(', ')})`,
    );
  const refColumn = header.indexOf('order_ref');

  // Rows of one order_ref form one order, placed where its first row is.
  const groups = new Map<string, CsvRow[]>();
  const orders: ImportOrder[] = [];
  const placeOf = new Map<string, number>();
  for (const { record, info } of data) {
    const newlines = record.reduce((sum, cell) => sum + (cell.match(/\n/g)?.length ?? 0), 0);
    const row = { line: info.lines - newlines, cells: record };
    const ref = (record[refColumn] ?? '').trim() || `line-${row.line}`;
    const rows = groups.get(ref);
    if (rows) rows.push(row);
    else {
      groups.set(ref, [row]);
      placeOf.set(ref, orders.length);
      orders.push({ ref, lines: [], problems: [], locate: () => '' });
    }
  }
  for (const [ref, rows] of groups) orders[placeOf.get(ref)!] = csvOrder(ref, rows, header, notUtf8);
  // A record csv-parse could not read at all (an unclosed quote) is an order of its own that failed.
  for (const { line, message } of skipped) {
    orders.push({
      ref: `line-${line}`,
      lines: [line],
      problems: [{ path: '', message: `line ${line}: ${message}`, code: ImportCode.wrongColumnCount }],
      locate: () => `line ${line}`,
    });
  }
  return { orders, rows: data.length + skipped.length };
};

const csvOrder = (ref: string, rows: CsvRow[], header: string[], notUtf8: Set<number>): ImportOrder => {
  const lines = rows.map((row) => row.line);
  const first = rows[0]!;
  const problems: ErrorDetail[] = [];
  const fieldAt = new Map<string, string>();
  const locate = (path: string) => fieldAt.get(path) ?? `line ${first.line}`;
  const order: Record<string, unknown> = {};
  const details: Record<string, unknown>[] = [];
  const charges: Record<string, unknown>[] = [];

  for (const row of rows) {
    if (notUtf8.has(row.line)) problems.push(encodingProblem(row.line));
    if (row.cells.length !== header.length) {
      problems.push({
        path: '',
        message: `line ${row.line}: has ${row.cells.length} cells where the header has ${header.length}`,
        code: ImportCode.wrongColumnCount,
      });
      continue;
    }
    const line: Record<string, unknown> = {};
    const charge: Record<string, unknown> = {};
    const lineIndex = details.length;
    const chargeIndex = charges.length;
    header.forEach((column, index) => {
      const text = row.cells[index]!.trim();
      if (column === 'order_ref' || text === '') return;
      const where = `line ${row.line}, column ${column}`;
      const target =
        column in ORDER_COLUMNS
          ? { into: order, key: column, kind: ORDER_COLUMNS[column as keyof typeof ORDER_COLUMNS], path: column }
          : column in LINE_COLUMNS
            ? (([key, kind]) => ({ into: line, key, kind, path: `details.${lineIndex}.${key}` }))(
                LINE_COLUMNS[column as keyof typeof LINE_COLUMNS],
              )
            : (([key, kind]) => ({ into: charge, key, kind, path: `other_charges.${chargeIndex}.${key}` }))(
                CHARGE_COLUMNS[column as keyof typeof CHARGE_COLUMNS],
              );
      const cell = readCell(target.kind, text);
      if ('problem' in cell) {
        problems.push({ path: target.path, message: `${where}: ${cell.problem}`, code: ImportCode.invalidCell });
        return;
      }
      if (target.into === order && target.key in order) {
        if (order[target.key] !== cell.value)
          problems.push({
            path: target.path,
            message: `${where}: differs from the order's first row (${clip(String(order[target.key]))})`,
            code: ImportCode.inconsistentOrder,
          });
        return;
      }
      target.into[target.key] = cell.value;
      if (!fieldAt.has(target.path)) fieldAt.set(target.path, where);
    });
    if (Object.keys(line).length > 0) {
      details.push(line);
      fieldAt.set(`details.${lineIndex}`, `line ${row.line}`);
    }
    if (Object.keys(charge).length > 0) {
      charges.push(charge);
      fieldAt.set(`other_charges.${chargeIndex}`, `line ${row.line}`);
    }
  }
  if (problems.length > 0) return { ref, lines, problems, locate };
  const raw = { ...order, details, ...(charges.length > 0 ? { other_charges: charges } : {}) };
  return { ref: ref.slice(0, ORDER_REF_MAX_LENGTH), lines, ...bodyProblems(raw, locate), locate };
};

const readJsonLines = (text: string, notUtf8: Set<number>): { orders: ImportOrder[]; rows: number } => {
  const orders: ImportOrder[] = [];
  const seen = new Set<string>();
  let rows = 0;
  text.split('\n').forEach((content, index) => {
    const line = index + 1;
    if (content.trim() === '') return;
    rows += 1;
    const locate = (path: string) => (path === '' ? `line ${line}` : `line ${line}, ${path}`);
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      value = undefined;
    }
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    // The first line decides whether this is JSON Lines at all.
    if (orders.length === 0 && !isObject)
      throw new UnreadableImportError(`line ${line} is not a JSON object: the file is not JSON Lines`);
    const { order_ref: givenRef, ...raw } = (isObject ? value : {}) as Record<string, unknown>;
    const ref =
      typeof givenRef === 'string' && givenRef.trim() !== ''
        ? givenRef.trim().slice(0, ORDER_REF_MAX_LENGTH)
        : `line-${line}`;
    const problems: ErrorDetail[] = [];
    if (notUtf8.has(line)) problems.push(encodingProblem(line));
    else if (!isObject)
      problems.push({ path: '', message: `line ${line}: is not a JSON object`, code: ImportCode.invalidLine });
    if (seen.has(ref))
      problems.push({
        path: 'order_ref',
        message: `line ${line}: order_ref ${ref} is already the ref of an earlier line`,
        code: ImportCode.inconsistentOrder,
      });
    seen.add(ref);
    orders.push(
      problems.length > 0
        ? { ref, lines: [line], problems, locate }
        : { ref, lines: [line], ...bodyProblems(raw, locate), locate },
    );
  });
  return { orders, rows };
};
