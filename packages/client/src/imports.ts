import type { Import, ImportResult } from './generated/contract-types.js';
import { type ClientContext, errorOf, send, sleep, unwrap } from './transport.js';

/** Imports: send a file of orders, follow it, read or download its results. */
export const importMethods = ({ client, options, baseUrl }: ClientContext) => {
  const getImport = (id: number): Promise<Import> => unwrap(client.getImport({ params: { id } }));
  return {
    /**
     * POST /imports: sends the file as it is (`csv` as text/csv, `ndjson` as application/x-ndjson)
     * and resolves with the queued import; its orders are created in the background.
     */
    startImport: (
      file: string | Uint8Array<ArrayBuffer> | Blob,
      format: ImportFormat,
      { idempotencyKey, allowDuplicates }: StartImportOptions = {},
    ): Promise<Import> =>
      unwrap(
        send(options, {
          path: `${baseUrl}/imports${allowDuplicates ? '?allow_duplicates=true' : ''}`,
          method: 'POST',
          headers: {
            'content-type': IMPORT_CONTENT_TYPES[format],
            ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
          },
          body: file,
        }),
      ),
    /** GET /imports/{id}: state, counts, and while it runs an estimate of the seconds left. */
    getImport,
    /** GET /imports: the caller's last 100 imports, newest first. */
    listImports: (): Promise<{ items: Import[] }> => unwrap(client.listImports()),
    /**
     * POST /imports/{id}/cancel: stops after the current chunk; the orders made stay. An import
     * that has ended throws SalesOrderConflictError (409, `import_ended`).
     */
    cancelImport: (id: number): Promise<Import> => unwrap(client.cancelImport({ params: { id } })),
    /** Every result of an import so far, in file order, for `for await (const result of client.importResults(id))`. */
    importResults: async function* (id: number): AsyncGenerator<ImportResult, void, undefined> {
      const response = await client.getImportResults({ params: { id } });
      if (response.status !== 200) throw errorOf(response);
      for (const line of String(response.body).split('\n'))
        if (line.trim() !== '') yield JSON.parse(line) as ImportResult;
    },
    /**
     * GET /imports/{id}/results as the file the service writes, to save as it is: JSON Lines
     * (`ndjson`, the default) or CSV (`csv`, sent with `Accept: text/csv`; cells that would start
     * a spreadsheet formula are escaped). Every result so far, in file order.
     */
    downloadImportResults: async (id: number, format: ImportFormat = 'ndjson'): Promise<string> => {
      const response = await send(options, {
        path: `${baseUrl}/imports/${encodeURIComponent(String(id))}/results`,
        method: 'GET',
        headers: { accept: IMPORT_CONTENT_TYPES[format] },
      });
      if (response.status !== 200) throw errorOf(response);
      return String(response.body);
    },
    /**
     * Resolves once the import has finished (completed, failed or cancelled), polling
     * GET /imports/{id} every `intervalMs` (1 s) and telling `onProgress` each reading.
     */
    waitForImport: async (
      id: number,
      { onProgress, intervalMs = 1_000 }: { onProgress?: (progress: Import) => void; intervalMs?: number } = {},
    ): Promise<Import> => {
      for (;;) {
        const progress = await getImport(id);
        onProgress?.(progress);
        if (progress.state !== 'queued' && progress.state !== 'running') return progress;
        await sleep(intervalMs);
      }
    },
  };
};

/** How an upload is sent: a retry with the same key answers the import the first one started. */
export interface StartImportOptions {
  /** `Idempotency-Key`: the same upload sent again (same bytes and options) starts no second import. */
  idempotencyKey?: string;
  /** Import orders whose `order_ref` made an order in an earlier import too (else they fail `duplicate_order_ref`). */
  allowDuplicates?: boolean;
}

/** The two file formats of an import and the media type each is sent as. */
export type ImportFormat = 'csv' | 'ndjson';
const IMPORT_CONTENT_TYPES: Record<ImportFormat, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };
