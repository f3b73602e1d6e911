import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { ErrorCode, type ErrorDetail, RequestCode, ServiceCode } from '@sales-order/contract';
import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

import { DomainError, type DomainErrorKind } from '../errors/domain-error.js';
import { issuesToDetails } from '../errors/validation-details.js';
import { failure } from './envelope.js';
import { TooManyRequestsError } from './rate-limit.js';

/** A request refused before it reaches a route (wrong content type and the like). */
export class BadRequestError extends Error {
  constructor(
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'BadRequestError';
  }
}

const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  unauthenticated: ErrorCode.unauthorized,
  forbidden: ErrorCode.forbidden,
  not_found: ErrorCode.notFound,
  unprocessable: ErrorCode.unprocessable,
  conflict: ErrorCode.conflict,
  precondition_failed: ErrorCode.preconditionFailed,
  precondition_required: ErrorCode.preconditionRequired,
  gone: ErrorCode.gone,
  invalid_request: ErrorCode.badRequest,
};

/** A 401 names the schemes a caller can use (RFC 9110, section 11.6.1). */
const AUTHENTICATION_CHALLENGE = 'Bearer realm="sales-order-service", ApiKey realm="sales-order-service"';

/**
 * A 4xx raised before a route runs: by body-parser and raw-body (http-errors with a `type`),
 * by zlib inside body-parser (wrapped in an http-error without one), or by Express's router
 * (a URIError with status 400 for a malformed %-escape in a path parameter).
 */
interface HttpClientError extends Error {
  status: number;
  type?: string;
  limit?: number;
  code?: string;
}

const httpStatusOf = (error: unknown): number | undefined =>
  error instanceof Error && typeof (error as Partial<HttpClientError>).status === 'number'
    ? (error as HttpClientError).status
    : undefined;

const isHttpClientError = (error: unknown): error is HttpClientError => {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400 && status < 500;
};

/**
 * raw-body finds the request stream unreadable when the client went away before its body was
 * read (the connection closed, or Node's parser refused what followed): the client's doing,
 * answered like an aborted body rather than as a failure of the service.
 */
const isAbortedBody = (error: unknown, req: Request): boolean =>
  httpStatusOf(error) !== undefined && (error as HttpClientError).type === 'stream.not.readable' && req.readableAborted;

const ABORTED_BODY = {
  code: RequestCode.bodyAborted,
  message: 'The request body ended before the length its Content-Length declared',
};

/** Message and stable detail code of each 4xx that Express and body-parser raise. */
const describeHttpClientError = (error: HttpClientError): { message: string; code: RequestCode } => {
  switch (error.type) {
    case 'entity.parse.failed':
      return { code: RequestCode.invalidJson, message: 'The request body is not valid JSON' };
    case 'entity.too.large':
      return {
        code: RequestCode.bodyTooLarge,
        message: `The request body is larger than the limit of ${error.limit} bytes`,
      };
    case 'encoding.unsupported':
      return {
        code: RequestCode.encodingUnsupported,
        message: "The request body's Content-Encoding is not supported; send identity, gzip or deflate",
      };
    case 'charset.unsupported':
      return {
        code: RequestCode.charsetUnsupported,
        message: 'The request body charset is not supported; send UTF-8 JSON',
      };
    case 'request.aborted':
      return ABORTED_BODY;
    case 'invalid_utf8':
      return { code: RequestCode.invalidUtf8, message: 'The request body is not valid UTF-8' };
    case 'request.size.invalid':
      return {
        code: RequestCode.bodySizeInvalid,
        message: 'The request body does not have the length its Content-Length declared',
      };
    case undefined:
      if (error instanceof URIError)
        return { code: RequestCode.invalidPathEncoding, message: 'The request path holds a malformed %-escape' };
      // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR): a gzip or deflate body that does not decompress.
      if (error.code?.startsWith('Z_'))
        return {
          code: RequestCode.invalidContentEncoding,
          message: 'The request body does not decode as its Content-Encoding says',
        };
      return { code: RequestCode.badRequest, message: 'The request could not be read' };
    // Any other body-parser type (stream.encoding.set, entity.verify.failed, ...): not one of the contract's codes.
    default:
      return { code: RequestCode.badRequest, message: 'The request could not be read' };
  }
};

const answerHttpClientError = (
  res: Response,
  status: number,
  { message, code }: { message: string; code: RequestCode },
) => {
  res.status(status).json(failure(status, message, [{ path: '', message, code }]));
};

/**
 * The one place that turns failures into the error envelope. Clients get a status and a
 * message fit to show; stack traces, SQL and Prisma messages only reach the log.
 */
