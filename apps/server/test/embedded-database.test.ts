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

  it('is migrated once when new, and keeps its data across restarts', async () => {
    const first = await openDatabase(config());
    const folders = (await readMigrationList()).migrationDirectories.map((folder) => folder.path);
    expect(folders.length).toBeGreaterThan(0);
    expect(first.appliedMigrations).toEqual(folders);
    await first.prisma.customer.create({ data: { code: 'KEEP', name: 'Kept across restarts' } });
    await first.close();

    const second = await openDatabase(config());
    try {
      expect(second.appliedMigrations).toEqual([]);
      expect(await second.prisma.customer.findUnique({ where: { code: 'KEEP' } })).toMatchObject({
        name: 'Kept across restarts',
      });
    } finally {
      await second.close();
    }
  });

  it('is opened by one process at a time: a second opener is refused until the first closes', async () => {
    const first = await openDatabase(config());
    try {
      await expect(openDatabase(config())).rejects.toBeInstanceOf(EmbeddedDatabaseBusyError);
    } finally {
      await first.close();
    }
    const second = await openDatabase(config());
    expect(second.embedded).toBe(true);
    await second.close();
  });
});
