import { type EventType, Permission, type WebhookEndpoint } from '@sales-order/contract';

import type { LocationList } from '../../auth/access-context.js';
import type { Scope } from '../../auth/scope.js';
import type { Db } from '../../db/transactions.js';
import { LOCKED_IN_SCOPE, withinLocations } from '../../db/within-locations.js';
import { Prisma } from '../../generated/prisma/client.js';
import { type CircuitState, TIMEOUTS_TO_OPEN } from '../circuit-breaker.js';

/** The statements about webhook endpoints: rows as the API reads them, and their secrets. */

/** An endpoint's columns in the read shape (timestamps as the API writes them). */
const READ_COLUMNS = Prisma.sql`id, url, description, event_types, locations, enabled, disabled_reason,
  to_char(disabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS disabled_at,
  to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS failing_since,
  to_char((SELECT max(p.expires_at) FROM webhook_previous_secrets p
    WHERE p.endpoint_id = webhook_endpoints.id AND p.expires_at > now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
    AS previous_secret_expires_at, owner,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS updated_at`;

export type EndpointRow = WebhookEndpoint;

export interface NewEndpoint {
  url: string;
  description: string | null;
  eventTypes: EventType[] | null;
  secret: string;
  createdBy: string;
  /** The registering caller's identity (auth/access-context.ts identityOf). */
  owner: string;
  /** The registering caller's locations, which the endpoint keeps. */
  locations: LocationList;
  /** The registering caller's permissions (read for a JWT owner, whose grant is not kept). */
  ownerPermissions: readonly string[];
}

/**
 * Which endpoints a caller may see and change: its own (`owner`), or every one (`all`, for
 * webhooks.admin). Another's endpoint reads as if it did not exist.
 */
export interface EndpointScope {
  owner: string;
  all: boolean;
  /** The caller's locations: it sees only endpoints registered with a scope inside them. */
  scope: Scope;
  /**
   * The caller's permissions: on a change or a replay of its own endpoint they become the
   * owner's as the fan-out reads them for a JWT owner (whose grant is not kept between requests).
   */
  permissions: readonly string[];
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
  /** The current secret first, then every replaced one that still signs, newest first. */
  secrets: string[];
  /** Who the endpoint belongs to (null: nobody, it receives nothing). */
  owner: string | null;
  /** Whether the owner may receive events now (holds events.read: OWNER_PERMISSIONS). */
  receives: boolean;
  /** The owner's permissions now, as OWNER_PERMISSIONS reads them (whose events it may receive). */
  owner_permissions: string[];
  /** Its circuit breaker now (circuit-breaker.ts). */
  circuit: CircuitState;
  /** Until when it is parked, while its breaker is open. */
  circuit_open_until: Date | null;
}

/**
 * Rows of one caller's scope: its own endpoints, whatever its locations are now (it can always
 * see, stop and delete what it registered; what they receive follows its scope, OWNER_LOCATIONS),
 * and with webhooks.admin another's registered inside its locations (one registered wider, or
 * unscoped, would tell it about the rest).
 */
const inScope = (scope: EndpointScope) =>
  scope.all
    ? Prisma.sql`AND (owner = ${scope.owner}::varchar OR ${withinLocations(scope.scope, { allOf: 'locations' })})`
    : Prisma.sql`AND owner = ${scope.owner}::varchar /* location scope: the caller's own endpoints */`;

/** Permissions that let an owner receive events. */
const RECEIVING_PERMISSIONS = [Permission.eventsRead, Permission.all];

/** The host sessions of the owner of endpoint `w` (a `session:<user>`) that are live now: unrevoked, unexpired. */
const LIVE_SESSION_OF_OWNER = Prisma.sql`s.user_id = substr(w.owner, 9) AND s.revoked_at IS NULL AND s.expires_at > now()`;

/** The live API key of the owner of endpoint `w` (an `api_key:<prefix>`), as authenticating finds it. */
const LIVE_KEY_OF_OWNER = Prisma.sql`k.prefix = substr(w.owner, 9) AND (k.revoked_at IS NULL OR k.revoked_at > now())
  AND (k.expires_at IS NULL OR k.expires_at > now())`;

/** A session's `locations` (codes or ids as the host writes them, auth/location-scopes.ts) as ids; NULL stays every location. */
const SESSION_LOCATION_IDS = Prisma.sql`CASE WHEN s.locations IS NULL THEN NULL ELSE ARRAY(
  SELECT l.id FROM locations l
  WHERE l.id::bigint = ANY(ARRAY(SELECT x::bigint FROM unnest(s.locations) x WHERE x ~ '^[1-9][0-9]{0,9}$'))
    OR upper(l.code) = ANY(ARRAY(SELECT upper(x) FROM unnest(s.locations) x WHERE x !~ '^[1-9][0-9]{0,9}$'))
  ORDER BY l.id) END`;

