import {
  type CreateSalesOrderBody,
  CreateSalesOrderBodySchema,
  type ErrorDetail,
  IMPORT_CSV_COLUMNS,
  ImportCode,
  type ImportCsvColumn,
  type ImportMediaType,
  type OtherChargeInput,
  type SalesOrderDetailInput,
} from '@sales-order/contract';

import { issuesToDetails } from '../errors/validation-details.js';

/**
 * An import file's rows into orders: pure, and the same every time for the same rows, so every
 * chunk of the job (after a restart too) sees the same orders at the same positions (the upload
 * stages the rows: import-staging.ts). A malformed row fails only its own order, with a message naming
 * its line and column; only a file that is not CSV or JSON Lines at all is refused whole.
 */

export type ImportFormat = 'csv' | 'ndjson';

export const FORMAT_OF_MEDIA_TYPE: Record<ImportMediaType, ImportFormat> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
};

/**
 * One order of the file: its rows' lines and either the body they make or why they make none.
 * The body is checked against the create's schema only when its chunk is made (validateOrder):
 * the upload, which reads the whole file, answers without that work, and a chunk's checks run
 * while the chunk before it is written.
 */
export interface ImportOrder {
  ref: string;
  /** 1-based line numbers in the file of its rows (CSV) or its line (JSON Lines). */
  lines: number[];
  /** The create body as read, not yet validated; none when the rows have problems. */
  raw?: Record<string, unknown>;
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

type CellKind = 'id' | 'decimal' | 'text' | 'boolean';

/**
 * The CSV columns: each row is one detail line (and/or one other charge) of the order its
 * `order_ref` names; order columns are repeated on each row (or left empty after the first).
 * Each table is typed by the create body's own fields, so a field added to the contract does not
 * compile until it has its column here (and a column of no field does not compile either).
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
} as const satisfies { [Field in Exclude<keyof CreateSalesOrderBody, 'details' | 'other_charges'>]-?: CellKind };
/** Detail line columns, by the CSV's name and the body's (`remarks` of a line is `line_remarks`). */
const LINE_COLUMNS = {
  product_id: ['product_id', 'id'],
  packsize_id: ['packsize_id', 'id'],
  quantity: ['quantity', 'decimal'],
  rate: ['rate', 'decimal'],
  amount: ['amount', 'decimal'],
  line_remarks: ['remarks', 'text'],
} as const satisfies Record<string, readonly [keyof SalesOrderDetailInput, CellKind]>;
const CHARGE_COLUMNS = {
  charge_description: ['description', 'text'],
  charge_amount: ['amount', 'decimal'],
} as const satisfies Record<string, readonly [keyof OtherChargeInput, CellKind]>;

/** Compiles only while every field of a line and of a charge has its column. */
type FieldsWithoutColumn<Columns extends Record<string, readonly [string, CellKind]>, Body> = Exclude<
  keyof Body,
  Columns[keyof Columns][0]
>;
const everyLineFieldHasAColumn: [FieldsWithoutColumn<typeof LINE_COLUMNS, SalesOrderDetailInput>] extends [never]
  ? true
  : never = true;
const everyChargeFieldHasAColumn: [FieldsWithoutColumn<typeof CHARGE_COLUMNS, OtherChargeInput>] extends [never]
  ? true
  : never = true;
void everyLineFieldHasAColumn;
void everyChargeFieldHasAColumn;

/** The contract's column list (what the page's template and docs show) is exactly these tables' columns. */
type TableColumn = 'order_ref' | keyof typeof ORDER_COLUMNS | keyof typeof LINE_COLUMNS | keyof typeof CHARGE_COLUMNS;
const everyListedColumnIsRead: [Exclude<ImportCsvColumn, TableColumn>] extends [never] ? true : never = true;
const everyReadColumnIsListed: [Exclude<TableColumn, ImportCsvColumn>] extends [never] ? true : never = true;
void everyListedColumnIsRead;
void everyReadColumnIsListed;

export const CSV_COLUMNS: readonly string[] = IMPORT_CSV_COLUMNS;

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

/**
 * The order's create body, or why it has none: its rows' problems, or the body's validation
 * failures, each message naming where in the file it came from. Pure, like reading the file.
 */
export const validateOrder = ({
  raw,
  problems,
  locate,
}: ImportOrder): { body?: CreateSalesOrderBody; problems: ErrorDetail[] } => {
  if (!raw || problems.length > 0) return { problems };
  const parsed = CreateSalesOrderBodySchema.safeParse(raw);
  if (parsed.success) return { body: parsed.data, problems: [] };
  return { problems: locateAll(issuesToDetails(parsed.error), locate) };
};

/** The same details, each message starting with where its path came from in the file. */
export const locateAll = (details: ErrorDetail[], locate: (path: string) => string): ErrorDetail[] =>
  details.map((detail) => ({ ...detail, message: `${locate(detail.path)}: ${detail.message}` }));

const encodingProblem = (line: number): ErrorDetail => ({
  path: '',
  message: `line ${line}: is not valid UTF-8`,
  code: ImportCode.invalidEncoding,
});

/** The header row's column names, when this service reads each of them; throws UnreadableImportError otherwise. */
export const checkCsvHeader = (cells: readonly string[]): string[] => {
  const header = cells.map((name) => name.trim());
  if (!header.includes('order_ref'))
    throw new UnreadableImportError('the header row has no order_ref column (which groups rows into orders)');
  const unknown = header.filter((name) => !CSV_COLUMNS.includes(name));
  if (unknown.length > 0)
    throw new UnreadableImportError(
      `the header row names columns this service does not read: ${unknown.join(', ')} (columns: ${CSV_COLUMNS.join(', ')})`,
    );
  return header;
};

/** A staged row (import-staging.ts) as the job reads it back. */
export interface FileRow {
  orderNo: number;
  line: number;
  flags: number;
  content: string;
}

/** Row flag: the line the row starts on is not valid UTF-8. */
export const NOT_UTF8 = 1;
/** Row flag: a JSON Lines line whose order_ref an earlier line has. */
export const REPEATED_REF = 2;

interface CsvRow {
  line: number;
  cells: string[];
}

/**
 * The orders of staged rows (each order's rows together, in file order): what a chunk of the
 * job makes. The same rows make the same orders every time, after a restart too.
 */
export const ordersOfRows = (
  format: ImportFormat,
  header: readonly string[],
  rows: readonly FileRow[],
): ImportOrder[] => {
  const groups: FileRow[][] = [];
  for (const row of rows) {
    const last = groups.at(-1);
    if (last && last[0]!.orderNo === row.orderNo) last.push(row);
    else groups.push([row]);
  }
  if (format === 'ndjson') return groups.map(([row]) => jsonLineOrder(row!));
  const targets = header.map(targetOf);
  const refColumn = header.indexOf('order_ref');
  return groups.map((group) => {
    const first = group[0]!;
    const content = JSON.parse(first.content) as string[] | { skipped: string };
    // A record csv-parse could not read at all (an unclosed quote) is an order of its own that failed.
    if (!Array.isArray(content))
      return {
        ref: `line-${first.line}`,
        lines: [first.line],
        problems: [{ path: '', message: `line ${first.line}: ${content.skipped}`, code: ImportCode.wrongColumnCount }],
        locate: () => `line ${first.line}`,
      };
    const csvRows: CsvRow[] = group.map((row, index) => ({
      line: row.line,
      cells: index === 0 ? content : (JSON.parse(row.content) as string[]),
    }));
    const ref = (content[refColumn] ?? '').trim() || `line-${first.line}`;
    const notUtf8 = new Set(group.filter((row) => (row.flags & NOT_UTF8) !== 0).map((row) => row.line));
    return csvOrder(ref, csvRows, [...header], targets, notUtf8);
  });
};

/** A line column's or an other charge's CSV column, by its key in the body. */
const COLUMN_OF_LINE_KEY = new Map<string, string>(
  Object.entries(LINE_COLUMNS).map(([column, [key]]) => [key, column] as const),
);
const COLUMN_OF_CHARGE_KEY = new Map<string, string>(
  Object.entries(CHARGE_COLUMNS).map(([column, [key]]) => [key, column] as const),
);
const LINE_KEYS = [...COLUMN_OF_LINE_KEY.keys()];
const CHARGE_KEYS = [...COLUMN_OF_CHARGE_KEY.keys()];
const LISTED_PATH = /^(details|other_charges)\.([0-9]+)(?:\.(.+))?$/;

/**
 * Where each cell of an order came from, kept small (the orders of a whole file are held while
 * its import runs): the line of each order column, and of each detail line and charge with a
 * bit per cell it set. A path names its line and column once asked (locate); a path no cell
 * set names the order's first line.
 */
interface CellPlaces {
  firstLine: number;
  orderLines: Record<string, number>;
  detailLines: number[];
  /** Bit i: the detail line's LINE_KEYS[i] was set. */
  detailCells: number[];
  chargeLines: number[];
  chargeCells: number[];
}

/** A cell's place as messages name it. */
const cellAt = (line: number, column: string) => `line ${line}, column ${column}`;

const locator =
  ({ firstLine, orderLines, detailLines, detailCells, chargeLines, chargeCells }: CellPlaces) =>
  (path: string): string => {
    if (Object.hasOwn(orderLines, path)) return cellAt(orderLines[path]!, path);
    const listed = LISTED_PATH.exec(path);
    if (listed) {
      const [, list, at, key] = listed;
      const details = list === 'details';
      const index = Number(at);
      const line = (details ? detailLines : chargeLines)[index];
      if (line !== undefined) {
        if (key === undefined) return `line ${line}`;
        const bit = (details ? LINE_KEYS : CHARGE_KEYS).indexOf(key);
        if (bit >= 0 && ((details ? detailCells : chargeCells)[index]! & (1 << bit)) !== 0)
          return cellAt(line, (details ? COLUMN_OF_LINE_KEY : COLUMN_OF_CHARGE_KEY).get(key)!);
      }
    }
    return `line ${firstLine}`;
  };

/** Each header column's cell: where in the body it goes, and its kind. */
type ColumnTarget =
  | { into: 'ref' }
  | { into: 'order'; key: string; kind: CellKind }
  | { into: 'line' | 'charge'; key: string; kind: CellKind; bit: number };

const targetOf = (column: string): ColumnTarget => {
  if (column === 'order_ref') return { into: 'ref' };
  if (column in ORDER_COLUMNS)
    return { into: 'order', key: column, kind: ORDER_COLUMNS[column as keyof typeof ORDER_COLUMNS] };
  if (column in LINE_COLUMNS) {
    const [key, kind] = LINE_COLUMNS[column as keyof typeof LINE_COLUMNS];
    return { into: 'line', key, kind, bit: LINE_KEYS.indexOf(key) };
  }
  const [key, kind] = CHARGE_COLUMNS[column as keyof typeof CHARGE_COLUMNS];
  return { into: 'charge', key, kind, bit: CHARGE_KEYS.indexOf(key) };
};

const csvOrder = (
  ref: string,
  rows: CsvRow[],
  header: string[],
  targets: ColumnTarget[],
  notUtf8: Set<number>,
): ImportOrder => {
  const lines = rows.map((row) => row.line);
  const problems: ErrorDetail[] = [];
  const places: CellPlaces = {
    firstLine: rows[0]!.line,
    orderLines: {},
    detailLines: [],
    detailCells: [],
    chargeLines: [],
    chargeCells: [],
  };
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
    let lineCells = 0;
    let chargeCells = 0;
    for (let index = 0; index < header.length; index += 1) {
      const target = targets[index]!;
      const text = row.cells[index]!.trim();
      if (target.into === 'ref' || text === '') continue;
      const path =
        target.into === 'order'
          ? target.key
          : target.into === 'line'
            ? `details.${details.length}.${target.key}`
            : `other_charges.${charges.length}.${target.key}`;
      const cell = readCell(target.kind, text);
      if ('problem' in cell) {
        problems.push({
          path,
          message: `${cellAt(row.line, header[index]!)}: ${cell.problem}`,
          code: ImportCode.invalidCell,
        });
        continue;
      }
      if (target.into === 'order') {
        if (target.key in order) {
          if (order[target.key] !== cell.value)
            problems.push({
              path,
              message: `${cellAt(row.line, header[index]!)}: differs from the order's first row (${clip(String(order[target.key]))})`,
              code: ImportCode.inconsistentOrder,
            });
          continue;
        }
        order[target.key] = cell.value;
        places.orderLines[target.key] = row.line;
      } else if (target.into === 'line') {
        line[target.key] = cell.value;
        lineCells |= 1 << target.bit;
      } else {
        charge[target.key] = cell.value;
        chargeCells |= 1 << target.bit;
      }
    }
    if (lineCells !== 0) {
      details.push(line);
      places.detailLines.push(row.line);
      places.detailCells.push(lineCells);
    }
    if (chargeCells !== 0) {
      charges.push(charge);
      places.chargeLines.push(row.line);
      places.chargeCells.push(chargeCells);
    }
  }
  const locate = locator(places);
  if (problems.length > 0) return { ref, lines, problems, locate };
  const raw = { ...order, details, ...(charges.length > 0 ? { other_charges: charges } : {}) };
  return { ref: ref.slice(0, ORDER_REF_MAX_LENGTH), lines, raw, problems, locate };
};

