// Run by test/logger-flush.test.ts as its own process: logs many lines through the service's
// logger (asynchronous standard output), then ends the way argv[2] says, at once.
import { createLogger } from '../../src/observability/logger.js';

const logger = createLogger('info');
const LINES = 5_000;
for (let index = 0; index < LINES; index += 1) logger.info({ index }, 'line');
switch (process.argv[2]) {
  case 'throw':
    // An uncaught exception: the process dies with the lines still queued.
    throw new Error('fatal error after logging');
  case 'exit':
    process.exit(3);
    break;
  default:
    logger.fatal('unknown ending');
}
