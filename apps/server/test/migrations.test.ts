import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffMigrationsToSchema } from '../scripts/schema-diff.js';
import { openDatabase } from '../src/db/database.js';
import { readMigrationList } from '../src/db/schema-engine.js';

const serverUrl = process.env.TEST_DATABASE_URL;

describe('migrations', () => {
  it.skipIf(!serverUrl)('take an empty database exactly to prisma/schema.prisma (needs TEST_DATABASE_URL for the shadow database)', async () => {
    expect(await diffMigrationsToSchema(serverUrl!)).toBe('');
  });

  it('apply once to a new embedded database, which keeps its data across restarts', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'sales-orders-'));
    const config = { database: { url: undefined, poolMax: 1, dataDir } };
    try {
      const first = await openDatabase(config);
      const folders = (await readMigrationList()).migrationDirectories.map((folder) => folder.path);
      expect(folders.length).toBeGreaterThan(0);
      expect(first.appliedMigrations).toEqual(folders);
      await first.prisma.customer.create({ data: { code: 'KEEP', name: 'Kept across restarts' } });
      await first.close();

      const second = await openDatabase(config);
      try {
        expect(second.appliedMigrations).toEqual([]);
        expect(await second.prisma.customer.findUnique({ where: { code: 'KEEP' } })).toMatchObject({ name: 'Kept across restarts' });
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
