import { UTC_SESSION_OPTIONS } from './time-zone.js';

/**
 * The settings of every pooled database session, sent in its startup packet.
 *
 * - TimeZone=UTC: time-zone.ts.
 * - jit=off: PostgreSQL (11+, on by default since 12) compiles a statement's expressions with
 *   LLVM when its estimated cost passes `jit_above_cost` (100,000). The outbox relay's statement
 *   (events/store/event-store.ts positionCommitted) is estimated past it by the webhook
 *   deliveries it may insert, and compiled 130 functions on every run: about 100 ms of
 *   PostgreSQL's CPU for 2-3 ms of work, several times a second while orders are written
 *   (docs/decisions/database-sessions-without-jit.md). The service's statements are short
 *   index-driven OLTP statements, which JIT never pays for; a server's own setting is left to
 *   the sessions of others.
 */
export const SESSION_OPTIONS = `${UTC_SESSION_OPTIONS} -c jit=off`;
