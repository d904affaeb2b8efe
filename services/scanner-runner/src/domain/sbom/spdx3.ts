// SPDX 3.0 JSON-LD: a flat @graph of elements. Packages are the components; licenses and parties are elements
// of their own, reached through relationships (hasDeclaredLicense, hasConcludedLicense) and ids (suppliedBy).
import { asArray, asRecord, distinctHashes, normaliseHash, text } from "./component-fields.ts";
import type { ComponentDraft, DocumentDraft, EdgeDraft, ReadContext } from "./document-draft.ts";
import { licenseOf } from "./document-draft.ts";
import type { DependencyScope } from "./inventory.ts";

// relationshipType -> scope the type states; every one reads from `from` to each of `to`.
const DEPENDENCY_RELATIONSHIPS = new Map<string, DependencyScope | null>([
  ["dependsOn", null],
  ["contains", null],
  ["hasStaticLink", "required"],
  ["hasDynamicLink", "required"],
  ["hasPrerequisite", "required"],
  ["hasOptionalDependency", "optional"],
  ["hasProvidedDependency", "optional"],
  ["hasOptionalComponent", "optional"],
  ["usesTool", "excluded"],
]);

const LIFECYCLE_SCOPES = new Map<string, DependencyScope | null>([
  ["runtime", "required"],
  ["build", "excluded"],
  ["development", "excluded"],
  ["test", "excluded"],
  ["design", "excluded"],
  ["other", null],
]);

/** "software_Package", "software:Package" and "Package" all name the Package class. */
function className(type: unknown): string {
  return (text(type) ?? "").replace(/^[A-Za-z]+[_:]/, "");
}

function idOf(element: Record<string, unknown>): string | null {
  return text(element.spdxId) ?? text(element["@id"]);
}

const LISTED_LICENSE_PREFIX = /^https?:\/\/spdx\.org\/licenses\//;

