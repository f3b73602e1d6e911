import { LRUCache } from 'lru-cache';

/** Most credentials kept at once; least recently used go first. */
const MAX_ENTRIES = 10_000;

/** What a lookup found (the caller), and how long its credential has left (null: no expiry). */
export type FoundCredential<T> = { value: T; msLeft: number | null };

/**
 * Callers authenticated by an API key or a host session, kept by the SHA-256 of the credential
 * (never the credential itself) for at most `ttlMs`, and never past the credential's own expiry.
 * Only successes are kept: an unknown key or session is looked up again on every use, so a key
 * or session created a moment ago works at once. Changes announced by the database's triggers
 * drop the entry they name (`invalidate`), a change this process made itself drops its entries
 * once committed (`invalidateWhere`, before the change's answer is sent), and `clear` drops
 * everything when announcements may have been missed. A lookup that was under way while anything was dropped is answered but not
 * kept, so a revocation committed during it cannot be overwritten by what it read before.
 * Concurrent misses for one digest share one lookup.
 */
export const createCredentialCache = <T extends object>(ttlMs: number) => {
  const entries = ttlMs > 0 ? new LRUCache<string, T>({ max: MAX_ENTRIES, ttl: ttlMs }) : undefined;
  const pending = new Map<string, Promise<FoundCredential<T> | null>>();
  let generation = 0;

  const forgetPending = () => {
    generation += 1;
    pending.clear();
  };

  return {
    /** The cached caller for `digest`, or the result of `lookup` (kept when found). */
    async get(digest: string, lookup: () => Promise<FoundCredential<T> | null>): Promise<T | null> {
      if (!entries) return (await lookup())?.value ?? null;
      const cached = entries.get(digest);
      if (cached) return cached;
      let inFlight = pending.get(digest);
      if (!inFlight) {
        const startedIn = generation;
        inFlight = lookup().then(
          (found) => {
            if (pending.get(digest) === inFlight) pending.delete(digest);
            if (found && generation === startedIn) {
              const ttl = Math.floor(Math.min(ttlMs, found.msLeft ?? ttlMs));
              if (ttl > 0) entries.set(digest, found.value, { ttl });
            }
            return found;
          },
          (error: unknown) => {
            if (pending.get(digest) === inFlight) pending.delete(digest);
            throw error;
          },
        );
        pending.set(digest, inFlight);
      }
      return (await inFlight)?.value ?? null;
    },
    invalidate(digest: string) {
      forgetPending();
      entries?.delete(digest);
    },
    /** Drops every entry whose caller `matches` (a scan: for changes made here, which are rare). */
    invalidateWhere(matches: (value: T) => boolean) {
      forgetPending();
      if (!entries) return;
      for (const [digest, value] of entries.entries()) if (matches(value)) entries.delete(digest);
    },
    clear() {
      forgetPending();
      entries?.clear();
    },
  };
};

export type CredentialCache<T extends object> = ReturnType<typeof createCredentialCache<T>>;
