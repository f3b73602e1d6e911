import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * Runs a command-line task: its exit code on success; on failure one plain line on stderr
 * (configuration errors and a busy embedded database are the user's to fix, not stack traces).
 */
export const runCli = (task: () => Promise<number | void>): void => {
  task().then(
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
