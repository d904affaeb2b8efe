// CycloneDX XML (namespaces 1.0 to 1.7) converted to the JSON shape readCycloneDx reads. fast-xml-parser runs
// with entity processing off; a DOCTYPE (the only way to declare entities, internal or external) is refused
// before parsing, and the five predefined XML entities and character references are decoded here, bounded by
// the text itself (no expansion can grow it).
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { asArray, asRecord, text } from "./component-fields.ts";
import { SbomReadError } from "./errors.ts";

const PREDEFINED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const CDATA = "__cdata";

function decodeXmlText(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name.startsWith("#x") ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED_ENTITIES[name] ?? whole;
  });
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  cdataPropName: CDATA,
  tagValueProcessor: (_name, value) => decodeXmlText(value),
  attributeValueProcessor: (_name, value) => decodeXmlText(value),
});

const NAMESPACE =
  /<(?:[A-Za-z_][\w.-]*:)?bom\b[^>]*?\bxmlns(?::[A-Za-z_][\w.-]*)?\s*=\s*["']http:\/\/cyclonedx\.org\/schema\/bom\/(\d+\.\d+)["']/;

/** True when the text declares a DOCTYPE or an entity: refused whatever it declares. */
export function declaresDoctype(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

/** The CycloneDX namespace version of the root element ("1.4"), or null when the root is not a CycloneDX bom. */
export function cycloneDxXmlVersion(xml: string): string | null {
  return NAMESPACE.exec(xml.slice(0, 65_536))?.[1] ?? null;
}

/** Text content of an element however the parser shaped it (plain, with attributes, CDATA). */
function contentOf(node: unknown): string | null {
  if (typeof node === "string") return text(node);
  const record = asRecord(node);
  if (!record) return null;
  const parts = [record["#text"], ...asArray(record[CDATA])].filter((p) => typeof p === "string");
  return text(parts.join(""));
}

function childText(node: Record<string, unknown>, name: string): string | null {
  return contentOf(asArray(node[name])[0]);
}

function attribute(node: unknown, name: string): string | null {
  return text(asRecord(node)?.[`@_${name}`]);
}

function list(node: Record<string, unknown> | null, container: string, item: string): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (const holder of asArray(node?.[container])) {
    for (const entry of asArray(asRecord(holder)?.[item])) {
      const record = asRecord(entry) ?? (typeof entry === "string" ? { "#text": entry } : null);
      if (record) records.push(record);
    }
  }
  return records;
}

function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) delete record[key];
  }
  return record;
}

function party(node: unknown): Record<string, unknown> | null {
  const record = asRecord(node);
  if (!record) return null;
  return withoutNulls({
    name: childText(record, "name"),
    url: asArray(record.url).map(contentOf).filter(Boolean),
    email: childText(record, "email"),
  });
}

function componentOf(node: Record<string, unknown>): Record<string, unknown> {
  const licenses: Record<string, unknown>[] = [];
  for (const holder of asArray(node.licenses)) {
    const licensesNode = asRecord(holder);
    if (!licensesNode) continue;
    for (const entry of asArray(licensesNode.license)) {
      const license = asRecord(entry);
      if (!license) continue;
      licenses.push({
        license: withoutNulls({
          id: childText(license, "id"),
          name: childText(license, "name"),
          acknowledgement: attribute(license, "acknowledgement"),
        }),
      });
    }
    for (const entry of asArray(licensesNode.expression)) {
      licenses.push(
        withoutNulls({ expression: contentOf(entry), acknowledgement: attribute(entry, "acknowledgement") }),
      );
    }
  }
  const simple = (name: string): string | null => childText(node, name);
  return withoutNulls({
    type: attribute(node, "type"),
    "bom-ref": attribute(node, "bom-ref"),
    supplier: party(asArray(node.supplier)[0]),
    author: simple("author"),
    authors: list(node, "authors", "author").map(party).filter(Boolean),
    publisher: simple("publisher"),
    group: simple("group"),
    name: simple("name"),
    version: simple("version"),
    description: simple("description"),
    scope: simple("scope"),
    hashes: list(node, "hashes", "hash").map((h) => ({ alg: attribute(h, "alg"), content: contentOf(h) })),
    licenses,
    copyright: simple("copyright"),
    cpe: simple("cpe"),
    purl: simple("purl"),
    externalReferences: list(node, "externalReferences", "reference").map((r) =>
      withoutNulls({ type: attribute(r, "type"), url: childText(r, "url") }),
    ),
    properties: list(node, "properties", "property").map((p) => ({ name: attribute(p, "name"), value: contentOf(p) })),
    components: list(node, "components", "component").map(componentOf),
  });
}

/** Parses CycloneDX XML into the JSON shape. The caller has refused DOCTYPEs and read the namespace version. */
export function cycloneDxXmlToJsonShape(xml: string, specVersion: string): Record<string, unknown> {
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) {
    throw new SbomReadError(
      "sbom_malformed_xml",
      `The XML document is malformed or truncated (line ${verdict.err.line}, column ${verdict.err.col}: ${verdict.err.msg}).`,
    );
  }
  let parsed: unknown;
  try {
    parsed = parser.parse(xml);
  } catch {
    throw new SbomReadError("sbom_malformed_xml", "The XML document is malformed or truncated.");
  }
  const bom = asRecord(asRecord(parsed)?.bom);
  if (!bom) throw new SbomReadError("sbom_not_an_sbom", "The XML document's root element is not a CycloneDX <bom>.");
  const metadataNode = asRecord(asArray(bom.metadata)[0]);
  let metadata: Record<string, unknown> | undefined;
  if (metadataNode) {
    const toolsNode = asRecord(asArray(metadataNode.tools)[0]);
    // Up to 1.4 <tools> holds <tool>s; from 1.5 <components> and <services>.
    const legacyTools = list(metadataNode, "tools", "tool").map((t) =>
      withoutNulls({ vendor: childText(t, "vendor"), name: childText(t, "name"), version: childText(t, "version") }),
    );
    const toolComponents = list(toolsNode, "components", "component").map(componentOf);
    const primaryNode = asRecord(asArray(metadataNode.component)[0]);
    metadata = withoutNulls({
      timestamp: childText(metadataNode, "timestamp"),
      tools: toolComponents.length ? { components: toolComponents } : legacyTools,
      component: primaryNode ? componentOf(primaryNode) : null,
    });
  }
  const dependencies = list(bom, "dependencies", "dependency").map((d) => ({
    ref: attribute(d, "ref"),
    dependsOn: asArray(d.dependency)
      .map((inner) => attribute(inner, "ref"))
      .filter(Boolean),
  }));
  return withoutNulls({
    bomFormat: "CycloneDX",
    specVersion,
    serialNumber: attribute(bom, "serialNumber"),
    version: attribute(bom, "version"),
    metadata,
    components: list(bom, "components", "component").map(componentOf),
    dependencies,
  });
}
