import { z } from 'zod';

import { ApiKeyCode } from './api-keys.js';
import { SchemaIssueCode } from './common.js';
import { DeliveryCode } from './deliveries.js';
import { ValidationCode } from './errors.js';
import { FeedCode } from './events.js';
import { ImportCode } from './imports.js';
import { LicenceWarningCode } from './licence.js';
import { ChangeCode } from './order-changes.js';
import { LifecycleCode } from './order-lifecycle.js';
import { ReportCode } from './reports.js';
import { WebhookCode } from './webhook-endpoints.js';
import { WriteSafetyCode } from './write-safety.js';

/**
 * Every `error.details[].code` the service can answer, declared once here so that callers can
 * switch on a reason without parsing messages, and the OpenAPI document lists them all. The
 * domain's codes live beside their schemas (ValidationCode, LifecycleCode, ...); the codes of the
 * HTTP layer are below.
 */

/** 401: why the credentials did not hold up (sent with `WWW-Authenticate`). */
export const AuthenticationCode = {
  missingCredentials: 'missing_credentials',
  invalidAuthorization: 'invalid_authorization',
  unsupportedScheme: 'unsupported_scheme',
  invalidToken: 'invalid_token',
  tokenExpired: 'token_expired',
  invalidApiKey: 'invalid_api_key',
  invalidSession: 'invalid_session',
  /** A token's `locations` claim is not a list of location codes or ids, or names one that does not exist. */
  invalidLocations: 'invalid_locations',
  /** A token without a `locations` claim where JWT_REQUIRE_LOCATIONS=true. */
  locationsRequired: 'locations_required',
} as const;
export type AuthenticationCode = (typeof AuthenticationCode)[keyof typeof AuthenticationCode];

/** 403: the caller is known but may not do this. */
export const AccessCode = {
  missingPermission: 'missing_permission',
  /** A cookie-authenticated change from an origin that is not allowed (CSRF). */
  originNotAllowed: 'origin_not_allowed',
} as const;
export type AccessCode = (typeof AccessCode)[keyof typeof AccessCode];

/**
 * A request that cannot be read (400, 408, 413, 415, 431): refused by Node's HTTP parser,
 * Express or body-parser before the contract sees it. body-parser's own dotted type names are
 * kept as they are, since callers of earlier versions already match on them.
 */
export const RequestCode = {
  badRequest: 'bad_request',
  malformedRequest: 'malformed_request',
  requestTimeout: 'request_timeout',
  headersTooLarge: 'headers_too_large',
  chunkExtensionsTooLarge: 'chunk_extensions_too_large',
  invalidPathEncoding: 'invalid_path_encoding',
  unsupportedMediaType: 'unsupported_media_type',
  invalidContentEncoding: 'invalid_content_encoding',
  invalidUtf8: 'invalid_utf8',
  invalidJson: 'entity.parse.failed',
  bodyTooLarge: 'entity.too.large',
  encodingUnsupported: 'encoding.unsupported',
  charsetUnsupported: 'charset.unsupported',
  bodyAborted: 'request.aborted',
  bodySizeInvalid: 'request.size.invalid',
} as const;
export type RequestCode = (typeof RequestCode)[keyof typeof RequestCode];

/** 429 and 503: the service cannot take the request now; retry after `Retry-After`. */
export const ServiceCode = {
  rateLimited: 'rate_limited',
  databaseUnavailable: 'database_unavailable',
  /** Lock contention: another request held the order or its series' counter too long. */
  busy: 'busy',
  /** Shed: the request could not get a database connection before its deadline (a queue too long). */
  overloaded: 'overloaded',
  shuttingDown: 'shutting_down',
} as const;
export type ServiceCode = (typeof ServiceCode)[keyof typeof ServiceCode];

/**
 * 400 for a request that does not fit the contract: zod's issue codes, with a missing value
 * reported as `required` rather than `invalid_type`.
 */
export const ShapeIssueCodes = ['required', ...Object.values(z.ZodIssueCode)] as const;

/** Every group of the service's own detail codes: DETAIL_CODES and DetailCode both come from it. */
const DETAIL_CODE_GROUPS = [
  SchemaIssueCode,
  ValidationCode,
  LifecycleCode,
  ChangeCode,
  LicenceWarningCode,
  WriteSafetyCode,
  WebhookCode,
  FeedCode,
  ImportCode,
  ApiKeyCode,
  ReportCode,
  DeliveryCode,
  AuthenticationCode,
  AccessCode,
  RequestCode,
  ServiceCode,
] as const;

/** The values of each group of a union, taken group by group. */
type ValuesOfEach<Group> = Group extends unknown ? Group[keyof Group] : never;

/** A detail code of the service's own (zod's issue codes aside). */
export type DetailCode = ValuesOfEach<(typeof DETAIL_CODE_GROUPS)[number]>;

/**
 * Every detail code, sorted; the OpenAPI document lists these on `ErrorDetail.code`. A Set, since
 * some of the contract's codes are zod's too (`invalid_date`).
 */
export const DETAIL_CODES: readonly string[] = [
  ...new Set<string>([...ShapeIssueCodes, ...DETAIL_CODE_GROUPS.flatMap((group) => Object.values(group))]),
].sort();
