// CycloneDX 1.6 from the inventory: the mapping of a row to a component (one object, keys in the schema's order)
// and the two writers (JSON, XML) that emit a document piece by piece. The library's Spec and SPDX tables decide
// what 1.6 accepts (component types, hash algorithms and values, SPDX license ids), so the mapping cannot drift
// from the schemas the tests validate against.
import { SPDX, Spec } from "@cyclonedx/cyclonedx-library";
import {
  CYCLONEDX_VERSION,
  documentUuidOf,
  type SbomComponent,
  type SbomDocumentFacts,
  type SbomEdgeTarget,
  type SbomRoot,
} from "./export-format.ts";
import type { SbomWriter } from "./sbom-writer.ts";
import { wellFormedCpe } from "./cpe.ts";
import { xmlAttribute, xmlText } from "./xml-text.ts";

const SPEC = Spec.Spec1dot6;
export const TOOL_NAME = "sca-portal";

export interface CdxHash {
  alg: string;
  content: string;
}
export type CdxLicense =
  | { license: { id: string; acknowledgement: "declared" | "concluded" } }
  | { expression: string; acknowledgement: "declared" | "concluded" };

/** The component's fields in the order the schemas list them; absent fields are left out. */
export interface CdxComponent {
  type: string;
  "bom-ref": string;
  supplier?: { name: string };
  authors?: { name: string }[];
  group?: string;
  name: string;
  version?: string;
  description?: string;
  scope?: "required" | "optional";
  hashes?: CdxHash[];
  licenses?: CdxLicense[];
  cpe?: string;
  purl?: string;
}

/** A type 1.6 does not know (SPDX purposes such as source, archive, install, other) is written as library. */
export function cdxTypeOf(type: string | null): string {
  return type !== null && SPEC.supportsComponentType(type) ? type : "library";
}

