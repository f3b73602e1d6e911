import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import {
  createSalesOrderClient,
  type Import,
  type ImportResult,
  SalesOrderApiError,
  SalesOrderNetworkError,
} from '@sales-order/client';

import { CSV_COLUMNS } from '../imports/import-file.js';
import type { CommandOutput } from './api-key-command.js';
import { callerPath, parseCommandLine } from './run-cli.js';

/** Words joined by ", " in lines of at most `width` characters, each indented by `indent`. */
const wrapped = (words: readonly string[], indent: string, width = 96): string => {
  const lines: string[] = [];
  let line = '';
  for (const [index, word] of words.entries()) {
    const piece = index < words.length - 1 ? `${word},` : word;
    if (line !== '' && indent.length + line.length + 1 + piece.length > width) {
      lines.push(indent + line);
      line = piece;
    } else line = line === '' ? piece : `${line} ${piece}`;
  }
  return [...lines, indent + line].join('\n');
};

export const IMPORT_USAGE = `usage:
  import FILE [--url <API address>] [--api-key-file <file>] [--format csv|ndjson] [--results <file>] [--no-wait]
         [--allow-duplicates]

Uploads a CSV (.csv) or JSON Lines (.jsonl, .ndjson) file of orders to a running service
(POST /imports), shows its progress until it ends, and prints where its results are. Files are
found from the folder the command was typed in.

CSV: a header row, then one row per order line; rows with the same order_ref make one order.
Only order_ref is required by the file; each order needs what POST /sales-orders needs. Columns:
${wrapped(CSV_COLUMNS, '  ')}
JSON Lines: one POST /sales-orders body per line, with an optional "order_ref".
The rules of each column: docs/api.md, "Imports".

options:
  --url           the service's API address with its base path (default: SALES_ORDER_URL, else
                  this machine's service as HOST, PORT and BASE_PATH say, http://127.0.0.1:3000/api)
  --api-key-file  a file holding the API key (default: SALES_ORDER_API_KEY, else the demo key
                  pnpm start keeps in DATA_DIR); the key needs sales_orders.import
  --format        the file's format when its name does not say it
  --results       also save the results there: CSV when it ends in .csv, else JSON Lines
  --no-wait       print the import's address once it is queued, and exit
  --allow-duplicates
                  import an order whose order_ref made an order in an earlier import of this
                  key (otherwise it fails duplicate_order_ref: sending a file twice makes nothing twice)
Exit status: 0 every order created, 3 the import completed with failed orders, 1 the file was
refused, the import failed or was cancelled, or the service could not be reached, 2 usage.`;

type ImportFormat = 'csv' | 'ndjson';

/** Where the service is and the key to call it with (cli/import.ts finds the defaults). */
export interface ImportTarget {
  url: string;
  apiKey: string;
}

/** How progress is shown: a bar at a terminal, a line per change otherwise (cli/import.ts). */
export interface ProgressDisplay {
  update(progress: Import): void;
  stop(): void;
}

export interface ImportCommandDeps {
  output: CommandOutput;
  /** The service and key: from the options given (undefined when not given) and the defaults. */
  target: (given: { url: string | undefined; apiKeyFile: string | undefined }) => Promise<ImportTarget>;
  progress: () => ProgressDisplay;
  /** How often the import is asked how far it got. */
  intervalMs?: number;
}

/** At most this many failed orders are listed; the results have them all. */
const FAILURES_LISTED = 10;

const formatOfName = (file: string): ImportFormat | undefined => {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'ndjson';
  return undefined;
};

/** A count as the summary writes it: 50,000. */
export const grouped = (count: number) => count.toLocaleString('en-US');

/** "40 of 500 orders done: 39 created, 1 failed, about 12 s left": a progress line's counts. */
export const progressCounts = (progress: Import): string => {
  const done = progress.orders_created + progress.orders_failed;
  const left = progress.estimated_seconds_left === null ? '' : `, about ${progress.estimated_seconds_left} s left`;
  return `${grouped(done)} of ${grouped(progress.orders_total)} orders done: ${grouped(progress.orders_created)} created, ${grouped(progress.orders_failed)} failed${left}`;
};

/** A refusal or an unreachable service, in one line for the operator. */
const problemOf = (error: unknown, url: string): string => {
  if (error instanceof SalesOrderApiError) {
    const details = error.details
      .map((detail) => detail.message)
      .filter((message) => message !== error.message)
      .join('; ');
    return `The service refused it (HTTP ${error.status}): ${error.message}${details ? ` (${details})` : ''}`;
  }
  if (error instanceof SalesOrderNetworkError) return `Could not reach the service at ${url}: ${error.message}`;
  throw error;
};

/** Why a file could not be read, without node's repetition of the path. */
const fileProblem = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'a folder, not a file';
  return (error as Error).message;
};

const failureLine = (result: ImportResult) =>
  `  ${result.order_ref} (line${result.lines.length > 1 ? 's' : ''} ${result.lines.join(', ')}): ${result.errors
    .map((error) => error.message)
    .join('; ')}`;

