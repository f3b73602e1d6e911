import type { AppConfig } from '../startup/config.js';

/**
 * The origin of the service `pnpm start` runs on this machine, as HOST and PORT configure it: a
 * wildcard address (0.0.0.0, ::) is reached on loopback. For the CLIs that call it.
 */
export const localOrigin = ({ host, port }: Pick<AppConfig, 'host' | 'port'>): string => {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
};
