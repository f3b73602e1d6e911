import type { EventType, WebhookEndpoint } from '@sales-order/contract';

import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';

/** The statements about webhook endpoints: rows as the API reads them, and their secrets. */

/** An endpoint's columns in the read shape (timestamps as the API writes them). */
const READ_COLUMNS = Prisma.sql`id, url, description, event_types, locations, enabled, disabled_reason,
  to_char(disabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS disabled_at,
  to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS failing_since,
  to_char(previous_secret_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS previous_secret_expires_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS updated_at`;

export type EndpointRow = WebhookEndpoint;

export interface NewEndpoint {
  url: string;
  description: string | null;
  eventTypes: EventType[] | null;
  secret: string;
  createdBy: string;
  /** The creator's location scope, which the endpoint keeps. */
  locations: readonly number[] | null;
}

export interface EndpointChange {
  url?: string;
  description?: string | null;
  eventTypes?: EventType[] | null;
  enabled?: boolean;
}

/** What signing and sending to an endpoint needs. */
export interface EndpointTarget {
  id: number;
  url: string;
  enabled: boolean;
  /** The current secret first, then the rotated-out one while it still signs. */
  secrets: string[];
}

export const webhookEndpointStore = {
  /**
   * Serialises registrations until the transaction ends, so that two at once cannot both pass
   * the count in `insert` (a statement after this one, whose snapshot sees the other's commit).
   */
  lockRegistrations: async (tx: Db): Promise<void> => {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints.insert'))::text`;
  },

  /** Inserts an endpoint unless the service already holds `maximum`; null then. */
  insert: async (tx: Db, endpoint: NewEndpoint, maximum: number): Promise<EndpointRow | null> => {
    const [row] = await tx.$queryRaw<EndpointRow[]>`
      INSERT INTO webhook_endpoints (url, description, event_types, secret, created_by, locations)
      SELECT ${endpoint.url}, ${endpoint.description}::varchar, ${endpoint.eventTypes}::text[], ${endpoint.secret},
        ${endpoint.createdBy}, ${endpoint.locations === null ? null : [...endpoint.locations]}::int[]
      WHERE (SELECT count(*) FROM webhook_endpoints) < ${maximum}::int
      RETURNING ${READ_COLUMNS}`;
    return row ?? null;
  },

  list: async (db: Db): Promise<EndpointRow[]> =>
    db.$queryRaw<EndpointRow[]>`SELECT ${READ_COLUMNS} FROM webhook_endpoints ORDER BY id`,

  find: async (db: Db, id: number): Promise<EndpointRow | null> => {
    const [row] = await db.$queryRaw<
      EndpointRow[]
    >`SELECT ${READ_COLUMNS} FROM webhook_endpoints WHERE id = ${id}::int`;
    return row ?? null;
  },

  /**
   * Applies a change; enabling clears the reason and the failure streak, disabling by hand
   * records `manual`. Null when there is no such endpoint.
   */
  update: async (db: Db, id: number, change: EndpointChange): Promise<EndpointRow | null> => {
    const set = (column: string, value: unknown, cast: string) =>
      value === undefined ? Prisma.empty : Prisma.sql`, ${Prisma.raw(column)} = ${value}::${Prisma.raw(cast)}`;
    const enabled =
      change.enabled === undefined
        ? Prisma.empty
        : change.enabled
          ? Prisma.sql`, enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL`
          : Prisma.sql`, enabled = false,
              disabled_reason = CASE WHEN enabled THEN 'manual' ELSE disabled_reason END,
              disabled_at = CASE WHEN enabled THEN now() ELSE disabled_at END`;
    const [row] = await db.$queryRaw<EndpointRow[]>`
      UPDATE webhook_endpoints SET updated_at = now()
        ${set('url', change.url, 'varchar')} ${set('description', change.description, 'varchar')}
        ${set('event_types', change.eventTypes, 'text[]')} ${enabled}
      WHERE id = ${id}::int
      RETURNING ${READ_COLUMNS}`;
    return row ?? null;
  },

  /** Deletes an endpoint; its deliveries and their attempts go with it. False when none. */
  delete: async (db: Db, id: number): Promise<boolean> =>
    (await db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${id}::int`) === 1,

  /**
   * Replaces the secret; the replaced one keeps signing until `previousValidHours` from now.
   * The expiry as the API writes it; null when there is no such endpoint.
   */
  rotateSecret: async (db: Db, id: number, secret: string, previousValidHours: number): Promise<string | null> => {
    const [row] = await db.$queryRaw<{ previous_secret_expires_at: string }[]>`
      UPDATE webhook_endpoints SET previous_secret = secret, secret = ${secret},
        previous_secret_expires_at = now() + make_interval(hours => ${previousValidHours}::int), updated_at = now()
      WHERE id = ${id}::int
      RETURNING to_char(previous_secret_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS previous_secret_expires_at`;
    return row?.previous_secret_expires_at ?? null;
  },

  /** Where and with which secrets to send to an endpoint. */
  target: async (db: Db, id: number): Promise<EndpointTarget | null> => {
    const [row] = await db.$queryRaw<EndpointTarget[]>`
      SELECT id, url, enabled, array_remove(ARRAY[secret,
        CASE WHEN previous_secret_expires_at > now() THEN previous_secret END], NULL) AS secrets
      FROM webhook_endpoints WHERE id = ${id}::int`;
    return row ?? null;
  },
};
