// Our matcher against an oracle we did not write (issue 8, docs/osv-oracle.md): every real SBOM of shared/data/sbom
// is read by our SBOM reader and matched over the vendored advisories, and OSV-Scanner runs offline on the same file
// with a database made from the same advisories. The findings, as (ecosystem, name, version, vulnerability) with
// vulnerabilities compared as alias groups, must be equal, or each difference is one of the reasoned rows below:
// a new difference, or an explained one that went away, fails the test.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { osvScannerFindings, sharedDir } from "@sca/testkit";
import { readAdvisory, type Advisory } from "../src/domain/vulndb/advisory.ts";
import { normalisedName } from "@sca/purl-package";
import { AdvisoryIndex } from "../src/domain/vulndb/matcher.ts";
import { scanVerdictsOf } from "../src/domain/vulndb/scan-verdicts.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { advisoryDocuments } from "../src/vulndb/advisory-source.ts";
import { VENDORED_SNAPSHOT } from "../src/vulndb/advisory-database.ts";

const SBOM_DIR = join(sharedDir(), "data", "sbom");

/** Inputs OSV-Scanner reads nothing from; our findings on them must be none, or be explained below. */
const ORACLE_CANNOT_READ: Record<string, string> = {
  "cyclonedx/ascii-boxes.cdx-1.4.json": "its 2 components have neither purl nor CPE (we cannot match them either)",
  "spdx/julia.spdx-2.2.json": "no package has a purl or CPE external reference (nor for us)",
  "spdx/kubernetes-v1.25.4-release.spdx": "tag-value without ExternalRef lines: no purls (nor for us)",
  "spdx/spdx-examples-appbomination.spdx-3.0.json":
    "SPDX 3.0 JSON-LD is not supported by OSV-Scanner; its packages have no purl",
  "spdx/spdx-examples-examplemaven-0.0.1-enriched.spdx-2.3.json": "no external references on its packages (nor for us)",
};

/**
 * Documents OSV-Scanner's SPDX parser (spdx/tools-golang) rejects for a field SPDX 2.2 requires and that matching
 * never reads: it is given a copy with only that field repaired, so it still answers for every package.
 */
const ORACLE_INPUT_REPAIRS: Record<string, { why: string; repair: (doc: SpdxJson) => void }> = {
  "spdx/flux-0.26.3.spdx-2.2.json": {
    why: 'SPDXIDs without the "SPDXRef-" prefix ("failed to parse ElementID: 50791f8ccfdc13e2"): the prefix is added',
    repair: (doc) => {
      const fix = (id: unknown) =>
        typeof id === "string" && !/^(SPDXRef-|DocumentRef-|NONE$|NOASSERTION$)/.test(id) ? `SPDXRef-${id}` : id;
      for (const list of [doc.packages, doc.files]) for (const e of list ?? []) e.SPDXID = fix(e.SPDXID);
      for (const r of doc.relationships ?? []) {
        r.spdxElementId = fix(r.spdxElementId);
        r.relatedSpdxElement = fix(r.relatedSpdxElement);
      }
    },
  },
  "spdx/grype-v0.32.0.spdx-2.2.json": {
    why: 'originators without "Person:"/"Organization:" ("failed to parse Originator \'Georg Brandl …\'"): "Person: " is added',
    repair: (doc) => {
      for (const p of doc.packages ?? [])
        if (typeof p.originator === "string" && !/^(Person: |Organization: |NOASSERTION$)/.test(p.originator))
          p.originator = `Person: ${p.originator}`;
    },
  },
};
type SpdxJson = {
  packages?: Record<string, unknown>[];
  files?: Record<string, unknown>[];
  relationships?: Record<string, unknown>[];
};

interface ExplainedDifference {
  input: string;
  /** Which side has the finding the other lacks. */
  onlyIn: "ours" | "oracle";
  ecosystem: string;
  /** Normalised as the matcher does (normalisedName). */
  name: string;
  version: string;
  /** Our canonical vulnerability id, or "*" with `count` for every vulnerability of that package version. */
  vulnerability: string;
  count?: number;
  why: string;
}

