import type { TestProject } from 'vitest/node';

import { applyMigrations } from '../../src/db/migrate.js';
import { adminQuery, databaseUrl } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated database to clone per test file; null when tests run on embedded PGlite. */
    templateDatabase: string | null;
  }
}

/**
 * With TEST_DATABASE_URL (a PostgreSQL server), migrates one template database that every
 * test file clones, and drops all of this run's databases at the end. Without it, each test
 * file starts its own in-memory PGlite.
 */
export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    project.provide('templateDatabase', null);
    return;
  }
  // This run's databases share a prefix (the template's name), so teardown finds them all.
  const runPrefix = `so_test_${Date.now().toString(36)}`;
  const template = `${runPrefix}_template`;
  await adminQuery(serverUrl, `CREATE DATABASE "${template}"`);
  await applyMigrations(databaseUrl(serverUrl, template));
  project.provide('templateDatabase', template);

  return async () => {
    const rows = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${runPrefix}\\_%'`);
    for (const { datname } of rows) {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  };
}
