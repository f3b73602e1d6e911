import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Two cores: more workers only contend for them.
    maxWorkers: 2,
    // Generous for the pure modules too: a bound on a hang, never the thing under test (vitest's
    // default 5 s is passed by a loaded machine's first import of a module).
    testTimeout: 60_000,
    // The default output, then what was skipped and why (a machine without PostgreSQL, Redis or Chromium).
    reporters: ['default', './test/support/skipped-tests-reporter.ts'],
    projects: [
      {
        // Pure modules (money, pricing, numbering, licence rules, calendar, configuration):
        // no database, no server, seconds to run.
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        // The real HTTP stack against a real database (PostgreSQL from TEST_DATABASE_URL, or
        // in-memory PGlite), one database and server per file.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          globalSetup: ['test/support/global-setup.ts'],
          // One module graph per worker, not per file: every file starts servers of its own
          // anyway (own database, own Redis keys, own metrics registry), and importing the
          // service afresh for each of 120 files took 230 s of the suite's time (35 s shared).
          isolate: false,
          // Generous: bounds on a hang, never the thing under test. A loaded 2-core machine
          // (load 30-50 beside six other agents' work) takes minutes to start a service process
          // or the embedded database; the concurrency tests queue many transactions.
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
