import net from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runFailingServerProcess } from './support/server-process.js';

/**
 * A service started on a port another process holds stops at once with one plain line naming
 * the variable to change (not a stack trace ending in `listen EADDRINUSE`).
 */
describe('a start on a port another process holds', () => {
  const holder = net.createServer();
  let port: number;
  beforeAll(async () => {
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('PORT: exits 1 saying the port is in use and to set PORT', { timeout: 300_000 }, async () => {
    const { code, stderr } = await runFailingServerProcess({ PORT: String(port) });
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(
      `Cannot listen: port ${port} on 127.0.0.1 is in use by another process (this service, already running?). ` +
        `Stop that process, or set PORT to a free port (e.g. PORT=${port + 1}).\n`,
    );
    expect(stderr).not.toMatch(/failed to start|EADDRINUSE|^\s+at /m);
  });

  it('METRICS_PORT: names METRICS_PORT, not PORT', { timeout: 300_000 }, async () => {
    const { code, stderr } = await runFailingServerProcess({ METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' });
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`Cannot listen: port ${port} on 127.0.0.1 is in use by another process`);
    expect(stderr).toContain(`set METRICS_PORT to a free port (e.g. METRICS_PORT=${port + 1})`);
  });
});
