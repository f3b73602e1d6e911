import net from 'node:net';
import { gzipSync } from 'node:zlib';

import { DETAIL_CODES } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * What a hostile or broken caller sends: bytes Node's HTTP parser refuses, bodies that lie
 * about their length or encoding, paths that do not decode, ids written in unusual ways, text
 * that cannot be stored. Every refusal is the envelope with its status, nothing is written,
 * and nothing is logged at error level (that level is for failures of the service).
 */

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits what came back on a connection into its HTTP responses (Content-Length framed). */
const parseResponses = (bytes: Buffer): RawResponse[] => {
  const responses: RawResponse[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response: ${rest.toString('latin1')}`);
    const [statusLine = '', ...headerLines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    );
    const length = Number(headers['content-length'] ?? 0);
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.subarray(end + 4, end + 4 + length).toString('utf8'),
    });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
};

/**
 * Writes bytes exactly as given on a new connection and collects every response until the
 * server closes it; `endWrites` half-closes the connection after the bytes, as a client that
 * stopped sending.
 */
const sendRaw = (port: number, bytes: string | Buffer, { endWrites = false } = {}): Promise<RawResponse[]> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(bytes);
      if (endWrites) socket.end();
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 5 s; received: ${Buffer.concat(chunks).toString('latin1')}`));
    }, 5_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponses(Buffer.concat(chunks)));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });

interface Envelope {
  success: false;
  error: { message: string; code: number; details: { path: string; message: string; code: string }[] };
}

/** Asserts the error envelope with `status` and one detail of `code`, as any client reads it. */
const expectEnvelope = (
  response: { status: number; headers: Record<string, string>; body: string },
  status: number,
  code: string,
) => {
  expect(response.status, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const envelope = JSON.parse(response.body) as Envelope;
  expect(Object.keys(envelope).sort()).toEqual(['error', 'success']);
  expect(envelope.success).toBe(false);
  expect(envelope.error.code).toBe(status);
  expect(typeof envelope.error.message).toBe('string');
  expect(envelope.error.details).toEqual([expect.objectContaining({ path: expect.any(String), code })]);
  expect(DETAIL_CODES, 'declared in the contract').toContain(code);
  return envelope;
};

/** The same for a supertest response. */
const expectHttpEnvelope = (response: request.Response, status: number, code: string, path = '') => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(['error', 'success']);
  expect(response.body.success).toBe(false);
  expect(response.body.error.code).toBe(status);
  expect(response.body.error.details).toEqual([expect.objectContaining({ path, code })]);
  expect(DETAIL_CODES, 'declared in the contract').toContain(code);
};

