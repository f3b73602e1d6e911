import { describe, expect, it } from 'vitest';

import { loadConfig } from '../src/startup/config.js';
import { configProblems } from './support/config-problems.js';
import { runFailingServerProcess } from './support/server-process.js';

/** Asserts `env` is refused with exactly one problem, naming `variable`; returns it. */
const refusedFor = (variable: string, env: Record<string, string>): string => {
  const problems = configProblems(env);
  expect(problems, JSON.stringify(env)).toHaveLength(1);
  expect(problems[0], JSON.stringify(env)).toMatch(new RegExp(`^${variable}: `));
  return problems[0]!;
};

describe('configuration: integers', () => {
  it('accepts canonical decimal integers in range, and an empty value as unset', () => {
    expect(loadConfig({ PORT: '80' }).port).toBe(80);
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
    expect(loadConfig({ DATABASE_POOL_MAX: '25' }).database.poolMax).toBe(25);
  });

  it.each([
    '0x50',
    '1e3',
    ' 80',
    '80 ',
    '+80',
    '80.0',
    '080',
    '-1',
    '65536',
    '8_0',
    '0b1010',
    'Infinity',
    '99999999999999999999',
  ])('refuses PORT=%j, naming PORT', (value) => {
    expect(refusedFor('PORT', { PORT: value })).toBe('PORT: PORT must be an integer from 0 to 65535');
  });

  it('names every bad integer variable at once', () => {
    const problems = configProblems({ DATABASE_POOL_MAX: '1e1', RATE_LIMIT_PER_MINUTE: '0x10', PORT: '3000' });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'DATABASE_POOL_MAX',
      'RATE_LIMIT_PER_MINUTE',
    ]);
  });
});

describe('configuration: TRUST_PROXY', () => {
  it('refuses true, saying why and what to give instead', () => {
    const problem = refusedFor('TRUST_PROXY', { TRUST_PROXY: 'true' });
    expect(problem).toContain('rate-limit key');
    expect(problem).toMatch(/number of proxies/);
  });

  it('accepts false (the default), a hop count, and a list of addresses, subnets and Express range names', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(0);
    expect(
      loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,192.168.1.7, ::1, fe80::/10,linklocal,uniquelocal' }).trustProxy,
    ).toEqual(['loopback', '10.0.0.0/8', '192.168.1.7', '::1', 'fe80::/10', 'linklocal', 'uniquelocal']);
  });

  it.each([
    'True',
    'yes',
    '*',
    ' 1',
    '1.5',
    '0x1',
    '101',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/8/8',
    '10.0.0.0/08',
    '1.2.3',
    '0x10.0.0.1',
    '010.0.0.1',
    'fe80::1%eth0',
    'loopback,',
    'localhost',
  ])('refuses TRUST_PROXY=%j', (value) => {
    refusedFor('TRUST_PROXY', { TRUST_PROXY: value });
  });
});

describe('configuration: BUSINESS_TIME_ZONE', () => {
  it('defaults to UTC and takes an IANA name in its canonical spelling', () => {
    expect(loadConfig({}).businessTimeZone).toBe('UTC');
    expect(loadConfig({ BUSINESS_TIME_ZONE: 'Asia/Dhaka' }).businessTimeZone).toBe('Asia/Dhaka');
    expect(loadConfig({ BUSINESS_TIME_ZONE: 'asia/dhaka' }).businessTimeZone).toBe('Asia/Dhaka');
  });

  it.each(['Mars/Olympus_Mons', '+06:00', 'GMT+6:00', ' UTC', 'Asia/Dhaka '])(
    'refuses BUSINESS_TIME_ZONE=%j',
    (value) => {
      expect(refusedFor('BUSINESS_TIME_ZONE', { BUSINESS_TIME_ZONE: value })).toContain('IANA time zone');
    },
  );
});

