import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';

import type { Request, RequestHandler } from 'express';

/**
 * The file of a route that takes one (contract metadata `fileBody`; its media type checked by
 * requireJsonBody) is not read here: the route hands its bytes on as they arrive
 * (`fileBodyStreamOf`), decoded by its Content-Encoding (identity, gzip or deflate, as
 * body-parser reads JSON bodies) and refused past `limit` bytes once decoded, so a file is never
 * held whole and a compressed bomb stops at the limit. Errors carry body-parser's `status` and
 * `type`, so errorHandler answers them as it answers a JSON body's.
 */

const FILE_STREAM = Symbol('fileBodyStream');

type FileRequest = { [FILE_STREAM]?: AsyncIterable<Buffer> };

/** An error as body-parser raises it (http-errors with a `type`). */
const bodyError = (status: number, type: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { status, statusCode: status, type, expose: true, ...extra });

const DECODERS: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
  identity: undefined,
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
};

/** The request's bytes, decoded, up to `limit` of them. */
async function* readLimited(req: Request, decode: (() => NodeJS.ReadWriteStream) | undefined, limit: number) {
  const source: AsyncIterable<Buffer> = decode ? (req.pipe(decode()) as unknown as Readable) : req;
  let total = 0;
  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > limit)
        throw bodyError(413, 'entity.too.large', 'request entity too large', { limit, length: total, expected: total });
      yield chunk;
    }
  } catch (error) {
    if ((error as { type?: string }).type) throw error;
    // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR) are answered as a body that does not decode.
    if ((error as { code?: string }).code?.startsWith('Z_')) throw Object.assign(error as Error, { status: 400 });
    if (req.readableAborted || (error as { code?: string }).code === 'ECONNRESET')
      throw bodyError(400, 'request.aborted', 'request aborted');
    throw error;
  }
  if (!req.complete) throw bodyError(400, 'request.aborted', 'request aborted');
}

/** Leaves a file body unread, for its route to stream; refuses an encoding it cannot decode, or a declared length past `limit`. */
export const streamFileBody =
  (isFileRoute: (req: Request) => boolean, limit: number): RequestHandler =>
  (req, _res, next) => {
    if (!isFileRoute(req)) {
      next();
      return;
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
    if (!(encoding in DECODERS)) {
      next(bodyError(415, 'encoding.unsupported', `unsupported content encoding "${encoding}"`));
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (encoding === 'identity' && Number.isFinite(declared) && declared > limit) {
      next(bodyError(413, 'entity.too.large', 'request entity too large', { limit, length: declared }));
      return;
    }
    (req as FileRequest)[FILE_STREAM] = readLimited(req, DECODERS[encoding], limit);
    next();
  };

/** The file's bytes as they arrive (an empty file when the request has none). */
export const fileBodyStreamOf = (req: object): AsyncIterable<Buffer> =>
  (req as FileRequest)[FILE_STREAM] ?? (async function* () {})();
