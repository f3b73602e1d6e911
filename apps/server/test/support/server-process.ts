import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

export type ServerProcess = {
  child: ChildProcess;
  api: string;
  /** Every line the process printed to stdout so far (the JSON log lines). */
  output: string[];
  /** Every line it printed to stderr so far (the start-up banner, warnings for the person at the terminal). */
  errors: string[];
};

const serverRoot = path.resolve(import.meta.dirname, '..', '..');

/**
 * `tsx src/main.ts` in a process of its own, as an operator starts the service, on an in-memory
 * embedded database unless `env` says otherwise. Resolves once it listens and, when REDIS_URL is
 * given, has reached Redis.
 */
const spawnServer = (
  env: Record<string, string>,
  stderr: 'inherit' | 'pipe',
  from: 'source' | 'build' = 'source',
): ChildProcess => {
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...inherited } = process.env;
  // The build: `node dist/main.js`, what `pnpm start` and the Docker image run.
  const [command, args] =
    from === 'build'
      ? [process.execPath, ['dist/main.js']]
      : [path.join(serverRoot, 'node_modules/.bin/tsx'), ['src/main.ts']];
  return spawn(command, args, {
    cwd: serverRoot,
    env: {
      ...inherited,
      DATA_DIR: 'memory://',
      SEED_DEMO_DATA: 'never',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', stderr],
  });
};

export const startServerProcess = (
  env: Record<string, string>,
  /** Receives what the process prints to stderr, line by line (otherwise it goes to the test's). */
  onStderrLine?: (line: string) => void,
  /** `build`: the compiled dist/main.js instead of the sources through tsx. */
  from: 'source' | 'build' = 'source',
): Promise<ServerProcess> => {
  const child = spawnServer(env, 'pipe', from);
  const errors: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    errors.push(line);
    if (onStderrLine) onStderrLine(line);
    else process.stderr.write(`${line}\n`);
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    let port: number | undefined;
    let redisReady = env.REDIS_URL === undefined;
    child.once('exit', (code) => reject(new Error(`server process exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'listening') port = entry.port;
      if (entry.msg === 'connected to Redis') redisReady = true;
      // The banner follows the 'listening' line; give it a moment to arrive.
      if (port !== undefined && redisReady)
        setTimeout(() => resolve({ child, api: `http://127.0.0.1:${port}/api`, output, errors }), 100);
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
  timeoutMs = 30_000,
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
