import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSession } from './support/credentials.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/**
 * How the service serves the order entry page (the browser tests drive the page itself):
 * only when ORDER_ENTRY_PAGE is on, under the service's CSP, pointed at BASE_PATH; the sign-in
 * link only with ORDER_ENTRY_SIGN_IN.
 */
describe('order entry page: served when switched on', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ORDER_ENTRY_PAGE: 'true', BASE_PATH: '/v1' });
  });
  afterAll(() => server?.close());

  it("serves the page pointed at BASE_PATH, under the service's Content-Security-Policy", async () => {
    const page = await request(server.origin).get('/order-entry/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const policy = Object.fromEntries(
      String(page.headers['content-security-policy'])
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values.join(' ')]),
    );
    expect(policy['script-src']).toBe("'self'");
    // Styles from the page's own stylesheet only: no inline styles, no other origin.
    expect(policy['style-src']).toBe("'self'");
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.text).toContain('<meta name="sales-order-api" content="/v1" />');
    // Scripts and styles are files of its own origin: nothing inline for the CSP to refuse.
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.text).not.toMatch(/<style|\sstyle=/);
    const script = /<script type="module" crossorigin src="\.\/(assets\/[^"]+\.js)">/.exec(page.text)![1]!;
    const asset = await request(server.origin).get(`/order-entry/${script}`).expect(200);
    expect(asset.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    await request(server.origin).get('/order-entry').expect(301).expect('Location', '/order-entry/');
    await request(server.origin).get('/order-entry/assets/missing.js').expect(404);
  });

  it('has no sign-in link on a PostgreSQL server unless ORDER_ENTRY_SIGN_IN is set', async () => {
    if (!process.env.TEST_DATABASE_URL) return; // on the embedded database it is on by default
    const { token } = await createSession(server.database.prisma);
    await request(server.origin).get(`/order-entry/sign-in?session=${token}`).expect(404);
  });
});

describe('order entry page: off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ORDER_ENTRY_PAGE: 'false' });
  });
  afterAll(() => server?.close());

  it('answers 404 in the envelope', async () => {
    const answer = await request(server.origin).get('/order-entry/').expect(404);
    expect(answer.body).toMatchObject({ success: false, error: { code: 404 } });
  });
});