/**
 * A JSON Lines line as the upload (import-staging.ts) and the job both read it: its JSON object
 * (none when the line is not one), and its order_ref: the one given, trimmed and cut to
 * ORDER_REF_MAX_LENGTH (`given`), or else `line-N`.
 */
export const readJsonLine = (
  text: string,
  line: number,
): { object: Record<string, unknown> | undefined; ref: string; given: boolean } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const object =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const givenRef = object?.order_ref;
  return typeof givenRef === 'string' && givenRef.trim() !== ''
    ? { object, ref: givenRef.trim().slice(0, ORDER_REF_MAX_LENGTH), given: true }
    : { object, ref: `line-${line}`, given: false };
};

/** A JSON Lines line's order: the line is its create body, with its order_ref beside. */
const jsonLineOrder = ({ line, flags, content }: FileRow): ImportOrder => {
  const locate = (path: string) => (path === '' ? `line ${line}` : `line ${line}, ${path}`);
  const { object, ref } = readJsonLine(content, line);
  const { order_ref: _givenRef, ...raw } = object ?? {};
  const problems: ErrorDetail[] = [];
  if ((flags & NOT_UTF8) !== 0) problems.push(encodingProblem(line));
  else if (!object)
    problems.push({ path: '', message: `line ${line}: is not a JSON object`, code: ImportCode.invalidLine });
  if ((flags & REPEATED_REF) !== 0)
    problems.push({
      path: 'order_ref',
      message: `line ${line}: order_ref ${ref} is already the ref of an earlier line`,
      code: ImportCode.inconsistentOrder,
    });
  return problems.length > 0 ? { ref, lines: [line], problems, locate } : { ref, lines: [line], raw, problems, locate };
};
