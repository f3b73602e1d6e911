import type { TestProject } from 'vitest/node';

import { openDatabase } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { todayIn } from '../../src/shared/calendar.js';
import { loadConfig } from '../../src/startup/config.js';
import { adminQuery, databaseUrl } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated database to clone per test file; null when tests run on embedded PGlite. */
    templateDatabase: string | null;
    /** The same with the demo data loaded (what SEED_DEMO_DATA=always loads); null on PGlite. */
    demoTemplateDatabase: string | null;
  }
}

/** The migrated template with the demo data loaded, as a start with SEED_DEMO_DATA=always leaves it. */
const createDemoTemplate = async (serverUrl: string, template: string, name: string) => {
  await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const config = loadConfig({ DATABASE_URL: databaseUrl(serverUrl, name), LOG_LEVEL: 'silent' });
  const database = await openDatabase(config, { migrate: false });
  try {
    await seedDemoData(database.prisma, todayIn(config.businessTimeZone));
  } finally {
    await database.close();
  }
};

/**
 * With TEST_DATABASE_URL (a PostgreSQL server), migrates one template database that every
 * test file clones (and a second one holding the demo data), and drops all of this run's databases at the end. Without it, each test
 * file starts its own in-memory PGlite.
 */
export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    project.provide('templateDatabase', null);
    project.provide('demoTemplateDatabase', null);
    return;
  }
  // This run's databases share a prefix (the template's name), so teardown finds them all.
  const runPrefix = `so_test_${Date.now().toString(36)}`;
  const template = `${runPrefix}_template`;
  await adminQuery(serverUrl, `CREATE DATABASE "${template}"`);
  await applyMigrations(databaseUrl(serverUrl, template));
  project.provide('templateDatabase', template);
  // Cloned by the tests that start the service with demo data, instead of each loading it.
  const demoTemplate = `${runPrefix}_demo_template`;
  await createDemoTemplate(serverUrl, template, demoTemplate);
  project.provide('demoTemplateDatabase', demoTemplate);

  return async () => {
    const rows = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${runPrefix}\\_%'`);
    for (const { datname } of rows) {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  };
}
