/** `pnpm db:seed`: loads the demo data into an empty database (DATABASE_URL or embedded). */
import { openDatabase } from '../db/database.js';
import { seedDemoData } from '../demo/seed.js';
import { todayIn } from '../shared/calendar.js';
import { loadConfig } from '../startup/config.js';
import { runCli } from './run-cli.js';

runCli(async () => {
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
