import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { demoKeyFile } from '../../src/demo/demo-api-key.js';
import { examplesOf, ROOT } from '../support/doc-examples.js';
import { CONSUMER_COMPILER_OPTIONS, installPackedSdk } from '../support/packed-sdk.js';
import { adminQuery, databaseUrl } from '../support/postgres-server.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from '../support/server-process.js';

/**
 * The SDK's snippets (```ts blocks of README.md, packages/client/README.md, docs/authentication.md and docs/sdk.md), each
 * compiled with `tsc --strict` against the packed and installed SDK, then run against a fresh
 * service with demo data, with the names a page leaves to the reader (`orders`, a client with
 * the demo key; `id`, an order of the demo data; `formId`, `body`; the reader's own storage
 * functions) defined in snippet-globals.d.ts and set before the snippet runs. A block marked
 * `<!-- docs-test: compile-only <reason> -->` (it serves forever, or sends to an address
 * outside this machine) is compiled and not run; `docs-test: skip` neither.
 */

const run = promisify(execFile);
const PAGES = ['README.md', 'packages/client/README.md', 'docs/authentication.md', 'docs/sdk.md'];
const PAGE_ADDRESS = '127.0.0.1:3000';
const tsc = path.join(ROOT, 'apps', 'server', 'node_modules', '.bin', 'tsc');

/**
 * The names the pages use without defining them: what the reader's own program has. Each takes
 * the types a real one would, never `unknown` or `any`: a snippet passing a value of the wrong
 * type (or `never`, an event typed as nothing) to one of them must fail to compile.
 */
const GLOBALS_DTS = `type Client = import('@sales-order/client').SalesOrderClient;
declare var orders: Client;
declare var key: string;
declare var id: number;
declare var formId: string;
declare var body: import('@sales-order/client').CreateSalesOrderBody;
declare var mirror: Map<number, import('@sales-order/client').SalesOrderListItem>;
declare function loadHighWaterMark(): string | null;
declare function saveHighWaterMark(since: string | null): void;
declare function loadCursor(): string | undefined;
declare function saveCursor(cursor: string): void;
declare function apply(salesOrderId: number, version: number, order: import('@sales-order/client').SalesOrder): Promise<void>;
declare function saveSecret(secret: string): void;
declare function queue(id: string, salesOrderId: number, version: number, order: import('@sales-order/client').SalesOrder): void;
`;

/** Sets those names before a snippet runs (node --import). */
const setupScript = (baseUrl: string, apiKey: string) => `import { createSalesOrderClient } from '@sales-order/client';
globalThis.key = ${JSON.stringify(apiKey)};
process.env.SALES_ORDER_API_KEY = globalThis.key;
globalThis.orders = createSalesOrderClient({ baseUrl: ${JSON.stringify(baseUrl)}, auth: { type: 'apiKey', key: globalThis.key } });
globalThis.formId = 'form-' + Math.random().toString(36).slice(2);
globalThis.body = { customer_id: 12, sales_order_date: new Date().toISOString().slice(0, 10), location_id: 1,
  details: [{ product_id: 6, quantity: 1, rate: 1260 }] };
// A draft to confirm, close and cancel: product 2's licence has 50 left, so 60 warns first.
globalThis.id = (await globalThis.orders.createSalesOrder({ ...globalThis.body,
  details: [{ product_id: 2, quantity: 60, rate: 310.25 }] })).sales_order_id;
globalThis.mirror = new Map();
let mark = null;
globalThis.loadHighWaterMark = () => mark;
globalThis.saveHighWaterMark = (since) => { mark = since; };
globalThis.loadCursor = () => undefined;
globalThis.saveCursor = () => {};
globalThis.apply = async () => {};
globalThis.saveSecret = () => {};
globalThis.queue = () => {};
`;

const snippets = PAGES.flatMap((page) => examplesOf(page, ['ts']).map((example) => ({ ...example, page })));

