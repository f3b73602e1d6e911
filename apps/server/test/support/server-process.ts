import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { afterAll } from 'vitest';

export type ServerProcess = {
  child: ChildProcess;
  api: string;
  /** Every line the process printed to stdout so far (the JSON log lines). */
  output: string[];
  /** Every line it printed to stderr so far (the start-up banner, warnings for the person at the terminal). */
  errors: string[];
};

/** The server's folder: where its processes run. */
export const serverRoot = path.resolve(import.meta.dirname, '..', '..');

/**
 * Every service process a test started and that has not exited. A test that fails or times out
 * before it stops its process (one still starting, say) must not leave it running, serving and
 * polling beside the next tests: what is left is stopped when the test file ends, and killed if
 * the test process exits first.
 */
const running = new Set<ChildProcess>();
afterAll(async () => {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }),
  );
});
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** The newest modification time of the files under `dir` (0 when it does not exist). */
const newestChange = (dir: string): number => {
  try {
    return Math.max(
      0,
      ...readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => statSync(path.join(entry.parentPath, entry.name)).mtimeMs),
    );
  } catch {
    return 0;
  }
};

/**
 * Whether dist/ is built from the sources as they are (`pnpm test` builds first, turbo.json): then
 * a test's process runs the build, which starts in a fraction of tsx's time on a loaded machine;
 * after an edit without a build, the sources through tsx. Worked out once per test file.
 */
let buildIsCurrent: boolean | undefined;
const runFromBuild = (): boolean => {
  buildIsCurrent ??=
    existsSync(path.join(serverRoot, 'dist/main.js')) &&
    newestChange(path.join(serverRoot, 'src')) <= statSync(path.join(serverRoot, 'dist/main.js')).mtimeMs;
  return buildIsCurrent;
};

/**
 * The arguments of `node` that run one of the server's entry points (`main`, `cli/import`): the
 * build, `dist/<entry>.js`, what `pnpm start` and the Docker image run; else the sources through
 * tsx as a loader of this one process (not its CLI, which would run it in a child of its own that
 * a SIGKILL of the CLI leaves running). Run in the server's folder.
 */
export const nodeArgumentsOf = (entry: string, from: 'source' | 'build' | 'auto' = 'auto'): string[] =>
  from === 'build' || (from === 'auto' && runFromBuild())
    ? [`dist/${entry}.js`]
    : ['--import', 'tsx', `src/${entry}.ts`];

/**
 * The service in a process of its own, as an operator starts it (`node dist/main.js` when the
 * build is current, else `tsx src/main.ts`), on an in-memory embedded database unless `env`
 * says otherwise.
 */
const spawnServer = (
  env: Record<string, string>,
  stderr: 'inherit' | 'pipe',
  from: 'source' | 'build' | 'auto' = 'auto',
): ChildProcess => {
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...inherited } = process.env;
  const child = spawn(process.execPath, nodeArgumentsOf('main', from), {
    cwd: serverRoot,
    env: {
      ...inherited,
      DATA_DIR: 'memory://',
      SEED_DEMO_DATA: 'never',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      // No load balancer to wait for: a stop is not 5 s of idling (the tests of draining set it).
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', stderr],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
};

/**
 * Starts the service (spawnServer) and resolves once it is ready: its 'listening' log line, the
 * start-up banner that line announces (on stderr), and, when REDIS_URL is given, 'connected to
 * Redis'. Rejects if it exits first.
 */
export const startServerProcess = (
  env: Record<string, string>,
  /** Receives what the process prints to stderr, line by line (it is kept in `errors` either way). */
  onStderrLine?: (line: string) => void,
  /** `build`: the compiled dist/main.js; `source`: the sources through tsx; `auto`: the build when current. */
  from: 'source' | 'build' | 'auto' = 'auto',
): Promise<ServerProcess> => {
  const child = spawnServer(env, 'pipe', from);
  const errors: string[] = [];
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    let port: number | undefined;
    let bannerWanted = false;
    let bannerSeen = false;
    let redisReady = env.REDIS_URL === undefined;
    const readyYet = () => {
      if (port !== undefined && redisReady && (bannerSeen || !bannerWanted)) {
        resolve({ child, api: `http://127.0.0.1:${port}/api`, output, errors });
      }
    };
    // What it printed is the test's only clue: kept out of the output of a passing test, given here.
    child.once('exit', (code) =>
      reject(new Error(`server process exited with ${code} before it was ready:\n${errors.join('\n')}`)),
    );
    createInterface({ input: child.stderr! }).on('line', (line) => {
      errors.push(line);
      onStderrLine?.(line);
      // The banner is written at once: its other lines arrive with this one.
      if (line.startsWith('Sales order service on ')) {
        bannerSeen = true;
        setImmediate(readyYet);
      }
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; port?: number; banner?: boolean };
      if (entry.msg === 'listening') {
        port = entry.port;
        bannerWanted = entry.banner === true;
      }
      if (entry.msg === 'connected to Redis') redisReady = true;
      readyYet();
    });
  });
};

/** Stops a process started above (SIGTERM: graceful shutdown) and waits for it to exit. */
export const stopServerProcess = async ({ child }: ServerProcess): Promise<void> => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

/**
 * Starts the service as above when it is expected not to start: resolves with its exit code and
 * what it printed to stderr once it exits (or kills it and says so after `timeoutMs`).
 */
export const runFailingServerProcess = (
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ code: number | null; stderr: string }> => {
  const child = spawnServer(env, 'pipe');
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
};

/** Whether a TCP connection to the port on loopback is refused (nothing listens any more). */
export const connectionRefused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