/**
 * `pnpm import FILE`: sends the file as it is (the order entry page's Import screen sends the
 * same request), follows GET /imports/{id} until the import ends, prints a summary, the first
 * failed orders and the results' address, and saves the results with --results. Returns the
 * exit code (IMPORT_USAGE).
 */
export const runImportCommand = async (
  argv: string[],
  { output: { out, err }, target, progress, intervalMs = 1_000 }: ImportCommandDeps,
): Promise<number> => {
  const parsed = parseCommandLine(
    argv,
    {
      url: { type: 'string' },
      'api-key-file': { type: 'string' },
      format: { type: 'string' },
      results: { type: 'string' },
      'no-wait': { type: 'boolean' },
      'allow-duplicates': { type: 'boolean' },
    },
    IMPORT_USAGE,
    err,
  );
  if (!parsed) return 2;
  const { values, positionals } = parsed;
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) {
    err(
      `${file === undefined ? 'Name the file to import.' : `One file at a time: ${extra.join(' ')}`}\n${IMPORT_USAGE}`,
    );
    return 2;
  }
  if (values.format !== undefined && values.format !== 'csv' && values.format !== 'ndjson') {
    err(`--format is csv or ndjson, not ${values.format}\n${IMPORT_USAGE}`);
    return 2;
  }
  const format = values.format ?? formatOfName(file);
  if (format === undefined) {
    err(`${path.basename(file)} does not end in .csv, .jsonl or .ndjson: say which it is with --format csv|ndjson`);
    return 2;
  }
  const filePath = callerPath(file);
  let bytes: Buffer;
  try {
    bytes = await readFile(filePath);
  } catch (error) {
    err(`Cannot read ${filePath}: ${fileProblem(error)}`);
    return 1;
  }
  const { url, apiKey } = await target({ url: values.url, apiKeyFile: values['api-key-file'] });
  const base = url.replace(/\/+$/, '');
  const client = createSalesOrderClient({ baseUrl: base, auth: { type: 'apiKey', key: apiKey } });
  const started = Date.now();

  let queued: Import;
  try {
    queued = await client.startImport(new Uint8Array(bytes), format, {
      allowDuplicates: values['allow-duplicates'] ?? false,
    });
  } catch (error) {
    err(problemOf(error, base));
    return 1;
  }
  const address = `${base}/imports/${queued.import_id}`;
  out(`Import ${queued.import_id} queued: ${grouped(queued.orders_total)} orders in ${path.basename(file)}.`);
  if (values['no-wait']) {
    out(`Follow it at ${address} and read its results at ${address}/results`);
    return 0;
  }

  const display = progress();
  let done: Import;
  try {
    done = await client.waitForImport(queued.import_id, {
      intervalMs,
      onProgress: (reading) => display.update(reading),
    });
  } catch (error) {
    display.stop();
    err(problemOf(error, base));
    err(`The import goes on in the service: ${address}`);
    return 1;
  } finally {
    display.stop();
  }

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  out(
    `Import ${done.import_id} ${done.state} in ${seconds} s: ${grouped(done.orders_total)} orders in the file ` +
      `(${grouped(done.rows_read)} ${done.format === 'csv' ? 'rows' : 'lines'} read), ` +
      `${grouped(done.orders_created)} created, ${grouped(done.orders_failed)} failed.`,
  );
  if (done.state === 'failed') err(`It could not go on: ${done.error ?? 'no reason given'}`);
  try {
    if (done.orders_failed > 0) {
      out(
        `Failed orders${done.orders_failed > FAILURES_LISTED ? ` (the first ${FAILURES_LISTED} of ${grouped(done.orders_failed)})` : ''}:`,
      );
      let listed = 0;
      for await (const result of client.importResults(done.import_id)) {
        if (result.status !== 'failed') continue;
        out(failureLine(result));
        if (++listed === FAILURES_LISTED) break;
      }
    }
    out(`Results: ${address}/results (JSON Lines; CSV with Accept: text/csv)`);
    if (values.results !== undefined) {
      const resultsFormat: ImportFormat = /\.csv$/i.test(values.results) ? 'csv' : 'ndjson';
      const resultsPath = callerPath(values.results);
      await writeFile(resultsPath, await client.downloadImportResults(done.import_id, resultsFormat));
      out(`Results saved to ${resultsPath} (${resultsFormat === 'csv' ? 'CSV' : 'JSON Lines'}).`);
    }
  } catch (error) {
    err(problemOf(error, base));
    return 1;
  }
  out(finalLine(done));
  if (done.state !== 'completed') return 1;
  return done.orders_failed > 0 ? 3 : 0;
};

/**
 * The last line, what a script or a person reads first: "finished: 4 created, 1 failed" (exit 0
 * or 3), or how far an import that did not complete got ("cancelled: 40 created, 0 failed, 60
 * not imported", exit 1).
 */
export const finalLine = ({ state, orders_created, orders_failed, orders_total }: Import): string => {
  const counts = `${grouped(orders_created)} created, ${grouped(orders_failed)} failed`;
  if (state === 'completed') return `finished: ${counts}`;
  return `${state}: ${counts}, ${grouped(orders_total - orders_created - orders_failed)} not imported`;
};
