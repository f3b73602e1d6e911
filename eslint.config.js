// One ESLint configuration for the whole repository (flat config), with typescript-eslint's
// type-checked rules. Formatting is Prettier's job: eslint-config-prettier switches off every
// rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Below the stores, nothing touches the Prisma client (its types may flow). */
const NO_PRISMA_CLIENT = {
  group: ['**/generated/prisma/*'],
  allowTypeImports: true,
  message: 'Only stores and repositories use the Prisma client: add the statement to one.',
};

/** The server's modules that hold use cases (and their stores): src/<module>/. */
const USE_CASE_MODULES = [
  'orders',
  'deliveries',
  'reports',
  'changes',
  'licences',
  'master-data',
  'idempotency',
  'events',
  'imports',
  'api-keys',
  'auth',
  'jobs',
  'shared',
  'errors',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/src/generated/**',
      '**/coverage/**',
      'apps/server/test/conformance/generated/**',
      'data/**',
      '.turbo/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.mjs', 'packages/*/scripts/*.mjs', 'scripts/*.mjs', 'apps/server/bin/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      // Express 4 does not catch a rejected async handler: a floating or misused promise is a hung request.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // `interface X extends typeof-alias {}` names a zod schema's type so that declarations
      // refer to it instead of writing it out again (the contract's schemas; see envelope.ts).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Messages quote numbers, booleans and optional values as they are; objects still may not
      // slip into a template as "[object Object]".
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
      // `declare global { namespace Express { ... } }` is how Express's Request is augmented.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Layer rules (docs/architecture.md): contract -> routes (http/) -> use cases -> stores.
    // Only stores and repositories (and the wiring: db/, start-up, CLI, demo data) touch the
    // Prisma client or run SQL.
    files: ['apps/server/src/**/*.ts'],
    ignores: [
      'apps/server/src/**/store/**',
      'apps/server/src/**/*-repository.ts',
      'apps/server/src/**/*-store.ts',
      'apps/server/src/db/**',
      'apps/server/src/startup/**',
      'apps/server/src/cli/**',
      'apps/server/src/demo/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [NO_PRISMA_CLIENT],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe)$/]',
          message: 'Only stores and repositories run SQL: add the statement to one.',
        },
      ],
    },
  },
  // Use cases and domain rules know nothing of HTTP or of how the service starts, and a module's
  // use cases reach another module only through its use cases, never its store: one block per
  // module (a block's no-restricted-imports replaces an earlier block's for the same files).
  ...USE_CASE_MODULES.map((module) => ({
    files: [`apps/server/src/${module}/**/*.ts`],
    // Stores and repositories are checked by the block below (they use the Prisma client).
    ignores: ['apps/server/src/**/store/**', 'apps/server/src/**/*-repository.ts', 'apps/server/src/**/*-store.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'express', message: 'HTTP belongs to the routes (src/http).' }],
          patterns: [
            { group: ['**/http/*', '!**/http/redis-client.js'], message: 'HTTP belongs to the routes (src/http).' },
            {
              // The configuration's type may be named (a slice of it is handed down); its code may not be imported.
              group: ['**/startup/*'],
              allowTypeImports: true,
              message: 'Start-up wires the layers; nothing below it imports it.',
            },
            { group: ['@ts-rest/express'], message: 'HTTP belongs to the routes (src/http).' },
            NO_PRISMA_CLIENT,
            {
              group: USE_CASE_MODULES.filter((other) => other !== module).flatMap((other) => [
                `**/${other}/store/*`,
                `**/${other}/*-store.js`,
                `**/${other}/*-repository.js`,
              ]),
              allowTypeImports: true,
              message: "Another module's store is its own: call one of its use cases.",
            },
          ],
        },
      ],
    },
  })),
  {
    // Routes translate: they call use cases, never a store or repository.
    files: ['apps/server/src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_PRISMA_CLIENT,
            {
              // rate-limit-store.ts keeps request counts (memory or Redis), not database rows.
              group: ['**/store/*', '**/*-store.js', '**/*-repository.js', '!./rate-limit-store.js'],
              allowTypeImports: true,
              message: 'Routes translate: call a use case, which calls its store.',
            },
          ],
        },
      ],
    },
  },
  {
    // Stores know nothing of HTTP or of how the service starts either.
    files: ['apps/server/src/**/store/**/*.ts', 'apps/server/src/**/*-repository.ts', 'apps/server/src/**/*-store.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'express', message: 'HTTP belongs to the routes (src/http).' }],
          patterns: [
            { group: ['**/http/*'], message: 'HTTP belongs to the routes (src/http).' },
            { group: ['**/startup/*'], message: 'Start-up wires the layers; nothing below it imports it.' },
          ],
        },
      ],
    },
  },
  {
    // The pure rules of an order (state machine, money, numbering, history diff, the write model
    // that prepares every write) and of licences read nothing: no database, no store.
    files: [
      'apps/server/src/orders/order.ts',
      'apps/server/src/orders/order-pricing.ts',
      'apps/server/src/orders/numbering.ts',
      'apps/server/src/orders/order-history.ts',
      'apps/server/src/orders/order-write-model.ts',
      'apps/server/src/orders/order-columns.ts',
      'apps/server/src/licences/licence-rules.ts',
      'apps/server/src/shared/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // Types may flow from the schema through a store's row types; code may not.
              group: ['**/db/*', '**/store/*', '**/*-repository.js', '**/*-store.js'],
              allowTypeImports: true,
              message: 'Domain rules are pure: the use case reads and passes what they need.',
            },
            { group: ['**/http/*', '**/startup/*'], message: 'Domain rules know nothing of HTTP or start-up.' },
            {
              group: ['**/generated/prisma/*'],
              allowTypeImports: true,
              message: 'Domain rules are pure: no Prisma client.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read HTTP response bodies, which are untyped JSON (supertest types them `any`);
    // the assertions are what check their shape.
    files: ['**/test/**/*.ts'],
    rules: {
      // Stand-in handlers and fakes keep the async signature of what they stand in for.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The order entry page runs in a browser.
    files: ['apps/order-entry/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Plain JavaScript files (scripts, this file) are not type-checked.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
