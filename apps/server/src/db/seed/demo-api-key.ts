import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { createApiKeyService } from '../../auth/api-keys.js';
import type { PrismaClient } from '../../generated/prisma/client.js';

/**
 * The way in for a new user of the embedded demo database: an all-permission API key, random
 * per database (never a fixed value in code), kept in DATA_DIR/demo-api-key (readable only by
 * its owner, beside the database files it unlocks) so that every start can print it again. A
 * revoked or lost demo key is replaced at the next start; SEED_DEMO_DATA=never stops that.
 * main.ts calls this only for the embedded database: never when DATABASE_URL is set.
 */
export const ensureDemoApiKey = async (
  prisma: PrismaClient,
  dataDir: string,
): Promise<{ key: string; file?: string }> => {
  const apiKeys = createApiKeyService(prisma);
  const file = dataDir === 'memory://' ? undefined : path.resolve(dataDir, 'demo-api-key');
  if (file) {
    const saved = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (saved !== '' && (await apiKeys.isLive(saved))) return { key: saved, file };
  }
  const { key } = await apiKeys.create({ name: 'demo', permissions: ['*'], expiresAt: null });
  if (file) {
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    await chmod(file, 0o600); // a file left from an earlier key keeps its old mode otherwise
  }
  return { key, file };
};
