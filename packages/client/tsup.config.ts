import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  // The contract is private to this repository: its code and types are bundled in, so the
  // published SDK depends only on zod and @ts-rest/core.
  noExternal: ['@sales-order/contract'],
  dts: { resolve: true },
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  treeshake: true,
});
