import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Each test file gets its own database and server; the embedded database needs a moment
    // to start, and the concurrency tests queue many transactions.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers only contend for them.
    maxWorkers: 2,
  },
});
