/** `pnpm db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
import { openDatabase } from '../db/database.js';
import { loadConfig } from '../startup/config.js';
import { runCli } from './run-cli.js';

runCli(async () => {
  const database = await openDatabase(loadConfig());
  const applied = database.appliedMigrations;
  console.log(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'The database schema is up to date.');
  await database.close();
});
