import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Runs `read` over the file's bytes after they were written, as they arrived, to a file of its
 * own in the machine's temporary folder (removed afterwards, whatever happens). The request is
 * then received at the speed of the network, not at the speed its rows are staged: a large file
 * on a busy machine would otherwise outlast HTTP_REQUEST_TIMEOUT_MS while still being read.
 * Memory stays that of the streams' buffers.
 */
export const withSpooledFile = async <T>(
  file: AsyncIterable<Buffer>,
  read: (bytes: AsyncIterable<Buffer>) => Promise<T>,
): Promise<T> => {
  const folder = await mkdtemp(path.join(tmpdir(), 'sales-order-upload-'));
  try {
    const spooled = path.join(folder, 'file');
    await pipeline(Readable.from(file), createWriteStream(spooled));
    return await read(createReadStream(spooled, { highWaterMark: 256 * 1024 }));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
};
