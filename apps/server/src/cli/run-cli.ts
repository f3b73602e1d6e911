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
