import { createCancelImport } from './cancel-import.js';
import { createImportResults } from './import-results.js';
import { createGetImport, createListImports } from './read-imports.js';
import { createRunImportChunk, type RunImportChunkDeps } from './run-import-chunk.js';
import { createStartImport, type StartImportDeps } from './start-import.js';

/** What the import use cases are given, together (each takes the part it needs). */
export type ImportDeps = StartImportDeps & RunImportChunkDeps;

/**
 * Every import use case (one module each), bound to its dependencies: what the routes call, and
 * `runChunk`, what the job queue's worker runs for each job (import-queue.ts).
 */
export const createImportUseCases = (deps: ImportDeps) => ({
  start: createStartImport(deps),
  get: createGetImport(deps),
  list: createListImports(deps),
  cancel: createCancelImport(deps),
  results: createImportResults(deps),
  runChunk: createRunImportChunk(deps),
});

export type ImportUseCases = ReturnType<typeof createImportUseCases>;
