import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { createApiKeyManagement } from '../api-keys/api-key-management.js';
import { operator } from '../api-keys/key-manager.js';
import { isLiveApiKey } from '../auth/api-keys.js';
import { transactionPort } from '../db/transactions.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * The way in for a new user of the embedded demo database: an all-permission API key, random
 * per database (never a fixed value in code), kept in DATA_DIR/demo-api-key (readable only by
 * its owner, beside the database files it unlocks) so that every start can print it again. A
 * revoked or lost demo key is replaced at the next start; SEED_DEMO_DATA=never stops that.
 * On a PostgreSQL server (DATABASE_URL) a key is made only by the start that loaded the demo data
 * into an empty database (SEED_DEMO_DATA=always), and later starts print it while it is live
 * (savedDemoApiKey): a database with data of its own never gets one.
 */
const demoKeyFile = (dataDir: string) => (dataDir === 'memory://' ? undefined : path.resolve(dataDir, 'demo-api-key'));

/** The key kept in DATA_DIR/demo-api-key while it is live in this database; undefined otherwise. */
export const savedDemoApiKey = async (
  prisma: PrismaClient,
  dataDir: string,
): Promise<{ key: string; file: string } | undefined> => {
  const file = demoKeyFile(dataDir);
  if (!file) return undefined;
  const saved = (await readFile(file, 'utf8').catch(() => '')).trim();
  return saved !== '' && (await isLiveApiKey(prisma, saved)) ? { key: saved, file } : undefined;
};

export const ensureDemoApiKey = async (
  prisma: PrismaClient,
  dataDir: string,
): Promise<{ key: string; file?: string }> => {
  const saved = await savedDemoApiKey(prisma, dataDir);
  if (saved) return saved;
  const apiKeys = createApiKeyManagement({ transactions: transactionPort(prisma) });
  const file = demoKeyFile(dataDir);
  const { secret: key } = await apiKeys.create({ name: 'demo', permissions: ['*'] }, operator('seed:demo'));
  if (file) {
    // On a PostgreSQL server nothing else makes DATA_DIR (the embedded database's files live there).
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    await chmod(file, 0o600); // a file left from an earlier key keeps its old mode otherwise
  }
  return { key, file };
};