/**
 * The locations of the owner of endpoint `w` now (int[]; NULL every location), looked up as
 * authenticating would: an API key's own row; a host session user's newest live session (its
 * codes resolved as a request's are); a JWT subject's latest token (jwt_subject_scopes, recorded
 * at its requests: auth/jwt-subject-scopes.ts). Where there is no such credential, the locations
 * the endpoint was registered with: its owner then holds no permission (OWNER_PERMISSIONS) and each
 * delivery fails at once with the reason (delivery-worker.ts), rather than stopping unseen.
 */
export const OWNER_LOCATIONS = Prisma.sql`/* location scope: none, the owner's own credential */ CASE
  WHEN starts_with(w.owner, 'api_key:') THEN (SELECT CASE WHEN k.id IS NULL THEN w.locations ELSE k.locations END
    FROM (SELECT 1) one LEFT JOIN api_keys k ON ${LIVE_KEY_OF_OWNER})
  WHEN starts_with(w.owner, 'session:') THEN (SELECT CASE WHEN s.id IS NULL THEN w.locations ELSE ${SESSION_LOCATION_IDS} END
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT s.id, s.locations FROM sessions s
      WHERE ${LIVE_SESSION_OF_OWNER} ORDER BY s.created_at DESC, s.id DESC LIMIT 1) s ON true)
  WHEN starts_with(w.owner, 'jwt:') THEN (SELECT CASE WHEN j.identity IS NULL THEN w.locations ELSE j.locations END
    FROM (SELECT 1) one LEFT JOIN jwt_subject_scopes j ON j.identity = w.owner)
  ELSE w.locations END`;

/**
 * The permissions of the owner of endpoint `w` now, as the service can tell between requests: an
 * API key's own row (none once it is revoked or expired); a host session user's newest unrevoked
 * session; a JWT subject's grant cannot be looked up (no token is kept), so the permissions it
 * held at its last register, change or replay stand (`owner_permissions`; none recorded, as
 * for endpoints registered before they were: events.read, which registering required). None
 * for no owner.
 */
export const OWNER_PERMISSIONS = Prisma.sql`/* location scope: none, the owner's own credential */ CASE
  WHEN starts_with(w.owner, 'api_key:') THEN coalesce((SELECT k.permissions FROM api_keys k WHERE ${LIVE_KEY_OF_OWNER}), '{}')
  WHEN starts_with(w.owner, 'session:') THEN coalesce((SELECT s.permissions FROM sessions s
    WHERE ${LIVE_SESSION_OF_OWNER} ORDER BY s.created_at DESC, s.id DESC LIMIT 1), '{}')
  WHEN starts_with(w.owner, 'jwt:') THEN coalesce(w.owner_permissions, ${[Permission.eventsRead]}::text[])
  ELSE '{}'::text[] END`;

/**
 * Endpoints (`w`) with their owner's permissions and locations now, each computed once per
 * endpoint: the body of a `MATERIALIZED` CTE that the fan-out, a replay and each delivery read
 * through visibleToEndpoint(OWNER_NOW) (event-visibility.ts).
 */
export const endpointsNow = (where: Prisma.Sql) => Prisma.sql`
  SELECT w.id, w.owner, w.locations, w.event_types, w.enabled, ${OWNER_PERMISSIONS} AS owner_permissions_now,
    ${OWNER_LOCATIONS} AS owner_locations_now
  FROM webhook_endpoints w WHERE ${where} /* location scope: each endpoint's own, visibleToEndpoint */`;

/** The columns of endpointsNow that visibleToEndpoint reads. */
export const OWNER_NOW = {
  permissions: Prisma.sql`w.owner_permissions_now`,
  locations: Prisma.sql`w.owner_locations_now`,
};

/** Whether the endpoint's owner may receive events now: it holds events.read (or `*`). */
const OWNER_RECEIVES = Prisma.sql`(${OWNER_PERMISSIONS}) && ${RECEIVING_PERMISSIONS}::text[]`;

/**
 * On a change or replay by the endpoint's owner itself, its permissions as they are now (what a
 * JWT owner's grant reads from then on); another caller's (webhooks.admin) leave them.
 */
