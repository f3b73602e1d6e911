import { type Import, type ImportResult, SalesOrderApiError, type SalesOrderClient } from '@sales-order/client';
import { IMPORT_CSV_COLUMNS, type ImportCsvColumn } from '@sales-order/contract';

import { el, labelled, showError } from './dom.js';
import { describe, isSessionEnded } from './errors.js';
import { countOf, formatQuantity } from './format.js';
import { reportOn, say, statusLine } from './notice.js';
import type { Options } from './options.js';
import { wordingOf } from './wording.js';

/** How often a running import is asked how far it got (GET /imports/{id}). */
const POLL_MS = 1_000;

type ImportFormat = 'csv' | 'ndjson';

/** The file's format, by its name first (browsers give a .jsonl file no type), then by its type. */
export const formatOfFile = ({ name, type }: { name: string; type: string }): ImportFormat | undefined => {
  if (/\.csv$/i.test(name)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(name)) return 'ndjson';
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'ndjson';
  return undefined;
};

const RESULT_FILES: Record<ImportFormat, { type: string; extension: string; label: string }> = {
  csv: { type: 'text/csv', extension: 'csv', label: 'Download results (CSV)' },
  ndjson: { type: 'application/x-ndjson', extension: 'jsonl', label: 'Download results (JSON Lines)' },
};

const finished = (progress: Import) => progress.state !== 'queued' && progress.state !== 'running';

const plural = (count: number, one: string, other: string) => countOf(count, { one, other });

/** "About 2 minutes left" from the service's estimate. */
const timeLeft = (seconds: number) =>
  seconds < 60
    ? `About ${plural(seconds, 'second', 'seconds')} left.`
    : `About ${plural(Math.round(seconds / 60), 'minute', 'minutes')} left.`;

/** The counts under the bar, in the clerk's words. */
export const countsOf = (progress: Import): string => {
  const done = progress.orders_created + progress.orders_failed;
  const counts = `${formatQuantity(done)} of ${plural(progress.orders_total, 'order', 'orders')} done: ${formatQuantity(progress.orders_created)} created, ${formatQuantity(progress.orders_failed)} failed.`;
  return progress.estimated_seconds_left === null ? counts : `${counts} ${timeLeft(progress.estimated_seconds_left)}`;
};

/** Failed orders listed on the screen; the results file has every one. */
const FAILED_SHOWN = 50;

/**
 * What the status line says once an import has ended. An import that ran to its end is not a
 * problem even when some orders were not created: the list under it says which and why.
 */
const endOf = (progress: Import): { message: string; problem: boolean } => {
  const made = plural(progress.orders_created, 'order', 'orders');
  if (progress.state === 'completed')
    return progress.orders_failed === 0
      ? { message: `Import finished: ${made} created.`, problem: false }
      : {
          message: `Import finished: ${made} created, ${formatQuantity(progress.orders_failed)} not created. The list below says why.`,
          problem: false,
        };
  if (progress.state === 'cancelled')
    return { message: `Import cancelled: ${made} created before it stopped.`, problem: false };
  // The service's reason is written for developers: the clerk gets what to do.
  return {
    message: `The import could not go on after ${made}. Tell your system administrator.`,
    problem: true,
  };
};

/** One failed order's problems, each with the place in the file the service names ("line 7, column quantity"). */
export const problemsOf = (result: Pick<ImportResult, 'errors'>): string =>
  result.errors
    .map((detail) => {
      const place = /^(line \d+[^:]*): /.exec(detail.message)?.[1];
      const words = wordingOf(detail);
      return place === undefined ? words : `${place.charAt(0).toUpperCase()}${place.slice(1)}: ${words}`;
    })
    .join('. ');

/** "7" or "7-9": the file's lines of one order. */
const linesOf = (lines: readonly number[]) =>
  lines.length === 0 ? '' : lines.length === 1 ? String(lines[0]) : `${lines[0]}-${lines[lines.length - 1]}`;

/** A CSV cell as written in the template (quoted when it holds a comma, a quote or a line break). */
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** A refused upload, in the clerk's words: a file over IMPORT_MAX_BYTES is the file's fault, not an order's. */
const describeUpload = (error: unknown) =>
  error instanceof SalesOrderApiError && error.status === 413
    ? 'That file is too large: split it into smaller files.'
    : describe(error);

