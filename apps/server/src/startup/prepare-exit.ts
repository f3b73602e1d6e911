/**
 * The exit code of the prepare-database process when it has already said why it failed, in one
 * line on stderr (a missing database): main.ts then adds nothing. Its own module, so that main.ts
 * does not import the database code to know it.
 */
export const PREPARE_EXIT_REPORTED = 78;
