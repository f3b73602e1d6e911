import PQueue from 'p-queue';

import { currentRequestDeadline } from '../db/connection-gate.js';
import { waitForTurn } from '../shared/turns.js';

/**
 * How many import files are read at once (IMPORT_UPLOADS_CONCURRENT): an upload beyond them
 * waits its turn, first come first served, until its request's deadline; one whose turn does not
 * come by then is refused (503 `overloaded`, http/database-unavailable.ts), having read nothing.
 */
export class UploadsBusyError extends Error {
  constructor(readonly waitingAhead: number) {
    super(`${waitingAhead} import uploads were waiting ahead; this one could not start before its deadline`);
    this.name = 'UploadsBusyError';
  }
}

export interface UploadTurns {
  /** Runs `work` in its turn; throws UploadsBusyError when the turn does not come before the deadline. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** How long an upload outside a request (none has a deadline) waits for its turn. */
const WAIT_OUTSIDE_A_REQUEST_MS = 10_000;

export const createUploadTurns = (concurrent: number): UploadTurns => {
  const turns = new PQueue({ concurrency: concurrent });
  return {
    run: async <T>(work: () => Promise<T>): Promise<T> => {
      const deadline = currentRequestDeadline() ?? Date.now() + WAIT_OUTSIDE_A_REQUEST_MS;
      const ahead = turns.size;
      const done = await waitForTurn(turns, deadline - Date.now(), () => new UploadsBusyError(ahead));
      try {
        return await work();
      } finally {
        done();
      }
    },
  };
};
