import { once } from 'node:events';
import type { Server } from 'node:net';

/**
 * A start-up problem the operator fixes in the environment (a port another process holds): main
 * prints its message alone, without a stack or a lead-in, as it does a configuration error.
 */
export class StartupProblem extends Error {
  override readonly name = 'StartupProblem';
}

/**
 * Resolves once `server` (told to listen on `port` of `host`) listens; a port in use, a port
 * needing privileges or an address not of this machine reject with a StartupProblem naming the
 * variable to change (`PORT`, `METRICS_PORT`; the host's is `hostVariable`).
 */
export const listening = async (
  server: Server,
  { port, host, variable, hostVariable }: { port: number; host: string; variable: string; hostVariable: string },
): Promise<void> => {
  try {
    await once(server, 'listening');
  } catch (error) {
    const where = host === '0.0.0.0' || host === '::' ? `port ${port}` : `port ${port} on ${host}`;
    switch ((error as NodeJS.ErrnoException).code) {
      case 'EADDRINUSE':
        throw new StartupProblem(
          `Cannot listen: ${where} is in use by another process (this service, already running?). ` +
            `Stop that process, or set ${variable} to a free port (e.g. ${variable}=${port + 1}).`,
        );
      case 'EACCES':
        throw new StartupProblem(
          `Cannot listen: ${where} needs privileges this process does not have. Set ${variable} to 1024 or above.`,
        );
      case 'EADDRNOTAVAIL':
        throw new StartupProblem(
          `Cannot listen: ${host} is not an address of this machine. Set ${hostVariable} to one of its addresses ` +
            `(127.0.0.1 for this machine only, 0.0.0.0 for every interface).`,
        );
      default:
        throw error;
    }
  }
};