/** Every difference between our findings and OSV-Scanner's, with the reason; ours is right in each. */
const EXPLAINED_DIFFERENCES: ExplainedDifference[] = [
  {
    input: "spdx/constellation-v2.2.2.spdx-2.2.json",
    onlyIn: "ours",
    ecosystem: "Go",
    name: "github.com/Azure/azure-sdk-for-go/sdk/azidentity",
    version: "v1.1.0",
    vulnerability: "CVE-2024-35255",
    why:
      "OSV-Scanner's purl parser (packageurl-go) lower-cases golang purls, so pkg:golang/github.com/Azure/azure-sdk-for-go/sdk/azidentity " +
      "becomes github.com/azure/…, which GO-2024-2918 (github.com/Azure/…, fixed 1.6.0) does not name: Go module paths are " +
      "case-sensitive, v1.1.0 is affected, OSV-Scanner misses it",
  },
  {
    input: "cyclonedx/traefik.cdx.xml",
    onlyIn: "oracle",
    ecosystem: "Go",
    name: "github.com/traefik/traefik/v2",
    version: "(devel)",
    vulnerability: "*",
    count: 56,
    why:
      'github.com/traefik/traefik/v2@(devel) is the main module built from a working tree: "(devel)" is Go\'s placeholder ' +
      "for no version. OSV-Scanner's lenient Go version parser reads it as a version below every fix, so every traefik " +
      "advisory from introduced 0 matches; our matcher does not guess a version it cannot read (docs/vulnerability-database.md)",
  },
];

const keyOf = (ecosystem: string, name: string, version: string, vulnerability: string) =>
  [ecosystem, normalisedName(ecosystem, name), version, vulnerability].join("|");
/**
 * The key with the name as OSV-Scanner's JSON gives an SBOM package: its purl's name alone (no Maven group, the last
 * segment of a Go path, lower-cased for golang purls). Used only where the oracle could not tell the full name.
 */
const shortKeyOf = (key: string): string => {
  const [ecosystem = "", name = "", ...rest] = key.split("|");
  const short = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf(":")) + 1);
  return [ecosystem, ecosystem === "Go" ? short.toLowerCase() : short, ...rest].join("|");
};

let index: AdvisoryIndex;
/** Any advisory id or alias -> our canonical vulnerability id (the alias group). */
const canonical = new Map<string, string>();
let work: string;

