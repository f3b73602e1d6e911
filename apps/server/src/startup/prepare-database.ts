import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openDatabase } from '../db/database.js';
import { MissingDatabaseError } from '../db/database-exists.js';
import { ensureDemoApiKey } from '../demo/demo-api-key.js';
import { seedDemoData } from '../demo/seed.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { todayIn } from '../shared/calendar.js';
import { type AppConfig, loadConfig } from './config.js';
import { PREPARE_EXIT_REPORTED } from './prepare-exit.js';
import { printStartStep } from './start-progress.js';

/** Demo data is loaded on request (always), or by default on the embedded database only. */
export const seedWantedFor = (config: AppConfig, embedded: boolean) =>
  config.seedDemoData === 'always' || (config.seedDemoData === 'auto' && embedded);

/**
 * Applies pending migrations and loads the demo data when wanted, then closes the database. main.ts
 * runs this file as a process of its own (below) on a PostgreSQL server.
 */
export const prepareDatabase = async (config: AppConfig, logger: Logger) => {
  const database = await openDatabase(config, {
    log: (message) => logger.info(message),
    progress: printStartStep,
    logger,
  });
  try {
    if (seedWantedFor(config, database.embedded)) {
      const seeding = performance.now();
      const result = await seedDemoData(database.prisma, todayIn(config.businessTimeZone));
      if (result.seeded) {
        logger.info({ counts: result.counts }, 'loaded demo data');
        printStartStep('loaded the demo data', performance.now() - seeding);
      }
      // The database was empty and now holds the demo data: it gets the demo key too (serve.ts
      // prints it), as the embedded database does.
      if (result.seeded && !database.embedded) {
        await ensureDemoApiKey(database.prisma, { dataDir: config.database.dataDir, databaseUrl: config.database.url });
      }
    }
  } finally {
    await database.close();
  }
};

const thisFile = fileURLToPath(import.meta.url);

// Run as that process: log as the service does, with the pid to tell this process's lines apart.
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === thisFile) {
  const config = loadConfig();
  const logger = createLogger(config.logLevel).child({ pid: process.pid });
  prepareDatabase(config, logger).then(
    () => process.exit(0),
    (error: unknown) => {
      // Said in one line for the person starting the service: main.ts adds nothing to it.
      if (error instanceof MissingDatabaseError) {
        console.error(error.message);
        process.exit(PREPARE_EXIT_REPORTED);
      }
      logger.error({ err: error }, 'preparing the database failed');
      process.exit(1);
    },
  );
}
