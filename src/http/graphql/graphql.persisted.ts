import type { PersistedQueryOptions } from "@apollo/server";
import { LRUCache } from "lru-cache";

/**
 * Characters of query text kept for automatic persisted queries (APQ), least recently used dropped first. Any key may
 * register a query, so the cache is bounded by the text it holds, not by a count: a client sending ever new documents
 * only pushes older ones out, and one dropped is registered again by the client's next try (PersistedQueryNotFound,
 * then the query with its hash).
 */
export const PERSISTED_QUERY_CHARS = 4 * 2 ** 20;

/**
 * Apollo Server's APQ options over an in-process LRU of query texts keyed by their SHA-256. Apollo does the
 * protocol: a hash it does not hold answers 200 with `PERSISTED_QUERY_NOT_FOUND`, which Apollo Client and urql
 * answer by sending the query with its hash; a hash that does not match its query answers 400.
 */
export function persistedQueries(maxChars: number = PERSISTED_QUERY_CHARS): PersistedQueryOptions {
  const texts = new LRUCache<string, string>({
    maxSize: maxChars,
    sizeCalculation: (text, hash) => text.length + hash.length,
  });
  return {
    ttl: null,
    cache: {
      get: async (hash) => texts.get(hash),
      set: async (hash, text) => {
        // A text larger than the whole cache is not kept (lru-cache would refuse it with a warning each time).
        if (text.length + hash.length <= maxChars) texts.set(hash, text);
      },
      delete: async (hash) => texts.delete(hash),
    },
  };
}
