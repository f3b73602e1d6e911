import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { whyBuild } from '../../bin/build-freshness.mjs';

/**
 * The CLIs' launcher (bin/sales-order.mjs) builds only when a source is newer than the build: a
 * workspace of two packages (the server depending on the contract) with file times set by hand.
 */
describe('whether the CLIs need a build first', () => {
  let root: string;
  /** Writes `file` (relative to the workspace) with its modification time at `minute`. */
  const at = (minute: number, file: string, text = '') => {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
    const time = new Date(Date.UTC(2026, 0, 1, 0, minute));
    utimesSync(full, time, time);
  };
  const ms = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'build-freshness-'));
    at(
      0,
      'apps/server/package.json',
      JSON.stringify({
        name: '@sales-order/server',
        dependencies: { '@sales-order/contract': 'workspace:*', zod: '3' },
      }),
    );
    at(0, 'packages/contract/package.json', JSON.stringify({ name: '@sales-order/contract' }));
    at(1, 'packages/contract/src/orders.ts');
    at(2, 'apps/server/src/cli/import.ts');
    at(10, 'packages/contract/dist/index.js');
    at(11, 'apps/server/dist/main.js');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is current when every build is newer than its sources and those of what it depends on', () => {
    expect(whyBuild(root, '@sales-order/server')).toBeUndefined();
  });

  it("names the source edited after the server's own build", () => {
    at(20, 'apps/server/src/cli/import.ts');
    expect(whyBuild(root, '@sales-order/server')).toBe(
      `${path.join('apps', 'server', 'src', 'cli', 'import.ts')} changed after the last build`,
    );
  });

  it("names a dependency's source newer than the server's build, though the dependency was rebuilt", () => {
    at(20, 'packages/contract/src/orders.ts');
    at(21, 'packages/contract/dist/index.js');
    expect(whyBuild(root, '@sales-order/server')).toBe(
      `${path.join('packages', 'contract', 'src', 'orders.ts')} changed after the last build`,
    );
  });

  it('builds a package without a build, whatever the times say', () => {
    rmSync(path.join(root, 'packages/contract/dist'), { recursive: true });
    expect(whyBuild(root, '@sales-order/server', ms(60))).toBe('@sales-order/contract has no build yet');
  });

  it('is current again after a build of the chain (turbo may restore a build without touching it)', () => {
    at(20, 'packages/contract/src/orders.ts');
    expect(whyBuild(root, '@sales-order/server', ms(19))).toBeDefined();
    expect(whyBuild(root, '@sales-order/server', ms(21))).toBeUndefined();
  });

  it('does not count tests, caches or the built files as sources', () => {
    at(30, 'apps/server/test/import-cli.test.ts');
    at(30, 'apps/server/node_modules/.vite/results.json');
    at(30, 'packages/contract/.turbo/turbo-build.log');
    expect(whyBuild(root, '@sales-order/server')).toBeUndefined();
  });
});
