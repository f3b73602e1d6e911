import type { PrismaClient } from '../generated/prisma/client.js';
import { type PeriodicJob, startPeriodicJob } from '../jobs/periodic.js';
import type { Logger } from '../observability/logger.js';
import { importStore } from './import-store.js';

/** How often uploads cut off by a dead process are looked for. */
const INTERVAL_MS = 10 * 60 * 1000;
/** An upload still unfinished after this began in a process that died: no live upload takes it. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/**
 * An upload drops what it staged when it fails; one whose process died (kill -9, a lost host)
 * leaves an import in state `uploading` that nobody sees. This drops those and their rows.
 */
export const startUploadPurge = (prisma: PrismaClient, logger: Logger): PeriodicJob<number> =>
  startPeriodicJob(
    async () => {
      const dropped = await importStore.dropAbandonedUploads(prisma, new Date(Date.now() - ABANDONED_AFTER_MS));
      if (dropped > 0) logger.info({ dropped }, 'dropped import uploads a process left unfinished');
      return dropped;
    },
    {
      intervalMs: INTERVAL_MS,
      onError: (error: unknown) => logger.warn({ err: error }, 'dropping unfinished import uploads failed'),
    },
  );