const refreshOwnerPermissions = (scope: EndpointScope) =>
  Prisma.sql`owner_permissions = CASE WHEN owner = ${scope.owner}::varchar THEN ${[...scope.permissions]}::text[]
    ELSE owner_permissions END`;

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
      -- location scope: the endpoint keeps the registering caller's own locations
      INSERT INTO webhook_endpoints (url, description, event_types, secret, created_by, owner, locations, owner_permissions)
      SELECT ${endpoint.url}, ${endpoint.description}::varchar, ${endpoint.eventTypes}::text[], ${endpoint.secret},
        ${endpoint.createdBy}, ${endpoint.owner}, ${endpoint.locations === null ? null : [...endpoint.locations]}::int[],
        ${[...endpoint.ownerPermissions]}::text[]
      WHERE (SELECT count(*) FROM webhook_endpoints) < ${maximum}::int
      RETURNING ${READ_COLUMNS}`;
    return row ?? null;
  },

  list: async (db: Db, scope: EndpointScope): Promise<EndpointRow[]> =>
    db.$queryRaw<EndpointRow[]>`SELECT ${READ_COLUMNS} FROM webhook_endpoints WHERE true ${inScope(scope)} ORDER BY id`,

  find: async (db: Db, id: number, scope: EndpointScope): Promise<EndpointRow | null> => {
    const [row] = await db.$queryRaw<
      EndpointRow[]
    >`SELECT ${READ_COLUMNS} FROM webhook_endpoints WHERE id = ${id}::int ${inScope(scope)}`;
    return row ?? null;
  },

  /**
   * Applies a change; enabling clears the reason and the failure streak, disabling by hand
   * records `manual`. Null when there is no such endpoint.
   */
  update: async (db: Db, id: number, change: EndpointChange, scope: EndpointScope): Promise<EndpointRow | null> => {
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
      UPDATE webhook_endpoints SET updated_at = now(), ${refreshOwnerPermissions(scope)}
        ${set('url', change.url, 'varchar')} ${set('description', change.description, 'varchar')}
        ${set('event_types', change.eventTypes, 'text[]')} ${enabled}
      WHERE id = ${id}::int ${inScope(scope)}
      RETURNING ${READ_COLUMNS}`;
    return row ?? null;
  },

  /** Deletes an endpoint; its deliveries and their attempts go with it. False when none. */
  delete: async (db: Db, id: number, scope: EndpointScope): Promise<boolean> =>
    (await db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${id}::int ${inScope(scope)}`) === 1,

  /**
   * Replaces the secret; the replaced one keeps signing until `previousValidHours` from now,
   * beside those earlier rotations replaced until their own expiry, unless `maximum` of them
   * still sign ('full': nothing changes). Expired ones are deleted. In one transaction, the
   * endpoint's row locked. The new previous secret's expiry as the API writes it; null when
   * there is no such endpoint (in the scope).
   */
  rotateSecret: async (
    tx: Db,
    id: number,
    secret: string,
    { previousValidHours, maximum }: { previousValidHours: number; maximum: number },
    scope: EndpointScope,
  ): Promise<{ previousExpiresAt: string } | 'full' | null> => {
    const [endpoint] = await tx.$queryRaw<{ signing: number }[]>`
      SELECT (SELECT count(*) FROM webhook_previous_secrets p WHERE p.endpoint_id = webhook_endpoints.id
        AND p.expires_at > now())::int AS signing
      FROM webhook_endpoints WHERE id = ${id}::int ${inScope(scope)}
      FOR UPDATE`;
    if (!endpoint) return null;
    if (endpoint.signing >= maximum) return 'full';
    const [row] = await tx.$queryRaw<{ expires_at: string }[]>`
      WITH expired AS (DELETE FROM webhook_previous_secrets WHERE endpoint_id = ${id}::int AND expires_at <= now()),
      kept AS (
        INSERT INTO webhook_previous_secrets (endpoint_id, secret, expires_at)
        SELECT id, secret, now() + make_interval(hours => ${previousValidHours}::int)
        FROM webhook_endpoints WHERE id = ${id}::int AND ${LOCKED_IN_SCOPE}
        RETURNING expires_at)
      UPDATE webhook_endpoints SET secret = ${secret}, updated_at = now()
      FROM kept WHERE id = ${id}::int
      RETURNING to_char(kept.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS expires_at`;
    return { previousExpiresAt: row!.expires_at };
  },

  /**
   * Where and with which secrets to send to an endpoint, and whether its owner may receive
   * events now; within a caller's scope when one is given (a route), any endpoint otherwise (the
   * delivery worker).
   */
  target: async (db: Db, id: number, scope?: EndpointScope): Promise<EndpointTarget | null> => {
    const [row] = await db.$queryRaw<EndpointTarget[]>`
      SELECT w.id, w.url, w.enabled, ARRAY[w.secret] || ARRAY(SELECT p.secret FROM webhook_previous_secrets p
          WHERE p.endpoint_id = w.id AND p.expires_at > now() ORDER BY p.expires_at DESC, p.id DESC) AS secrets,
        w.owner, ${OWNER_RECEIVES} AS receives, ${OWNER_PERMISSIONS} AS owner_permissions,
        CASE WHEN w.timeouts_in_a_row < ${TIMEOUTS_TO_OPEN}::int THEN 'closed'
          WHEN w.circuit_open_until > now() THEN 'open' ELSE 'half-open' END AS circuit, w.circuit_open_until
      FROM webhook_endpoints w WHERE w.id = ${id}::int ${scope ? inScope(scope) : Prisma.empty}`;
    return row ?? null;
  },

  /** A replay by the endpoint's owner: its permissions now become the owner's (refreshOwnerPermissions). */
  touchOwner: async (db: Db, id: number, scope: EndpointScope): Promise<void> => {
    await db.$executeRaw`UPDATE webhook_endpoints SET ${refreshOwnerPermissions(scope)} WHERE id = ${id}::int AND ${LOCKED_IN_SCOPE}`;
  },
};
