/**
 * `pnpm api-key create|revoke|list`: manages API keys in DATABASE_URL, or in the embedded
 * database (stop the service first: the embedded database takes one process at a time).
 */
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { runApiKeyCommand } from './api-key-command.js';

const database = await openDatabase(loadConfig());
let exitCode = 1;
try {
  exitCode = await runApiKeyCommand(process.argv.slice(2), database.prisma, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
} finally {
  await database.close();
}
// Exit now: the WASM schema engine that ran the migration check leaves a 10-second timer behind.
process.exit(exitCode);
