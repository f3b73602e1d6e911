import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Whether the command line asks for the usage: `--help` or `-h` before any `--`. */
export const asksForHelp = (argv: readonly string[]): boolean => {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
};

/**
 * Runs a command-line task with this process's arguments: its exit code on success; on failure
 * one plain line on stderr (configuration errors and a busy embedded database are the user's to
 * fix, not stack traces). `--help` prints `usage` on stdout and exits 0 before the task runs, so
 * it reads no configuration and opens no database (which a running service may hold).
 */
export const runCli = (usage: string, task: (argv: string[]) => Promise<number | void>): void => {
  const argv = process.argv.slice(2);
  if (asksForHelp(argv)) {
    console.log(usage);
    process.exit(0);
  }
  task(argv).then(
    (code) => process.exit(code ?? 0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
};

/**
 * The command line read by node's parseArgs (options and positionals); undefined after telling
 * `err` what was wrong and the usage, for the command to exit 2.
 */
export const parseCommandLine = <T extends ParseArgsConfig['options']>(
  args: string[],
  options: T,
  usage: string,
  err: (line: string) => void,
) => {
  try {
    return parseArgs({ args, options, allowPositionals: true });
  } catch (error) {
    err(`${(error as Error).message}\n${usage}`);
    return undefined;
  }
};

/**
 * A path given on the command line, absolute, as the caller meant it: relative to the folder the
 * command was typed in. `pnpm run` (and the `sales-order` launcher, which runs in the repository
 * root so that DATA_DIR means what it means to `pnpm start`) says where that was in INIT_CWD.
 */
export const callerPath = (file: string, env: NodeJS.ProcessEnv = process.env): string =>
  path.resolve(env.INIT_CWD || process.cwd(), file);

/** A command that takes no arguments: false after telling `err` what was given and the usage (exit 2). */
export const takesNoArguments = (argv: string[], usage: string, err: (line: string) => void): boolean => {
  if (argv.length === 0) return true;
  err(`Unexpected: ${argv.join(' ')}\n${usage}`);
  return false;
};
