// The one SBOM reader every scan kind ends in: bytes or text in, a normalised inventory out. Detects the format,
// refuses what it cannot read with an SbomReadError (a clear English message and a machine code), and hands
// each format's draft to the same inventory builder.
import { cycloneDxXmlToJsonShape, cycloneDxXmlVersion, declaresDoctype } from "./cyclonedx-xml.ts";
import { CycloneDxDraftBuilder, readCycloneDx } from "./cyclonedx.ts";
import { asArray, asRecord, text } from "./component-fields.ts";
import type { DocumentDraft, ReadContext } from "./document-draft.ts";
import { createReadContext } from "./document-draft.ts";
import { SbomReadError } from "./errors.ts";
import type { SbomInventory } from "./inventory.ts";
import { buildInventory } from "./inventory-builder.ts";
import { walkJsonObject } from "./json-walk.ts";
import { RAW_DATA_DEFAULT_MAX_BYTES, SBOM_MAX_BYTES } from "./limits.ts";
import { spdxTagValueToJsonShape } from "./spdx-tag-value.ts";
import { readSpdx2, Spdx2DraftBuilder } from "./spdx2.ts";
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

const UTF8_BOM = [0xef, 0xbb, 0xbf];

function bytesOf(input: Uint8Array | string, maxBytes: number): Buffer {
  const size = typeof input === "string" ? Buffer.byteLength(input, "utf8") : input.byteLength;
  if (size > maxBytes) {
    throw new SbomReadError(
      "sbom_too_large",
      `The SBOM is ${size} bytes; the largest accepted is ${maxBytes} bytes (${mebibytes(maxBytes)}).`,
    );
  }
  if (typeof input === "string") return Buffer.from(input, "utf8");
  return Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

function bomLength(bytes: Buffer): number {
  return UTF8_BOM.every((b, i) => bytes[i] === b) ? UTF8_BOM.length : 0;
}

function decode(bytes: Buffer): string {
  const textValue = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  return textValue.charCodeAt(0) === 0xfeff ? textValue.slice(1) : textValue;
}

function unsupported(format: string, version: string, supported: string): SbomReadError {
  return new SbomReadError(
    "sbom_unsupported_spec_version",
    `${format} version ${version.slice(0, 40)} is not supported; supported versions: ${supported}.`,
  );
}

/** What a JSON document is, by its top-level fields (CycloneDX first, as the formats' own markers rank). */
type JsonKind = "cyclonedx" | "spdx2" | "spdx3";

function kindOf(header: Record<string, unknown>, sawGraph: boolean): JsonKind | null {
  if (header.bomFormat === "CycloneDX") return "cyclonedx";
  if (typeof header.spdxVersion === "string") return "spdx2";
  if ("@context" in header || "@graph" in header || sawGraph) return "spdx3";
  return null;
}

/** The top-level arrays each kind reads one element at a time. */
const STREAMED: Record<JsonKind, ReadonlySet<string>> = {
  cyclonedx: new Set(["components", "dependencies"]),
  spdx2: new Set(["packages", "files", "snippets", "relationships"]),
  spdx3: new Set(["@graph"]),
};
const STREAMED_ANY = new Set(Object.values(STREAMED).flatMap((keys) => [...keys]));

interface JsonParts {
  context: ReadContext;
  header: Record<string, unknown>;
  cyclonedx: CycloneDxDraftBuilder;
  spdx2: Spdx2DraftBuilder;
  graph: unknown[];
  /** The kind the streamed elements were read as: the one the header said when the first of them came. */
  readAs: JsonKind | null;
  sawGraph: boolean;
}

/**
 * One walk over the document: top-level fields kept whole (they are small), the big arrays drafted element by
 * element as the kind the header has named by then. `fixed` forces the kind (the second walk, below).
 */
function walkJsonDocument(bytes: Buffer, start: number, fixed: JsonKind | null): JsonParts {
  const context = createReadContext();
  const parts: JsonParts = {
    context,
    header: {},
    cyclonedx: new CycloneDxDraftBuilder(context),
    spdx2: new Spdx2DraftBuilder(context),
    graph: [],
    readAs: fixed,
    sawGraph: false,
  };
  let decided = fixed !== null;
  const kindSoFar = (): JsonKind | null => (decided ? parts.readAs : kindOf(parts.header, parts.sawGraph));
  const element = (key: string, value: unknown): void => {
    if (!decided) {
      parts.readAs = kindSoFar();
      decided = true;
    }
    const kind = parts.readAs;
    if (kind === null || !STREAMED[kind].has(key)) return;
    if (kind === "spdx3") parts.graph.push(value);
    else if (kind === "cyclonedx") {
      if (key === "components") parts.cyclonedx.addComponent(value);
      else parts.cyclonedx.addDependency(value);
    } else if (key === "packages") parts.spdx2.addPackage(value);
    else if (key === "relationships") parts.spdx2.addRelationship(value);
    else parts.spdx2.addNotPackage(value);
  };
  walkJsonObject(bytes, start, {
    streams: (key) => {
      if (key === "@graph") parts.sawGraph = true;
      return STREAMED_ANY.has(key);
    },
    onField: (key, value) => {
      // JSON.parse semantics for the rest: a later duplicate key wins; a lone object where a list belongs is a list
      // of one, as asArray reads it.
      if (key === "@graph") parts.sawGraph = true;
      if (!STREAMED_ANY.has(key)) parts.header[key] = value;
      else for (const entry of asArray(value)) element(key, entry);
      // Drafted when it comes, so the primary's notes come first as before; else finish drafts it.
      if (key === "metadata" && kindSoFar() === "cyclonedx") parts.cyclonedx.setMetadata(value);
    },
    onElement: element,
  });
  return parts;
}

function readJson(bytes: Buffer, start: number): { draft: DocumentDraft; context: ReadContext } {
  if (bytes[start] !== 0x7b) {
    // Not an object (a top-level array): nothing to stream, and never an SBOM once it parses.
    parseWhole(decode(bytes));
    throw new SbomReadError(
      "sbom_not_an_sbom",
      "The JSON document is not an object, so it is neither CycloneDX nor SPDX.",
    );
  }
  let parts = walkJsonDocument(bytes, start, null);
  const kind = kindOf(parts.header, parts.sawGraph);
  // The header named its kind after the big arrays (or named another kind first): read them again as that kind,
  // with a fresh context (no notes twice). Generators write the header first; this is for the odd hand-made one.
  if (kind !== null && parts.readAs !== kind) parts = walkJsonDocument(bytes, start, kind);
  const { header: doc, context } = parts;
  if (kind === "cyclonedx") {
    const version = text(doc.specVersion) ?? "(none)";
    if (!CYCLONEDX_JSON_VERSIONS.includes(version))
      throw unsupported("CycloneDX JSON", version, CYCLONEDX_JSON_VERSIONS.join(", "));
    return { draft: parts.cyclonedx.finish(doc, "cyclonedx-json", version), context };
  }
  if (kind === "spdx2") {
    const version = (doc.spdxVersion as string).replace(/^SPDX-/, "");
    if (!SPDX2_VERSIONS.includes(version)) throw unsupported("SPDX", version, `${SPDX2_VERSIONS.join(", ")}, 3.0`);
    return { draft: parts.spdx2.finish(doc, "spdx-json", version), context };
  }
  if (kind === "spdx3") {
    // SPDX 3 elements refer to each other in any order (agents, creation info, relationships): the graph is kept.
    const graph = parts.graph;
    const contexts = asArray(doc["@context"]).map((c) => (typeof c === "string" ? c : ""));
    const creationInfo = graph.map(asRecord).find((e) => e && /CreationInfo$/.test(text(e.type) ?? ""));
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
    return { draft: readSpdx3({ ...doc, "@graph": graph }, version, context), context };
  }
  throw new SbomReadError(
    "sbom_not_an_sbom",
    'The JSON document is neither CycloneDX (no "bomFormat": "CycloneDX") nor SPDX (no "spdxVersion" or SPDX 3 "@context").',
  );
}

function malformedJsonError(error: unknown): SbomReadError {
  // V8's message names the position ("... at position 1234"); nothing of the document's content beyond that.
  const where = error instanceof SyntaxError ? /position \d+/.exec(error.message)?.[0] : undefined;
  return new SbomReadError(
    "sbom_malformed_json",
    `The JSON document is malformed or truncated${where ? ` (${where})` : ""}.`,
  );
}

/** JSON.parse of a whole text (documents that are not a top-level object), with the reader's error. */
function parseWhole(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (error) {
    throw malformedJsonError(error);
  }
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
  const bytes = bytesOf(input, options.maxBytes ?? SBOM_MAX_BYTES);
  const rawDataMaxBytes = options.rawDataMaxBytes ?? RAW_DATA_DEFAULT_MAX_BYTES;
  let jsonStart = bomLength(bytes);
  while ([0x20, 0x0a, 0x0d, 0x09].includes(bytes[jsonStart] ?? -1)) jsonStart += 1;
  // JSON is read from the bytes, a piece at a time; XML and tag-value as text.
  if (bytes[jsonStart] === 0x7b || bytes[jsonStart] === 0x5b) {
    const { draft, context } = readJson(bytes, jsonStart);
    return buildInventory(draft, context, rawDataMaxBytes);
  }
  const source = decode(bytes);
  const context = createReadContext();
  const start = source.search(/\S/);
  if (start === -1) throw new SbomReadError("sbom_not_an_sbom", "The document is empty.");
  const first = source[start];
  let draft: DocumentDraft;
  // JSON after white space that is not JSON's own (U+00A0, ...): JSON.parse refuses it with its position.
  if (first === "{" || first === "[") parseWhole(source);
  if (first === "<") draft = readXml(source, context);
  else if (/^\s*(#[^\n]*\n\s*)*SPDXVersion\s*:/.test(source.slice(0, 65_536))) draft = readTagValue(source, context);
  else
    throw new SbomReadError(
      "sbom_unknown_format",
      "The document is not JSON, XML or SPDX tag-value; no SBOM format was recognised.",
    );
  return buildInventory(draft, context, rawDataMaxBytes);
}
