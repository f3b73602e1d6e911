/**
 * `pnpm sales-order import FILE` (or `pnpm run import FILE`): uploads a file of orders to a running service and follows it to the end
 * (cli/import-command.ts). The service and the key: --url / SALES_ORDER_URL and --api-key-file /
 * SALES_ORDER_API_KEY, else this machine's `pnpm start` (HOST, PORT, BASE_PATH and the demo key
 * it keeps in DATA_DIR).
 */
import { readFile } from 'node:fs/promises';

import type { Import } from '@sales-order/client';
import { SingleBar } from 'cli-progress';

import { demoKeyFile } from '../demo/demo-api-key.js';
import { loadConfig } from '../startup/config.js';
import {
  grouped,
  IMPORT_USAGE,
  type ImportTarget,
  progressCounts,
  type ProgressDisplay,
  runImportCommand,
} from './import-command.js';
import { localOrigin } from './local-service.js';
import { callerPath, runCli } from './run-cli.js';

const readKey = async (file: string, what: string) => {
  const key = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (key === '') throw new Error(`No API key in ${file} (${what})`);
  return key;
};

const findTarget = async (given: {
  url: string | undefined;
  apiKeyFile: string | undefined;
}): Promise<ImportTarget> => {
  // The configuration only when something is not given: pnpm import against another machine needs none of it.
  const config = () => loadConfig();
  const url = given.url ?? process.env.SALES_ORDER_URL ?? `${localOrigin(config())}${config().basePath}`;
  if (given.apiKeyFile !== undefined)
    return { url, apiKey: await readKey(callerPath(given.apiKeyFile), '--api-key-file') };
  const fromEnv = process.env.SALES_ORDER_API_KEY?.trim();
  if (fromEnv) return { url, apiKey: fromEnv };
  const { database } = config();
  const file = demoKeyFile({ dataDir: database.dataDir, databaseUrl: database.url });
  if (file === undefined)
    throw new Error('No API key: set SALES_ORDER_API_KEY or give --api-key-file (a key with sales_orders.import)');
  return {
    url,
    apiKey: await readKey(
      file,
      'the demo key pnpm start keeps; set SALES_ORDER_API_KEY or give --api-key-file for another service',
    ),
  };
};

/**
 * At a terminal: a bar redrawn in place (cli-progress), on stderr, short enough for 80 columns
 * ("[#########-----------] 45% | 22,500/50,000 orders, 12 failed | 95 s left").
 */
const terminalBar = (): ProgressDisplay => {
  const bar = new SingleBar({
    format: '[{bar}] {percentage}% | {done}/{all} orders, {failed} failed{left}',
    stream: process.stderr,
    hideCursor: true,
    barsize: 20,
    barCompleteChar: '#',
    barIncompleteChar: '-',
  });
  let started = false;
  return {
    update: (progress: Import) => {
      const done = progress.orders_created + progress.orders_failed;
      const payload = {
        done: grouped(done),
        all: grouped(progress.orders_total),
        failed: grouped(progress.orders_failed),
        left: progress.estimated_seconds_left === null ? '' : ` | ${progress.estimated_seconds_left} s left`,
      };
      if (!started) bar.start(progress.orders_total, done, payload);
      else bar.update(done, payload);
      started = true;
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
};

/** Elsewhere (a log, a pipe, CI): one line on stderr each time the counts change. */
const progressLines = (): ProgressDisplay => {
  let last = '';
  return {
    update: (progress: Import) => {
      const line = `Import ${progress.import_id} ${progress.state}: ${progressCounts(progress).replace(/, about .*$/, '')}`;
      if (line !== last) console.error(line);
      last = line;
    },
    stop: () => {},
  };
};

runCli(IMPORT_USAGE, (argv) =>
  runImportCommand(argv, {
    output: { out: (line) => console.log(line), err: (line) => console.error(line) },
    target: findTarget,
    progress: () => (process.stderr.isTTY ? terminalBar() : progressLines()),
  }),
);
