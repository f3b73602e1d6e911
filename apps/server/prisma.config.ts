import { defineConfig } from 'prisma/config';

// Only `prisma generate` uses this file; migrations run through src/db/migrate.ts
// (the WASM schema engine), so no datasource URL is needed here.
export default defineConfig({
  schema: 'prisma/schema.prisma',
});
