// The one SBOM reader every scan kind ends in: bytes or text in, a normalised inventory out. Detects the format,
// refuses what it cannot read with an SbomReadError (a clear English message and a machine code), and hands
// each format's draft to the same inventory builder.
import { cycloneDxXmlToJsonShape, cycloneDxXmlVersion, declaresDoctype } from "./cyclonedx-xml.ts";
import { readCycloneDx } from "./cyclonedx.ts";
import { asArray, asRecord, text } from "./component-fields.ts";
import type { DocumentDraft, ReadContext } from "./document-draft.ts";
import { createReadContext } from "./document-draft.ts";
import { SbomReadError } from "./errors.ts";
import type { SbomInventory } from "./inventory.ts";
import { buildInventory } from "./inventory-builder.ts";
import { RAW_DATA_DEFAULT_MAX_BYTES, SBOM_MAX_BYTES } from "./limits.ts";
import { spdxTagValueToJsonShape } from "./spdx-tag-value.ts";
import { readSpdx2 } from "./spdx2.ts";
import { readSpdx3 } from "./spdx3.ts";

export interface ReadSbomOptions {
  /** Size cap in bytes (default SBOM_MAX_BYTES); a document of exactly this size is read. */
  maxBytes?: number;
  /** Ceiling of one component's raw_data serialised as JSON (default the JSONB_ROW_SIZE_LIMIT_BYTES default). */
  rawDataMaxBytes?: number;
}