beforeAll(async () => {
  const advisories: Advisory[] = [];
  for await (const doc of advisoryDocuments(VENDORED_SNAPSHOT, new AbortController().signal))
    if (doc.text) advisories.push(readAdvisory(JSON.parse(doc.text)));
  index = new AdvisoryIndex(advisories);
  for (const v of index.vulnerabilities.values()) for (const name of [v.id, ...v.aliases]) canonical.set(name, v.id);
  work = await mkdtemp(join(tmpdir(), "sca-vulndb-oracle-"));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function sbomInputs(): Promise<string[]> {
  const inputs: string[] = [];
  for (const sub of ["cyclonedx", "spdx"])
    for (const file of (await readdir(join(SBOM_DIR, sub))).sort())
      if (file !== "SOURCES.md") inputs.push(`${sub}/${file}`);
  return inputs;
}

async function ourFindings(input: string): Promise<Set<string>> {
  const inventory = readSbom(await readFile(join(SBOM_DIR, input)));
  const { verdicts } = scanVerdictsOf(
    index,
    inventory.components.map((c) => c.purl),
  );
  const keys = new Set<string>();
  for (const { package: p, vulnerabilities } of verdicts)
    for (const v of vulnerabilities) keys.add(keyOf(p.ecosystem, p.name, p.version, v.vulnerabilityId));
  return keys;
}

async function oracleFindings(input: string): Promise<{ read: boolean; reason?: string; keys: Set<string> }> {
  let path = join(SBOM_DIR, input);
  const repair = ORACLE_INPUT_REPAIRS[input];
  if (repair) {
    const doc = JSON.parse(await readFile(path, "utf8")) as SpdxJson;
    repair.repair(doc);
    path = join(work, input.replaceAll("/", "-"));
    await writeFile(path, JSON.stringify(doc));
  }
  const result = await osvScannerFindings({ sbom: path }, { advisoriesDir: VENDORED_SNAPSHOT });
  const keys = new Set<string>();
  for (const f of result.findings) {
    // One OSV-Scanner alias group must be one of ours: ids of two of our groups (or none) show as a difference.
    const groups = [...new Set(f.ids.map((id) => canonical.get(id) ?? `unknown:${id}`))].sort();
    // Its JSON names an SBOM package by its purl's name alone: the full name is the one the matched records give.
    keys.add(keyOf(f.ecosystem, f.advisoryName ?? f.name, f.version, groups.join("+")));
  }
  return { read: result.read, reason: result.reason, keys };
}

/** The differences left once the explained rows are taken out, and the explained rows that did not occur. */
function unexplained(input: string, onlyOurs: string[], onlyOracle: string[]) {
  const left = { ours: new Set(onlyOurs), oracle: new Set(onlyOracle) };
  const notSeen: ExplainedDifference[] = [];
  for (const d of EXPLAINED_DIFFERENCES.filter((e) => e.input === input)) {
    const prefix = keyOf(d.ecosystem, d.name, d.version, "");
    const hits = [...left[d.onlyIn]].filter((k) =>
      d.vulnerability === "*" ? k.startsWith(prefix) : k === prefix + d.vulnerability,
    );
    if (hits.length === 0 || (d.count !== undefined && hits.length !== d.count)) notSeen.push(d);
    for (const k of hits) left[d.onlyIn].delete(k);
  }
  return { onlyOurs: [...left.ours], onlyOracle: [...left.oracle], notSeen };
}

describe("our matcher against OSV-Scanner on every shared SBOM", () => {
  it("finds what OSV-Scanner finds, every difference explained", async () => {
    const report: Record<string, object> = {};
    const counts: Record<string, string> = {};
    for (const input of await sbomInputs()) {
      const ours = await ourFindings(input);
      const oracle = await oracleFindings(input);
      // A finding of ours the oracle has under its full name, or, where the oracle could only give the purl's name
      // (ambiguous records), under that short name.
      const confirmed = new Set<string>();
      const onlyOurs = [...ours]
        .filter((k) => {
          const hit = oracle.keys.has(k) ? k : oracle.keys.has(shortKeyOf(k)) ? shortKeyOf(k) : undefined;
          if (hit) confirmed.add(hit);
          return !hit;
        })
        .sort();
      const onlyOracle = [...oracle.keys].filter((k) => !confirmed.has(k)).sort();
      counts[input] =
        `${oracle.read ? "read" : "unread"} ours ${ours.size} oracle ${oracle.keys.size} differences ${onlyOurs.length + onlyOracle.length}`;
      // An input OSV-Scanner cannot read must be one we know about, and say why.
      if (!oracle.read && !ORACLE_CANNOT_READ[input]) report[input] = { unreadByOracle: oracle.reason };
      if (oracle.read && ORACLE_CANNOT_READ[input]) report[input] = { nowReadByOracle: true };
      const left = unexplained(input, onlyOurs, onlyOracle);
      if (left.onlyOurs.length || left.onlyOracle.length || left.notSeen.length)
        report[input] = { ...report[input], ...left };
    }
    // VULNDB_ORACLE_REPORT=1 prints the per-input figures docs/osv-oracle.md records.
    if (process.env.VULNDB_ORACLE_REPORT) process.stdout.write(`${JSON.stringify(counts, null, 2)}\n`);
    expect(report).toEqual({});
  }, 300_000);

  it("each explained difference names an input that exists", async () => {
    const inputs = new Set(await sbomInputs());
    for (const d of EXPLAINED_DIFFERENCES) expect(inputs.has(d.input)).toBe(true);
    for (const input of [...Object.keys(ORACLE_CANNOT_READ), ...Object.keys(ORACLE_INPUT_REPAIRS)])
      expect(inputs.has(input)).toBe(true);
  });
});