/** The hashes 1.6 accepts (its algorithms, its hex lengths), sorted by algorithm then value, once each. */
export function cdxHashesOf(hashes: SbomComponent["hashes"]): CdxHash[] {
  const seen = new Set<string>();
  const out: CdxHash[] = [];
  for (const h of hashes) {
    const content = h.value.toLowerCase();
    if (!SPEC.supportsHashAlgorithm(h.algorithm) || !SPEC.supportsHashValue(content)) continue;
    const id = `${h.algorithm}\n${content}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ alg: h.algorithm, content });
  }
  return out.sort((a, b) => compare(a.alg, b.alg) || compare(a.content, b.content));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * CycloneDX 1.6 holds either a list of licenses (each an SPDX id or a name) or exactly one expression. When every
 * license the component has is a single SPDX id, each is a `license.id` with its acknowledgement (declared,
 * concluded); otherwise one `expression`: the concluded one when known (what the inventory shows as `license`),
 * else the declared one.
 */
export function cdxLicensesOf(declared: string | null, concluded: string | null): CdxLicense[] {
  const given = [
    ...(declared !== null ? [{ expr: declared, acknowledgement: "declared" as const }] : []),
    ...(concluded !== null ? [{ expr: concluded, acknowledgement: "concluded" as const }] : []),
  ];
  if (!given.length) return [];
  if (given.every((g) => SPDX.isSupportedSpdxId(g.expr)))
    return given.map((g) => ({ license: { id: g.expr, acknowledgement: g.acknowledgement } }));
  const chosen = concluded !== null ? given[given.length - 1]! : given[0]!;
  return [{ expression: chosen.expr, acknowledgement: chosen.acknowledgement }];
}

export function cdxComponentOf(c: SbomComponent): CdxComponent {
  const out: CdxComponent = { type: cdxTypeOf(c.type), "bom-ref": c.key, name: c.name };
  // Rebuilt in the schema's order: JSON.stringify writes keys in insertion order.
  const hashes = cdxHashesOf(c.hashes);
  const licenses = cdxLicensesOf(c.declaredLicense, c.concludedLicense);
  const cpe = wellFormedCpe(c.cpe);
  return {
    type: out.type,
    "bom-ref": out["bom-ref"],
    ...(c.supplier !== null ? { supplier: { name: c.supplier } } : {}),
    ...(c.author !== null ? { authors: [{ name: c.author }] } : {}),
    ...(c.group !== null ? { group: c.group } : {}),
    name: c.name,
    ...(c.version !== null ? { version: c.version } : {}),
    ...(c.description !== null ? { description: c.description } : {}),
    ...(c.dependencyScope !== null ? { scope: c.dependencyScope } : {}),
    ...(hashes.length ? { hashes } : {}),
    ...(licenses.length ? { licenses } : {}),
    ...(cpe !== null ? { cpe } : {}),
    ...(c.purl !== null ? { purl: c.purl } : {}),
  };
}

export function cdxRootOf(root: SbomRoot): CdxComponent {
  return {
    type: "application",
    "bom-ref": root.ref,
    name: root.name,
    ...(root.version !== null ? { version: root.version } : {}),
    ...(root.purl !== null ? { purl: root.purl } : {}),
  };
}

export function cdxSerialNumberOf(scanId: string): string {
  return `urn:uuid:${documentUuidOf(scanId)}`;
}

/** Properties of the document's metadata: where it came from. */
export function cdxMetadataProperties(facts: SbomDocumentFacts): { name: string; value: string }[] {
  return [
    { name: "sca-portal:scan_id", value: facts.scanId },
    { name: "sca-portal:source_format", value: `${facts.sourceFormat} ${facts.sourceSpecVersion}`.trim() },
  ];
}

const json = (value: unknown) => JSON.stringify(value);

/** metadata.tools' one component: the portal, with SERVICE_VERSION when the deployment gives its identity. */
function cdxToolOf(facts: SbomDocumentFacts): { type: "application"; name: string; version?: string } {
  const version = facts.identity?.toolVersion;
  return { type: "application", name: TOOL_NAME, ...(version !== undefined ? { version } : {}) };
}

/**
 * CycloneDX JSON: one line per component and per dependency entry, so a large document streams and diffs well.
 * Each piece is JSON.stringify of a plain object built in a fixed key order.
 */
export function cycloneDxJsonWriter(facts: SbomDocumentFacts): SbomWriter {
  let components = 0;
  let dependencies = 0;
  const head = {
    $schema: `http://cyclonedx.org/schema/bom-${CYCLONEDX_VERSION}.schema.json`,
    bomFormat: "CycloneDX",
    specVersion: CYCLONEDX_VERSION,
    serialNumber: cdxSerialNumberOf(facts.scanId),
    version: 1,
    metadata: {
      timestamp: facts.ingestedAt.toISOString(),
      tools: { components: [cdxToolOf(facts)] },
      ...(facts.identity?.author ? { authors: [{ name: facts.identity.author }] } : {}),
      component: cdxRootOf(facts.root),
      properties: cdxMetadataProperties(facts),
    },
  };
  return {
    begin: () => `${json(head).slice(0, -1)},"components":[`,
    component: (c) => `${components++ ? "," : ""}\n${json(cdxComponentOf(c))}`,
    endComponents: () => `${components ? "\n" : ""}]${facts.hasGraph ? ',"dependencies":[' : ""}`,
    dependencies(from, to) {
      if (!facts.hasGraph) return "";
      const entry = { ref: from?.key ?? facts.root.ref, ...(to.length ? { dependsOn: to.map((t) => t.key) } : {}) };
      return `${dependencies++ ? "," : ""}\n${json(entry)}`;
    },
    end: () => `${facts.hasGraph ? `${dependencies ? "\n" : ""}]` : ""}}\n`,
  };
}

function xmlElement(name: string, value: string | undefined, indent: string): string {
  return value === undefined ? "" : `${indent}<${name}>${xmlText(value)}</${name}>\n`;
}

