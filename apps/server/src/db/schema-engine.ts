import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type * as SchemaEngineWasm from '@prisma/schema-engine-wasm';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import type { PoolConfig } from 'pg';

/**
 * Prisma's schema engine compiled to WebAssembly: migrations without the native binary that
 * the Prisma CLI would download (this service must install and run offline).
 * See docs/decisions/migrations-wasm-schema-engine.md.
 */

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCHEMA_PATH = path.join(serverRoot, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = path.join(serverRoot, 'prisma', 'migrations');

type EngineModule = typeof SchemaEngineWasm;

// The part of the WebAssembly global used here (Node has it; the ES lib types do not).
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

let engineModule: Promise<EngineModule> | undefined;

/** The message of the engine's last panic, if it had one (its exception only says "unreachable"). */
export let lastPanicMessage: string | undefined;

// The package is a wasm-bindgen "bundler" build: Node cannot import its .wasm directly, so the
// module is instantiated here with the JS glue as its import object. Once per process.
const loadEngineModule = (): Promise<EngineModule> => {
  engineModule ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as EngineModule & {
      __wbg_set_wasm(exports: Record<string, unknown>): void;
    };
    // The engine reports a Rust panic through this global before it throws.
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message: string) => {
        lastPanicMessage = message;
      },
    };
    const bytes = await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
    // The engine arms timers (10 s timeouts) that would keep a finished CLI process alive;
    // unref'd, they still fire while the process has other work.
    const imports: Record<string, unknown> = { ...glue };
    for (const name of Object.keys(imports).filter((key) => key.startsWith('__wbg_setTimeout_'))) {
      imports[name] = (callback: () => void, ms: number) => setTimeout(callback, ms >>> 0).unref();
    }
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': imports });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue;
  })();
  return engineModule;
};

/** Opens the schema engine on one database; `free()` it when done. */
export const openSchemaEngine = async (
  connection: PoolConfig | PrismaPg,
  log: (message: string) => void = () => {},
): Promise<SchemaEngine> => {
  const { SchemaEngine } = await loadEngineModule();
  const schema = await readFile(SCHEMA_PATH, 'utf8');
  const factory = connection instanceof PrismaPg ? connection : new PrismaPg(connection);
  return SchemaEngine.new({ datamodels: [[SCHEMA_PATH, schema]] }, log, bindMigrationAwareSqlAdapterFactory(factory));
};

/** The migrations folder in the shape the engine expects (Prisma's folder format). */
export const readMigrationList = async (): Promise<MigrationList> => {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  const folders = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const lockfilePath = path.join(MIGRATIONS_DIR, 'migration_lock.toml');
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: {
      path: 'migration_lock.toml',
      content: await readFile(lockfilePath, 'utf8').catch(() => null),
    },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      folders.map(async (folder) => ({
        path: folder,
        migrationFile: {
          path: 'migration.sql',
          content: await readFile(path.join(MIGRATIONS_DIR, folder, 'migration.sql'), 'utf8').then(
            (content) => ({ tag: 'ok' as const, value: content }),
            (error: Error) => ({ tag: 'error' as const, value: error.message }),
          ),
        },
      })),
    ),
  };
};
