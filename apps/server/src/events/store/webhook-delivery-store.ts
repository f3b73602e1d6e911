import type { DeliveryStatusSchema, EventType, WebhookDelivery } from '@sales-order/contract';
import type { z } from 'zod';

import type { Db } from '../../db/transactions.js';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { COOLDOWN_FIRST_MS, COOLDOWN_JITTER, COOLDOWN_MAX_MS, TIMEOUTS_TO_OPEN } from '../circuit-breaker.js';
import type { DeliveryKey } from './event-store.js';
import { visibleToEndpoint } from './event-visibility.js';
import { endpointsNow, OWNER_NOW } from './webhook-endpoint-store.js';

/** The statements about deliveries: the next one of a subject (an order), its attempts, listing and replay. */

/** How long an endpoint may fail every delivery before it is disabled. */
const FAILING_DISABLES_AFTER = Prisma.sql`interval '3 days'`;

/** The pending delivery an (endpoint, subject) sends next, with what its request needs. */
export interface NextDelivery {
  id: bigint;
  /** Whether it may be sent now: its retry time has come and no sender holds it. */
  due: boolean;
  /** When it may be sent, if not now. */
  wait_until: Date;
  event_id: string;
  type: EventType;
  occurred_at: Date;
  /** The event's data as stored: an order's read shape, a key's event data. */
  data: unknown;
  /**
   * Whether the endpoint may receive this event now (event-visibility.ts): its owner still holds
   * the kind's permission and reaches the event's location, as its credential says at this moment.
   */
  visible: boolean;
}

export interface AttemptToRecord {
  deliveryId: bigint;
  endpointId: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  delivered: boolean;
  /** 410 Gone: the receiver says the endpoint is gone; the endpoint is disabled at once. */
  gone: boolean;
  /** No answer within WEBHOOK_TIMEOUT_MS: counts towards the endpoint's circuit breaker; anything else resets it. */
  timedOut: boolean;
  /** The wait before the next attempt; null: the schedule is spent (or no retry is due). */
  retryDelayMs: number | null;
}

export interface RecordedAttempt {
  /** The delivery is still pending: tried again at this time. */
  retryAt: Date | null;
  /** The endpoint was enabled before this attempt and is not now. */
  disabledNow: boolean;
  disabledReason: string | null;
  /** Whether the endpoint still takes deliveries. */
  enabled: boolean;
  /** This attempt opened the endpoint's circuit breaker (or opened it again): parked until then. */
  circuitOpenUntil: Date | null;
  /** This attempt closed the endpoint's circuit breaker (a probe was answered). */
  circuitClosed: boolean;
}

export interface DeliveryFilter {
  status?: z.infer<typeof DeliveryStatusSchema>;
  limit: number;
  /** Deliveries older than this one. */
  beforeId?: number;
}

export type ReplayFrom = { afterPosition: number } | { since: Date };

export interface ReplayResult {
  queued: number;
  keys: DeliveryKey[];
  /** The position of the last event considered when more remain; null when all were. */
  morePosition: number | null;
}

