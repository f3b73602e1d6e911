import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import { dateTime, dateTimeInput, id, idParam, queryBoolean, queryInteger, requiredText, text } from './common.js';
import { successEnvelope } from './envelope.js';
import { CommonErrorResponses, describedError } from './errors.js';
import { Permission } from './permissions.js';

/**
 * API keys managed over HTTP (`Authorization: ApiKey <key>` callers): create, list, rename,
 * rotate with a grace period, revoke now or later, and each key's history. A key's secret is in
 * the answer that creates it (create, rotate) and nowhere else, ever. A caller can give a key only
 * permissions (and locations) it holds itself.
 */

/** `error.details[].code` values of the API key routes. */
export const ApiKeyCode = {
  /** 403: the key would get a permission the caller does not hold (no escalation). */
  permissionNotHeld: 'permission_not_held',
  /** 403: the key would reach a location outside the caller's own scope (no escalation). */
  locationNotHeld: 'location_not_held',
  /** 409: the key is revoked or expired: it cannot be rotated (nor revoked again). */
  apiKeyNotActive: 'api_key_not_active',
  /** 409: the key was rotated already: rotate its successor. */
  apiKeyAlreadyRotated: 'api_key_already_rotated',
  /** 422: the caller's own key is revoked only with `confirm_self: true`. */
  confirmSelfRequired: 'confirm_self_required',
  /** 422: `expires_at` is not in the future. */
  expiryInPast: 'expiry_in_past',
  /**
   * 422: the key made by an API key would outlive it: `expires_at` is later than the maker's own
   * end (its expiry or a revocation ahead), or omitted (never) while the maker ends.
   */
  expiryBeyondMaker: 'expiry_beyond_maker',
} as const;
export type ApiKeyCode = (typeof ApiKeyCode)[keyof typeof ApiKeyCode];

export const API_KEY_NAME_MAX_LENGTH = 200;
/** The longest grace a rotation or a delayed revocation can give: 7 days, as Stripe's "roll key". */
export const API_KEY_GRACE_MAX_SECONDS = 604_800;
/** `sok_` + 8 characters: the visible part of a key, which names it in lists and logs. */
export const API_KEY_PREFIX_MAX_LENGTH = 32;
/** `sok_` + 8 + `_` + 43: the whole key. */
export const API_KEY_SECRET_MAX_LENGTH = 64;
export const API_KEY_LOCATIONS_MAX = 200;
const LOCATION_CODE_MAX_LENGTH = 20;
const SUBJECT_MAX_LENGTH = 220;

export const API_KEYS_LIMIT_MAX = 200;
export const API_KEYS_LIMIT_DEFAULT = 50;
export const API_KEY_HISTORY_LIMIT_MAX = 200;
export const API_KEY_HISTORY_LIMIT_DEFAULT = 50;

/** Every permission a key can be given (the caller must hold each one, or `*`). */
export const ApiKeyPermissionSchema = z.enum(Object.values(Permission) as [Permission, ...Permission[]]);

const permissions = () =>
  z
    .array(ApiKeyPermissionSchema)
    .min(1)
    .max(Object.values(Permission).length)
    // A permission named twice is the same set.
    .transform((values) => [...new Set(values)])
    .describe('What the key may do: permission names, `*` for all. Each must be held by the caller.');

/** A location named by its id or its code (DHK). */
const LocationRefSchema = z.union([id(), requiredText(LOCATION_CODE_MAX_LENGTH)]);

const locationsInput = () =>
  z
    .array(LocationRefSchema)
    .max(API_KEY_LOCATIONS_MAX)
    .nullable()
    .describe(
      'The locations the key is limited to, by id or code; omitted or null: every location (only a caller that is ' +
        "not limited itself may leave it out); [] reaches none. Each must lie within the caller's own locations.",
    );

const name = () => requiredText(API_KEY_NAME_MAX_LENGTH).describe('What the key is for, e.g. "Warehouse sync".');

const expiresAt = () =>
  dateTimeInput()
    .nullable()
    .describe(
      'When the key stops working (in the future); null or omitted: never. A key made by an API key that ends ' +
        'ends no later than it: a later expiry, or none, is 422 `expiry_beyond_maker`.',
    );