describe('configuration: other values', () => {
  it.each([
    ['LOG_LEVEL', 'INFO'],
    ['LOG_LEVEL', ' info'],
    ['SEED_DEMO_DATA', 'yes'],
    ['SEED_DEMO_DATA', 'Always'],
    ['BODY_LIMIT', '1 mb'],
    ['BODY_LIMIT', ' 1mb'],
    ['BODY_LIMIT', '-1mb'],
    ['BODY_LIMIT', '1gb'],
    ['HOST', 'local host'],
    ['HOST', 'http://127.0.0.1'],
    ['DATABASE_URL', 'mysql://db.example.com/orders'],
    ['DATABASE_URL', 'postgres//db.example.com/orders'],
    ['REDIS_URL', 'http://cache.example.com'],
  ])('refuses %s=%j', (variable, value) => {
    refusedFor(variable, { [variable]: value });
  });

  it('refuses a lock timeout at or above the statement timeout: a lock wait must end as contention, not be cancelled', () => {
    expect(refusedFor('DATABASE_LOCK_TIMEOUT_MS', { DATABASE_LOCK_TIMEOUT_MS: '1500' })).toBe(
      'DATABASE_LOCK_TIMEOUT_MS: must be less than DATABASE_STATEMENT_TIMEOUT_MS (1500): ' +
        'a lock wait must end before the statement waiting for it is cancelled',
    );
    refusedFor('DATABASE_LOCK_TIMEOUT_MS', {
      DATABASE_LOCK_TIMEOUT_MS: '10000',
      DATABASE_STATEMENT_TIMEOUT_MS: '5000',
    });
    const raised = loadConfig({ DATABASE_LOCK_TIMEOUT_MS: '10000', DATABASE_STATEMENT_TIMEOUT_MS: '12000' });
    expect(raised.idempotency.waitSliceMs).toBe(10_000);
  });

  it('accepts well-formed values', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      LOG_LEVEL: 'warn',
      SEED_DEMO_DATA: 'never',
      BODY_LIMIT: '512kb',
      DATABASE_URL: 'postgresql://orders:pw@db.example.com:5432/orders',
      REDIS_URL: 'rediss://cache.example.com:6380',
    });
    expect(config).toMatchObject({ host: '0.0.0.0', logLevel: 'warn', seedDemoData: 'never', bodyLimit: '512kb' });
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
  });

  it('never repeats a refused value that may be a secret', () => {
    const problems = configProblems({
      DATABASE_URL: 'mysql://orders:hunter2-database-password@db.example.com/orders',
      REDIS_URL: 'http://:hunter2-redis-password@cache.example.com',
      JWT_SECRET: 'hunter2-too-short',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'DATABASE_URL',
      'JWT_SECRET',
      'REDIS_URL',
    ]);
    expect(problems.join('\n')).not.toMatch(/hunter2/);
  });
});

describe('the service process', () => {
  it('refuses to start with TRUST_PROXY=true or PORT=0x50, naming both and listening on nothing', async () => {
    const { code, stderr } = await runFailingServerProcess({ TRUST_PROXY: 'true', PORT: '0x50' });
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toMatch(/^ {2}- TRUST_PROXY: true is refused/m);
    expect(stderr).toMatch(/^ {2}- PORT: PORT must be an integer from 0 to 65535$/m);
  });
});

describe('configuration: the order entry page', () => {
  const PG = { DATABASE_URL: 'postgresql://user@127.0.0.1:5432/db' };

  it('is on with its sign-in link on the embedded database and off with DATABASE_URL, unless set', () => {
    expect(loadConfig({}).orderEntry).toEqual({ page: true, signIn: true });
    expect(loadConfig(PG).orderEntry).toEqual({ page: false, signIn: false });
    expect(loadConfig({ ...PG, ORDER_ENTRY_PAGE: 'true' }).orderEntry).toEqual({ page: true, signIn: false });
    expect(loadConfig({ ...PG, ORDER_ENTRY_PAGE: 'true', ORDER_ENTRY_SIGN_IN: 'true' }).orderEntry).toEqual({
      page: true,
      signIn: true,
    });
    expect(loadConfig({ ORDER_ENTRY_SIGN_IN: 'false' }).orderEntry).toEqual({ page: true, signIn: false });
    // No page, no sign-in link to it.
    expect(loadConfig({ ORDER_ENTRY_PAGE: 'false' }).orderEntry).toEqual({ page: false, signIn: false });
  });

  it('refuses other values, and a sign-in link without the page', () => {
    expect(refusedFor('ORDER_ENTRY_PAGE', { ORDER_ENTRY_PAGE: 'yes' })).toBe(
      'ORDER_ENTRY_PAGE: must be one of true, false, auto',
    );
    expect(refusedFor('ORDER_ENTRY_SIGN_IN', { ...PG, ORDER_ENTRY_SIGN_IN: 'true' })).toMatch(
      /needs the order entry page \(ORDER_ENTRY_PAGE=true\)/,
    );
  });
});
