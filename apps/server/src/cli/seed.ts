/** `pnpm db:seed`: loads the demo data into an empty database (DATABASE_URL or embedded). */
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { seedDemoData } from '../db/seed/seed.js';
import { runCli } from './run-cli.js';

runCli(async () => {
  const database = await openDatabase(loadConfig());
  try {
    const result = await seedDemoData(database.prisma);
    console.log(result.seeded ? `Loaded demo data: ${JSON.stringify(result.counts)}` : 'The database already has data: nothing loaded.');
  } finally {
    await database.close();
  }
});
