import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const clientPackage = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'packages', 'client');

/**
 * The environment a user's own npm would see: without the `npm_config_*` variables pnpm sets
 * for the script running this test (they point npm at pnpm's rc files, not npm's own). The
 * registry is reached as everywhere else on the machine: a TLS-inspecting proxy's CA comes
 * from NODE_EXTRA_CA_CERTS, which turbo.json passes through to the tests for this.
 */
export const userEnvironment = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));

/**
 * The SDK as a user gets it, in `project` (a new directory): packages/client packed with pnpm
 * (it must be built), and the tarball installed with npm into a package.json of `manifest`.
 */
export const installPackedSdk = async (project: string, manifest: Record<string, unknown>): Promise<void> => {
  const packDir = path.join(project, 'pack');
  await run('pnpm', ['pack', '--pack-destination', packDir], { cwd: clientPackage });
  const [tarball] = (await readdir(packDir)).filter((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error('pnpm pack wrote no tarball (is packages/client built?)');
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ private: true, ...manifest }));
  // A real install: the SDK's own dependencies come from the registry, as for any user. A
  // stalled registry request is retried after 30 s instead of npm's default 5 minutes, which
  // alone would outlast the hook.
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--fetch-timeout=30000',
      '--fetch-retries=4',
      path.join(packDir, tarball),
    ],
    { cwd: project, env: userEnvironment() },
  );
};

/** A user's strict TypeScript project, for Node and browsers. */
export const CONSUMER_COMPILER_OPTIONS = {
  strict: true,
  // The strictest optional members: `{ after: undefined }` must still be accepted where `after` is optional.
  exactOptionalPropertyTypes: true,
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  target: 'ES2022',
  lib: ['ES2022', 'DOM'],
};
