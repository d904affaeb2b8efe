// CycloneDX documents of real vulnerable package names (the scanner-runner's vendored advisories, through its
// matcher fixture), so that matching them makes findings, and the number of findings the same advisories give.
import { create } from "@bufbuild/protobuf";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import { PackageURL } from "packageurl-js";
import { InventoryRecordSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type { VulnerabilityMatcherFixture } from "@sca/testkit";

/** A deterministic pseudo-random pick of `n` distinct entries of `pool`. */
export function pick(pool: string[], n: number, seed: number): string[] {
  let s = seed >>> 0 || 1;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(n, pool.length)) {
    s = (s * 1664525 + 1013904223) >>> 0;
    chosen.add(s % pool.length);
  }
  return [...chosen].map((i) => pool[i]!);
}

/** An SBOM of `n` distinct real vulnerable package names at several versions, and the findings it must give. */
export function vulnerableSbom(
  matcher: VulnerabilityMatcherFixture,
  n: number,
  seed: number,
): { bytes: Buffer; expected: number } {
  const pool = matcher.samplePurls();
  // The pool alone is a few thousand names: each at several versions (enough of them for n distinct purls).
  const versions = ["", ...Array.from({ length: Math.ceil(n / pool.length) + 4 }, (_, i) => `${i + 1}.0.0`)];
  const versioned = versions.flatMap((v) =>
    pool.map((purl) => (v ? `${purl.slice(0, purl.lastIndexOf("@"))}@${v}` : purl)),
  );
  return sbomOf(matcher, pick(versioned, n, seed));
}

/**
 * An SBOM of `n` distinct package versions that the advisories affect, as many findings as the vendored set gives
 * (about 2.6 per component): every affected name at its lowest versions (0.0.1, 0.0.2, ...), before most fixes.
 */
export function findingHeavySbom(matcher: VulnerabilityMatcherFixture, n: number): { bytes: Buffer; expected: number } {
  const names = matcher.samplePurls().map((purl) => purl.slice(0, purl.lastIndexOf("@")));
  const purls: string[] = [];
  for (let patch = 1; purls.length < n && patch < 1000; patch++)
    for (const name of names) {
      const purl = `${name}@0.0.${patch}`;
      if (purls.length < n && matcher.scanMatches([purl]).findingCount > 0) purls.push(purl);
    }
  return sbomOf(matcher, purls);
}

function sbomOf(matcher: VulnerabilityMatcherFixture, purls: string[]): { bytes: Buffer; expected: number } {
  // One finding per component and vulnerability (the SBOM's components are distinct package versions).
  const expected = matcher.scanMatches(purls).findingCount;
  const bytes = Buffer.from(
    JSON.stringify({
      bomFormat: "CycloneDX",
      specVersion: "1.6",
      version: 1,
      components: purls.map((purl) => {
        const p = PackageURL.fromString(purl);
        return { type: "library", "bom-ref": purl, name: p.name, version: p.version, purl };
      }),
    }),
  );
  return { bytes, expected };
}

/** The inventory artefact the scanner-runner would hand over for these purls (one component each, no graph). */
export function artefactOf(purls: string[]): Uint8Array {
  const record = (r: Parameters<typeof create<typeof InventoryRecordSchema>>[1]) =>
    sizeDelimitedEncode(InventoryRecordSchema, create(InventoryRecordSchema, r));
  return Buffer.concat([
    record({
      record: { case: "document", value: { format: "cyclonedx-json", specVersion: "1.6", graphRooted: false } },
    }),
    ...purls.map((purl) => {
      const p = PackageURL.fromString(purl);
      return record({
        record: { case: "component", value: { key: purl, name: p.name, version: p.version ?? "", purl } },
      });
    }),
  ]);
}
