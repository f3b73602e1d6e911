import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { runHostSessionCommand } from '../src/cli/host-session-command.js';
import { useServerWithFixtures } from './support/test-server.js';

const COOKIE_NAME = 'erp_session';

describe('host-session CLI (the session-cookie example of docs/cli.md on the embedded database)', () => {
  const suite = useServerWithFixtures();

  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runHostSessionCommand(
      argv,
      suite.server.database.prisma,
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      COOKIE_NAME,
    );
    return { code, out, err };
  };

  it('writes a session the service accepts, with the permissions given and only its hash stored', async () => {
    const { code, out } = await run(['create', '--user', 'clerk-9', '--permissions', Permission.read]);
    expect(code).toBe(0);
    const cookie = out.map((line) => line.trim()).find((line) => line.startsWith(`${COOKIE_NAME}=`));
    expect(cookie).toMatch(new RegExp(`^${COOKIE_NAME}=[A-Za-z0-9_-]{43}$`));
    const token = cookie!.slice(COOKIE_NAME.length + 1);

    const read = await request(suite.server.api)
      .get(
        `/sales-orders/max-number?year_id=${suite.fixtures.years.currentYear.id}&location_id=${suite.fixtures.locations.dhaka.id}`,
      )
      .set('Cookie', cookie!);
    expect(read.status).toBe(200);
    // Read permission only: a write is refused for the permission, not the session.
    const write = await request(suite.server.api).delete('/sales-orders/1').set('Cookie', cookie!);
    expect(write.status).toBe(403);

    const rows = await suite.server.database.prisma.$queryRaw<{ token_hash: string; valid_hours: number }[]>`
      SELECT token_hash, round(extract(epoch FROM expires_at - now()) / 3600)::int AS valid_hours FROM sessions WHERE user_id = 'clerk-9'`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(token);
    expect(rows[0]!.valid_hours).toBe(8);
  });

  it('refuses bad usage, unknown permissions and a bad duration, writing nothing', async () => {
    for (const argv of [
      [],
      ['create', '--permissions', '*'],
      ['create', '--user', 'u'],
      ['create', '--user', 'u', '--permissions', 'sales_orders.erase'],
      ['create', '--user', 'u', '--permissions', '*', '--hours', '0'],
      ['create', '--user', 'u', '--permissions', '*', '--hours', '1e2'],
      ['create', '--user', 'x'.repeat(201), '--permissions', '*'],
    ]) {
      const { code, err } = await run(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(err.join('\n')).toContain('usage:');
    }
    const rows = await suite.server.database.prisma.$queryRaw<
      { count: bigint }[]
    >`SELECT count(*) FROM sessions WHERE user_id = 'u' OR length(user_id) > 200`;
    expect(rows).toEqual([{ count: 0n }]);
  });
});