/** The component element, children in the XSD's sequence. */
export function cdxComponentXml(c: CdxComponent, indent: string): string {
  const i = `${indent}  `;
  let out = `${indent}<component type="${xmlAttribute(c.type)}" bom-ref="${xmlAttribute(c["bom-ref"])}">\n`;
  if (c.supplier) out += `${i}<supplier>\n${xmlElement("name", c.supplier.name, `${i}  `)}${i}</supplier>\n`;
  if (c.authors) {
    out += `${i}<authors>\n`;
    for (const a of c.authors) out += `${i}  <author>\n${xmlElement("name", a.name, `${i}    `)}${i}  </author>\n`;
    out += `${i}</authors>\n`;
  }
  out += xmlElement("group", c.group, i);
  out += xmlElement("name", c.name, i);
  out += xmlElement("version", c.version, i);
  out += xmlElement("description", c.description, i);
  out += xmlElement("scope", c.scope, i);
  if (c.hashes) {
    out += `${i}<hashes>\n`;
    for (const h of c.hashes) out += `${i}  <hash alg="${xmlAttribute(h.alg)}">${xmlText(h.content)}</hash>\n`;
    out += `${i}</hashes>\n`;
  }
  if (c.licenses) {
    out += `${i}<licenses>\n`;
    for (const l of c.licenses)
      out +=
        "license" in l
          ? `${i}  <license acknowledgement="${l.license.acknowledgement}">\n${xmlElement("id", l.license.id, `${i}    `)}${i}  </license>\n`
          : `${i}  <expression acknowledgement="${l.acknowledgement}">${xmlText(l.expression)}</expression>\n`;
    out += `${i}</licenses>\n`;
  }
  out += xmlElement("cpe", c.cpe, i);
  out += xmlElement("purl", c.purl, i);
  return `${out}${indent}</component>\n`;
}

/** CycloneDX XML, the same content as the JSON writer's. */
export function cycloneDxXmlWriter(facts: SbomDocumentFacts): SbomWriter {
  const tool = cdxToolOf(facts);
  const properties = cdxMetadataProperties(facts)
    .map((p) => `      <property name="${xmlAttribute(p.name)}">${xmlText(p.value)}</property>\n`)
    .join("");
  const dependencyXml = (from: SbomComponent | null, to: SbomEdgeTarget[]) => {
    const ref = xmlAttribute(from?.key ?? facts.root.ref);
    if (!to.length) return `    <dependency ref="${ref}"/>\n`;
    const children = to.map((t) => `      <dependency ref="${xmlAttribute(t.key)}"/>\n`).join("");
    return `    <dependency ref="${ref}">\n${children}    </dependency>\n`;
  };
  return {
    begin: () =>
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<bom xmlns="http://cyclonedx.org/schema/bom/${CYCLONEDX_VERSION}" serialNumber="${cdxSerialNumberOf(facts.scanId)}" version="1">\n` +
      "  <metadata>\n" +
      `    <timestamp>${facts.ingestedAt.toISOString()}</timestamp>\n` +
      "    <tools>\n      <components>\n" +
      `        <component type="application">\n${xmlElement("name", tool.name, "          ")}` +
      `${xmlElement("version", tool.version, "          ")}        </component>\n` +
      "      </components>\n    </tools>\n" +
      (facts.identity?.author
        ? `    <authors>\n      <author>\n${xmlElement("name", facts.identity.author, "        ")}      </author>\n    </authors>\n`
        : "") +
      cdxComponentXml(cdxRootOf(facts.root), "    ") +
      `    <properties>\n${properties}    </properties>\n` +
      "  </metadata>\n" +
      "  <components>\n",
    component: (c) => cdxComponentXml(cdxComponentOf(c), "    "),
    endComponents: () => `  </components>\n${facts.hasGraph ? "  <dependencies>\n" : ""}`,
    dependencies: (from, to) => (facts.hasGraph ? dependencyXml(from, to) : ""),
    end: () => `${facts.hasGraph ? "  </dependencies>\n" : ""}</bom>\n`,
  };
}
