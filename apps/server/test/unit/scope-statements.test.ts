import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/**
 * Location scope is kept by the store API (docs/decisions/location-scope-in-the-store-api.md): every SQL statement that reads, locks or changes a located record
 * (orders, deliveries, webhook endpoints, API keys, imports) says which scope it applies. This
 * reads the service's sources and fails on a statement about one that names none of: the
 * caller's scope (`withinLocations(...)`, db/within-locations.ts, or a store's own wrapper of it:
 * `inScope(...)`, `scopedWhere(...)`), a row already locked in scope (`LOCKED_IN_SCOPE`), a
 * deliberate `ACROSS_LOCATIONS`, or a written `location scope: <why>` comment. Prisma's model
 * calls on those tables cannot carry a scope at all, so they are refused outside the list below.
 */

const SOURCE_ROOT = path.resolve(import.meta.dirname, '../../src');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (name === 'generated') return [];
    return statSync(file).isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });

/** The template literals of a source, roughly: what lies between backticks that open SQL. */
const sqlTemplates = (source: string): string[] => {
  const templates: string[] = [];
  const opener = /(?:\$queryRaw|\$executeRaw|Prisma\.sql)(?:<[^`]*?>)?`/g;
  for (let match = opener.exec(source); match; match = opener.exec(source)) {
    // A template ends at the first backtick outside ${...} interpolations.
    let depth = 0;
    let index = match.index + match[0].length;
    for (; index < source.length; index += 1) {
      const char = source[index];
      if (char === '$' && source[index + 1] === '{') {
        depth += 1;
        index += 1;
      } else if (char === '}' && depth > 0) depth -= 1;
      else if (char === '`' && depth === 0) break;
    }
    templates.push(source.slice(match.index, index + 1));
  }
  return templates;
};

/** The tables of located records: each row belongs to a location, or names the locations it covers. */
const LOCATED_TABLES = [
  'sales_orders',
  'deliveries',
  'webhook_endpoints',
  'api_keys',
  'imports',
  'idempotency_keys',
  'sales_order_changes',
];
const ABOUT_ORDERS = new RegExp(`\\b(?:FROM|JOIN|UPDATE|INTO)\\s+(?:${LOCATED_TABLES.join('|')})\\b`, 'i');
const SCOPED = /withinLocations\(|inScope\(|scopedWhere\(|LOCKED_IN_SCOPE|ACROSS_LOCATIONS|location scope/;

/** Prisma model calls on located tables, each with why it needs no scope. */
const MODEL_CALLS_ALLOWED: Record<string, string> = {
  'imports/import-store.ts': "by id, once a statement in the viewer's scope (inScope) found it, or by its job",
};
const MODEL_CALL =
  /\.(?:salesOrder|salesOrderDetail|delivery|deliveryLine|webhookEndpoint|apiKey|import)\.(?:find\w*|create\w*|update\w*|upsert|delete\w*|count|aggregate|groupBy)\(/;

describe('every statement on a located table applies a location scope', () => {
  const statements = sourceFiles(SOURCE_ROOT).flatMap((file) =>
    sqlTemplates(readFileSync(file, 'utf8'))
      .filter((sql) => ABOUT_ORDERS.test(sql))
      .map((sql) => ({ file: path.relative(SOURCE_ROOT, file), sql })),
  );

  it('finds the statements (the reader is not blind)', () => {
    expect(statements.length).toBeGreaterThan(10);
    expect(sqlTemplates('db.$queryRaw`SELECT 1 FROM sales_orders WHERE id = ${id}`')).toHaveLength(1);
  });

  it('names a scope in each', () => {
    const unscoped = statements.filter(({ sql }) => !SCOPED.test(sql));
    expect(unscoped.map(({ file, sql }) => `${file}: ${sql.slice(0, 160)}`)).toEqual([]);
  });

  it('makes no Prisma model call on a located table outside the list', () => {
    const calls = sourceFiles(SOURCE_ROOT)
      .map((file) => path.relative(SOURCE_ROOT, file))
      .filter((file) => MODEL_CALL.test(readFileSync(path.join(SOURCE_ROOT, file), 'utf8')));
    expect(calls.filter((file) => !(file in MODEL_CALLS_ALLOWED))).toEqual([]);
    expect(MODEL_CALL.test('db.salesOrder.findMany({ where: { customerId } })')).toBe(true);
  });

  it('would catch a statement that forgets it', () => {
    const forgotten = sqlTemplates('tx.$queryRaw`SELECT id FROM sales_orders WHERE customer_id = ${customerId}`');
    expect(forgotten.filter((sql) => ABOUT_ORDERS.test(sql) && !SCOPED.test(sql))).toHaveLength(1);
  });
});
