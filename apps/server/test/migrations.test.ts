import { describe, expect, it } from 'vitest';

import { diffMigrationsToSchema } from '../scripts/schema-diff.js';

const serverUrl = process.env.TEST_DATABASE_URL;

describe('migrations', () => {
  it.skipIf(!serverUrl)(
    'take an empty database exactly to prisma/schema.prisma (needs TEST_DATABASE_URL for the shadow database)',
    async () => {
      expect(await diffMigrationsToSchema(serverUrl!)).toBe('');
    },
  );
});
