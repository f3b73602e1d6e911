import { gzipSync } from 'node:zlib';

import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * The OpenAPI document lists the 413, 415 and 431 answers the service gives
 * (and 408), on every operation, since every request passes the parser and body checks that
 * give them. Each is provoked through HTTP and looked up in the served document.
 */
describe('the OpenAPI document lists the request refusals the service answers', () => {
  const suite = useServerWithFixtures({ BODY_LIMIT: '16kb' });

  const documentOf = async () =>
    (await request(suite.server.api).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
    };

  it('413, 415 and 431 as the server answers them, each listed for the operation that answered', async () => {
    const authorization = `Bearer ${await signJwt({ payload: { permissions: ['*'] } })}`;
    const tooLarge = await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { remarks: 'x'.repeat(20_000) }));
    const unsupported = await suite.server.http
      .post('/sales-orders')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'br')
      .send(gzipSync(JSON.stringify(orderBody(suite.fixtures))));
    // Node's parser refuses headers over 16 KiB before Express sees the request.
    const headersTooLarge = await fetch(`${suite.server.api}/sales-orders/1`, {
      headers: { authorization, 'x-filler': 'a'.repeat(20_000) },
    });
    expect([tooLarge.status, unsupported.status, headersTooLarge.status]).toEqual([413, 415, 431]);

    const document = await documentOf();
    const create = document.paths['/sales-orders']!.post!.responses;
    const read = document.paths['/sales-orders/{id}']!.get!.responses;
    expect(Object.keys(create)).toEqual(expect.arrayContaining(['413', '415', '431']));
    expect(Object.keys(read)).toContain('431');
    expect(create['413']!.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
    });
  });

  it('every operation lists 408, 413, 415 and 431', async () => {
    const document = await documentOf();
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['408', '413', '415', '431']),
        );
      }
    }
  });
});
