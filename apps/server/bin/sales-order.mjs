#!/usr/bin/env node
// `pnpm sales-order <command> ...` (a bin of the server package, linked at the workspace root) and
// the root scripts `pnpm run import`, `pnpm api-key`, `pnpm host-session`, `pnpm order-entry`,
// `pnpm db:migrate` and `pnpm db:seed`: runs the built CLI, building first only when a source is
// newer than the build (and saying which, in one line). As the bin, a command's exit status
// reaches the shell as it is, without the ELIFECYCLE line pnpm adds after a script's non-zero one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { whyBuild } from './build-freshness.mjs';

const COMMANDS = {
  import: 'uploads a CSV or JSON Lines file of orders to a running service and follows it',
  'api-key': 'creates, revokes and lists API keys (the first key of an install)',
  'host-session': "writes a host session as the host ERP's login would (development, demo)",
  'order-entry': 'prints and opens the link that signs a browser in to the order entry page',
  migrate: 'applies pending migrations (also pnpm db:migrate)',
  seed: 'loads the demo data into an empty database (also pnpm db:seed)',
};

const USAGE = `usage:
  sales-order <command> [options]     (pnpm sales-order ... from anywhere in the repository)
  sales-order <command> --help        the command's own usage

commands:
${Object.entries(COMMANDS)
  .map(([name, what]) => `  ${name.padEnd(14)}${what}`)
  .join('\n')}`;

const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(server, '..', '..');
const [command, ...args] = process.argv.slice(2);

if (command === undefined || command === '--help' || command === '-h') {
  (command === undefined ? console.error : console.log)(USAGE);
  process.exit(command === undefined ? 2 : 0);
}
if (!Object.hasOwn(COMMANDS, command)) {
  console.error(`Unknown command "${command}".\n${USAGE}`);
  process.exit(2);
}

// In the repository (not a deployed folder, which has no sources): build first when needed.
const inRepository = existsSync(path.join(root, 'pnpm-workspace.yaml'));
if (inRepository) {
  const marker = path.join(root, 'node_modules', '.cache', 'sales-order', 'built');
  const builtAt = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  const why = whyBuild(root, '@sales-order/server', builtAt);
  if (why !== undefined) {
    const started = Date.now();
    console.error(`building the service first: ${why} (turbo; a first build takes a minute or two)`);
    const turbo = spawnSync(
      path.join(root, 'node_modules', '.bin', 'turbo'),
      ['run', 'build', '--filter=@sales-order/server...', '--output-logs=errors-only'],
      // Turbo's own lines only when it fails: stdout is the command's, for a script to read.
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      },
    );
    if (turbo.status !== 0) {
      process.stderr.write(`${turbo.stdout ?? ''}${turbo.stderr ?? ''}`);
      console.error('The build failed (above); nothing was run.');
      process.exit(1);
    }
    mkdirSync(path.dirname(marker), { recursive: true });
    writeFileSync(marker, '');
    console.error(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

// Paths on the command line mean what they meant where it was typed (INIT_CWD: pnpm run sets it
// for a script, which it runs in the root; as the bin, the command runs where it was typed). The
// command itself runs in the repository root, where DATA_DIR (./data) is what pnpm start uses.
const viaScript = process.env.npm_lifecycle_script?.includes('sales-order.mjs') === true;
process.env.INIT_CWD = viaScript && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
if (inRepository) process.chdir(root);

const entry = path.join(server, 'dist', 'cli', `${command}.js`);
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
