import path from 'node:path';

import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer rules of eslint.config.js, held to what they are for: each probe is a line of code
 * that a newcomer could write, linted with the no-restricted-imports setting that the
 * repository's own configuration gives the file named (as ESLint computes it for that path), and
 * must be refused. Only that rule is run: the type-checked rules need the file on disk.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const eslint = new ESLint({ cwd: ROOT });

const refused = async (file: string, code: string) => {
  const filePath = path.join(ROOT, file);
  const computed = (await eslint.calculateConfigForFile(filePath)) as Linter.Config;
  const rule = computed.rules?.['no-restricted-imports'];
  const messages = new Linter({ cwd: ROOT }).verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        rules: rule === undefined ? {} : { 'no-restricted-imports': rule },
      },
    ],
    filePath,
  );
  return messages.filter((message) => message.ruleId === 'no-restricted-imports');
};

describe('the layer rules', () => {
  it('refuse a route that imports a store or a repository', async () => {
    expect(
      await refused(
        'apps/server/src/http/probe-router.ts',
        "import { orderReadStore } from '../orders/store/order-read-store.js';",
      ),
    ).toHaveLength(1);
    expect(
      await refused(
        'apps/server/src/http/probe-router.ts',
        "import { apiKeyRepository } from '../auth/api-key-repository.js';",
      ),
    ).toHaveLength(1);
    // A use case is what a route calls.
    expect(
      await refused('apps/server/src/http/probe-router.ts', "import { getOrder } from '../orders/get-order.js';"),
    ).toEqual([]);
  });

  it("refuse a module's use case that imports another module's store", async () => {
    expect(
      await refused('apps/server/src/imports/probe.ts', "import { outbox } from '../events/store/outbox-store.js';"),
    ).toHaveLength(1);
    expect(
      await refused(
        'apps/server/src/deliveries/probe.ts',
        "import { orderWriteStore } from '../orders/store/order-write-store.js';",
      ),
    ).toHaveLength(1);
    expect(
      await refused(
        'apps/server/src/reports/probe.ts',
        "import { licenceRepository } from '../licences/licence-repository.js';",
      ),
    ).toHaveLength(1);
    // Its own store, and another module's use cases, are fine.
    expect(
      await refused('apps/server/src/imports/probe.ts', "import { importStore } from './import-store.js';"),
    ).toEqual([]);
    expect(
      await refused(
        'apps/server/src/deliveries/probe.ts',
        "import { lockAsExpected } from '../orders/order-preconditions.js';",
      ),
    ).toEqual([]);
  });

  it('refuse HTTP and the Prisma client in use cases', async () => {
    expect(await refused('apps/server/src/orders/probe.ts', "import express from 'express';")).toHaveLength(1);
    expect(
      await refused('apps/server/src/orders/probe.ts', "import { Prisma } from '../generated/prisma/client.js';"),
    ).toHaveLength(1);
  });

  it('refuse a store in the pure rules', async () => {
    expect(
      await refused(
        'apps/server/src/orders/order-pricing.ts',
        "import { orderWriteStore } from './store/order-write-store.js';",
      ),
    ).toHaveLength(1);
  });
});
