import path from 'node:path';

import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

import config from '../../../../eslint.config.js';

/**
 * The layer rules of eslint.config.js, held to what they are for: each probe is a line of code
 * that a newcomer could write, linted under the repository's own configuration (its
 * no-restricted-imports blocks, as they apply to the file named), and must be refused. Only that
 * rule is run: the type-checked rules need the file on disk.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');

type Block = { files?: string[]; ignores?: string[]; rules?: Record<string, unknown> };

/** The configuration with no-restricted-imports only, and a TypeScript parser without a project. */
const importRulesOnly = (config as Block[]).flatMap((block): Linter.Config[] => {
  const rule = block.rules?.['no-restricted-imports'];
  if (block.files === undefined && block.ignores !== undefined && Object.keys(block).length === 1) {
    return [{ ignores: block.ignores }];
  }
  if (rule === undefined) return [];
  return [
    {
      ...(block.files ? { files: block.files } : {}),
      ...(block.ignores ? { ignores: block.ignores } : {}),
      rules: { 'no-restricted-imports': rule as Linter.RuleEntry },
    },
  ];
});

const lint = (file: string, code: string) =>
  new Linter({ cwd: ROOT }).verify(
    code,
    [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...importRulesOnly],
    path.join(ROOT, file),
  );

const refused = (file: string, code: string) =>
  lint(file, code).filter((message) => message.ruleId === 'no-restricted-imports');

describe('the layer rules', () => {
  it('refuse a route that imports a store or a repository', () => {
    expect(
      refused(
        'apps/server/src/http/probe-router.ts',
        "import { orderReadStore } from '../orders/store/order-read-store.js';",
      ),
    ).toHaveLength(1);
    expect(
      refused(
        'apps/server/src/http/probe-router.ts',
        "import { apiKeyRepository } from '../auth/api-key-repository.js';",
      ),
    ).toHaveLength(1);
    // A use case is what a route calls.
    expect(
      refused('apps/server/src/http/probe-router.ts', "import { getOrder } from '../orders/get-order.js';"),
    ).toEqual([]);
  });

  it("refuse a module's use case that imports another module's store", () => {
    expect(
      refused('apps/server/src/imports/probe.ts', "import { outbox } from '../events/store/outbox-store.js';"),
    ).toHaveLength(1);
    expect(
      refused(
        'apps/server/src/deliveries/probe.ts',
        "import { orderWriteStore } from '../orders/store/order-write-store.js';",
      ),
    ).toHaveLength(1);
    expect(
      refused(
        'apps/server/src/reports/probe.ts',
        "import { licenceRepository } from '../licences/licence-repository.js';",
      ),
    ).toHaveLength(1);
    // Its own store, and another module's use cases, are fine.
    expect(refused('apps/server/src/imports/probe.ts', "import { importStore } from './import-store.js';")).toEqual([]);
    expect(
      refused(
        'apps/server/src/deliveries/probe.ts',
        "import { lockAsExpected } from '../orders/order-preconditions.js';",
      ),
    ).toEqual([]);
  });

  it('refuse HTTP and the Prisma client in use cases', () => {
    expect(refused('apps/server/src/orders/probe.ts', "import express from 'express';")).toHaveLength(1);
    expect(
      refused('apps/server/src/orders/probe.ts', "import { Prisma } from '../generated/prisma/client.js';"),
    ).toHaveLength(1);
  });

  it('refuse a store in the pure rules', () => {
    expect(
      refused(
        'apps/server/src/orders/order-pricing.ts',
        "import { orderWriteStore } from './store/order-write-store.js';",
      ),
    ).toHaveLength(1);
  });
});