const TIMESTAMP = (column: Prisma.Sql) => Prisma.sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`;

/** A delivery to take for one attempt, and the most of its endpoint's that may be out at once. */
export interface DeliveryClaim {
  deliveryId: bigint;
  endpointId: number;
  leaseMs: number;
  endpointLimit: number;
}

/** The first key of the endpoint claims' advisory locks: a space of their own ("SOWE" read as an int4). */
const ENDPOINT_CLAIM_LOCK_SPACE = 0x534f5745;

export const webhookDeliveryStore = {
  /**
   * The pending delivery of lowest position of a subject to an endpoint: its next (an order's in
   * version order), and whether the endpoint's owner may receive it now.
   */
  next: async (db: Db, { endpoint_id, subject_type, subject_id }: DeliveryKey): Promise<NextDelivery | null> => {
    const [row] = await db.$queryRaw<NextDelivery[]>`
      WITH endpoints_now AS MATERIALIZED (${endpointsNow(Prisma.sql`w.id = ${endpoint_id}::int`)})
      SELECT d.id, d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until <= now()) AS due,
        greatest(d.next_attempt_at, d.lease_until) AS wait_until,
        e.id::text AS event_id, e.type, e.occurred_at, e.data, ${visibleToEndpoint(OWNER_NOW)} AS visible
      FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq JOIN endpoints_now w ON w.id = d.endpoint_id
      WHERE d.endpoint_id = ${endpoint_id}::int AND d.subject_type = ${subject_type}::varchar
        AND d.subject_id = ${subject_id}::int AND d.status = 'pending'
      ORDER BY d.event_position, d.id
      LIMIT 1`;
    return row ?? null;
  },

  /**
   * Takes a due delivery for one attempt: no other sender may take it until `leaseMs` have
   * passed (the attempt's timeout and a margin). Null when it is not due, another holds it, or
   * its endpoint already has `endpointLimit` deliveries being sent (by any process); with its
   * circuit breaker half-open, one (the probe); open, none.
   *
   * The endpoint's limit is strict here: pg-boss's group concurrency counts its active jobs when
   * a worker fetches, and two fetches at the same moment can each see one slot free. So claims
   * on one endpoint take turns under an advisory lock, and the count runs in a statement of its
   * own after the lock is held, whose snapshot sees every lease committed before.
   */
  claim: async (
    prisma: PrismaClient,
    { deliveryId, endpointId, leaseMs, endpointLimit }: DeliveryClaim,
  ): Promise<number | null> => {
    const [, rows] = await prisma.$transaction([
      prisma.$queryRaw`SELECT pg_advisory_xact_lock(${ENDPOINT_CLAIM_LOCK_SPACE}::int, ${endpointId}::int)::text`,
      prisma.$queryRaw<{ attempts: number }[]>`
        -- location scope: the worker's claim reads the breaker of the endpoint it sends to; what it may send is event-visibility.ts'
        UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => ${leaseMs / 1000}::float8)
        WHERE d.id = ${deliveryId}::bigint AND d.status = 'pending' AND d.next_attempt_at <= now()
          AND (d.lease_until IS NULL OR d.lease_until <= now())
          AND (SELECT count(*) FROM webhook_deliveries o
               WHERE o.endpoint_id = ${endpointId}::int AND o.status = 'pending' AND o.lease_until > now()
            ) < (SELECT CASE WHEN w.circuit_open_until > now() THEN 0
                  WHEN w.timeouts_in_a_row >= ${TIMEOUTS_TO_OPEN}::int THEN 1 ELSE ${endpointLimit}::int END
                FROM webhook_endpoints w WHERE w.id = ${endpointId}::int)
        RETURNING (SELECT count(*) FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id)::int AS attempts`,
    ]);
    return rows[0] ? rows[0].attempts : null;
  },

  /**
   * Records an attempt and what follows from it, in one statement: the delivery succeeded,
   * waits for its retry, or failed; the endpoint's failure streak starts, goes on or ends, and
   * the endpoint is disabled on 410 Gone or once every delivery has failed for 3 days.
   */
  recordAttempt: async (db: Db, attempt: AttemptToRecord): Promise<RecordedAttempt> => {
    const retryDelay =
      attempt.delivered || attempt.gone || attempt.retryDelayMs === null
        ? Prisma.sql`NULL::interval`
        : Prisma.sql`make_interval(secs => ${attempt.retryDelayMs / 1000}::float8)`;
    const [row] = await db.$queryRaw<
      {
        retry_at: Date | null;
        was_enabled: boolean;
        enabled: boolean;
        disabled_reason: string | null;
        circuit_open_until: Date | null;
        circuit_closed: boolean;
      }[]
    >`
      -- location scope: the worker records what it sent, on whoever's behalf; what it may send is event-visibility.ts'
      WITH recorded AS (
        INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, status_code, error, latency_ms)
        SELECT id, ${attempt.attemptedAt}::timestamptz, ${attempt.statusCode}::int, ${attempt.error}::varchar,
          ${attempt.latencyMs}::int
        FROM webhook_deliveries WHERE id = ${attempt.deliveryId}::bigint),
      delivery AS (
        UPDATE webhook_deliveries SET lease_until = NULL,
          status = CASE WHEN ${attempt.delivered}::boolean THEN 'succeeded'
            WHEN ${retryDelay} IS NULL THEN 'failed' ELSE 'pending' END,
          next_attempt_at = now() + ${retryDelay}
        WHERE id = ${attempt.deliveryId}::bigint
        RETURNING next_attempt_at),
      before AS (SELECT enabled, failing_since, timeouts_in_a_row FROM webhook_endpoints WHERE id = ${attempt.endpointId}::int),
      verdict AS (
        SELECT b.enabled AND (${attempt.gone}::boolean OR NOT ${attempt.delivered}::boolean
            AND coalesce(b.failing_since, ${attempt.attemptedAt}::timestamptz) <= now() - ${FAILING_DISABLES_AFTER}) AS disable,
          CASE WHEN ${attempt.gone}::boolean THEN 'gone' ELSE 'failing' END AS reason
        FROM before b),
      endpoint AS (
        UPDATE webhook_endpoints w SET
          failing_since = CASE WHEN ${attempt.delivered}::boolean THEN NULL
            ELSE coalesce(w.failing_since, ${attempt.attemptedAt}::timestamptz) END,
          enabled = w.enabled AND NOT v.disable,
          disabled_reason = CASE WHEN v.disable THEN v.reason ELSE w.disabled_reason END,
          disabled_at = CASE WHEN v.disable THEN now() ELSE w.disabled_at END,
          timeouts_in_a_row = CASE WHEN ${attempt.timedOut}::boolean THEN w.timeouts_in_a_row + 1 ELSE 0 END,
          circuit_open_until = CASE WHEN ${attempt.timedOut}::boolean AND w.timeouts_in_a_row + 1 >= ${TIMEOUTS_TO_OPEN}::int
            THEN now() + make_interval(secs => least(${COOLDOWN_MAX_MS / 1000}::float8,
                ${COOLDOWN_FIRST_MS / 1000}::float8 * power(2, w.timeouts_in_a_row + 1 - ${TIMEOUTS_TO_OPEN}::int))
              * (1 - ${COOLDOWN_JITTER}::float8 + 2 * ${COOLDOWN_JITTER}::float8 * random()))
            WHEN ${attempt.timedOut}::boolean THEN w.circuit_open_until END
        FROM verdict v WHERE w.id = ${attempt.endpointId}::int
        RETURNING w.enabled, w.disabled_reason, w.circuit_open_until)
      SELECT (SELECT next_attempt_at FROM delivery) AS retry_at, b.enabled AS was_enabled, e.enabled, e.disabled_reason,
        e.circuit_open_until, b.timeouts_in_a_row >= ${TIMEOUTS_TO_OPEN}::int AND NOT ${attempt.timedOut}::boolean AS circuit_closed
      FROM before b, endpoint e`;
    // The endpoint was deleted while the attempt ran: nothing follows.
    if (!row) {
      return {
        retryAt: null,
        disabledNow: false,
        disabledReason: null,
        enabled: false,
        circuitOpenUntil: null,
        circuitClosed: false,
      };
    }
    return {
      retryAt: row.retry_at,
      disabledNow: row.was_enabled && !row.enabled,
      disabledReason: row.disabled_reason,
      enabled: row.enabled,
      circuitOpenUntil: attempt.timedOut ? row.circuit_open_until : null,
      circuitClosed: row.circuit_closed,
    };
  },

  /**
   * Fails a delivery without sending it, with the reason as its one attempt's error: the retry
   * schedule does not apply, and the endpoint's failure streak is not the receiver's doing.
   */
  skip: async (db: Db, deliveryId: bigint, reason: string): Promise<void> => {
    await db.$executeRaw`
      WITH failed AS (
        UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL
        WHERE id = ${deliveryId}::bigint AND status = 'pending'
        RETURNING id)
      INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, status_code, error, latency_ms)
      SELECT id, now(), NULL, ${reason}::varchar, 0 FROM failed`;
  },

  /** Whether a subject has another pending delivery to an endpoint besides `exceptId`. */
  morePending: async (
    db: Db,
    { endpoint_id, subject_type, subject_id }: DeliveryKey,
    exceptId: bigint,
  ): Promise<boolean> => {
    const [row] = await db.$queryRaw<{ more: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM webhook_deliveries
        WHERE endpoint_id = ${endpoint_id}::int AND subject_type = ${subject_type}::varchar
          AND subject_id = ${subject_id}::int AND status = 'pending'
          AND id <> ${exceptId}::bigint) AS more`;
    return row!.more;
  },

  /**
   * Deliveries to an endpoint, newest first, with their attempts oldest first: those of events
   * `visible` lets through (a condition on `e`, event-visibility.ts visibleToReader: the events
   * the reader may see now, so an owner narrowed since sees nothing of the rest through them).
   */
  list: async (
    db: Db,
    endpointId: number,
    { status, limit, beforeId }: DeliveryFilter,
    visible: Prisma.Sql,
  ): Promise<WebhookDelivery[]> => {
    const byStatus = status ? Prisma.sql`AND d.status = ${status}` : Prisma.empty;
    const before = beforeId === undefined ? Prisma.empty : Prisma.sql`AND d.id < ${beforeId}::bigint`;
    return db.$queryRaw<WebhookDelivery[]>`
      SELECT d.id::int AS delivery_id, e.id::text AS event_id, e.type AS event_type,
        CASE WHEN d.subject_type = 'sales_order' THEN d.subject_id END AS sales_order_id, e.version, d.status,
        coalesce((SELECT json_agg(json_build_object('attempted_at', ${TIMESTAMP(Prisma.sql`a.attempted_at`)},
            'status_code', a.status_code, 'error', a.error, 'latency_ms', a.latency_ms) ORDER BY a.id)
          FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts,
        CASE WHEN d.status = 'pending' THEN ${TIMESTAMP(Prisma.sql`greatest(d.next_attempt_at, d.lease_until)`)} END
          AS next_attempt_at,
        ${TIMESTAMP(Prisma.sql`d.created_at`)} AS created_at
      FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
      WHERE d.endpoint_id = ${endpointId}::int ${byStatus} ${before} AND ${visible}
      ORDER BY d.id DESC
      LIMIT ${limit}::int`;
  },

  /**
   * Queues the kept events after a position (or since an instant) for an endpoint again, at most
   * `maximum`, in position order, skipping events whose delivery to it is still pending. Only the
   * types the endpoint takes, and the events it may see (event-visibility.ts), as the fan-out.
   */
  replay: async (db: Db, endpointId: number, from: ReplayFrom, maximum: number): Promise<ReplayResult> => {
    const start =
      'afterPosition' in from
        ? Prisma.sql`p.position > ${from.afterPosition}::bigint`
        : // The first position at or after the instant, found through the BRIN index on occurred_at.
          Prisma.sql`p.position >= (SELECT min(p2.position) FROM events e2 JOIN event_positions p2 ON p2.event_seq = e2.seq
              WHERE e2.occurred_at >= ${from.since}::timestamptz)
            AND e.occurred_at >= ${from.since}::timestamptz`;
    const rows = await db.$queryRaw<
      {
        queued: number;
        more_position: bigint | null;
        subject_type: DeliveryKey['subject_type'] | null;
        subject_id: number | null;
      }[]
    >`
      WITH endpoints_now AS MATERIALIZED (${endpointsNow(Prisma.sql`w.id = ${endpointId}::int`)}),
      chosen AS (
        SELECT e.seq, p.position, e.subject_type, e.subject_id
        FROM event_positions p JOIN events e ON e.seq = p.event_seq, endpoints_now w
        WHERE ${start}
          AND (w.event_types IS NULL OR e.type = ANY(w.event_types))
          AND ${visibleToEndpoint(OWNER_NOW)}
        ORDER BY p.position
        LIMIT ${maximum + 1}::int),
      taken AS (SELECT * FROM chosen ORDER BY position LIMIT ${maximum}::int),
      queued AS (
        INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_position, subject_type, subject_id, next_attempt_at)
        SELECT ${endpointId}::int, t.seq, t.position, t.subject_type, t.subject_id, now()
        FROM taken t
        WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries x
          WHERE x.endpoint_id = ${endpointId}::int AND x.event_seq = t.seq AND x.status = 'pending')
        ORDER BY t.position
        RETURNING subject_type, subject_id)
      SELECT (SELECT count(*) FROM queued)::int AS queued,
        CASE WHEN (SELECT count(*) FROM chosen) > ${maximum}::int THEN (SELECT max(position) FROM taken) END AS more_position,
        k.subject_type, k.subject_id
      FROM (SELECT 1) one LEFT JOIN (SELECT DISTINCT subject_type, subject_id FROM queued) k ON true`;
    return {
      queued: rows[0]!.queued,
      morePosition: rows[0]!.more_position === null ? null : Number(rows[0]!.more_position),
      keys: rows.flatMap(({ subject_type, subject_id }) =>
        subject_type === null || subject_id === null ? [] : [{ endpoint_id: endpointId, subject_type, subject_id }],
      ),
    };
  },

  /**
   * The subject whose next delivery to an endpoint comes due first, and when: what the
   * endpoint's circuit breaker probes with (any subject's next delivery may be the probe).
   */
  probeKey: async (db: Db, endpointId: number): Promise<{ key: DeliveryKey; dueAt: Date } | null> => {
    const [row] = await db.$queryRaw<(DeliveryKey & { due_at: Date })[]>`
      SELECT endpoint_id, subject_type, subject_id, due_at FROM (
        SELECT DISTINCT ON (subject_type, subject_id) endpoint_id, subject_type, subject_id, event_position,
          greatest(next_attempt_at, lease_until) AS due_at
        FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::int AND status = 'pending'
        ORDER BY subject_type, subject_id, event_position, id) heads
      ORDER BY due_at, event_position
      LIMIT 1`;
    if (!row) return null;
    const { due_at: dueAt, ...key } = row;
    return { key, dueAt };
  },

  /** The subjects with pending deliveries to an endpoint: what resumes when it is enabled again. */
  pendingKeys: async (db: Db, endpointId: number): Promise<DeliveryKey[]> =>
    db.$queryRaw<DeliveryKey[]>`
      SELECT DISTINCT endpoint_id, subject_type, subject_id FROM webhook_deliveries
      WHERE endpoint_id = ${endpointId}::int AND status = 'pending'`,
};
