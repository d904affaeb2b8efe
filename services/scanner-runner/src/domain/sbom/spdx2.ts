// SPDX 2.2 / 2.3, JSON-shaped (the tag-value reader converts to this shape first): packages are the components,
// files are not; relationships between packages are the graph, DESCRIBES names the root.
import { asArray, asRecord, distinctHashes, normaliseHash, spdxPartyName, text } from "./component-fields.ts";
import type { ComponentDraft, DocumentDraft, EdgeDraft, ReadContext } from "./document-draft.ts";
import { licenseOf } from "./document-draft.ts";
import type { DependencyScope, SbomFormat } from "./inventory.ts";

// Relationship types that make one package depend on (or contain) another: the direction the edge takes
// (forward: element -> related element) and the lifecycle scope the type states (null: it does not say).
const RELATIONSHIPS = new Map<string, { forward: boolean; scope: DependencyScope | null }>([
  ["DEPENDS_ON", { forward: true, scope: null }],
  ["DEPENDENCY_OF", { forward: false, scope: null }],
  ["CONTAINS", { forward: true, scope: null }],
  ["CONTAINED_BY", { forward: false, scope: null }],
  ["STATIC_LINK", { forward: true, scope: "required" }],
  ["DYNAMIC_LINK", { forward: true, scope: "required" }],
  ["HAS_PREREQUISITE", { forward: true, scope: "required" }],
  ["PREREQUISITE_FOR", { forward: false, scope: "required" }],
  ["RUNTIME_DEPENDENCY_OF", { forward: false, scope: "required" }],
  ["OPTIONAL_DEPENDENCY_OF", { forward: false, scope: "optional" }],
  ["OPTIONAL_COMPONENT_OF", { forward: false, scope: "optional" }],
  ["PROVIDED_DEPENDENCY_OF", { forward: false, scope: "optional" }],
  ["BUILD_DEPENDENCY_OF", { forward: false, scope: "excluded" }],
  ["DEV_DEPENDENCY_OF", { forward: false, scope: "excluded" }],
  ["TEST_DEPENDENCY_OF", { forward: false, scope: "excluded" }],
  ["BUILD_TOOL_OF", { forward: false, scope: "excluded" }],
  ["DEV_TOOL_OF", { forward: false, scope: "excluded" }],
  ["TEST_TOOL_OF", { forward: false, scope: "excluded" }],
]);

function referenceOf(pkg: Record<string, unknown>, type: (t: string) => boolean): string | null {
  for (const entry of asArray(pkg.externalRefs)) {
    const ref = asRecord(entry);
    const refType = text(ref?.referenceType);
    if (ref && refType && type(refType)) return text(ref.referenceLocator);
  }
  return null;
}

function draftOf(pkg: Record<string, unknown>, context: ReadContext): ComponentDraft | null {
  const ref = text(pkg.SPDXID);
  if (!ref) return null;
  const declared = text(pkg.licenseDeclared);
  const concluded = text(pkg.licenseConcluded);
  const declaredLicense = declared ? licenseOf(context, declared, "expression", ref) : null;
  const purpose = text(pkg.primaryPackagePurpose);
  return {
    ref,
    type: purpose ? purpose.toLowerCase().replace(/_/g, "-") : null,
    group: null,
    name: text(pkg.name),
    version: text(pkg.versionInfo),
    purlText: referenceOf(pkg, (t) => t === "purl"),
    cpe: referenceOf(pkg, (t) => t === "cpe23Type" || t === "cpe22Type"),
    hashes: distinctHashes(
      asArray(pkg.checksums).map((c) => normaliseHash(asRecord(c)?.algorithm, asRecord(c)?.checksumValue)),
    ),
    declaredLicenses: declaredLicense ? [declaredLicense] : [],
    concludedLicense: concluded ? licenseOf(context, concluded, "expression", ref) : null,
    supplier: spdxPartyName(pkg.supplier),
    author: spdxPartyName(pkg.originator),
    description: text(pkg.description) ?? text(pkg.summary),
    scope: null,
    rawJson: JSON.stringify(pkg),
  };
}

interface RelationshipDraft {
  element: string;
  related: string;
  type: string;
}

