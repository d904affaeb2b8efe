// The latest version of packages from their registries (docs/enrichment-feeds.md, "Currency"): one GET per package
// under the registry's configured base URL, a few at a time, each bounded in time and size; answers are kept an hour
// in memory (bounded), so a rescan or another project holding the same packages asks nobody again. A registry that
// fails, answers 404 or answers something unreadable gives no latest version (the component's currency is unknown).
import { downloadBytes } from "./feed-download.ts";
import {
  latestReleaseOf,
  latestUrlOf,
  registryOf,
  type LatestRelease,
  type RegistryBases,
} from "../domain/currency/registries.ts";

export interface RegistryLookupOptions {
  bases: RegistryBases;
  /** CURRENCY_LOOKUP_TIMEOUT_SECONDS, per request. */
  timeoutMs: number;
  /** CURRENCY_LOOKUP_CONCURRENCY: requests in flight at once. */
  concurrency: number;
}

/** A registry document past this size is refused (npm's packuments of busy packages run to a few MiB). */
const DOCUMENT_MAX_BYTES = 16 * 1024 ** 2;
const CACHE_MS = 60 * 60 * 1000;
const CACHE_MAX = 20_000;
const USER_AGENT = "sca-portal-scanner-runner (currency lookup)";

export interface PackageName {
  ecosystem: string;
  name: string;
}

export const packageNameKey = (p: PackageName): string => `${p.ecosystem}\u0000${p.name}`;

export class PackageRegistries {
  readonly #opts: RegistryLookupOptions;
  readonly #cache = new Map<string, { at: number; latest: LatestRelease | null }>();

  constructor(opts: RegistryLookupOptions) {
    this.#opts = opts;
  }

  /**
   * The latest release of each package whose ecosystem has a registry (keyed by packageNameKey; null: the registry
   * could not say). Stops asking when `signal` aborts: packages not reached are absent from the answer.
   */
  async latestOf(packages: readonly PackageName[], signal: AbortSignal): Promise<Map<string, LatestRelease | null>> {
    const out = new Map<string, LatestRelease | null>();
    const queue: { key: string; url: string; registry: NonNullable<ReturnType<typeof registryOf>> }[] = [];
    const seen = new Set<string>();
    const now = Date.now();
    for (const p of packages) {
      const key = packageNameKey(p);
      if (seen.has(key)) continue;
      seen.add(key);
      const cached = this.#cache.get(key);
      if (cached && now - cached.at < CACHE_MS) {
        out.set(key, cached.latest);
        continue;
      }
      const registry = registryOf(p.ecosystem);
      const url = registry && latestUrlOf(registry, this.#opts.bases[registry], p.name);
      if (registry && url) queue.push({ key, url, registry });
      else if (registry) out.set(key, null);
    }
    let next = 0;
    const worker = async () => {
      while (next < queue.length && !signal.aborted) {
        const { key, url, registry } = queue[next++]!;
        const latest = await this.#fetchLatest(registry, url, signal);
        if (signal.aborted) return;
        this.#remember(key, latest);
        out.set(key, latest);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#opts.concurrency, queue.length) }, worker));
    return out;
  }

  async #fetchLatest(
    registry: NonNullable<ReturnType<typeof registryOf>>,
    url: string,
    signal: AbortSignal,
  ): Promise<LatestRelease | null> {
    try {
      const body = await downloadBytes(url, DOCUMENT_MAX_BYTES, {
        timeoutMs: this.#opts.timeoutMs,
        signal,
        // crates.io refuses requests that do not say who asks.
        headers: { "user-agent": USER_AGENT, accept: "application/json, application/xml;q=0.9" },
      });
      return latestReleaseOf(registry, body);
    } catch {
      return null;
    }
  }

  #remember(key: string, latest: LatestRelease | null): void {
    this.#cache.delete(key);
    this.#cache.set(key, { at: Date.now(), latest });
    // The oldest entries go first (a Map iterates in insertion order).
    for (const oldest of this.#cache.keys()) {
      if (this.#cache.size <= CACHE_MAX) break;
      this.#cache.delete(oldest);
    }
  }
}
