import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: a bound on a hang, never the thing under test. Building the OpenAPI document
    // takes about 0.5 s on a quiet machine and passed vitest's default 5 s at load 18.
    testTimeout: 60_000,
  },
});
