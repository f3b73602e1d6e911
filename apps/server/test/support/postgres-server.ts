import pg from 'pg';

export const databaseUrl = (serverUrl: string, database: string): string => {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

/** Runs one statement on the server's maintenance database (CREATE/DROP DATABASE cannot run in a transaction). */
export const adminQuery = async (serverUrl: string, sql: string): Promise<Record<string, string>[]> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
};

/**
 * Runs `work` on a connection of its own to the test server's database (PostgreSQL server only),
 * free of the service's statement timeout: bulk loads of 200,000 orders take longer than any
 * request may on a loaded machine.
 */
export const withOwnConnection = async <T>(
  prisma: { $queryRaw<R>(query: TemplateStringsArray): Promise<R> },
  work: (client: pg.Client) => Promise<T>,
): Promise<T> => {
  const [database] = await prisma.$queryRaw<{ name: string }[]>`SELECT current_database() AS name`;
  const client = new pg.Client({ connectionString: databaseUrl(process.env.TEST_DATABASE_URL!, database!.name) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};
