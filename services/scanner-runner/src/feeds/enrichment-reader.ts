// The feeds as the rest of the runner reads them (the matcher): EPSS scores and KEV entries of CVEs, a component's
// end-of-life verdict and a package version's malicious verdict. Reads go to the tables, so every instance answers
// from the same, last committed data; the end-of-life dataset (tens of products) is kept a minute in memory.
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  eolVerdictOf,
  productIndexOf,
  purlIdentity,
  purlVersion,
  type EolProduct,
  type EolVerdict,
} from "../domain/feeds/eol.ts";
import { dayOf } from "../domain/feeds/feed-status.ts";
import type { KevEntry } from "../domain/feeds/kev.ts";
import { maliciousVerdictOf, type MaliciousVerdict } from "../domain/feeds/malicious.ts";
import { eolProducts } from "../store/eol-products.ts";
import { epssScoresOf } from "../store/epss-scores.ts";
import { kevEntriesOf } from "../store/kev-entries.ts";
import { maliciousRecordsOf, maliciousRecordsOfPackages } from "../store/malicious-packages.ts";
import { normalisedName } from "@sca/purl-package";
import type { FeedSettings } from "./feed-settings.ts";

const IN_LIST = 1000;
const EOL_CACHE_MS = 60_000;

export interface EpssOfCve {
  score: number;
  percentile: number;
}

export class EnrichmentReader {
  readonly #orm: MikroORM;
  readonly #settings: FeedSettings;
  #eol: { at: number; products: Map<string, EolProduct>; index: Map<string, string> } | undefined;

  constructor(orm: MikroORM, settings: FeedSettings) {
    this.#orm = orm;
    this.#settings = settings;
  }

  /** The EPSS score and percentile of each scored CVE among `cveIds` (unscored ones are absent). */
  async epssOf(cveIds: readonly string[]): Promise<Map<string, EpssOfCve>> {
    const out = new Map<string, EpssOfCve>();
    const ids = [...new Set(cveIds.map((id) => id.toUpperCase()))];
    for (let i = 0; i < ids.length; i += IN_LIST)
      for (const row of await epssScoresOf(this.#orm.em.fork(), ids.slice(i, i + IN_LIST)))
        out.set(row.cveId, { score: Number(row.score), percentile: Number(row.percentile) });
    return out;
  }

  /** The catalog entries of the listed CVEs among `cveIds`. */
  async kevEntriesOf(cveIds: readonly string[]): Promise<Map<string, KevEntry>> {
    const out = new Map<string, KevEntry>();
    const ids = [...new Set(cveIds.map((id) => id.toUpperCase()))];
    for (let i = 0; i < ids.length; i += IN_LIST)
      for (const row of await kevEntriesOf(this.#orm.em.fork(), ids.slice(i, i + IN_LIST))) out.set(row.cveId, row);
    return out;
  }

  async kevEntryOf(cveId: string): Promise<KevEntry | null> {
    return (await this.kevEntriesOf([cveId])).get(cveId.toUpperCase()) ?? null;
  }

  /**
   * The end-of-life verdict of a component named by its purl, at `version` (the purl's when absent), on `today`;
   * null when end-of-life flagging is off or the dataset has no product for the purl.
   */
  async eolOf(purl: string, version?: string, today: Date = new Date()): Promise<EolVerdict | null> {
    if (!this.#settings.eol.enabled) return null;
    const identity = purlIdentity(purl);
    const v = version ?? purlVersion(purl);
    if (!identity || !v) return null;
    const eol = await this.#eolData();
    const name = eol.index.get(identity);
    const product = name ? eol.products.get(name) : undefined;
    return product ? eolVerdictOf(product, v, dayOf(today)) : null;
  }

  /** The malicious verdict of a package version (OSV ecosystem and name); null when the flagging is off. */
  async maliciousVerdict(ecosystem: string, name: string, version: string): Promise<MaliciousVerdict | null> {
    if (!this.#settings.malicious.enabled) return null;
    return maliciousVerdictOf(await maliciousRecordsOf(this.#orm.em.fork(), ecosystem, name), version);
  }

  /**
   * The malicious verdict of each package version (keyed `ecosystem NUL name NUL version`, as given), read in bulk;
   * null when the flagging is off.
   */
  async maliciousVerdicts(
    packages: readonly { ecosystem: string; name: string; version: string }[],
  ): Promise<Map<string, MaliciousVerdict> | null> {
    if (!this.#settings.malicious.enabled) return null;
    const records = await maliciousRecordsOfPackages(this.#orm.em.fork(), packages);
    const out = new Map<string, MaliciousVerdict>();
    for (const p of packages) {
      const named = records.get(`${p.ecosystem}\u0000${normalisedName(p.ecosystem, p.name)}`) ?? [];
      out.set(`${p.ecosystem}\u0000${p.name}\u0000${p.version}`, maliciousVerdictOf(named, p.version));
    }
    return out;
  }

  /** Whether each feed's verdicts are on (EOL_ENABLED, MALICIOUS_ENABLED). */
  get eolEnabled(): boolean {
    return this.#settings.eol.enabled;
  }

  get maliciousEnabled(): boolean {
    return this.#settings.malicious.enabled;
  }

  /** Drops the in-memory end-of-life dataset, so the next verdict reads what a refresh just committed. */
  forgetEolData(): void {
    this.#eol = undefined;
  }

  async #eolData() {
    if (!this.#eol || Date.now() - this.#eol.at > EOL_CACHE_MS) {
      const products = await eolProducts(this.#orm.em.fork());
      this.#eol = {
        at: Date.now(),
        products: new Map(products.map((p) => [p.product, p])),
        index: productIndexOf(products),
      };
    }
    return this.#eol;
  }
}
