/**
 * `pnpm order-entry`: prints (and, at a terminal, opens) the link that signs a browser in to
 * the order entry page of a running `pnpm start` (cli/order-entry-command.ts).
 */
import { spawn } from 'node:child_process';

import { openDatabase } from '../db/database.js';
import { loadConfig } from '../startup/config.js';
import { ORDER_ENTRY_USAGE, runOrderEntryCommand } from './order-entry-command.js';
import { runCli } from './run-cli.js';

const openInBrowser = (url: string) => {
  if (!process.stdout.isTTY) return;
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => {}); // no browser here (a server): the printed link is enough
  child.unref();
};

runCli(ORDER_ENTRY_USAGE, async (argv) => {
  const config = loadConfig();
  return runOrderEntryCommand(
    argv,
    config,
    { out: (line) => console.log(line), err: (line) => console.error(line) },
    async (use) => {
      const database = await openDatabase(config);
      try {
        await use(database.prisma);
      } finally {
        await database.close();
      }
    },
    openInBrowser,
  );
});
