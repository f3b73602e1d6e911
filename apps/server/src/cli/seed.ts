/** `pnpm db:seed`: loads the demo data into an empty database (DATABASE_URL or embedded). */
import { openDatabase } from '../db/database.js';
import { seedDemoData } from '../demo/seed.js';
import { todayIn } from '../shared/calendar.js';
import { loadConfig } from '../startup/config.js';
import { runCli, takesNoArguments } from './run-cli.js';

const SEED_USAGE = `usage:
  db:seed

Loads the demo data (locations, customers, products, licences, a few orders, dated around today
in BUSINESS_TIME_ZONE) into DATABASE_URL, else the embedded database in DATA_DIR (stop the
service first). Applies pending migrations first. A database that already has customers is left
as it is.`;

runCli(SEED_USAGE, async (argv) => {
  if (!takesNoArguments(argv, SEED_USAGE, console.error)) return 2;
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    const result = await seedDemoData(database.prisma, todayIn(config.businessTimeZone));
    console.log(
      result.seeded
        ? `Loaded demo data: ${JSON.stringify(result.counts)}`
        : 'The database already has data: nothing loaded.',
    );
  } finally {
    await database.close();
  }
});