/**
 * Builds an SPDX 2 draft from the document's parts as they come: the streaming JSON reader hands each package,
 * file, snippet and relationship as it reads it, readSpdx2 a whole document. Relationships are kept as three
 * strings until the end, because whether an end is a file may only be known from a later `files` entry.
 */
export class Spdx2DraftBuilder {
  readonly #context: ReadContext;
  readonly #packages: ComponentDraft[] = [];
  readonly #notPackages = new Set<string>();
  readonly #relationships: RelationshipDraft[] = [];

  constructor(context: ReadContext) {
    this.#context = context;
  }

  addPackage(entry: unknown): void {
    const record = asRecord(entry);
    const draft = record ? draftOf(record, this.#context) : null;
    if (draft) this.#packages.push(draft);
    else
      this.#context.warnings.add(
        "package_without_spdxid",
        "A package without an SPDXID was skipped.",
        text(record?.name) ?? "(unnamed)",
      );
  }

  /** A file or snippet: they take part in relationships too; they are not components, so edges to them are not graph. */
  addNotPackage(entry: unknown): void {
    const id = text(asRecord(entry)?.SPDXID);
    if (id) this.#notPackages.add(id);
  }

  addRelationship(entry: unknown): void {
    const relationship = asRecord(entry);
    const element = text(relationship?.spdxElementId);
    const related = text(relationship?.relatedSpdxElement);
    const type = text(relationship?.relationshipType)?.toUpperCase();
    if (element && related && type) this.#relationships.push({ element, related, type });
  }

  /** The draft, once every part was added; `header` holds the document's other top-level fields. */
  finish(header: Record<string, unknown>, format: SbomFormat, specVersion: string): DocumentDraft {
    const documentId = text(header.SPDXID) ?? "SPDXRef-DOCUMENT";
    const packages = this.#packages;
    const notPackages = this.#notPackages;
    const described = new Set<string>(
      asArray(header.documentDescribes)
        .map(text)
        .filter((t): t is string => t !== null),
    );
    const edges: EdgeDraft[] = [];
    for (const { element, related, type } of this.#relationships) {
      if (type === "DESCRIBES" && element === documentId) described.add(related);
      else if (type === "DESCRIBED_BY" && related === documentId) described.add(element);
      const meaning = RELATIONSHIPS.get(type);
      if (meaning && !notPackages.has(element) && !notPackages.has(related))
        edges.push(
          meaning.forward
            ? { from: element, to: related, scope: meaning.scope }
            : { from: related, to: element, scope: meaning.scope },
        );
    }

    // One described package is what the SBOM is about (the primary component, like CycloneDX metadata.component);
    // several are the document's top-level entries, each a direct child of the document.
    const packageIds = new Set(packages.map((p) => p.ref));
    const describedPackages = [...described].filter((id) => packageIds.has(id));
    let primary: ComponentDraft | null = null;
    let components = packages;
    let rootRefs = [documentId];
    if (describedPackages.length === 1) {
      primary = packages.find((p) => p.ref === describedPackages[0])!;
      components = packages.filter((p) => p !== primary);
      rootRefs = [documentId, primary.ref];
    } else {
      for (const id of describedPackages) edges.push({ from: documentId, to: id, scope: null });
    }

    const creationInfo = asRecord(header.creationInfo);
    const tools = asArray(creationInfo?.creators)
      .map(text)
      .filter((c): c is string => c !== null && /^Tool\s*:/i.test(c))
      .map((c) => c.replace(/^Tool\s*:\s*/i, ""));
    return {
      format,
      specVersion,
      serialNumber: text(header.documentNamespace),
      bomVersion: null,
      name: text(header.name),
      createdAt: text(creationInfo?.created),
      tools,
      primary,
      rootRefs,
      components,
      edges,
    };
  }
}

/** Reads an SPDX 2 document already parsed into the JSON shape (the tag-value reader's output). */
export function readSpdx2(
  doc: Record<string, unknown>,
  format: SbomFormat,
  specVersion: string,
  context: ReadContext,
): DocumentDraft {
  const builder = new Spdx2DraftBuilder(context);
  for (const entry of asArray(doc.packages)) builder.addPackage(entry);
  for (const entry of [...asArray(doc.files), ...asArray(doc.snippets)]) builder.addNotPackage(entry);
  for (const entry of asArray(doc.relationships)) builder.addRelationship(entry);
  return builder.finish(doc, format, specVersion);
}