export const CYCLONEDX_JSON_VERSIONS = ["1.2", "1.3", "1.4", "1.5", "1.6", "1.7"];
export const CYCLONEDX_XML_VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"];
export const SPDX2_VERSIONS = ["2.2", "2.3"];
export const SPDX3_VERSIONS = /^3\.0\.\d+$/;

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 2)} MiB`;
}

function decode(input: Uint8Array | string, maxBytes: number): string {
  const size = typeof input === "string" ? Buffer.byteLength(input, "utf8") : input.byteLength;
  if (size > maxBytes) {
    throw new SbomReadError(
      "sbom_too_large",
      `The SBOM is ${size} bytes; the largest accepted is ${maxBytes} bytes (${mebibytes(maxBytes)}).`,
    );
  }
  const textValue = typeof input === "string" ? input : new TextDecoder("utf-8", { fatal: false }).decode(input);
  return textValue.charCodeAt(0) === 0xfeff ? textValue.slice(1) : textValue;
}

function unsupported(format: string, version: string, supported: string): SbomReadError {
  return new SbomReadError(
    "sbom_unsupported_spec_version",
    `${format} version ${version.slice(0, 40)} is not supported; supported versions: ${supported}.`,
  );
}

function readJson(source: string, context: ReadContext): DocumentDraft {
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    // V8's message names the position ("... at position 1234"); nothing of the document's content beyond that.
    const where = error instanceof SyntaxError ? /position \d+/.exec(error.message)?.[0] : undefined;
    throw new SbomReadError(
      "sbom_malformed_json",
      `The JSON document is malformed or truncated${where ? ` (${where})` : ""}.`,
    );
  }
  const doc = asRecord(parsed);
  if (!doc)
    throw new SbomReadError(
      "sbom_not_an_sbom",
      "The JSON document is not an object, so it is neither CycloneDX nor SPDX.",
    );
  if (doc.bomFormat === "CycloneDX") {
    const version = text(doc.specVersion) ?? "(none)";
    if (!CYCLONEDX_JSON_VERSIONS.includes(version))
      throw unsupported("CycloneDX JSON", version, CYCLONEDX_JSON_VERSIONS.join(", "));
    return readCycloneDx(doc, "cyclonedx-json", version, context);
  }
  if (typeof doc.spdxVersion === "string") {
    const version = doc.spdxVersion.replace(/^SPDX-/, "");
    if (!SPDX2_VERSIONS.includes(version)) throw unsupported("SPDX", version, `${SPDX2_VERSIONS.join(", ")}, 3.0`);
    return readSpdx2(doc, "spdx-json", version, context);
  }
  if ("@context" in doc || "@graph" in doc) {
    const contexts = asArray(doc["@context"]).map((c) => (typeof c === "string" ? c : ""));
    const creationInfo = asArray(doc["@graph"])
      .map(asRecord)
      .find((e) => e && /CreationInfo$/.test(text(e.type) ?? ""));
    const version =
      text(creationInfo?.specVersion) ??
      contexts.map((c) => /spdx\.org\/rdf\/(\d+\.\d+(?:\.\d+)?)\//.exec(c)?.[1]).find(Boolean);
    if (!version && !contexts.some((c) => c.includes("spdx.org"))) {
      throw new SbomReadError(
        "sbom_not_an_sbom",
        "The JSON-LD document is not SPDX (no SPDX context or creation info).",
      );
    }
    if (!version || !SPDX3_VERSIONS.test(version)) throw unsupported("SPDX", version ?? "(none)", "2.2, 2.3, 3.0.x");
    return readSpdx3(doc, version, context);
  }
  throw new SbomReadError(
    "sbom_not_an_sbom",
    'The JSON document is neither CycloneDX (no "bomFormat": "CycloneDX") nor SPDX (no "spdxVersion" or SPDX 3 "@context").',
  );
}

function readXml(source: string, context: ReadContext): DocumentDraft {
  if (declaresDoctype(source)) {
    throw new SbomReadError(
      "sbom_xml_doctype_refused",
      "The XML document declares a DOCTYPE or entities; SBOMs never need them and they are refused (external entities, entity expansion).",
    );
  }
  const version = cycloneDxXmlVersion(source);
  if (version === null) {
    if (/<(?:[\w.-]+:)?RDF\b/.test(source.slice(0, 65_536))) {
      throw new SbomReadError(
        "sbom_unknown_format",
        "SPDX RDF/XML is not read; send SPDX as JSON, tag-value or SPDX 3 JSON-LD.",
      );
    }
    if (/xmlns(?::[\w.-]+)?\s*=\s*["']http:\/\/cyclonedx\.org\/schema\/bom\//.test(source.slice(0, 65_536))) {
      throw unsupported("CycloneDX XML", "(namespace)", CYCLONEDX_XML_VERSIONS.join(", "));
    }
    // Malformed XML says so before "not an SBOM" does.
    cycloneDxXmlToJsonShape(source, "");
    throw new SbomReadError(
      "sbom_not_an_sbom",
      "The XML document is not CycloneDX (its root is not a <bom> in a CycloneDX namespace).",
    );
  }
  if (!CYCLONEDX_XML_VERSIONS.includes(version))
    throw unsupported("CycloneDX XML", version, CYCLONEDX_XML_VERSIONS.join(", "));
  return readCycloneDx(cycloneDxXmlToJsonShape(source, version), "cyclonedx-xml", version, context);
}

function readTagValue(source: string, context: ReadContext): DocumentDraft {
  const doc = spdxTagValueToJsonShape(source);
  const version = (text(doc.spdxVersion) ?? "(none)").replace(/^SPDX-/, "");
  if (!SPDX2_VERSIONS.includes(version)) throw unsupported("SPDX", version, `${SPDX2_VERSIONS.join(", ")}, 3.0`);
  return readSpdx2(doc, "spdx-tag-value", version, context);
}

/**
 * Reads an SBOM: CycloneDX 1.2-1.7 JSON, CycloneDX XML (namespaces 1.0-1.7), SPDX 2.2/2.3 JSON and tag-value,
 * SPDX 3.0 JSON-LD. Throws SbomReadError when the input is not one of them or cannot be read.
 */
export function readSbom(input: Uint8Array | string, options: ReadSbomOptions = {}): SbomInventory {
  const source = decode(input, options.maxBytes ?? SBOM_MAX_BYTES);
  const context = createReadContext();
  const start = source.search(/\S/);
  if (start === -1) throw new SbomReadError("sbom_not_an_sbom", "The document is empty.");
  const first = source[start];
  let draft: DocumentDraft;
  if (first === "{" || first === "[") draft = readJson(source, context);
  else if (first === "<") draft = readXml(source, context);
  else if (/^\s*(#[^\n]*\n\s*)*SPDXVersion\s*:/.test(source.slice(0, 65_536))) draft = readTagValue(source, context);
  else
    throw new SbomReadError(
      "sbom_unknown_format",
      "The document is not JSON, XML or SPDX tag-value; no SBOM format was recognised.",
    );
  return buildInventory(draft, context, options.rawDataMaxBytes ?? RAW_DATA_DEFAULT_MAX_BYTES);
}
