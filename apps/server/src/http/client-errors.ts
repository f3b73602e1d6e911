import { type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

import { RequestCode } from '@sales-order/contract';

import type { Logger } from '../observability/logger.js';
import { failure } from './envelope.js';

/**
 * Requests that Node's HTTP parser refuses (headers over the limit, bytes that are not HTTP, a
 * body that does not match its framing, a request not received in time) never reach Express.
 * Node answers them with an empty body; this answers them in the error envelope instead, with
 * the status Node itself would use.
 */

type ParserRefusal = { status: number; code: RequestCode; message: string };

const REFUSAL_OF_ERROR_CODE: Record<string, ParserRefusal> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: RequestCode.headersTooLarge,
    message: 'The request headers are larger than the server accepts',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    code: RequestCode.chunkExtensionsTooLarge,
    message: 'The request body has chunk extensions larger than the server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: RequestCode.requestTimeout,
    message: 'The request was not received in time',
  },
};

const MALFORMED: ParserRefusal = {
  status: 400,
  code: RequestCode.malformedRequest,
  message: 'The request is not well-formed HTTP',
};

/** A complete HTTP/1.1 response carrying the envelope, then the connection closes. */
const rawResponse = ({ status, code, message }: ParserRefusal): string => {
  const body = JSON.stringify(failure(status, message, [{ path: '', message, code }]));
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
};

/** Replaces Node's empty answers to requests its parser refuses by the error envelope. */
export const answerClientErrorsInEnvelope = (server: Server, logger: Logger): void => {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset or already closed connection has nobody left to answer, and a response already
    // under way (a request timing out while its answer is written) cannot be replaced.
    const started = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      logger.debug({ code: error.code }, 'connection closed before a request was read');
      socket.destroy();
      return;
    }
    const refusal = REFUSAL_OF_ERROR_CODE[error.code ?? ''] ?? MALFORMED;
    // The parser's code says what was wrong; the raw bytes are never logged (they may hold credentials).
    logger.warn({ code: error.code, status: refusal.status }, 'refused a request the HTTP parser could not read');
    socket.end(rawResponse(refusal), () => socket.destroy());
  });
};
