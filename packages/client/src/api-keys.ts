import type {
  ApiKey,
  ApiKeyHistoryEntry,
  ApiKeyHistoryQuery,
  ApiKeyPage,
  CreateApiKeyBody,
  CreatedApiKey,
  ListApiKeysQuery,
  RevokeApiKeyBody,
  RotateApiKeyBody,
} from './generated/contract-types.js';
import { type ClientContext, definedOnly, unwrap } from './transport.js';

/** API keys: create, list, rename, rotate, revoke, and each key's history (never beyond what the caller holds). */
export const apiKeyMethods = ({ client }: ClientContext) => {
  const listApiKeys = (query: ListApiKeysQuery = {}): Promise<ApiKeyPage> =>
    unwrap(client.listApiKeys({ query: definedOnly(query) }));
  return {
    /**
     * POST /api-keys: the answer's `secret` is the key, shown this once. Its permissions (and
     * locations) must be held by the caller, which needs `api_keys.manage`.
     */
    createApiKey: (body: CreateApiKeyBody): Promise<CreatedApiKey> => unwrap(client.createApiKey({ body })),
    /** GET /api-keys: one page, newest first; `next_cursor` is the next page's `cursor`. */
    listApiKeys,
    /** Every key the filters match, page after page: `for await (const key of client.apiKeys({ active: true }))`. */
    apiKeys: async function* (query: Omit<ListApiKeysQuery, 'cursor'> = {}): AsyncGenerator<ApiKey, void, undefined> {
      let cursor: number | undefined;
      do {
        const page = await listApiKeys({ ...query, ...(cursor === undefined ? {} : { cursor }) });
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /** GET /api-keys/{id} */
    getApiKey: (id: number): Promise<ApiKey> => unwrap(client.getApiKey({ params: { id } })),
    /** PATCH /api-keys/{id}: the name is all that changes. */
    renameApiKey: (id: number, name: string): Promise<ApiKey> =>
      unwrap(client.updateApiKey({ params: { id }, body: { name } })),
    /**
     * POST /api-keys/{id}/rotate: a successor with a new `secret` (shown this once); the current
     * key keeps working for `expire_current_in_seconds` (0..604800, default 0).
     */
    rotateApiKey: (id: number, body: RotateApiKeyBody = {}): Promise<CreatedApiKey> =>
      unwrap(client.rotateApiKey({ params: { id }, body })),
    /**
     * POST /api-keys/{id}/revoke: now, or after `revoke_in_seconds`. Revoking the key the client
     * itself authenticates with needs `confirm_self: true`.
     */
    revokeApiKey: (id: number, body: RevokeApiKeyBody = {}): Promise<ApiKey> =>
      unwrap(client.revokeApiKey({ params: { id }, body })),
    /** GET /api-keys/{id}/history: who created, renamed, rotated and revoked the key, oldest first. */
    apiKeyHistory: async function* (
      id: number,
      query: Omit<ApiKeyHistoryQuery, 'cursor'> = {},
    ): AsyncGenerator<ApiKeyHistoryEntry, void, undefined> {
      let cursor: number | undefined;
      do {
        const page = await unwrap(
          client.listApiKeyHistory({
            params: { id },
            query: { ...query, ...(cursor === undefined ? {} : { cursor }) },
          }),
        );
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
  };
};
