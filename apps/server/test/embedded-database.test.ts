import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openDatabase } from '../src/db/database.js';
import { EmbeddedDatabaseBusyError } from '../src/db/embedded.js';
import { readMigrationList } from '../src/db/schema-engine.js';
import { loadConfig } from '../src/startup/config.js';

describe('the embedded database', () => {
  let dataDir: string;
  const config = () => loadConfig({ DATA_DIR: dataDir });

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sales-orders-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  // One new database for all three (creating and migrating one is the slow part).
  it('is migrated once when new, keeps its data across restarts, and is opened by one process at a time', async () => {
    const first = await openDatabase(config());
    const folders = (await readMigrationList()).migrationDirectories.map((folder) => folder.path);
    expect(folders.length).toBeGreaterThan(0);
    expect(first.appliedMigrations).toEqual(folders);
    await first.prisma.customer.create({ data: { code: 'KEEP', name: 'Kept across restarts' } });
    // A second opener is refused while the first has it open.
    await expect(openDatabase(config())).rejects.toBeInstanceOf(EmbeddedDatabaseBusyError);
    await first.close();

    const second = await openDatabase(config());
    try {
      expect(second.embedded).toBe(true);
      expect(second.appliedMigrations).toEqual([]);
      expect(await second.prisma.customer.findUnique({ where: { code: 'KEEP' } })).toMatchObject({
        name: 'Kept across restarts',
      });
    } finally {
      await second.close();
    }
  }, 240_000);
});