const graceSeconds = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(API_KEY_GRACE_MAX_SECONDS)
    .default(0)
    .describe(`${what} 0 (default) to ${API_KEY_GRACE_MAX_SECONDS} (7 days).`);

const CreateApiKeyBodySchemaObject = z.object({
  name: name(),
  permissions: permissions(),
  locations: locationsInput().optional(),
  expires_at: expiresAt().optional(),
});
type CreateApiKeyBodySchemaObject = typeof CreateApiKeyBodySchemaObject;
/** Named, like ApiKeySchema. */
export interface CreateApiKeyBodySchema extends CreateApiKeyBodySchemaObject {}
export const CreateApiKeyBodySchema: CreateApiKeyBodySchema = CreateApiKeyBodySchemaObject;
export type CreateApiKeyBody = z.input<typeof CreateApiKeyBodySchema>;
export type CreateApiKeyRequest = z.output<typeof CreateApiKeyBodySchema>;

const UpdateApiKeyBodySchemaObject = z.object({ name: name() });
type UpdateApiKeyBodySchemaObject = typeof UpdateApiKeyBodySchemaObject;
/** Named, like ApiKeySchema. */
export interface UpdateApiKeyBodySchema extends UpdateApiKeyBodySchemaObject {}
export const UpdateApiKeyBodySchema: UpdateApiKeyBodySchema = UpdateApiKeyBodySchemaObject;
export type UpdateApiKeyBody = z.input<typeof UpdateApiKeyBodySchema>;

const RotateApiKeyBodySchemaObject = z.object({
  expire_current_in_seconds: graceSeconds('How long the current key keeps working beside its successor:'),
  expires_at: expiresAt()
    .optional()
    .describe("The successor's expiry (in the future; null: never); omitted: the current key's expiry."),
});
type RotateApiKeyBodySchemaObject = typeof RotateApiKeyBodySchemaObject;
/** Named, like ApiKeySchema. */
export interface RotateApiKeyBodySchema extends RotateApiKeyBodySchemaObject {}
export const RotateApiKeyBodySchema: RotateApiKeyBodySchema = RotateApiKeyBodySchemaObject;
export type RotateApiKeyBody = z.input<typeof RotateApiKeyBodySchema>;
export type RotateApiKeyRequest = z.output<typeof RotateApiKeyBodySchema>;

const RevokeApiKeyBodySchemaObject = z.object({
  revoke_in_seconds: graceSeconds('How long the key keeps working before the revocation takes effect:'),
  confirm_self: z
    .boolean()
    .default(false)
    .describe('true: revoke the very key this request is authenticated with (refused otherwise).'),
});
type RevokeApiKeyBodySchemaObject = typeof RevokeApiKeyBodySchemaObject;
/** Named, like ApiKeySchema. */
export interface RevokeApiKeyBodySchema extends RevokeApiKeyBodySchemaObject {}
export const RevokeApiKeyBodySchema: RevokeApiKeyBodySchema = RevokeApiKeyBodySchemaObject;
export type RevokeApiKeyBody = z.input<typeof RevokeApiKeyBodySchema>;
export type RevokeApiKeyRequest = z.output<typeof RevokeApiKeyBodySchema>;

const ApiKeyIdParamsSchemaObject = z.object({ id: idParam().describe('API key id.') });
type ApiKeyIdParamsSchemaObject = typeof ApiKeyIdParamsSchemaObject;
/** Named, like ApiKeySchema. */
export interface ApiKeyIdParamsSchema extends ApiKeyIdParamsSchemaObject {}
export const ApiKeyIdParamsSchema: ApiKeyIdParamsSchema = ApiKeyIdParamsSchemaObject;

const subject = () => z.string().max(SUBJECT_MAX_LENGTH);

