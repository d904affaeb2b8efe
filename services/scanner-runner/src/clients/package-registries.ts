// The latest version of packages from their registries (docs/enrichment-feeds.md, "Currency") and the license of
// releases (docs/license-fetch.md): one GET per package (a Maven release's POM and parents, PyPI's release document)
// under the registry's configured base URL, a few at a time, each bounded in time and size; answers are kept an hour
// in memory (bounded), so a rescan or another project holding the same packages asks nobody again. A license lookup
// that reads the document the currency lookup reads too (npm's packument, PyPI's project, crates.io's crate) keeps
// its latest release as well, so the scan's later currency stage asks nobody for it. A registry that fails, answers
// 404 or answers something unreadable gives no latest version and no license. A registry host that leaves
// UNREACHABLE_AFTER requests in a row unanswered (an air-gapped install, a mirror down) is not asked for
// UNREACHABLE_MS: its releases answer "could not be asked" at once rather than each waiting out its timeout.
import type { PackageVersion } from "@sca/purl-package";
import { LRUCache } from "lru-cache";
import { downloadBytes, FeedDownloadError } from "./feed-download.ts";
import {
  latestReleaseOf,
  latestUrlOf,
  registryOf,
  type LatestRelease,
  type Registry,
  type RegistryBases,
} from "../domain/currency/registries.ts";
import {
  LICENSE_REGISTRIES,
  licenseReadingOf,
  licenseUrlsOf,
  MAVEN_PARENT_DEPTH,
  pomUrlOf,
  type LicenseReading,
  type RegistryLicense,
} from "../domain/licenses/registry-licenses.ts";

export interface LookupLimits {
  /** Per request: CURRENCY_LOOKUP_TIMEOUT_SECONDS, LICENSE_FETCH_TIMEOUT_SECONDS. */
  timeoutMs: number;
  /** Requests in flight at once: CURRENCY_LOOKUP_CONCURRENCY, LICENSE_FETCH_CONCURRENCY. */
  concurrency: number;
}

/** The registries' base URLs (PACKAGE_REGISTRY_*_URL) and the currency lookup's limits (the default ones). */
export interface RegistryLookupOptions extends LookupLimits {
  bases: RegistryBases;
}

/** A registry document past this size is refused (npm's packuments of busy packages run to a few MiB). */
const DOCUMENT_MAX_BYTES = 16 * 1024 ** 2;
const CACHE_MS = 60 * 60 * 1000;
const CACHE_MAX_BYTES = 8 * 1024 ** 2;
const USER_AGENT = "sca-portal-scanner-runner (currency and license lookup)";
/** Requests in a row a host left unanswered (unreachable, or past the timeout) after which it is not asked. */
const UNREACHABLE_AFTER = 8;
const UNREACHABLE_MS = 5 * 60 * 1000;

export interface PackageName {
  ecosystem: string;
  name: string;
}

export const packageNameKey = (p: PackageName): string => `${p.ecosystem}\u0000${p.name}`;
export const packageReleaseKey = (p: PackageVersion): string => `${p.ecosystem}\u0000${p.name}\u0000${p.version}`;

/** A release's license as its registry states it, and which registry said so. */
export interface FetchedLicense extends RegistryLicense {
  registry: Registry;
}

/**
 * At most CACHE_MAX_BYTES of entries (the key and the value's JSON as UTF-16), each for CACHE_MS; the least recently
 * used go first.
 */
class TimedCache<V extends object | null> {
  readonly #entries = new LRUCache<string, { value: V }>({
    maxSize: CACHE_MAX_BYTES,
    ttl: CACHE_MS,
    sizeCalculation: (entry, key) => 2 * (key.length + JSON.stringify(entry.value).length) + 128,
  });

  get(key: string): { value: V } | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    this.#entries.set(key, { value });
  }
}

/** Per registry host: requests left unanswered in a row, and until when it is not asked. */
class HostReachability {
  readonly #hosts = new Map<string, { unanswered: number; downUntil: number }>();