describe('malformed and hostile requests', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  let port: number;
  let basePath: string;
  let authorization: string;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(
      { LOG_LEVEL: 'debug', BODY_LIMIT: '64kb' },
      { logStream: { write: (line: string) => void lines.push(line) } },
    );
    fixtures = await createFixtures(server.database.prisma);
    port = Number(new URL(server.origin).port);
    basePath = new URL(server.api).pathname.replace(/\/$/, '');
    authorization = `Bearer ${await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' })}`;
  });
  afterAll(() => server?.close());

  const orderCount = () => server.database.prisma.salesOrder.count();

  let markers = 0;
  /**
   * The log lines written since `from`, once the server has logged the refusals: none at error
   * level or above (pino: 50), at least one warning (40). Access lines of requests whose
   * connection closed early come a moment after their answers: a later request's access line
   * (its own X-Request-Id) marks that they are all in.
   */
  const expectLoggedBelowError = async (from: number) => {
    const entries = () => lines.slice(from).map((line) => JSON.parse(line) as { level: number; reqId?: string });
    const marker = `later-marker-${(markers += 1)}`;
    await request(server.origin).get('/healthz').set('X-Request-Id', marker).expect(200);
    await eventually(async () => entries().some((entry) => entry.reqId === marker), 60_000);
    const levels = entries()
      .filter((entry) => entry.reqId !== marker)
      .map((entry) => entry.level);
    expect(levels).toContain(40);
    expect(lines.slice(from).filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  };

  /** A request head for the API, with credentials. */
  const head = (requestLine: string, headers: string[] = []) =>
    [
      requestLine.replace(' /', ` ${basePath}/`),
      'Host: 127.0.0.1',
      `Authorization: ${authorization}`,
      ...headers,
      '',
      '',
    ].join('\r\n');

  it('answers a malformed %-escape in a path with 400 in the envelope', async () => {
    const from = lines.length;
    for (const id of ['%E0', '%zz', '%', '%C0%AF']) {
      expectHttpEnvelope(await server.http.get(`/sales-orders/${id}`), 400, 'invalid_path_encoding');
      expectHttpEnvelope(await server.http.delete(`/sales-orders/${id}`), 400, 'invalid_path_encoding');
      expectHttpEnvelope(
        await server.http.put(`/sales-orders/${id}`).send({ remarks: 'x' }),
        400,
        'invalid_path_encoding',
      );
    }
    await expectLoggedBelowError(from);
  });

  it('answers a Content-Encoding or charset it cannot decode in the envelope, writing nothing', async () => {
    const from = lines.length;
    const body = JSON.stringify(orderBody(fixtures));
    const post = () => server.http.post('/sales-orders').set('Content-Type', 'application/json');
    expectHttpEnvelope(await post().set('Content-Encoding', 'br').send(body), 415, 'encoding.unsupported');
    // Declared gzip, sent plain: zlib cannot read it.
    expectHttpEnvelope(await post().set('Content-Encoding', 'gzip').send(body), 400, 'invalid_content_encoding');
    expectHttpEnvelope(
      await post().set('Content-Encoding', 'deflate').send(gzipSync(body)),
      400,
      'invalid_content_encoding',
    );
    expectHttpEnvelope(
      await post().set('Content-Type', 'application/json; charset=latin1').send(body),
      415,
      'charset.unsupported',
    );
    expect(await orderCount()).toBe(0);
    await expectLoggedBelowError(from);
  });

  it('answers headers over the limit with 431 in the envelope', async () => {
    const from = lines.length;
    const [response, ...more] = await sendRaw(
      port,
      head('GET /sales-orders/1 HTTP/1.1', [`X-Filler: ${'a'.repeat(20_000)}`]),
    );
    expectEnvelope(response!, 431, 'headers_too_large');
    expect(response!.headers.connection).toBe('close');
    expect(more).toEqual([]);
    await expectLoggedBelowError(from);
  });

  it.each([
    ['bytes that are not HTTP', 'HELLO THERE\r\n\r\n'],
    ['a NUL in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nCookie: erp_session=abc\u0000def\r\n\r\n'],
    [
      'a NUL in the Authorization header',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey sok_\u0000\r\n\r\n',
    ],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'two different Content-Lengths',
      'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd',
    ],
    [
      'a chunk size that is not hexadecimal',
      'POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
    ],
  ])('answers %s with 400 in the envelope', async (_name, bytes) => {
    const from = lines.length;
    const responses = await sendRaw(port, bytes);
    expect(responses).toHaveLength(1);
    expectEnvelope(responses[0]!, 400, 'malformed_request');
    await expectLoggedBelowError(from);
  });

  it('refuses a body longer than its Content-Length, writing nothing', async () => {
    const from = lines.length;
    const body = JSON.stringify(orderBody(fixtures));
    // The declared length ends inside the JSON; what follows is read as a next request, which is no HTTP.
    const bytes =
      head('POST /sales-orders HTTP/1.1', ['Content-Type: application/json', `Content-Length: ${body.length - 20}`]) +
      body;
    const responses = await sendRaw(port, bytes);
    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) expect(response.status).toBe(400);
    expectEnvelope(responses.at(-1)!, 400, 'malformed_request');
    expect(await orderCount()).toBe(0);
    await expectLoggedBelowError(from);
  });

  it('refuses a body shorter than its Content-Length when the client stops sending, writing nothing', async () => {
    const from = lines.length;
    const body = JSON.stringify(orderBody(fixtures));
    const bytes =
      head('POST /sales-orders HTTP/1.1', ['Content-Type: application/json', `Content-Length: ${body.length + 100}`]) +
      body;
    const responses = await sendRaw(port, bytes, { endWrites: true });
    expect(responses).toHaveLength(1);
    expectEnvelope(responses[0]!, 400, 'malformed_request');
    expect(await orderCount()).toBe(0);
    await expectLoggedBelowError(from);
  });

  it('refuses a body that is not valid UTF-8 instead of storing U+FFFD', async () => {
    const from = lines.length;
    const [before, after] = JSON.stringify(orderBody(fixtures, { remarks: 'MARK' })).split('MARK') as [string, string];
    // A stray byte, an overlong "/", a surrogate encoded in UTF-8 (CESU-8), a truncated sequence.
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const body = Buffer.concat([Buffer.from(`${before}a`), Buffer.from(bad), Buffer.from(`b${after}`)]);
      for (const [encoding, bytes] of [
        ['identity', body],
        ['gzip', gzipSync(body)],
      ] as const) {
        const headers = [
          'Content-Type: application/json',
          `Content-Encoding: ${encoding}`,
          `Content-Length: ${bytes.length}`,
          'Connection: close',
        ];
        const responses = await sendRaw(
          port,
          Buffer.concat([Buffer.from(head('POST /sales-orders HTTP/1.1', headers)), bytes]),
        );
        expect(responses).toHaveLength(1);
        expectEnvelope(responses[0]!, 400, 'invalid_utf8');
      }
    }
    expect(await orderCount()).toBe(0);
    await expectLoggedBelowError(from);
  });

  it('reads ids in paths and query strings only as canonical decimal integers', async () => {
    const from = lines.length;
    const created = await server.http.post('/sales-orders').send(orderBody(fixtures, { remarks: 'original' }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.sales_order_id as number;
    // Each of these is read as `id` (or 1000) by Number().
    const variants = [
      `${id}.0`,
      `+${id}`,
      `0${id}`,
      `%20${id}`,
      `${id}%20`,
      `0x${id.toString(16)}`,
      `${id}e0`,
      '1e3',
      '%00',
    ];
    for (const variant of variants) {
      expectHttpEnvelope(await server.http.get(`/sales-orders/${variant}`), 400, 'invalid_integer', 'id');
      expectHttpEnvelope(
        await server.http.put(`/sales-orders/${variant}`).send({ remarks: 'changed' }),
        400,
        'invalid_integer',
        'id',
      );
      expectHttpEnvelope(await server.http.delete(`/sales-orders/${variant}`), 400, 'invalid_integer', 'id');
    }
    const stored = await server.http.get(`/sales-orders/${id}`);
    expect(stored.status).toBe(200);
    expect(stored.body.data.remarks).toBe('original');

    const yearId = fixtures.years.currentYear.id;
    const locationId = fixtures.locations.dhaka.id;
    const maxNumber = await server.http.get(
      `/sales-orders/max-number?year_id=${yearId}.0&location_id=%2B${locationId}`,
    );
    expect(maxNumber.status).toBe(400);
    expect(
      maxNumber.body.error.details
        .map((detail: { path: string; code: string }) => `${detail.path}:${detail.code}`)
        .sort(),
    ).toEqual(['location_id:invalid_integer', 'year_id:invalid_integer']);
    const ok = await server.http.get(`/sales-orders/max-number?year_id=${yearId}&location_id=${locationId}`);
    expect(ok.status).toBe(200);
    expectHttpEnvelope(
      await server.http.get(`/sales-orders/dropdown-options/customers?selected_id=0x${id.toString(16)}`),
      400,
      'invalid_integer',
      'selected_id',
    );
    await expectLoggedBelowError(from);
  });

  it('refuses NUL and lone surrogates in the text of a body, never storing a replacement', async () => {
    const from = lines.length;
    const before = await orderCount();
    const line = orderBody(fixtures).details[0]!;
    const cases: [Record<string, unknown>, string][] = [
      [{ remarks: 'Deliver \ud800 Friday' }, 'remarks'],
      [{ remarks: 'Deliver \u0000 Friday' }, 'remarks'],
      [{ remarks: '\udc00' }, 'remarks'],
      [{ details: [{ ...line, remarks: 'half \ud83d of an emoji' }] }, 'details.0.remarks'],
      [{ other_charges: [{ description: 'Carriage \ud800', amount: 10 }] }, 'other_charges.0.description'],
    ];
    for (const [overrides, path] of cases) {
      expectHttpEnvelope(
        await server.http.post('/sales-orders').send(orderBody(fixtures, overrides)),
        400,
        'invalid_text',
        path,
      );
    }
    // Written as JSON escapes, exactly as a client's serializer sends them.
    const raw = JSON.stringify(orderBody(fixtures, { remarks: 'MARK' })).replace('MARK', 'a\\ud800b');
    expect(raw).toContain('\\ud800');
    expectHttpEnvelope(
      await server.http.post('/sales-orders').set('Content-Type', 'application/json').send(raw),
      400,
      'invalid_text',
      'remarks',
    );
    expect(await orderCount()).toBe(before);

    const created = await server.http.post('/sales-orders').send(orderBody(fixtures, { remarks: 'kept 😀' }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.sales_order_id as number;
    expectHttpEnvelope(
      await server.http.put(`/sales-orders/${id}`).send({ remarks: 'changed \ud800' }),
      400,
      'invalid_text',
      'remarks',
    );
    expect((await server.http.get(`/sales-orders/${id}`)).body.data.remarks).toBe('kept 😀');
    await expectLoggedBelowError(from);
  });
});

describe('the service as main.ts starts it', () => {
  let running: ServerProcess | undefined;
  afterAll(() => (running ? stopServerProcess(running) : undefined));

  // A service process of its own on the embedded database: over a minute to start when loaded.
  it('answers what the HTTP parser refuses in the envelope, logged as a warning', { timeout: 240_000 }, async () => {
    running = await startServerProcess({});
    const port = Number(new URL(running.api).port);
    const [oversized] = await sendRaw(
      port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectEnvelope(oversized!, 431, 'headers_too_large');
    const [garbage] = await sendRaw(port, 'HELLO\r\n\r\n');
    expectEnvelope(garbage!, 400, 'malformed_request');
    const entries = () =>
      running!.output.flatMap((line) =>
        line.startsWith('{') ? [JSON.parse(line) as { level: number; msg: string }] : [],
      );
    const refusals = () => entries().filter((entry) => entry.msg.startsWith('refused a request'));
    // The child's log lines are read from its stdout a moment after it writes them.
    await eventually(async () => refusals().length >= 2, 60_000);
    expect(refusals().map((entry) => entry.level)).toEqual([40, 40]);
    expect(entries().filter((entry) => entry.level >= 50)).toEqual([]);
  });
});
