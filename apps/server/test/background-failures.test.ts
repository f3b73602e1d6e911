import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { backgroundFailureReporter } from '../src/jobs/background-failures.js';
import { createLogger } from '../src/observability/logger.js';
import { eventually } from './support/eventually.js';
import { captureLog } from './support/log-capture.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, startTestServer, type TestServer } from './support/test-server.js';

const serverUrl = process.env.TEST_DATABASE_URL;

/** What pg raises when a statement's answer does not come within query_timeout. */
const readTimeout = () => new Error('Query read timeout');
const ERROR_LEVEL = 50;
const WARN_LEVEL = 40;

/**
 * A background poll (the outbox relay, pg-boss) that met a timeout, reported on a real service
 * whose PostgreSQL is reached through a TCP proxy the test controls.
 */
describe.skipIf(!serverUrl)('a failed background poll (needs TEST_DATABASE_URL)', () => {
  const serviceLog = captureLog();
  const pollLog = captureLog();
  let proxy: TcpProxy;
  let server: TestServer;
  let report: ReturnType<typeof backgroundFailureReporter>;

  beforeAll(async () => {
    const target = new URL(serverUrl!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startTestServer(
      { ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, LOG_LEVEL: 'info', REDIS_URL: '' },
      { databasePort: proxy.port, logStream: serviceLog.stream },
    );
    report = backgroundFailureReporter(server.database, createLogger('debug', pollLog.stream));
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
  });

  it('is not an outage while the database answers: one warning, no error line, the service stays available', async () => {
    // A start-up poll slowed by a loaded machine can open an episode of its own: judge from an available database.
    await eventually(async () => server.database.availability.available, 60_000);
    const mark = serviceLog.entries.length;
    report('outbox relay: positioning events failed')(readTimeout());
    await eventually(async () => pollLog.entries.length > 0, 60_000);
    expect(pollLog.entries).toEqual([
      expect.objectContaining({
        level: WARN_LEVEL,
        msg: 'outbox relay: positioning events failed; the database answers, so this is not an outage',
      }),
    ]);
    expect(server.database.availability.available).toBe(true);
    expect(serviceLog.since(mark).filter((entry) => entry.level >= ERROR_LEVEL)).toEqual([]);
    await server.http.get('/sales-orders/dropdown-options/ports').expect(200);
  });

  it('is reported as the outage it is when the database does not answer either: one error line, then recovery', async () => {
    const mark = serviceLog.entries.length;
    const pollMark = pollLog.entries.length;
    proxy.hang();
    try {
      report('job queue: a database call failed')(readTimeout());
      await eventually(async () => !server.database.availability.available, 60_000);
      expect(
        serviceLog
          .since(mark)
          .filter((entry) => entry.level >= ERROR_LEVEL)
          .map((entry) => entry.msg),
      ).toEqual(['database unavailable: answering 503 until it answers again']);
      expect(pollLog.since(pollMark)).toEqual([]);
    } finally {
      proxy.restore();
    }
    await eventually(async () => server.database.availability.available, 60_000);
  }, 60_000);

  it('passes a failure that is not about availability on as a warning, without asking the database', async () => {
    const pollMark = pollLog.entries.length;
    report('webhook delivery job failed')(new Error('the receiver answered nonsense'));
    expect(pollLog.since(pollMark)).toEqual([
      expect.objectContaining({ level: WARN_LEVEL, msg: 'webhook delivery job failed' }),
    ]);
  });
});
