import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';

import { runOrderEntryCommand } from '../src/cli/order-entry-command.js';
import { loadConfig } from '../src/startup/config.js';
import { useServerWithFixtures } from './support/test-server.js';

/** `pnpm order-entry`: the sign-in link for a running service, on either kind of database. */
describe('order-entry CLI', () => {
  const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true', ORDER_ENTRY_SIGN_IN: 'true' });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'order-entry-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const run = async (argv: string[], env: Record<string, string>) => {
    const out: string[] = [];
    const err: string[] = [];
    const opened: string[] = [];
    const code = await runOrderEntryCommand(
      argv,
      loadConfig({ PORT: '3999', ...env }),
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      (use) => use(suite.server.database.prisma),
      (url) => opened.push(url),
    );
    return { code, out, err, opened };
  };
  const linkIn = (out: string[]) => out.map((line) => line.trim()).find((line) => line.startsWith('http://'));

  it('embedded database: prints and opens the demo session kept by pnpm start, or says to start the service', async () => {
    const none = await run([], { DATA_DIR: dataDir });
    expect(none.code).toBe(1);
    expect(none.err.join('\n')).toContain('start the service first (pnpm start)');

    writeFileSync(path.join(dataDir, 'demo-session'), 'kept-value\n');
    const { code, out, opened } = await run([], { DATA_DIR: dataDir });
    expect(code).toBe(0);
    expect(linkIn(out)).toBe('http://127.0.0.1:3999/order-entry/sign-in?session=kept-value');
    expect(opened).toEqual([linkIn(out)]);
    expect((await run(['--no-open'], { DATA_DIR: dataDir })).opened).toEqual([]);
  });

  it('DATABASE_URL: writes a session for --user whose link signs a browser in', async () => {
    const { code, out } = await run(['--user', 'alice', '--no-open'], {
      DATABASE_URL: 'postgresql://unused@127.0.0.1/unused',
      ORDER_ENTRY_PAGE: 'true',
      ORDER_ENTRY_SIGN_IN: 'true',
    });
    expect(code).toBe(0);
    const link = new URL(linkIn(out)!);
    const signIn = await request(suite.server.origin).get(`${link.pathname}${link.search}`).expect(303);
    const [cookie] = signIn.headers['set-cookie'] as unknown as string[];
    const read = await request(suite.server.api)
      .get('/sales-orders?limit=1')
      .set('Cookie', cookie!.split(';')[0]!)
      .expect(200);
    expect(read.body.success).toBe(true);
    const rows = await suite.server.database.prisma.session.findMany({ where: { userId: 'alice' } });
    expect(rows).toHaveLength(1);
  });

  it('with the page off, says how to switch it on', async () => {
    const { code, err } = await run([], { DATABASE_URL: 'postgresql://unused@127.0.0.1/unused' });
    expect(code).toBe(1);
    expect(err.join('\n')).toContain('ORDER_ENTRY_PAGE=true');
  });
});
