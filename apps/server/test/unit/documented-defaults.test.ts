import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { readEnvironment } from '../../src/startup/config.js';

/**
 * The docs state each variable's default by hand (docs/configuration.md's table, .env.example,
 * and in passing: "`AUTH_CACHE_TTL_MS` (default 10 s)"); the schema in src/startup/config.ts is
 * what the service does. Every stated default is read through the schema and must come out as
 * the schema's own default, so a figure that drifts from the code fails here.
 */

const ROOT = join(import.meta.dirname, '../../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const defaults = readEnvironment();
const variables = Object.keys(defaults);

/** What the schema makes of `value` for `name`, or the refusal's message. */
const asRead = (name: string, value: string): unknown => {
  try {
    return readEnvironment({ [name]: value })[name];
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
};

/** A value the service reads as "nothing": the feature off or the list empty. */
const isNothing = (value: unknown) =>
  value === undefined || value === false || (Array.isArray(value) && value.length === 0);

/** Defaults the table states in words, checked by their own tests (config.test.ts). */
const STATED_IN_WORDS = new Set(['ORDER_ENTRY_PAGE', 'ORDER_ENTRY_SIGN_IN']);

/** docs/configuration.md's table (not the tests' variables): each variable the first column names, with the default column. */
const tableRows = () =>
  read('docs/configuration.md')
    .split('\n## Tests')[0]!
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => {
      const [names = '', , stated = ''] = line.split(' | ');
      return [...names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(([, name]) => ({ name: name!, stated: stated.trim() }));
    });

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  min: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
};
const VARIABLE_UNIT_MS: [RegExp, number][] = [
  [/_MS$/, 1],
  [/_SECONDS$/, 1_000],
  [/_HOURS$/, 3_600_000],
  [/_DAYS$/, 86_400_000],
];

/** A figure written in prose ("30 s", "6,000", "an hour") in the variable's own unit. */
const inVariableUnit = (name: string, figure: string): string | undefined => {
  const match = /^(an|[\d,]+)\s*(ms|s|min|minutes|h|hour)?$/.exec(figure);
  if (!match) return undefined;
  const count = match[1] === 'an' ? 1 : Number(match[1]!.replace(/,/g, ''));
  if (match[2] === undefined) return String(count);
  const per = VARIABLE_UNIT_MS.find(([pattern]) => pattern.test(name))?.[1];
  return per === undefined ? `${figure} (no unit in ${name})` : String((count * UNIT_MS[match[2]]!) / per);
};

const markdownFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownFiles(join(dir, entry.name))
      : entry.name.endsWith('.md')
        ? [join(dir, entry.name)]
        : [],
  );

/** "`NAME` (default 30 s)", "`NAME`, default `x`", "`NAME` (24 by default)" anywhere in the docs. */
const PROSE_DEFAULT =
  /`([A-Z][A-Z0-9_]{3,})`[,:]?\s*\(?(?:default(?:s to)?\s+(`[^`]+`|an hour|[\d,]+(?:\s*(?:ms|s|min|minutes|h|hour)\b)?|[A-Z]{2,}\b)|([\d,]+(?:\s*(?:ms|s|min|h)\b)?|[A-Z]{2,}) by default)/g;

describe('documented defaults', () => {
  it("docs/configuration.md's table names every variable, each with the schema's default", () => {
    const rows = tableRows();
    expect(variables.filter((name) => !rows.some((row) => row.name === name))).toEqual([]);
    const wrong = rows.flatMap(({ name, stated }) => {
      if (!(name in defaults)) return [`${name}: not a variable of the schema`];
      if (STATED_IN_WORDS.has(name)) return [];
      const code = /^`([^`]*)`/.exec(stated)?.[1];
      if (code !== undefined) {
        const read = asRead(name, code);
        return JSON.stringify(read) === JSON.stringify(defaults[name])
          ? []
          : [`${name}: the table says ${code}, the schema's default is ${JSON.stringify(defaults[name])}`];
      }
      if (/^(unset|none)$/.test(stated)) {
        return isNothing(defaults[name])
          ? []
          : [`${name}: the table says ${stated}, the schema's default is ${JSON.stringify(defaults[name])}`];
      }
      return [`${name}: the default "${stated}" is neither a value in backticks nor unset`];
    });
    expect(wrong).toEqual([]);
  });

  it(".env.example lists every variable, each set to the schema's default or left empty", () => {
    const lines = read('.env.example')
      .split('\n')
      .flatMap((line) => {
        // A commented line (`# METRICS_PORT=9464`) lists the variable with an example, not its default.
        const match = /^(# )?([A-Z][A-Z0-9_]+)=(.*)$/.exec(line);
        return match ? [{ name: match[2]!, value: match[1] ? '' : match[3]! }] : [];
      });
    expect(variables.filter((name) => !lines.some((line) => line.name === name))).toEqual([]);
    const wrong = lines.flatMap(({ name, value }) => {
      if (!(name in defaults)) return [`${name}: not a variable of the schema`];
      if (value === '') return [];
      return JSON.stringify(asRead(name, value)) === JSON.stringify(defaults[name])
        ? []
        : [`${name}=${value}: the schema's default is ${JSON.stringify(defaults[name])}`];
    });
    expect(wrong).toEqual([]);
  });

  it("every default a page states in passing is the schema's", () => {
    const stated = [...markdownFiles('docs'), 'README.md'].flatMap((file) =>
      [...read(file).matchAll(PROSE_DEFAULT)].map(([text, name, after, before]) => ({
        file,
        text,
        name: name!,
        figure: (after ?? before)!,
      })),
    );
    // The pattern finds what it is for (a check that finds nothing would pass anything).
    expect(stated.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['AUTH_CACHE_TTL_MS', 'BULK_ORDERS_PER_MINUTE']),
    );
    const wrong = stated.flatMap(({ file, text, name, figure }) => {
      if (!(name in defaults)) return [`${file}: ${text}: not a variable of the schema`];
      const value = figure.startsWith('`') ? figure.slice(1, -1) : (inVariableUnit(name, figure) ?? figure);
      return JSON.stringify(asRead(name, value)) === JSON.stringify(defaults[name])
        ? []
        : [`${file}: "${text}", the schema's default is ${JSON.stringify(defaults[name])}`];
    });
    expect(wrong).toEqual([]);
  });
});
