import { EVENT_SUBJECTS, type EventSubject, Permission } from '@sales-order/contract';

import { type AccessContext, hasPermission, identityOf } from '../../auth/access-context.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * Who may see an event: the one rule the feed (GET /events), the webhook fan-out and replays all
 * apply (docs/decisions/events-of-other-subjects.md). An event is about a subject
 * (`e.subject_type`, `e.subject_id`; its kind is the type's part before the dot). A reader sees
 * an event of a kind when it holds the kind's permission besides events.read (EVENT_SUBJECTS in
 * the contract: none for orders, api_keys.manage for keys, sales_orders.import for imports) and
 * the kind's rule below holds for it: for a reader limited to locations, the subject lies inside
 * them; a key's, only to a reader holding each of its permissions (who may manage it); an
 * import's events are its owner's only.
 *
 * A new kind of subject: its types and permission in the contract's EVENT_SUBJECTS and its event
 * schema there, and here its rule. Nothing else: the feed, the fan-out and replays read this.
 */

/**
 * A reader as SQL expressions: its identity (`api_key:<prefix>`, `jwt:<sub>`, ...), its locations
 * (int[]; null: every one) and its permissions (text[]; null: it holds `*`).
 */
interface ReaderSql {
  identity: Prisma.Sql;
  locations: Prisma.Sql | null;
  permissions: Prisma.Sql | null;
}

const EVERY = Prisma.sql`TRUE`;

/** Whether a reader sees event `e`'s subject, for each kind of subject. */
const RULES: Record<EventSubject, (reader: ReaderSql) => Prisma.Sql> = {
  // An order keeps its location for life, so its events belong to the location it has now.
  sales_order: ({ locations }) =>
    locations === null
      ? EVERY
      : Prisma.sql`EXISTS (SELECT 1 FROM sales_orders o
          WHERE o.id = e.subject_id AND /* location scope: the reader's */ o.location_id = ANY(${locations}))`,
  // A key's events reach whoever may manage it (api-keys/store/api-key-store.ts, KeyReach): every
  // permission of the key is one the reader holds (`*` only by `*`), and its locations lie inside
  // the reader's. A key keeps both for life (a rotation makes a new key with the same ones); one
  // for every location (NULL) lies inside no list.
  api_key: ({ locations, permissions }) =>
    locations === null && permissions === null
      ? EVERY
      : Prisma.sql`EXISTS (SELECT 1 FROM api_keys k WHERE k.id = e.subject_id AND ${
          permissions === null ? EVERY : Prisma.sql`('*' = ANY(${permissions}) OR k.permissions <@ ${permissions})`
        } AND ${
          locations === null
            ? EVERY
            : Prisma.sql`/* location scope: the reader's */ k.locations IS NOT NULL AND k.locations <@ ${locations}`
        })`,
  // A delivery belongs to its order's location (copied from the order, which keeps it for life):
  // its events are seen by exactly those who may read the order.
  delivery: ({ locations }) =>
    locations === null
      ? EVERY
      : Prisma.sql`EXISTS (SELECT 1 FROM deliveries dv
          WHERE dv.id = e.subject_id AND /* location scope: the reader's */ dv.location_id = ANY(${locations}))`,
  // An import is its owner's alone, as GET /imports/{id} is (even a caller holding `*` sees only
  // its own); for a reader limited to locations, only an import started inside them (its
  // starter's scope then, NULL for every location), as for keys.
  import: ({ identity, locations }) =>
    Prisma.sql`EXISTS (SELECT 1 FROM imports i
      WHERE i.id = e.subject_id AND i.owner = ${identity} /* location scope: the reader's */ ${
        locations === null ? Prisma.empty : Prisma.sql` AND i.locations IS NOT NULL AND i.locations <@ ${locations}`
      })`,
};

const SUBJECTS = Object.keys(EVENT_SUBJECTS) as EventSubject[];

/** The permission a kind needs besides events.read, or null. */
const permissionOf = (subject: EventSubject): Permission | null => EVENT_SUBJECTS[subject].permission;

/** The arms' conditions by `e`'s kind, in one CASE (which evaluates only the matching arm); FALSE for other kinds. */
const byKind = (arms: [EventSubject, Prisma.Sql][]): Prisma.Sql =>
  arms.length === 0
    ? Prisma.sql`FALSE`
    : Prisma.sql`(CASE e.subject_type ${Prisma.join(
        arms.map(([subject, condition]) => Prisma.sql`WHEN ${subject}::varchar THEN ${condition}`),
        ' ',
      )} ELSE FALSE END)`;

/**
 * The events a caller of GET /events may see, as a condition on `e` (events): the kinds whose
 * permission it holds, each by its rule. TRUE (no condition) for a reader who sees everything.
 */
export const visibleToReader = (reader: Pick<AccessContext, 'method' | 'subject' | 'permissions' | 'locations'>) => {
  const sql: ReaderSql = {
    identity: Prisma.sql`${identityOf(reader)}::varchar`,
    locations: reader.locations === null ? null : Prisma.sql`${[...reader.locations]}::int[]`,
    permissions: reader.permissions.has(Permission.all) ? null : Prisma.sql`${[...reader.permissions]}::text[]`,
  };
  const arms = SUBJECTS.flatMap((subject): [EventSubject, Prisma.Sql][] => {
    const permission = permissionOf(subject);
    return permission === null || hasPermission(reader, permission) ? [[subject, RULES[subject](sql)]] : [];
  });
  return arms.length === SUBJECTS.length && arms.every(([, condition]) => condition === EVERY) ? EVERY : byKind(arms);
};

/**
 * The events a webhook endpoint `w` may receive, as a condition on `e` and `w`: the kinds whose
 * permission its owner holds now (`owner.permissions`, an SQL text[] expression over `w`), each
 * by its rule for the owner (`w.owner`) within both the endpoint's locations (the scope of the
 * caller that registered it; NULL every location) and its owner's locations now
 * (`owner.locations`, int[] over `w`; NULL every location): an owner narrowed to one location gets
 * that location's events only, and one widened does not widen what it registered. Whether the
 * owner holds events.read at all is checked at each delivery.
 */
export const visibleToEndpoint = (owner: { permissions: Prisma.Sql; locations: Prisma.Sql }): Prisma.Sql =>
  byKind(
    SUBJECTS.map((subject) => {
      const permission = permissionOf(subject);
      const held =
        permission === null ? EVERY : Prisma.sql`(${owner.permissions}) && ${[permission, Permission.all]}::text[]`;
      const identity = Prisma.sql`w.owner`;
      const permissions = owner.permissions;
      const within = (locations: Prisma.Sql) =>
        Prisma.sql`CASE WHEN ${locations} IS NULL THEN ${RULES[subject]({ identity, locations: null, permissions })}
          ELSE ${RULES[subject]({ identity, locations, permissions })} END`;
      return [subject, Prisma.sql`${held} AND ${within(Prisma.sql`w.locations`)} AND ${within(owner.locations)}`];
    }),
  );

/** Whether an owner holding `permissions` may receive an event of `subject` (checked again at each delivery). */
export const ownerMayReceive = (subject: EventSubject, permissions: readonly string[]): boolean => {
  const permission = permissionOf(subject);
  return permission === null || permissions.includes(permission) || permissions.includes(Permission.all);
};