  isDown(url: string): boolean {
    return (this.#hosts.get(originOf(url))?.downUntil ?? 0) > Date.now();
  }

  answered(url: string): void {
    this.#hosts.delete(originOf(url));
  }

  unanswered(url: string): void {
    const origin = originOf(url);
    const host = this.#hosts.get(origin) ?? { unanswered: 0, downUntil: 0 };
    host.unanswered++;
    // After the pause one more unanswered request is enough to pause again.
    if (host.unanswered >= UNREACHABLE_AFTER) host.downUntil = Date.now() + UNREACHABLE_MS;
    this.#hosts.set(origin, host);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The work queue's runner: `concurrency` workers, stopping when the signal aborts. */
async function eachAtMost<T>(items: T[], concurrency: number, signal: AbortSignal, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export class PackageRegistries {
  readonly #opts: RegistryLookupOptions;
  /** Latest releases by document URL. */
  readonly #latest = new TimedCache<LatestRelease | null>();
  /** Licenses by release (packageReleaseKey), and a POM's reading by its URL (parents are shared by many). */
  readonly #licenses = new TimedCache<FetchedLicense | null>();
  readonly #poms = new TimedCache<LicenseReading | null>();
  /** Documents being fetched: two releases of one package (or a parent POM shared by two) ask once. */
  readonly #inFlight = new Map<string, Promise<Buffer | null>>();
  readonly #reachability = new HostReachability();

  constructor(opts: RegistryLookupOptions) {
    this.#opts = opts;
  }

  /**
   * The latest release of each package whose ecosystem has a registry (keyed by packageNameKey; null: the registry
   * could not say). Stops asking when `signal` aborts: packages not reached are absent from the answer.
   */
  async latestOf(packages: readonly PackageName[], signal: AbortSignal): Promise<Map<string, LatestRelease | null>> {
    const out = new Map<string, LatestRelease | null>();
    const queue: { key: string; url: string; registry: Registry }[] = [];
    const seen = new Set<string>();
    for (const p of packages) {
      const key = packageNameKey(p);
      if (seen.has(key)) continue;
      seen.add(key);
      const registry = registryOf(p.ecosystem);
      const url = registry && latestUrlOf(registry, this.#opts.bases[registry], p.name);
      const cached = url ? this.#latest.get(url) : undefined;
      if (cached) out.set(key, cached.value);
      else if (registry && url) queue.push({ key, url, registry });
      else if (registry) out.set(key, null);
    }
    await eachAtMost(queue, this.#opts.concurrency, signal, async ({ key, url, registry }) => {
      const body = await this.#get(url, this.#opts.timeoutMs, signal);
      if (signal.aborted) return;
      const latest = body ? this.#readLatest(registry, body) : null;
      this.#latest.set(url, latest);
      out.set(key, latest);
    });
    return out;
  }

  /**
   * The license each release's registry states (keyed by packageReleaseKey; null: it states none, or could not be
   * reached). Releases of ecosystems whose registry publishes no license are absent, and so are those not reached
   * when `signal` aborts.
   */
  async licensesOf(
    releases: readonly PackageVersion[],
    signal: AbortSignal,
    limits: LookupLimits = this.#opts,
  ): Promise<Map<string, FetchedLicense | null>> {
    const out = new Map<string, FetchedLicense | null>();
    const queue: { key: string; release: PackageVersion; registry: Registry; urls: string[] }[] = [];
    const seen = new Set<string>();
    for (const release of releases) {
      const key = packageReleaseKey(release);
      if (seen.has(key)) continue;
      seen.add(key);
      const registry = registryOf(release.ecosystem);
      if (!registry || !LICENSE_REGISTRIES.includes(registry)) continue;
      const cached = this.#licenses.get(key);
      if (cached) {
        out.set(key, cached.value);
        continue;
      }
      const urls = licenseUrlsOf(registry, this.#opts.bases[registry], release.name, release.version);
      if (urls) queue.push({ key, release, registry, urls });
      else out.set(key, null);
    }
    await eachAtMost(queue, limits.concurrency, signal, async ({ key, release, registry, urls }) => {
      const license = await this.#fetchLicense(registry, release, urls, limits.timeoutMs, signal);
      if (signal.aborted) return;
      this.#licenses.set(key, license);
      out.set(key, license);
    });
    return out;
  }

  async #fetchLicense(
    registry: Registry,
    release: PackageVersion,
    urls: string[],
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<FetchedLicense | null> {
    if (registry === "maven") return this.#pomLicense(urls[0]!, timeoutMs, signal);
    const latestUrl = latestUrlOf(registry, this.#opts.bases[registry], release.name);
    for (const url of urls) {
      const body = await this.#get(url, timeoutMs, signal);
      // The currency lookup's own document: its latest release is kept for that stage.
      if (url === latestUrl && !signal.aborted) this.#latest.set(url, body && this.#readLatest(registry, body));
      if (!body) continue;
      const { license } = licenseReadingOf(registry, body, release.version);
      if (license) return { ...license, registry };
    }
    return null;
  }

  /** A POM's license, else its parent's, up to MAVEN_PARENT_DEPTH parents. */
  async #pomLicense(url: string, timeoutMs: number, signal: AbortSignal): Promise<FetchedLicense | null> {
    let next: string | null = url;
    for (let depth = 0; next && depth <= MAVEN_PARENT_DEPTH && !signal.aborted; depth++) {
      let reading: LicenseReading | null | undefined = this.#poms.get(next)?.value;
      if (reading === undefined) {
        const body = await this.#get(next, timeoutMs, signal);
        reading = body ? licenseReadingOf("maven", body, "") : null;
        if (signal.aborted) return null;
        this.#poms.set(next, reading);
      }
      if (reading?.license) return { ...reading.license, registry: "maven" };
      next = reading?.parent ? pomUrlOf(this.#opts.bases.maven, reading.parent) : null;
    }
    return null;
  }

  #readLatest(registry: Registry, body: Buffer): LatestRelease | null {
    try {
      return latestReleaseOf(registry, body);
    } catch {
      return null;
    }
  }

  /**
   * The document's bytes, or null when the registry fails, answers non-2xx or is too slow, or `signal` aborts. A
   * download shared by several callers is not stopped by one caller's signal (another job may still want it); its
   * own timeout bounds it. A host that stopped answering is not asked (null at once).
   */
  async #get(url: string, timeoutMs: number, signal: AbortSignal): Promise<Buffer | null> {
    if (signal.aborted || this.#reachability.isDown(url)) return null;
    let pending = this.#inFlight.get(url);
    if (!pending) {
      pending = this.#download(url, timeoutMs).finally(() => this.#inFlight.delete(url));
      this.#inFlight.set(url, pending);
    }
    let onAbort = () => {};
    const aborted = new Promise<null>((resolve) => {
      onAbort = () => resolve(null);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([pending, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async #download(url: string, timeoutMs: number): Promise<Buffer | null> {
    try {
      const body = await downloadBytes(url, DOCUMENT_MAX_BYTES, {
        timeoutMs,
        // crates.io refuses requests that do not say who asks.
        headers: { "user-agent": USER_AGENT, accept: "application/json, application/xml;q=0.9" },
      });
      this.#reachability.answered(url);
      return body;
    } catch (err) {
      if (err instanceof FeedDownloadError && err.unanswered) this.#reachability.unanswered(url);
      else this.#reachability.answered(url);
      return null;
    }
  }
}
