import pg from 'pg';

/** The database named in DATABASE_URL does not exist and cannot be created by its user. */
export class MissingDatabaseError extends Error {}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Creates the database DATABASE_URL names when it does not exist yet and its user may create
 * databases (connecting to the server's `postgres` database to do so), as the embedded database
 * is created on first start. When the user may not, throws a MissingDatabaseError whose message
 * is one line for the operator: the database, the server and the command that creates it.
 * Any other connection problem is left to the caller's usual report.
 */
export const ensureDatabaseExists = async (url: string, log: (message: string) => void): Promise<void> => {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await probe.connect();
    return;
  } catch (error) {
    // 3D000 invalid_catalog_name: the server answered that no such database exists.
    if ((error as { code?: string }).code !== '3D000') return;
  } finally {
    await probe.end().catch(() => {});
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const user = decodeURIComponent(target.username) || 'postgres';
  const server = `${target.hostname}:${target.port || '5432'}`;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 10_000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    log(`created the database "${name}" named in DATABASE_URL`);
  } catch (error) {
    // 42P04 duplicate_database: another process created it meanwhile.
    if ((error as { code?: string }).code === '42P04') return;
    const reason = error instanceof Error ? error.message : String(error);
    throw new MissingDatabaseError(
      `The database "${name}" named in DATABASE_URL does not exist on ${server}, and user "${user}" could not create it (${reason}): create it with  createdb -h ${target.hostname} -p ${target.port || '5432'} -U <a user who may> ${name}  then start again.`,
    );
  } finally {
    await admin.end().catch(() => {});
  }
};
