import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/**
 * docs/sdk.md's figures come from the build (packages/client/scripts/sdk-figures.mjs writes
 * them): each size it states is within 5% of the built file's (a contract change that grows the
 * SDK more than that fails here until the figures are written again), and its type-check time
 * names the TypeScript this repository builds with.
 */
const root = path.resolve(import.meta.dirname, '..', '..', '..', '..');
const dist = path.join(root, 'packages', 'client', 'dist');
const page = readFileSync(path.join(root, 'docs', 'sdk.md'), 'utf8');

const section = (name: string) => {
  const match = new RegExp(`<!-- ${name} -->\\n([\\s\\S]*?)\\n<!-- /${name} -->`).exec(page);
  expect(match, `docs/sdk.md has a filled <!-- ${name} --> section`).not.toBeNull();
  return match![1]!;
};

describe("docs/sdk.md's figures of the SDK", () => {
  it.skipIf(!existsSync(path.join(dist, 'index.d.ts')))('states the sizes of the built files', () => {
    const stated = [...section('sdk-sizes').matchAll(/^\| `dist\/([\w.]+)` \|.*\| ([\d.]+) KB \|$/gm)].map(
      ([, file, kb]) => ({ file: file!, bytes: Number(kb) * 1000 }),
    );
    expect(stated.map(({ file }) => file)).toEqual(['index.js', 'index.cjs', 'index.d.ts']);
    for (const { file, bytes } of stated) {
      const built = statSync(path.join(dist, file)).size;
      expect(Math.abs(bytes - built) / built, `${file}: ${bytes} stated, ${built} built`).toBeLessThan(0.05);
    }
    // The CommonJS declarations are the same file under another name.
    expect(statSync(path.join(dist, 'index.d.cts')).size).toBe(statSync(path.join(dist, 'index.d.ts')).size);
  });

  it('states the type-check time with the TypeScript version the repository uses', () => {
    const version = (createRequire(import.meta.url)('typescript/package.json') as { version: string }).version;
    expect(section('sdk-type-check').replace(/\s+/g, ' ')).toMatch(
      new RegExp(`type-checks with TypeScript ${version.replaceAll('.', '\\.')} in [\\d.]+ s of check time`),
    );
  });
});
