/**
 * `pnpm api-key create|revoke|list`: manages API keys in DATABASE_URL, or in the embedded
 * database (stop the service first: the embedded database takes one process at a time).
 */
import { openDatabase } from '../db/database.js';
import { loadConfig } from '../startup/config.js';
import { API_KEY_USAGE, runApiKeyCommand } from './api-key-command.js';
import { runCli } from './run-cli.js';

runCli(API_KEY_USAGE, async (argv) => {
  const database = await openDatabase(loadConfig());
  try {
    return await runApiKeyCommand(argv, database.prisma, {
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
  } finally {
    await database.close();
  }
});