const ApiKeySchemaObject = z.object({
  id: id(),
  name: z.string().max(API_KEY_NAME_MAX_LENGTH),
  prefix: z
    .string()
    .max(API_KEY_PREFIX_MAX_LENGTH)
    .describe('The visible start of the key (`sok_k43wr7r3`): how the key is named in lists and logs.'),
  permissions: z.array(ApiKeyPermissionSchema).max(Object.values(Permission).length),
  locations: z
    .array(id())
    .max(API_KEY_LOCATIONS_MAX)
    .nullable()
    .describe('Location ids the key is limited to; null: every location.'),
  active: z.boolean().describe('Neither revoked nor expired now: the key authenticates.'),
  created_at: dateTime(),
  created_by: subject()
    .nullable()
    .describe(
      'Who made it: `api_key:<prefix>`, a token or session subject, or `cli:<user>`; null for keys made before this was kept.',
    ),
  expires_at: dateTime().nullable(),
  last_used_at: dateTime()
    .nullable()
    .describe('The last use, to within a minute (recorded off the request path, a few seconds late).'),
  revoked_at: dateTime().nullable().describe('When the revocation takes (or took) effect.'),
  revoked_by: subject().nullable(),
  rotated_from_id: id().nullable().describe('The key this one replaced by a rotation.'),
});
type ApiKeySchemaObject = typeof ApiKeySchemaObject;
/** Named (an interface derived from the schema) so that declarations refer to it instead of writing it out at every route. */
export interface ApiKeySchema extends ApiKeySchemaObject {}
export const ApiKeySchema: ApiKeySchema = ApiKeySchemaObject;
export type ApiKey = z.infer<typeof ApiKeySchema>;

const CreatedApiKeySchemaObject = ApiKeySchemaObject.extend({
  secret: z
    .string()
    .max(API_KEY_SECRET_MAX_LENGTH)
    .describe('The key itself, shown only in this answer: send it as `Authorization: ApiKey <secret>`.'),
});
type CreatedApiKeySchemaObject = typeof CreatedApiKeySchemaObject;
/** Named, like ApiKeySchema. */
export interface CreatedApiKeySchema extends CreatedApiKeySchemaObject {}
export const CreatedApiKeySchema: CreatedApiKeySchema = CreatedApiKeySchemaObject;
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

const ListApiKeysQuerySchemaObject = z.object({
  active: queryBoolean().describe('true: only keys that authenticate now; false: only revoked or expired ones.'),
  name: text(API_KEY_NAME_MAX_LENGTH).optional().describe('Only keys whose name contains this (any case).'),
  limit: queryInteger(1, API_KEYS_LIMIT_MAX)
    .default(API_KEYS_LIMIT_DEFAULT)
    .describe(`1..${API_KEYS_LIMIT_MAX}, default ${API_KEYS_LIMIT_DEFAULT}.`),
  cursor: idParam().optional().describe('The next_cursor of the previous page: older keys.'),
});
type ListApiKeysQuerySchemaObject = typeof ListApiKeysQuerySchemaObject;
/** Named, like ApiKeySchema. */
export interface ListApiKeysQuerySchema extends ListApiKeysQuerySchemaObject {}
export const ListApiKeysQuerySchema: ListApiKeysQuerySchema = ListApiKeysQuerySchemaObject;
export type ListApiKeysQuery = z.input<typeof ListApiKeysQuerySchema>;
export type ListApiKeysFilters = z.output<typeof ListApiKeysQuerySchema>;

const ApiKeyPageSchemaObject = z.object({
  items: z.array(ApiKeySchema).max(API_KEYS_LIMIT_MAX).describe('Newest first.'),
  next_cursor: id().nullable().describe('Pass as `cursor` for older keys; null on the last page.'),
});
type ApiKeyPageSchemaObject = typeof ApiKeyPageSchemaObject;
/** Named, like ApiKeySchema. */
export interface ApiKeyPageSchema extends ApiKeyPageSchemaObject {}
export const ApiKeyPageSchema: ApiKeyPageSchema = ApiKeyPageSchemaObject;
export type ApiKeyPage = z.infer<typeof ApiKeyPageSchema>;

export const ApiKeyActionSchema = z.enum(['created', 'renamed', 'rotated', 'revoked']);
export type ApiKeyAction = z.infer<typeof ApiKeyActionSchema>;

