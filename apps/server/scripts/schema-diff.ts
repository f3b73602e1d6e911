/**
 * Development-time schema diffing through the WASM schema engine: what SQL takes the
 * migrations folder to prisma/schema.prisma. Used by `db:migration:create` and by the test that
 * keeps migrations and schema in step. Needs a PostgreSQL server (for the shadow database).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { PrismaPg } from '@prisma/adapter-pg';
import { ColumnTypeEnum, type SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import pg from 'pg';

import { openSchemaEngine, readMigrationList, SCHEMA_PATH } from '../src/db/schema-engine.js';

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/**
 * The engine describes a database through catalog columns of PostgreSQL's one-byte `"char"`
 * type, which @prisma/adapter-pg cannot map ("Column type 'char' could not be deserialized").
 * Reporting them as text (which they parse as anyway) lets the description through.
 */
/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-member-access --
   pg's query() is a set of overloads; this wrapper passes whichever form it gets straight through. */
class CatalogFriendlyClient extends pg.Client {
  // pg's query() has many overloads (the pool calls the callback form); this wrapper only
  // rewrites the field types of whatever result comes back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: Error | null, result: pg.QueryResult) => last(error, relabel(result));
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as (...a: any[]) => any)(...args);
    return result && typeof result.then === 'function' ? result.then(relabel) : result;
  }
}
/* eslint-enable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-member-access */

const relabel = (result: pg.QueryResult | undefined) => {
  for (const field of result?.fields ?? []) {
    if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  }
  return result;
};

/** Catalog columns the engine reads as a single character rather than as text. */
const CHARACTER_COLUMNS = new Set(['constraint_type']);

const withCharacterColumns = <T extends SqlDriverAdapter>(adapter: T): T => {
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = async (query) => {
    const result = await queryRaw(query);
    return {
      ...result,
      columnTypes: result.columnTypes.map((type, index) =>
        CHARACTER_COLUMNS.has(result.columnNames[index] ?? '') ? ColumnTypeEnum.Character : type,
      ),
    };
  };
  return adapter;
};

/**
 * Two fixes over PrismaPg for describing databases: catalog columns typed as above, and a
 * shadow database that is dropped after its pool closes (PrismaPg drops it while its pool still
 * holds a connection: "being accessed by other users").
 */
class ShadowDatabaseFactory extends PrismaPg {
  constructor(private readonly poolConfig: pg.PoolConfig) {
    super(poolConfig);
  }

  override async connect() {
    return withCharacterColumns(await super.connect());
  }

  override async connectToShadowDb() {
    const admin = await this.connect();
    const database = `prisma_migrate_shadow_db_${randomUUID().replaceAll('-', '')}`;
    await admin.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = withCharacterColumns(await new PrismaPg({ ...this.poolConfig, database }).connect());
    const disposeShadow = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await disposeShadow();
      await admin.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      await admin.dispose();
    };
    return shadow;
  }
}

/** SQL that takes the migrations to the schema; "" when they already match. */
export const diffMigrationsToSchema = async (serverUrl: string): Promise<string> => {
  // Separate fields, not a connectionString: it would override the shadow database's name.
  const url = new URL(serverUrl);
  const engine = await openSchemaEngine(
    new ShadowDatabaseFactory({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1) || 'postgres',
      Client: CatalogFriendlyClient,
    }),
  );
  try {
    const migrations = await readMigrationList();
    const result = await engine.diff({
      from: migrations.migrationDirectories.length === 0 ? { tag: 'empty' } : { tag: 'migrations', ...migrations },
      to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, 'utf8') }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const sql = result.stdout ?? '';
    return sql.includes('This is an empty migration') ? '' : sql.trim();
  } finally {
    engine.free();
  }
};
