import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { createApiKeyManagement } from '../api-keys/api-key-management.js';
import { operator } from '../api-keys/key-manager.js';
import { isLiveApiKey } from '../auth/api-keys.js';
import { transactionPort } from '../db/transactions.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * The way in for a new user of the embedded demo database: an all-permission API key, random
 * per database (never a fixed value in code), kept in a file of that database's own in DATA_DIR
 * (readable only by its owner, beside the database files it unlocks) so that every start can
 * print it again. A revoked or lost demo key is replaced at the next start; SEED_DEMO_DATA=never
 * stops that. On a PostgreSQL server (DATABASE_URL) a key is made only by the start that loaded
 * the demo data into an empty database (SEED_DEMO_DATA=always), and later starts print it while
 * it is live (savedDemoApiKey): a database with data of its own never gets one.
 */

/** Where the demo key is: the database's own file, or none (an in-memory DATA_DIR). */
export type DemoKeyPlace = { dataDir: string; databaseUrl?: string | undefined };

/**
 * DATA_DIR/demo-api-key for the embedded database (the README's), and
 * DATA_DIR/demo-api-key.<host>-<port>-<database> for a database on a PostgreSQL server: starting
 * on one never overwrites the key of another, so switching back finds its key still there.
 */
export const demoKeyFile = ({ dataDir, databaseUrl }: DemoKeyPlace): string | undefined => {
  if (dataDir === 'memory://') return undefined;
  if (databaseUrl === undefined) return path.resolve(dataDir, 'demo-api-key');
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const name = `${url.hostname}-${url.port || '5432'}-${database}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  return path.resolve(dataDir, `demo-api-key.${name}`);
};

/** The key kept in the database's file while it is live in this database; undefined otherwise. */
export const savedDemoApiKey = async (
  prisma: PrismaClient,
  place: DemoKeyPlace,
): Promise<{ key: string; file: string } | undefined> => {
  const file = demoKeyFile(place);
  if (!file) return undefined;
  const saved = (await readFile(file, 'utf8').catch(() => '')).trim();
  return saved !== '' && (await isLiveApiKey(prisma, saved)) ? { key: saved, file } : undefined;
};

export const ensureDemoApiKey = async (
  prisma: PrismaClient,
  place: DemoKeyPlace,
): Promise<{ key: string; file?: string }> => {
  const saved = await savedDemoApiKey(prisma, place);
  if (saved) return saved;
  const apiKeys = createApiKeyManagement({ transactions: transactionPort(prisma) });
  const file = demoKeyFile(place);
  const { secret: key } = await apiKeys.create({ name: 'demo', permissions: ['*'] }, operator('seed:demo'));
  if (file) {
    // On a PostgreSQL server nothing else makes DATA_DIR (the embedded database's files live there).
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    await chmod(file, 0o600); // a file left from an earlier key keeps its old mode otherwise
  }
  // For the person at the terminal (stderr, as the banner): a new key, not the one they had.
  console.error(`made a new demo API key${file ? `, kept in ${file}` : ''}`);
  return { key, file };
};
