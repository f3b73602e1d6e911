import { ErrorCode, type ErrorDetail } from '@sales-order/contract';
import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, type DomainErrorKind } from '../errors/domain-error.js';
import { failure } from './envelope.js';
import { issuesToDetails } from './validation-details.js';

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
};

/** A 401 names the schemes a caller can use (RFC 9110, section 11.6.1). */
const AUTHENTICATION_CHALLENGE = 'Bearer realm="sales-order-service", ApiKey realm="sales-order-service"';

/** Errors raised by express.json() (body-parser) carry a `type` and a 4xx status. */
interface BodyParserError extends Error {
  type: string;
  status: number;
  limit?: number;
}

const isBodyParserError = (error: unknown): error is BodyParserError =>
  error instanceof Error &&
  typeof (error as Partial<BodyParserError>).type === 'string' &&
  typeof (error as Partial<BodyParserError>).status === 'number' &&
  (error as BodyParserError).status < 500;

const bodyParserMessage = (error: BodyParserError): string => {
  switch (error.type) {
    case 'entity.parse.failed':
      return 'The request body is not valid JSON';
    case 'entity.too.large':
      return `The request body is larger than the limit of ${error.limit} bytes`;
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return 'The request body encoding is not supported; send UTF-8 JSON';
    default:
      return 'The request body could not be read';
  }
};

/**
 * The one place that turns failures into the error envelope. Clients get a status and a
 * message fit to show; stack traces, SQL and Prisma messages only reach the log.
 */
export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  if (error instanceof RequestValidationError) {
    res
      .status(ErrorCode.badRequest)
      .json(failure(ErrorCode.badRequest, 'Invalid input data', issuesToDetails(error.pathParams, error.query, error.headers, error.body)));
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
  if (error instanceof BadRequestError) {
    res.status(ErrorCode.badRequest).json(failure(ErrorCode.badRequest, error.message, error.details));
    return;
  }
  if (isBodyParserError(error)) {
    res.status(ErrorCode.badRequest).json(
      failure(ErrorCode.badRequest, bodyParserMessage(error), [{ path: '', message: bodyParserMessage(error), code: error.type }]),
    );
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

/** Bodies must be JSON: anything else is refused instead of being read as an empty object. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (BODY_METHODS.has(req.method) && req.is('application/json') === false) {
    next(
      new BadRequestError('The request body must be application/json', [
        { path: '', message: `content type ${req.headers['content-type'] ?? '(none)'} is not accepted`, code: 'unsupported_media_type' },
      ]),
    );
    return;
  }
  next();
};
