/** `pnpm db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
import { openDatabase } from '../db/database.js';
import { loadConfig } from '../startup/config.js';
import { runCli, takesNoArguments } from './run-cli.js';

const MIGRATE_USAGE = `usage:
  db:migrate

Applies the pending migrations to the database the service uses: DATABASE_URL, else the
embedded database in DATA_DIR (default ./data; stop the service first: the embedded database
takes one process at a time). The service applies them at start-up too; this runs the step alone,
e.g. before a rolling restart (docs/deployment.md, "Upgrading"). Migrations only add.`;

runCli(MIGRATE_USAGE, async (argv) => {
  if (!takesNoArguments(argv, MIGRATE_USAGE, console.error)) return 2;
  const database = await openDatabase(loadConfig());
  const applied = database.appliedMigrations;
  console.log(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'The database schema is up to date.');
  await database.close();
});
