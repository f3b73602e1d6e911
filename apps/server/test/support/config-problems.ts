import { ConfigError, loadConfig } from '../../src/startup/config.js';

/** The problems loadConfig reports for `env`, or [] when it accepts it. */
export const configProblems = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
};
