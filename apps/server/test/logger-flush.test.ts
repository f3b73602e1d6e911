import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

const serverRoot = path.resolve(import.meta.dirname, '..');

/** Runs test/support/log-then-end.ts and returns its exit code and the log lines it wrote. */
const run = async (ending: 'throw' | 'exit') => {
  const child = spawn(path.join(serverRoot, 'node_modules/.bin/tsx'), ['test/support/log-then-end.ts', ending], {
    cwd: serverRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.resume();
  // 'close': the process has exited and its output has all been read.
  const [code] = (await once(child, 'close')) as [number | null];
  const lines = Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'));
  return { code, indexes: lines.map((line) => (JSON.parse(line) as { index?: number }).index) };
};

// The logger writes standard output asynchronously (logger.ts): lines still queued when the
// process ends must be written before it is gone.
describe('asynchronous log output', () => {
  it.each(['throw', 'exit'] as const)('keeps every line when the process ends by %s', async (ending) => {
    const { code, indexes } = await run(ending);
    expect(code).toBe(ending === 'throw' ? 1 : 3);
    expect(indexes).toEqual(Array.from({ length: 5_000 }, (_, index) => index));
  });
});
