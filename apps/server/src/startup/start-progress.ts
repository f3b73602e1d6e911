/**
 * The start-up steps for the person at the terminal, one line each on stderr as it ends, with its
 * time (`pnpm start` prints the build's line before them, scripts/start.sh): so that a first
 * start, which builds, creates the database and loads the demo data, is never silent for long.
 * stdout carries only the JSON log.
 */
export const printStartStep = (step: string, ms: number): void => {
  console.error(`${step} in ${(ms / 1000).toFixed(1)} s`);
};