const changeValue = () =>
  z
    .union([
      z.string().max(API_KEY_NAME_MAX_LENGTH),
      z.number(),
      z.array(z.union([z.string().max(64), z.number()])).max(API_KEY_LOCATIONS_MAX),
    ])
    .nullable();

export const ApiKeyFieldChangeSchema = z.object({
  field: z.string().max(64),
  from: changeValue(),
  to: changeValue(),
});

const ApiKeyHistoryEntrySchemaObject = z.object({
  id: id(),
  action: ApiKeyActionSchema.describe(
    'created (rotated_from_id set when by a rotation), renamed, rotated (the key got a successor and an expiry), revoked.',
  ),
  actor: subject(),
  occurred_at: dateTime(),
  changes: z
    .array(ApiKeyFieldChangeSchema)
    .max(20)
    .describe('Each field the action set, from its value before to its value after; never the secret.'),
});
type ApiKeyHistoryEntrySchemaObject = typeof ApiKeyHistoryEntrySchemaObject;
/** Named, like ApiKeySchema. */
export interface ApiKeyHistoryEntrySchema extends ApiKeyHistoryEntrySchemaObject {}
export const ApiKeyHistoryEntrySchema: ApiKeyHistoryEntrySchema = ApiKeyHistoryEntrySchemaObject;
export type ApiKeyHistoryEntry = z.infer<typeof ApiKeyHistoryEntrySchema>;

const ApiKeyHistoryQuerySchemaObject = z.object({
  limit: queryInteger(1, API_KEY_HISTORY_LIMIT_MAX)
    .default(API_KEY_HISTORY_LIMIT_DEFAULT)
    .describe(`1..${API_KEY_HISTORY_LIMIT_MAX}, default ${API_KEY_HISTORY_LIMIT_DEFAULT}.`),
  cursor: idParam().optional().describe('The next_cursor of the previous page: later entries.'),
});
type ApiKeyHistoryQuerySchemaObject = typeof ApiKeyHistoryQuerySchemaObject;
/** Named, like ApiKeySchema. */
export interface ApiKeyHistoryQuerySchema extends ApiKeyHistoryQuerySchemaObject {}
export const ApiKeyHistoryQuerySchema: ApiKeyHistoryQuerySchema = ApiKeyHistoryQuerySchemaObject;
export type ApiKeyHistoryQuery = z.input<typeof ApiKeyHistoryQuerySchema>;
export type ApiKeyHistoryFilters = z.output<typeof ApiKeyHistoryQuerySchema>;

const ApiKeyHistorySchemaObject = z.object({
  items: z.array(ApiKeyHistoryEntrySchema).max(API_KEY_HISTORY_LIMIT_MAX).describe('Oldest first.'),
  next_cursor: id().nullable().describe('Pass as `cursor` for later entries; null on the last page.'),
});
type ApiKeyHistorySchemaObject = typeof ApiKeyHistorySchemaObject;
/** Named, like ApiKeySchema. */
export interface ApiKeyHistorySchema extends ApiKeyHistorySchemaObject {}
export const ApiKeyHistorySchema: ApiKeyHistorySchema = ApiKeyHistorySchemaObject;
export type ApiKeyHistory = z.infer<typeof ApiKeyHistorySchema>;

/** The answers with a key, named so that declarations write each out once. */
const ApiKeyEnvelopeObject = successEnvelope(ApiKeySchema);
type ApiKeyEnvelopeObject = typeof ApiKeyEnvelopeObject;
interface ApiKeyEnvelope extends ApiKeyEnvelopeObject {}
const ApiKeyEnvelope: ApiKeyEnvelope = ApiKeyEnvelopeObject;
const CreatedApiKeyEnvelopeObject = successEnvelope(CreatedApiKeySchema);
type CreatedApiKeyEnvelopeObject = typeof CreatedApiKeyEnvelopeObject;
interface CreatedApiKeyEnvelope extends CreatedApiKeyEnvelopeObject {}
const CreatedApiKeyEnvelope: CreatedApiKeyEnvelope = CreatedApiKeyEnvelopeObject;