export function readSpdx3(doc: Record<string, unknown>, specVersion: string, context: ReadContext): DocumentDraft {
  const elements = new Map<string, Record<string, unknown>>();
  const packages: Record<string, unknown>[] = [];
  let spdxDocument: Record<string, unknown> | null = null;
  const relationships: Record<string, unknown>[] = [];
  for (const entry of asArray(doc["@graph"])) {
    const element = asRecord(entry);
    if (!element) continue;
    const id = idOf(element);
    if (id) elements.set(id, element);
    const kind = className(element.type ?? element["@type"]);
    if (kind === "Package") packages.push(element);
    else if (kind === "SpdxDocument") spdxDocument ??= element;
    else if (kind === "Relationship" || kind === "LifecycleScopedRelationship") relationships.push(element);
  }

  const nameOfElement = (id: unknown): string | null => {
    const key = text(id);
    if (!key) return null;
    const element = elements.get(key);
    return element ? text(element.name) : null;
  };

  const licenseText = (id: string): { value: string; kind: "expression" | "name" } | null => {
    const element = elements.get(id);
    const kind = element ? className(element.type ?? element["@type"]) : "";
    if (element && kind === "LicenseExpression") {
      const value = text(element.simplelicensing_licenseExpression ?? element.licenseExpression);
      return value ? { value, kind: "expression" } : null;
    }
    if (/NoAssertionLicense$|NoneLicense$/.test(id)) return null;
    if (LISTED_LICENSE_PREFIX.test(id)) return { value: id.replace(LISTED_LICENSE_PREFIX, ""), kind: "expression" };
    if (element && kind === "ListedLicense") return { value: id.split("/").pop() ?? id, kind: "expression" };
    const name = element ? text(element.name) : null;
    return name ? { value: name, kind: "name" } : null;
  };

  const declared = new Map<string, string[]>();
  const concluded = new Map<string, string>();
  const edges: EdgeDraft[] = [];
  const described = new Set<string>(
    asArray(spdxDocument?.rootElement)
      .map(text)
      .filter((t): t is string => t !== null),
  );
  const documentId = spdxDocument ? idOf(spdxDocument) : null;
  for (const relationship of relationships) {
    const from = text(relationship.from);
    const type = text(relationship.relationshipType);
    if (!from || !type) continue;
    const targets = asArray(relationship.to)
      .map(text)
      .filter((t): t is string => t !== null);
    if (type === "describes" && from === documentId) for (const t of targets) described.add(t);
    else if (type === "hasDeclaredLicense" || type === "hasConcludedLicense") {
      for (const target of targets) {
        const license = licenseText(target);
        const normalised = license ? licenseOf(context, license.value, license.kind, from) : null;
        if (!normalised) continue;
        if (type === "hasDeclaredLicense") declared.set(from, [...(declared.get(from) ?? []), normalised]);
        else if (!concluded.has(from)) concluded.set(from, normalised);
      }
    } else if (DEPENDENCY_RELATIONSHIPS.has(type)) {
      const lifecycle = text(relationship.scope);
      const scope =
        lifecycle !== null && LIFECYCLE_SCOPES.has(lifecycle)
          ? LIFECYCLE_SCOPES.get(lifecycle)!
          : DEPENDENCY_RELATIONSHIPS.get(type)!;
      for (const to of targets) edges.push({ from, to, scope });
    }
  }

  // A root that is an Sbom/Bundle element stands for its own root elements.
  for (const id of [...described]) {
    const element = elements.get(id);
    const kind = element ? className(element.type ?? element["@type"]) : "";
    if (element && (kind === "Sbom" || kind === "Bom" || kind === "Bundle")) {
      described.delete(id);
      for (const inner of asArray(element.rootElement)) if (text(inner)) described.add(text(inner)!);
    }
  }

  const drafts: ComponentDraft[] = [];
  for (const pkg of packages) {
    const ref = idOf(pkg)!;
    const identifiers = asArray(pkg.externalIdentifier).map(asRecord);
    const identifier = (type: string): string | null => {
      for (const entry of identifiers)
        if (entry && text(entry.externalIdentifierType) === type) return text(entry.identifier);
      return null;
    };
    const authors = asArray(pkg.originatedBy)
      .map(nameOfElement)
      .filter((n): n is string => n !== null);
    const purpose = text(pkg.software_primaryPurpose ?? pkg.primaryPurpose);
    drafts.push({
      ref,
      type: purpose ? purpose.toLowerCase() : null,
      group: null,
      name: text(pkg.name),
      version: text(pkg.software_packageVersion ?? pkg.packageVersion),
      purlText: text(pkg.software_packageUrl ?? pkg.packageUrl) ?? identifier("packageUrl"),
      cpe: identifier("cpe23") ?? identifier("cpe22"),
      hashes: distinctHashes(
        asArray(pkg.verifiedUsing)
          .map(asRecord)
          .filter((v) => v !== null && className(v.type) === "Hash")
          .map((v) => normaliseHash(v!.algorithm, v!.hashValue)),
      ),
      declaredLicenses: declared.get(ref) ?? [],
      concludedLicense: concluded.get(ref) ?? null,
      supplier: nameOfElement(pkg.suppliedBy),
      author: authors.length ? authors.join(", ") : null,
      description: text(pkg.description) ?? text(pkg.summary),
      scope: null,
      rawJson: JSON.stringify(pkg),
    });
  }

  const describedPackages = drafts.filter((d) => described.has(d.ref));
  const rootRefs = documentId ? [documentId] : [];
  let primary: ComponentDraft | null = null;
  let components = drafts;
  if (describedPackages.length === 1) {
    primary = describedPackages[0]!;
    components = drafts.filter((d) => d !== primary);
    rootRefs.push(primary.ref);
  } else if (documentId) {
    for (const d of describedPackages) edges.push({ from: documentId, to: d.ref, scope: null });
  }

  // Only package-to-package edges are graph; files and other elements take part in relationships too.
  const packageIds = new Set(drafts.map((d) => d.ref));
  const graphEdges = edges.filter((e) => (packageIds.has(e.from) || e.from === documentId) && packageIds.has(e.to));

  const creationInfo =
    asRecord(spdxDocument?.creationInfo) ?? asRecord(elements.get(text(spdxDocument?.creationInfo) ?? ""));
  const tools = asArray(creationInfo?.createdUsing)
    .map(nameOfElement)
    .filter((n): n is string => n !== null);
  return {
    format: "spdx3-jsonld",
    specVersion,
    serialNumber: documentId,
    bomVersion: null,
    name: text(spdxDocument?.name),
    createdAt: text(creationInfo?.created),
    tools,
    primary,
    rootRefs,
    components,
    edges: graphEdges,
  };
}
