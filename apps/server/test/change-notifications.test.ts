import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { listenForChanges } from '../src/db/change-notifications.js';
import { createLogger } from '../src/observability/logger.js';
import { eventually } from './support/eventually.js';
import { captureLog } from './support/log-capture.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

const serverUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!serverUrl)('change notifications (needs TEST_DATABASE_URL)', () => {
  let proxy: TcpProxy;
  let url: string;

  beforeAll(async () => {
    const target = new URL(serverUrl!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    url = target.toString();
  });
  afterAll(() => proxy?.close());

  it('a first connection that needs retries is not a recovery; a loss, and only a loss, is followed by "back"', async () => {
    const log = captureLog();
    const messages = () => log.entries.map((entry) => entry.msg);
    // The database refuses the first attempt (as a PostgreSQL still starting would).
    proxy.cut();
    const notifications = listenForChanges(url, {
      connectTimeoutMs: 10_000,
      logger: createLogger('info', log.stream),
    });
    try {
      await eventually(async () => proxy.connectionCount() >= 1, 60_000);
      proxy.restore();
      await eventually(async () => notifications.listening, 60_000);
      expect(messages()).not.toContain('change notifications are back');

      proxy.cut();
      await eventually(async () => !notifications.listening, 60_000);
      expect(messages()).toContain('change notifications lost: caches rely on their TTL until they are back');
      proxy.restore();
      await eventually(async () => notifications.listening, 60_000);
      expect(messages().filter((msg) => msg === 'change notifications are back')).toHaveLength(1);
    } finally {
      await notifications.close();
    }
  });
});