export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  if (error instanceof RequestValidationError) {
    res
      .status(ErrorCode.badRequest)
      .json(
        failure(
          ErrorCode.badRequest,
          'Invalid input data',
          issuesToDetails(error.pathParams, error.query, error.headers, error.body),
        ),
      );
    return;
  }
  if (error instanceof DomainError) {
    const status = STATUS_OF_KIND[error.kind];
    if (error.kind === 'unauthenticated') {
      res.set('WWW-Authenticate', AUTHENTICATION_CHALLENGE);
      req.log.debug({ reason: error.details[0]?.code }, 'authentication failed');
    }
    if (error.retryAfterSeconds !== undefined) res.set('Retry-After', String(error.retryAfterSeconds));
    res.status(status).json(failure(status, error.message, error.details));
    return;
  }
  if (error instanceof TooManyRequestsError) {
    res.set('Retry-After', String(error.retryAfterSeconds));
    res
      .status(ErrorCode.tooManyRequests)
      .json(
        failure(ErrorCode.tooManyRequests, error.message, [
          { path: '', message: error.message, code: ServiceCode.rateLimited },
        ]),
      );
    return;
  }
  if (error instanceof BadRequestError) {
    res.status(ErrorCode.badRequest).json(failure(ErrorCode.badRequest, error.message, error.details));
    return;
  }
  if (isHttpClientError(error)) {
    answerHttpClientError(res, error.status, describeHttpClientError(error));
    return;
  }
  if (isAbortedBody(error, req)) {
    answerHttpClientError(res, ErrorCode.badRequest, ABORTED_BODY);
    return;
  }
  req.log.error({ err: error }, 'unhandled error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(ErrorCode.internal).json(failure(ErrorCode.internal, 'Internal server error'));
};

/** Unknown routes answer 404 in the envelope. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(ErrorCode.notFound).json(failure(ErrorCode.notFound, `No route for ${req.method} ${req.path}`));
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** No body at all: none announced, or an announced length of 0 (what fetch sends for a body-less POST). */
const hasNoBody = (req: Request) =>
  req.headers['transfer-encoding'] === undefined &&
  (req.headers['content-length'] === undefined || req.headers['content-length'] === '0');

/**
 * True when the request's Content-Type is JSON, as `req.is('application/json')` says when there is
 * a body. The header as clients send it, exactly `application/json`, is taken without type-is,
 * which parses the header at every call: requireJsonBody and express.json (its `type`) both ask,
 * and each parse was a few µs of a calculate-totals request (docs/performance.md, "What limits each route").
 */
export const isJsonContent = (req: Request): boolean =>
  req.headers['content-type'] === 'application/json' || req.is('application/json') !== false;

/**
 * Bodies must be JSON: anything else is refused instead of being read as an empty object. A
 * request without a body passes (a transition such as close takes none; the contract refuses a
 * missing body where one is required).
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const fileTypes = fileBodyOf(req);
  if (fileTypes) {
    // A route that takes a file (an import) takes it as one of its own media types, and only so.
    if (!hasNoBody(req) && req.is([...fileTypes]) === false) {
      next(
        new BadRequestError(`The request body must be the file, as ${fileTypes.join(' or ')}`, [
          {
            path: '',
            message: `content type ${req.headers['content-type'] ?? '(none)'} is not accepted`,
            code: RequestCode.unsupportedMediaType,
          },
        ]),
      );
      return;
    }
    next();
    return;
  }
  if (BODY_METHODS.has(req.method) && !hasNoBody(req) && !isJsonContent(req)) {
    next(
      new BadRequestError('The request body must be application/json', [
        {
          path: '',
          message: `content type ${req.headers['content-type'] ?? '(none)'} is not accepted`,
          code: RequestCode.unsupportedMediaType,
        },
      ]),
    );
    return;
  }
  next();
};

/** The media types of the file a route takes as its body (contract metadata `fileBody`), if it takes one. */
const fileBodyOf = (req: Request): readonly string[] | undefined =>
  (req as Request & { tsRestRoute?: { metadata?: { fileBody?: readonly string[] } } }).tsRestRoute?.metadata?.fileBody;

/** Whether the matched route takes a file as its body (http/file-body.ts streams it). */
export const takesFileBody = (req: Request): boolean => fileBodyOf(req) !== undefined;

/** Thrown from body-parser's `verify`; body-parser keeps its status and type. */
class MalformedUtf8Error extends Error {
  readonly status = ErrorCode.badRequest;
  readonly type = RequestCode.invalidUtf8;
}

/**
 * express.json's `verify`: a UTF-8 body must be valid UTF-8. Decoding it anyway would replace
 * each malformed byte sequence by U+FFFD, and the service would store what was never sent.
 */
export const refuseMalformedUtf8 = (_req: IncomingMessage, _res: ServerResponse, body: Buffer, encoding: string) => {
  if (encoding === 'utf-8' && !isUtf8(body)) throw new MalformedUtf8Error('The request body is not valid UTF-8');
};
