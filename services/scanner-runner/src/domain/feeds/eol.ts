// End-of-life rules over the endoflife.date dataset: which product a component is (from its purl), which release
// cycle its version falls in, and whether that cycle has reached its end of life on a given day.
import { PackageURL } from "packageurl-js";

/** A release cycle as endoflife.date writes it (upstream field names; dates "YYYY-MM-DD"). */
export interface EolRelease {
  releaseCycle: string;
  /** true/false, or the date support ends. */
  eol?: boolean | string;
  latest?: string;
}

/** A product file of the dataset: its name, the purls it names and its cycles. */
export interface EolProduct {
  product: string;
  identifiers?: { purl?: string }[];
  releases: EolRelease[];
}

export interface EolVerdict {
  state: "eol" | "supported" | "unknown";
  product: string;
  /** The cycle the version falls in; null when none does (state unknown). */
  cycle: string | null;
  /** When the cycle's support ends (or ended); null when the dataset gives a bare true/false or no cycle matched. */
  date: string | null;
}

/**
 * Packages endoflife.date does not list among a product's identifiers but which are that product: the runtime or
 * framework's own artefact as its ecosystem names it (purl type/namespace/name, lower case).
 */
const EXTRA_PRODUCT_PURLS: Readonly<Record<string, string>> = {
  "npm/electron": "electron",
  "npm/@angular/common": "angular",
  "npm/@angular/compiler": "angular",
  "npm/@angular/router": "angular",
  "npm/@ionic/angular": "ionic",
  "npm/react-dom": "react",
  "maven/org.jetbrains.kotlin/kotlin-stdlib": "kotlin",
  "maven/org.scala-lang/scala-library": "scala",
  "maven/org.scala-lang/scala3-library_3": "scala",
  "maven/org.apache.tomcat.embed/tomcat-embed-core": "tomcat",
  "maven/org.apache.logging.log4j/log4j-api": "log4j",
  "maven/org.springframework/spring-web": "spring-framework",
  "maven/org.springframework/spring-webmvc": "spring-framework",
  "maven/org.springframework.boot/spring-boot-autoconfigure": "spring-boot",
  "composer/symfony/symfony": "symfony",
  "composer/symfony/http-kernel": "symfony",
  "composer/wordpress/wordpress": "wordpress",
  "gem/railties": "ruby-on-rails",
  "gem/activesupport": "ruby-on-rails",
  "golang/go": "go",
};

/** A purl's identity without version or qualifiers: `type/namespace/name` (lower case), or null when unreadable. */
export function purlIdentity(purl: string): string | null {
  try {
    const p = PackageURL.fromString(purl);
    return [p.type, p.namespace, p.name]
      .filter((s): s is string => !!s)
      .join("/")
      .toLowerCase();
  } catch {
    return null;
  }
}

/** The version a purl carries, or null. */
export function purlVersion(purl: string): string | null {
  try {
    return PackageURL.fromString(purl).version ?? null;
  } catch {
    return null;
  }
}

/** The product of each purl identity: the dataset's own identifiers first, then EXTRA_PRODUCT_PURLS. */
export function productIndexOf(products: readonly EolProduct[]): Map<string, string> {
  const known = new Set(products.map((p) => p.product));
  const index = new Map<string, string>();
  for (const [identity, product] of Object.entries(EXTRA_PRODUCT_PURLS))
    if (known.has(product)) index.set(identity, product);
  for (const p of products)
    for (const id of p.identifiers ?? []) {
      const identity = id.purl ? purlIdentity(id.purl) : null;
      if (identity) index.set(identity, p.product);
    }
  return index;
}

/** The version as cycles are compared: no leading `v`, no Debian/RPM epoch. */
function bareVersion(version: string): string {
  return version
    .trim()
    .replace(/^v(?=\d)/i, "")
    .replace(/^\d+:/, "");
}

/** The cycle a version falls in: the longest releaseCycle that is the version or a prefix of it ending at a separator. */
export function cycleOf(releases: readonly EolRelease[], version: string): EolRelease | null {
  const v = bareVersion(version);
  let best: EolRelease | null = null;
  for (const r of releases) {
    const cycle = String(r.releaseCycle);
    const matches = v === cycle || (v.startsWith(cycle) && /^[.\-+~_]/.test(v.slice(cycle.length)));
    if (matches && (!best || cycle.length > String(best.releaseCycle).length)) best = r;
  }
  return best;
}

/** The verdict for a version of a product on `today` ("YYYY-MM-DD"): an eol date on or before today is eol. */
export function eolVerdictOf(product: EolProduct, version: string, today: string): EolVerdict {
  const release = cycleOf(product.releases, version);
  if (!release) return { state: "unknown", product: product.product, cycle: null, date: null };
  const cycle = String(release.releaseCycle);
  const eol = release.eol;
  if (typeof eol === "string" && /^\d{4}-\d{2}-\d{2}$/.test(eol))
    return { state: eol <= today ? "eol" : "supported", product: product.product, cycle, date: eol };
  if (eol === true) return { state: "eol", product: product.product, cycle, date: null };
  if (eol === false) return { state: "supported", product: product.product, cycle, date: null };
  return { state: "unknown", product: product.product, cycle, date: null };
}

/** Release cycles over every product: the panel's rule_count. */
export function ruleCountOf(products: readonly EolProduct[]): number {
  return products.reduce((n, p) => n + p.releases.length, 0);
}

/**
 * A product file as the vendored snapshot writes it (`{product, releases: [{releaseCycle, ...}]}`) or as
 * endoflife.date's API v0 answers (`[{cycle, eol, ...}]`), checked; null when it is neither.
 */
export function readEolProduct(name: string, json: unknown): EolProduct | null {
  const cycles: unknown = Array.isArray(json) ? json : (json as { releases?: unknown } | null)?.releases;
  if (!Array.isArray(cycles)) return null;
  const releases: EolRelease[] = [];
  for (const c of cycles as Record<string, unknown>[]) {
    const cycle = c?.releaseCycle ?? c?.cycle;
    if (typeof cycle !== "string" && typeof cycle !== "number") return null;
    const eol = c.eol;
    if (eol !== undefined && typeof eol !== "boolean" && typeof eol !== "string") return null;
    releases.push({
      releaseCycle: String(cycle),
      ...(eol === undefined ? {} : { eol }),
      ...(typeof c.latest === "string" ? { latest: c.latest } : {}),
    });
  }
  const identifiers = (json as { identifiers?: unknown }).identifiers as { purl?: unknown }[] | undefined;
  return {
    product: name,
    releases,
    ...(Array.isArray(identifiers)
      ? { identifiers: identifiers.filter((i): i is { purl: string } => typeof i?.purl === "string") }
      : {}),
  };
}

/** A product name safe to put in a URL and a file name (endoflife.date's are lower-case words with dashes). */
export function isProductName(name: string): boolean {
  return /^[a-z0-9][a-z0-9.-]{0,63}$/.test(name);
}
