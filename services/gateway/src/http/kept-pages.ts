// Component list pages the gateway keeps (ADR 12): a page projects answered is kept per query and per the caller's
// access, under the project's write-fence version read before projects was asked, and answered again while that
// version stands with no fence up: a commit that changes the project's pages raises it first, so no kept page
// outlives one. No version (a write under way, Redis unreachable): projects answers. Bounded by bytes, least
// recently used out first.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { WriteFences } from "@sca/redis";
import type { Caller } from "@sca/rpc";
import type { SerialisedJson } from "../api/route.ts";

/** What a kept page costs besides its bytes (key, entry). */
const ENTRY_OVERHEAD_BYTES = 512;

interface KeptPage {
  version: string;
  page: SerialisedJson;
}

export interface KeptPages {
  /** The page of `query` the caller may read of the project: kept, else `read()`'s (kept for the next). */
  read(projectId: string, caller: Caller, query: unknown, read: () => Promise<SerialisedJson>): Promise<SerialisedJson>;
}

/**
 * Two callers with the same access get the same page: the caller token's claims but where the request came from
 * (projects' access rules read no more than the rest, and a new rule reading more changes nothing here).
 */
function accessOf(caller: Caller): string {
  const { ip: _ip, user_agent: _userAgent, ...access } = caller;
  return createHash("sha256").update(JSON.stringify(access)).digest("base64url");
}

const bytesOf = (page: SerialisedJson) => page.parts.reduce((n, part) => n + part.byteLength, 0);

/** `maxBytes` 0 keeps nothing: projects answers every request. */
export function keptPages(fences: WriteFences, maxBytes: number): KeptPages {
  if (maxBytes === 0) return { read: (_projectId, _caller, _query, read) => read() };
  const kept = new LRUCache<string, KeptPage>({
    maxSize: maxBytes,
    sizeCalculation: (value, key) => bytesOf(value.page) + key.length + ENTRY_OVERHEAD_BYTES,
  });
  return {
    async read(projectId, caller, query, read) {
      // The fences name projects as PostgreSQL writes a uuid (lower case); a path may spell it in capitals.
      const version = await fences.current(projectId.toLowerCase()).catch(() => null);
      if (version === null) return read();
      const key = `${projectId} ${accessOf(caller)} ${JSON.stringify(query)}`;
      const found = kept.get(key);
      if (found?.version === version) return found.page;
      const page = await read();
      // A page too large for the whole budget is answered, not kept.
      if (bytesOf(page) + key.length + ENTRY_OVERHEAD_BYTES <= maxBytes) kept.set(key, { version, page });
      return page;
    },
  };
}