/**
 * The Import screen: a CSV or JSON Lines file of orders sent as it is (POST /imports, the
 * file's media type, as `pnpm import` sends it), a progress bar and counts from GET /imports/{id}
 * asked every second while it runs, Cancel import, and the results to download as JSON Lines or
 * CSV. Shown only to a caller who may import: `show()` asks GET /imports (the caller's imports,
 * which needs `sales_orders.import`), and a refusal leaves the screen out. An import still
 * running from before the page was loaded is picked up again. `onFinished` tells the list.
 */
export const createImportScreen = (
  root: HTMLElement,
  client: SalesOrderClient,
  options: Options,
  onFinished: () => void,
) => {
  const file = labelled(
    'File of orders',
    el('input', { type: 'file', accept: '.csv,.jsonl,.ndjson,text/csv,application/x-ndjson' }),
  );
  // Before the field, so that it is read first (the field's aria-describedby is its error's).
  const hint = el(
    'p',
    { class: 'hint' },
    'A CSV file (.csv) with a header row and one row per order line, the rows of one order sharing its order_ref; or a JSON Lines file (.jsonl) with one order per line.',
  );
  const template = el('button', { type: 'button' }, 'Download a CSV template');
  template.addEventListener('click', () => void downloadTemplate());
  const columns = el(
    'details',
    { class: 'import-columns' },
    el('summary', {}, 'Columns of a CSV file'),
    el('p', {}, IMPORT_CSV_COLUMNS.join(', ')),
    el('div', { class: 'actions' }, template),
  );
  const upload = el('button', { type: 'submit', class: 'primary' }, 'Import file');
  const status = statusLine('import-status');
  const report = reportOn(status);
  const form = el(
    'form',
    { novalidate: true, 'aria-labelledby': 'import-heading' },
    hint,
    columns,
    file.wrapper,
    el('div', { class: 'actions' }, upload),
  );

  const bar = el('progress', { id: 'import-progress', max: '1', value: '0' });
  const title = el('p', { class: 'import-title' });
  const counts = el('p', { class: 'import-counts', id: 'import-counts' });
  bar.setAttribute('aria-describedby', counts.id);
  const cancel = el('button', { type: 'button' }, 'Cancel import');
  const downloads = (Object.keys(RESULT_FILES) as ImportFormat[]).map((format) => {
    const button = el('button', { type: 'button' }, RESULT_FILES[format].label);
    button.addEventListener('click', () => download(format, button));
    return button;
  });
  const failedBody = el('tbody', {});
  const failedNote = el('p', { class: 'hint' });
  const failedBox = el(
    'div',
    { class: 'import-failed', hidden: true },
    el(
      'table',
      { 'aria-label': 'Orders not created' },
      el('caption', {}, 'Orders not created'),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Order ref'),
          el('th', { scope: 'col' }, 'Lines of the file'),
          el('th', { scope: 'col' }, 'Why'),
        ),
      ),
      failedBody,
    ),
    failedNote,
  );
  const progressBox = el(
    'div',
    { class: 'import-progress', hidden: true },
    title,
    el('div', { class: 'field' }, el('label', { for: bar.id }, 'Progress'), bar),
    counts,
    el('div', { class: 'actions' }, cancel, ...downloads),
    failedBox,
  );
  root.replaceChildren(el('h2', { id: 'import-heading' }, 'Import orders'), form, progressBox, status);

  /** The import on the screen, and the timer of its next reading. */
  let current: Import | undefined;
  let fileName = '';
  /** What the status line says while the import runs (a failed reading's complaint gives way to it). */
  let runningMessage = '';
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** The failed orders of an ended import, read from its results (the first FAILED_SHOWN of them). */
  const showFailed = async (progress: Import) => {
    const rows: HTMLTableRowElement[] = [];
    for await (const result of client.importResults(progress.import_id)) {
      if (result.status !== 'failed') continue;
      rows.push(
        el(
          'tr',
          {},
          el('td', {}, result.order_ref),
          el('td', {}, linesOf(result.lines)),
          el('td', {}, problemsOf(result)),
        ),
      );
      if (rows.length === FAILED_SHOWN) break;
    }
    failedBody.replaceChildren(...rows);
    failedNote.textContent =
      progress.orders_failed > rows.length
        ? `The first ${formatQuantity(rows.length)} of ${formatQuantity(progress.orders_failed)}: download the results for every one.`
        : '';
    failedBox.hidden = rows.length === 0;
  };

  /** A CSV with the header row and one example line, from the first customer, location and product offered. */
  const downloadTemplate = async () => {
    const firstId = async (type: 'customers' | 'locations' | 'products') =>
      String((await options.load(type)).items[0]?.id ?? '');
    const example: Partial<Record<ImportCsvColumn, string>> = {
      order_ref: 'ORDER-1',
      customer_id: await firstId('customers'),
      location_id: await firstId('locations'),
      sales_order_date: new Date().toISOString().slice(0, 10),
      product_id: await firstId('products'),
      quantity: '1',
      rate: '100.00',
    };
    const text = [IMPORT_CSV_COLUMNS.join(','), IMPORT_CSV_COLUMNS.map((name) => cell(example[name] ?? '')).join(',')]
      .map((line) => `${line}\r\n`)
      .join('');
    saveFile(text, 'text/csv', 'orders-template.csv');
  };

  const showProgress = (progress: Import) => {
    current = progress;
    if (!finished(progress)) failedBox.hidden = true;
    progressBox.hidden = false;
    title.textContent = `${fileName || `Import ${progress.import_id}`} (${progress.format === 'csv' ? 'CSV' : 'JSON Lines'})`;
    bar.max = Math.max(1, progress.orders_total);
    bar.value = progress.orders_created + progress.orders_failed;
    counts.textContent = countsOf(progress);
    const running = !finished(progress);
    cancel.hidden = !running;
    for (const button of downloads) button.hidden = running;
    upload.disabled = running;
  };

  const poll = (id: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      client.getImport(id).then(
        (progress) => {
          showProgress(progress);
          if (!finished(progress)) {
            if (status.classList.contains('problem')) say(status, runningMessage);
            poll(id);
            return;
          }
          const { message, problem } = endOf(progress);
          say(status, message, problem);
          if (progress.orders_failed > 0) showFailed(progress).catch(report);
          onFinished();
        },
        (error: unknown) => {
          report(error);
          // A network blip or a busy service: the import goes on, so does asking. Not when signed out or gone.
          if (!isSessionEnded(error) && !(error instanceof SalesOrderApiError && [403, 404].includes(error.status)))
            poll(id);
        },
      );
    }, POLL_MS);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (upload.disabled) return;
    const chosen = file.control.files?.[0];
    if (!chosen) {
      showError(file.error, 'Choose a file to import');
      file.control.focus();
      return;
    }
    const format = formatOfFile(chosen);
    if (!format) {
      showError(file.error, 'Choose a CSV file (.csv) or a JSON Lines file (.jsonl)');
      file.control.focus();
      return;
    }
    showError(file.error, undefined);
    upload.disabled = true;
    say(status, `Uploading ${chosen.name}…`);
    client.startImport(chosen, format).then(
      (started) => {
        fileName = chosen.name;
        form.reset();
        showProgress(started);
        runningMessage = `Importing ${chosen.name}…`;
        say(status, runningMessage);
        poll(started.import_id);
      },
      (error: unknown) => {
        upload.disabled = false;
        if (isSessionEnded(error)) report(error);
        else say(status, describeUpload(error), true);
      },
    );
  });
  // A new choice of file clears the complaint about the last one.
  file.control.addEventListener('change', () => showError(file.error, undefined));

  cancel.addEventListener('click', () => {
    if (!current) return;
    cancel.disabled = true;
    client
      .cancelImport(current.import_id)
      .then((progress) => {
        showProgress(progress);
        runningMessage = 'Cancelling: the import stops after the orders it is on.';
        say(status, runningMessage);
      }, report)
      .finally(() => {
        cancel.disabled = false;
      });
  });

  const saveFile = (text: string, type: string, name: string) => {
    const link = el('a', { href: URL.createObjectURL(new Blob([text], { type })), download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The browser has the file once the click is handled.
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };

  const download = (format: ImportFormat, button: HTMLButtonElement) => {
    if (!current) return;
    const id = current.import_id;
    button.disabled = true;
    client
      .downloadImportResults(id, format)
      .then((text) => {
        const { type, extension } = RESULT_FILES[format];
        saveFile(text, type, `import-${id}-results.${extension}`);
      }, report)
      .finally(() => {
        button.disabled = false;
      });
  };

  return {
    /**
     * Shows the screen when the caller may import (GET /imports answers), picking up its latest
     * import while that still runs; leaves it out otherwise. Resolves either way.
     */
    show: async () => {
      let latest: Import | undefined;
      try {
        latest = (await client.listImports()).items[0];
      } catch {
        // 403 missing_permission (or the session gone, which the list says): no Import screen.
        root.remove();
        return;
      }
      root.hidden = false;
      if (latest && !finished(latest)) {
        showProgress(latest);
        runningMessage = `Import ${latest.import_id} is still running.`;
        say(status, runningMessage);
        poll(latest.import_id);
      }
    },
  };
};