const NotFoundApiKeyResponse = describedError(
  'Not found: no API key has this id, or it holds a permission or a location the caller does not hold itself.',
);
const ForbiddenGrantResponse = describedError(
  'Forbidden: the caller lacks `api_keys.manage`, or the key would get a permission (`permission_not_held`) or a ' +
    'location (`location_not_held`) the caller does not hold itself.',
);
const ConflictKeyResponse = describedError(
  'Conflict: the key is revoked or expired (`api_key_not_active`), or was rotated already (`api_key_already_rotated`).',
);

const c = initContract();
const manage = { permission: Permission.apiKeysManage, tag: 'API keys' } as const;

export const apiKeysContract = c.router(
  {
    createApiKey: {
      method: 'POST',
      path: '/api-keys',
      body: CreateApiKeyBodySchema,
      responses: {
        201: CreatedApiKeyEnvelope,
        403: ForbiddenGrantResponse,
        422: describedError(
          "Unprocessable entity: the expiry is not in the future, or lies beyond the calling key's own end, or a location does not exist.",
        ),
      },
      summary: 'Create an API key; the answer holds its secret, shown this once',
      metadata: manage,
    },
    listApiKeys: {
      method: 'GET',
      path: '/api-keys',
      query: ListApiKeysQuerySchema,
      responses: { 200: successEnvelope(ApiKeyPageSchema) },
      summary: 'API keys, newest first, by pages (never their secrets)',
      metadata: manage,
    },
    getApiKey: {
      method: 'GET',
      path: '/api-keys/:id',
      pathParams: ApiKeyIdParamsSchema,
      responses: { 200: ApiKeyEnvelope, 404: NotFoundApiKeyResponse },
      summary: 'Read one API key',
      metadata: manage,
    },
    updateApiKey: {
      method: 'PATCH',
      path: '/api-keys/:id',
      pathParams: ApiKeyIdParamsSchema,
      body: UpdateApiKeyBodySchema,
      responses: { 200: ApiKeyEnvelope, 404: NotFoundApiKeyResponse },
      summary: 'Rename an API key (nothing else of a key changes; rotate to change the secret)',
      metadata: manage,
    },
    rotateApiKey: {
      method: 'POST',
      path: '/api-keys/:id/rotate',
      pathParams: ApiKeyIdParamsSchema,
      body: RotateApiKeyBodySchema,
      responses: {
        201: CreatedApiKeyEnvelope,
        403: ForbiddenGrantResponse,
        404: NotFoundApiKeyResponse,
        409: ConflictKeyResponse,
        422: describedError(
          "Unprocessable entity: the successor's expiry is not in the future, or lies beyond the calling key's own end.",
        ),
      },
      summary:
        'Replace a key by a new one (same name, permissions and locations); the current one works for the grace given',
      description:
        'Both keys authenticate until `expire_current_in_seconds` have passed (0: the current key stops now). The ' +
        'instance that answers sees the change at its next request; every other one when the database notifies it, ' +
        'or within AUTH_CACHE_TTL_MS where it cannot.',
      metadata: manage,
    },
    revokeApiKey: {
      method: 'POST',
      path: '/api-keys/:id/revoke',
      pathParams: ApiKeyIdParamsSchema,
      body: RevokeApiKeyBodySchema,
      responses: {
        200: ApiKeyEnvelope,
        404: NotFoundApiKeyResponse,
        409: ConflictKeyResponse,
        422: describedError(
          'Unprocessable entity: the request is authenticated with this very key and does not say `confirm_self: true`.',
        ),
      },
      summary: 'Revoke a key now, or after `revoke_in_seconds`',
      description:
        'Effective at the next request on the instance that answers; on every other one when the database notifies ' +
        'it, or within AUTH_CACHE_TTL_MS where it cannot. A key revokes itself only with `confirm_self: true`.',
      metadata: manage,
    },
    listApiKeyHistory: {
      method: 'GET',
      path: '/api-keys/:id/history',
      pathParams: ApiKeyIdParamsSchema,
      query: ApiKeyHistoryQuerySchema,
      responses: { 200: successEnvelope(ApiKeyHistorySchema), 404: NotFoundApiKeyResponse },
      summary: 'Who created, renamed, rotated and revoked a key, and when',
      metadata: manage,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);
