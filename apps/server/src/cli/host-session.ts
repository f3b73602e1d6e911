/**
 * `pnpm host-session create`: writes a host session (what the host ERP's login would) to
 * DATABASE_URL or the embedded database (stop the service first: the embedded database takes
 * one process at a time).
 */
import { openDatabase } from '../db/database.js';
import { loadConfig } from '../startup/config.js';
import { HOST_SESSION_USAGE, runHostSessionCommand } from './host-session-command.js';
import { runCli } from './run-cli.js';

runCli(HOST_SESSION_USAGE, async (argv) => {
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    return await runHostSessionCommand(
      argv,
      database.prisma,
      { out: (line) => console.log(line), err: (line) => console.error(line) },
      config.auth.sessionCookieName,
    );
  } finally {
    await database.close();
  }
});
