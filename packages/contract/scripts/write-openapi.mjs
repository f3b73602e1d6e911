// Writes the OpenAPI document generated from the contract: node scripts/write-openapi.mjs <file>
import { writeFile } from 'node:fs/promises';

import { createOpenApiDocument } from '../dist/openapi.js';

const target = process.argv[2] ?? 'openapi.json';
await writeFile(target, `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`);
console.log(`Wrote ${target}`);
