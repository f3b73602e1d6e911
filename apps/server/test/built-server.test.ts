import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';

import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/**
 * The build that `pnpm start` and the Docker image run (dist/main.js), not the sources through
 * tsx: started over a fresh database, it migrates it and answers an authenticated request. The
 * test task builds first (turbo.json), so a source that does not compile fails here.
 */
describe('the built server (dist/main.js)', () => {
  let server: ServerProcess | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    if (server) await stopServerProcess(server);
    await drop?.();
  });

  it('starts over a fresh database and answers an authenticated request', async () => {
    const database = await createTestDatabase();
    drop = () => database.drop();
    server = await startServerProcess(
      { ...database.env, JWT_SECRET: TEST_JWT_SECRET, SEED_DEMO_DATA: 'always' },
      undefined,
      'build',
    );
    expect(server.child.spawnfile).toBe(process.execPath);

    const token = await signJwt({ payload: { permissions: ['*'] } });
    const response = await request(server.api).get('/sales-orders').set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, data: { items: expect.any(Array) } });
    expect(response.body.data.items.length).toBeGreaterThan(0);
  }, 60_000);
});
