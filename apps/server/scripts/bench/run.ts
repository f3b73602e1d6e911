/** What `pnpm bench`'s parts share while they run on the single service. */
import type { AutovacuumStandIn } from './autovacuum.js';
import type { startService } from './processes.js';
import type { Row } from './rows.js';
import type { Target } from './target.js';

export interface Run {
  /** The table's rows so far, the hello world's first. */
  rows: Row[];
  /** BENCH_DATABASE_URL: a PostgreSQL server's maintenance database; undefined for the embedded one. */
  serverUrl: string | undefined;
  /** The service's environment (DATABASE_URL: the bench's own database on a server). */
  env: Record<string, string>;
  standIn: AutovacuumStandIn | undefined;
  service: ReturnType<typeof startService>;
  target: Target;
}