describe('the SDK snippets of the documentation', () => {
  let server: ServerProcess;
  let project: string;
  let dropDatabase = async () => {};
  let compiled: Map<string, string>;

  beforeAll(async () => {
    project = await mkdtemp(path.join(tmpdir(), 'sdk-snippets-'));
    const template = inject('templateDatabase');
    const serverUrl = process.env.TEST_DATABASE_URL;
    const env: Record<string, string> = { SEED_DEMO_DATA: 'always', DATA_DIR: path.join(project, 'data') };
    if (template && serverUrl) {
      const name = template.replace(/_template$/, '_docs_sdk');
      await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
      env.DATABASE_URL = databaseUrl(serverUrl, name);
      dropDatabase = () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => {});
    }
    await mkdir(env.DATA_DIR!);
    server = await startServerProcess(env);
    const apiKey = (
      await readFile(demoKeyFile({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL })!, 'utf8')
    ).trim();

    await installPackedSdk(project, { name: 'snippets', type: 'module' });

    // Every snippet a module of its own (so that each may define `orders` again), compiled at once.
    const files: string[] = [];
    compiled = new Map();
    for (const snippet of snippets) {
      const name = `${snippet.page.replace(/[^a-z0-9]+/gi, '_')}_${snippet.line}`;
      const code = snippet.code.replaceAll(PAGE_ADDRESS, new URL(server.api).host);
      await writeFile(path.join(project, `${name}.mts`), `${code}\nexport {};\n`);
      files.push(`${name}.mts`);
      compiled.set(`${snippet.page}:${snippet.line}`, `${name}.mjs`);
    }
    await writeFile(path.join(project, 'snippet-globals.d.ts'), GLOBALS_DTS);
    await writeFile(path.join(project, 'setup.mjs'), setupScript(server.api, apiKey));
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...CONSUMER_COMPILER_OPTIONS,
          typeRoots: [path.join(ROOT, 'apps', 'server', 'node_modules', '@types')],
          types: ['node'],
          skipLibCheck: true,
          outDir: 'out',
          rootDir: '.',
        },
        files: ['snippet-globals.d.ts', ...files],
      }),
    );
  }, 300_000);

  afterAll(async () => {
    if (server) await stopServerProcess(server);
    await dropDatabase();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('finds the snippets', () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(new Set(snippets.map((snippet) => snippet.page))).toEqual(new Set(PAGES));
    // Every ts block of docs/sdk.md is compiled: none is skipped.
    expect(snippets.filter((snippet) => snippet.page === 'docs/sdk.md' && snippet.skip !== undefined)).toEqual([]);
    expect(GLOBALS_DTS).not.toMatch(/\b(unknown|any)\b/);
  });

  it('compiles every snippet with tsc --strict against the packed SDK', async () => {
    const result = await run(tsc, ['-p', 'tsconfig.json'], { cwd: project }).then(
      () => 'ok',
      (error: Error & { stdout?: string }) => error.stdout ?? error.message,
    );
    expect(result).toBe('ok');
  });

  for (const snippet of snippets) {
    const name = `${snippet.page}:${snippet.line}`;
    if (snippet.skip !== undefined) {
      it.skip(`${name} (skipped: ${snippet.skip})`, () => {});
      continue;
    }
    it(`${name} runs`, async (context) => {
      if (snippet.compileOnly !== undefined) {
        context.skip(`compiled, not run: ${snippet.compileOnly}`);
        return;
      }
      const file = path.join(project, 'out', compiled.get(name)!);
      const result = await run(process.execPath, ['--import', './setup.mjs', file], {
        cwd: project,
        timeout: 60_000,
      }).then(
        ({ stdout }) => ({ ok: true, output: stdout }),
        (error: Error & { stdout?: string; stderr?: string }) => ({
          ok: false,
          output: `${error.stdout ?? ''}\n${error.stderr ?? error.message}`,
        }),
      );
      expect(result.ok, `${name}:\n${snippet.code}\n--- printed:\n${result.output}`).toBe(true);
    });
  }
});
