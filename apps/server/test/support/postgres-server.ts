import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import pg from 'pg';

import { MIGRATIONS_DIR } from '../../src/db/schema-engine.js';

export const databaseUrl = (serverUrl: string, database: string): string => {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

/** Runs one statement on the server's maintenance database (CREATE/DROP DATABASE cannot run in a transaction). */
export const adminQuery = async (serverUrl: string, sql: string): Promise<Record<string, string>[]> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
};

/**
 * Runs `work` on a connection of its own to the test server's database (PostgreSQL server only),
 * free of the service's statement timeout: bulk loads of 200,000 orders take longer than any
 * request may on a loaded machine.
 */
export const withOwnConnection = async <T>(
  prisma: { $queryRaw<R>(query: TemplateStringsArray): Promise<R> },
  work: (client: pg.Client) => Promise<T>,
): Promise<T> => {
  const [database] = await prisma.$queryRaw<{ name: string }[]>`SELECT current_database() AS name`;
  const client = new pg.Client({ connectionString: databaseUrl(process.env.TEST_DATABASE_URL!, database!.name) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** The SQL of one migration folder, as the schema engine would apply it. */
export const migrationSql = async (folder: string): Promise<string> =>
  readFile(path.join(MIGRATIONS_DIR, folder, 'migration.sql'), 'utf8');

/**
 * A new database `name` on the test server with every migration before `migration` applied, for
 * a test that writes rows as they stood then and applies `migration` over them. `drop` closes the
 * client and drops the database.
 */
export const createDatabaseBefore = async (serverUrl: string, name: string, migration: string) => {
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, name) });
  const drop = async () => {
    await client.end().catch(() => {});
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  try {
    await client.connect();
    const earlier = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && entry.name < migration)
      .map((entry) => entry.name)
      .sort();
    for (const folder of earlier) await client.query(await migrationSql(folder));
  } catch (error) {
    await drop();
    throw error;
  }
  return { client, drop };
};
