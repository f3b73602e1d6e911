/**
 * Every database session runs with TimeZone=UTC. @prisma/adapter-pg writes a Date as its UTC
 * wall-clock time without an offset and reads a timestamptz by replacing its offset with
 * +00:00, so a session in any other zone (a server or database whose default is Asia/Dhaka)
 * would shift every instant written and read by that zone's offset.
 */
export const UTC_SESSION_OPTIONS = '-c TimeZone=UTC';
