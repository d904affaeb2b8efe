// CycloneDX, JSON-shaped (the XML reader converts to this shape first): components (nested ones too), their
// licenses (acknowledgement `concluded` from 1.6 on), the dependencies graph and the metadata component.
import { asArray, asRecord, distinctHashes, normaliseHash, text } from "./component-fields.ts";
import type { ComponentDraft, DocumentDraft, EdgeDraft, ReadContext } from "./document-draft.ts";
import { internalRef, licenseOf } from "./document-draft.ts";
import type { DependencyScope, SbomFormat } from "./inventory.ts";

const SCOPES = new Set<DependencyScope>(["required", "optional", "excluded"]);

function partyName(value: unknown): string | null {
  const record = asRecord(value);
  return record ? text(record.name) : text(value);
}

function authorOf(component: Record<string, unknown>): string | null {
  const single = text(component.author);
  if (single) return single;
  // 1.6 added `authors` (organizational contacts); older documents have `author` only.
  const names = asArray(component.authors)
    .map(partyName)
    .filter((n): n is string => n !== null);
  return names.length ? names.join(", ") : null;
}

function licensesOf(
  component: Record<string, unknown>,
  context: ReadContext,
  owner: string,
): { declared: string[]; concluded: string | null } {
  const declared: string[] = [];
  const concluded: string[] = [];
  for (const entry of asArray(component.licenses)) {
    const choice = asRecord(entry);
    if (!choice) continue;
    const license = asRecord(choice.license);
    let normalised: string | null = null;
    let acknowledgement: unknown = choice.acknowledgement;
    if (text(choice.expression)) normalised = licenseOf(context, text(choice.expression)!, "expression", owner);
    else if (license) {
      acknowledgement = license.acknowledgement;
      const id = text(license.id);
      const name = text(license.name);
      if (id) normalised = licenseOf(context, id, "expression", owner);
      else if (name) normalised = licenseOf(context, name, "name", owner);
    }
    if (normalised) (acknowledgement === "concluded" ? concluded : declared).push(normalised);
  }
  return { declared, concluded: concluded[0] ?? null };
}

function rawJsonOf(component: Record<string, unknown>): string {
  // Nested components are inventory entries of their own; their parent's raw_data does not repeat them.
  if (!("components" in component)) return JSON.stringify(component);
  const { components: _nested, ...rest } = component;
  return JSON.stringify(rest);
}

function draftOf(component: Record<string, unknown>, index: number, context: ReadContext): ComponentDraft {
  const name = text(component.name);
  const owner = text(component["bom-ref"]) ?? name ?? `#${index}`;
  const { declared, concluded } = licensesOf(component, context, owner);
  const scope = text(component.scope);
  return {
    ref: text(component["bom-ref"]) ?? internalRef(index),
    type: text(component.type),
    group: text(component.group),
    name,
    version: text(component.version),
    purlText: text(component.purl),
    cpe: text(component.cpe),
    hashes: distinctHashes(asArray(component.hashes).map((h) => normaliseHash(asRecord(h)?.alg, asRecord(h)?.content))),
    declaredLicenses: declared,
    concludedLicense: concluded,
    supplier: partyName(component.supplier) ?? text(component.publisher),
    author: authorOf(component),
    description: text(component.description),
    scope: scope && SCOPES.has(scope as DependencyScope) ? (scope as DependencyScope) : null,
    rawJson: rawJsonOf(component),
  };
}

function toolNames(metadata: Record<string, unknown> | null): string[] {
  if (!metadata) return [];
  const tools = metadata.tools;
  // Up to 1.4 `tools` is a list of tools; from 1.5 an object of components and services.
  const entries = Array.isArray(tools)
    ? tools
    : [...asArray(asRecord(tools)?.components), ...asArray(asRecord(tools)?.services)];
  return entries
    .map((entry) => {
      const tool = asRecord(entry);
      if (!tool) return null;
      const vendor = text(tool.vendor) ?? partyName(tool.manufacturer) ?? text(tool.group) ?? text(tool.publisher);
      return [vendor, text(tool.name), text(tool.version)].filter(Boolean).join(" ") || null;
    })
    .filter((t): t is string => t !== null);
}

/**
 * Builds a CycloneDX draft from the document's parts as they come: the streaming JSON reader hands each top-level
 * component and dependency as it reads it (metadata may come before or after them), readCycloneDx a whole document.
 */
export class CycloneDxDraftBuilder {
  readonly #context: ReadContext;
  readonly #components: ComponentDraft[] = [];
  /** Containment (nesting) edges, then the `dependencies` edges, whichever the document lists first. */
  readonly #edges: EdgeDraft[] = [];
  readonly #dependencyEdges: EdgeDraft[] = [];
  #metadata: Record<string, unknown> | null | undefined;
  #primary: ComponentDraft | null = null;

  constructor(context: ReadContext) {
    this.#context = context;
  }

  /** The document's metadata (drafted when it comes, so its license notes come first as the document lists them). */
  setMetadata(value: unknown): void {
    this.#metadata = asRecord(value);
    const primaryRecord = asRecord(this.#metadata?.component);
    this.#primary = primaryRecord ? draftOf(primaryRecord, -1, this.#context) : null;
  }

  /** One entry of `components`, its nested components included (depth first, each contained by its parent). */
  addComponent(entry: unknown): void {
    const pending: Array<{ record: Record<string, unknown>; parentRef: string | null }> = [];
    const pushChildren = (list: unknown, parentRef: string | null): void => {
      const children = asArray(list);
      for (let i = children.length - 1; i >= 0; i -= 1) {
        const record = asRecord(children[i]);
        if (record) pending.push({ record, parentRef });
      }
    };
    pushChildren([entry], null);
    while (pending.length > 0) {
      const { record, parentRef } = pending.pop()!;
      const draft = draftOf(record, this.#components.length, this.#context);
      this.#components.push(draft);
      if (parentRef !== null) this.#edges.push({ from: parentRef, to: draft.ref, scope: null });
      pushChildren(record.components, draft.ref);
    }
  }

  /** One entry of `dependencies`. */
  addDependency(entry: unknown): void {
    const dependency = asRecord(entry);
    const from = text(dependency?.ref);
    if (!dependency || !from) return;
    for (const target of asArray(dependency.dependsOn)) {
      // JSON lists refs as strings; the XML reader hands nested <dependency ref=".."/> as records.
      const to = typeof target === "string" ? text(target) : text(asRecord(target)?.ref);
      if (to) this.#dependencyEdges.push({ from, to, scope: null });
    }
  }

  /** The draft, once every part was added; `header` holds the document's top-level fields (metadata included). */
  finish(header: Record<string, unknown>, format: SbomFormat, specVersion: string): DocumentDraft {
    if (this.#metadata === undefined) this.setMetadata(header.metadata);
    const metadata = this.#metadata ?? null;
    const primary = this.#primary;
    const primaryRecord = asRecord(metadata?.component);
    // Sub-components of the primary component are the described thing itself (cyclonedx-gomod lists the module's
    // own packages there): not inventory, and edges from them are edges from the root.
    const rootRefs = primary ? [primary.ref] : [];
    const ownParts = primaryRecord ? asArray(primaryRecord.components).map(asRecord) : [];
    while (ownParts.length > 0) {
      const part = ownParts.pop();
      if (!part) continue;
      const ref = text(part["bom-ref"]);
      if (ref) rootRefs.push(ref);
      ownParts.push(...asArray(part.components).map(asRecord));
    }
    const serialNumber = text(header.serialNumber);
    const bomVersion =
      typeof header.version === "number" ? header.version : Number.parseInt(text(header.version) ?? "", 10);
    return {
      format,
      specVersion,
      serialNumber,
      bomVersion: Number.isInteger(bomVersion) ? bomVersion : null,
      name: primary?.name ?? null,
      createdAt: text(metadata?.timestamp),
      tools: toolNames(metadata),
      primary,
      rootRefs,
      components: this.#components,
      edges: [...this.#edges, ...this.#dependencyEdges],
    };
  }
}

/** Reads a CycloneDX document already parsed into the JSON shape (the XML reader's output). */
export function readCycloneDx(
  bom: Record<string, unknown>,
  format: SbomFormat,
  specVersion: string,
  context: ReadContext,
): DocumentDraft {
  const builder = new CycloneDxDraftBuilder(context);
  builder.setMetadata(bom.metadata);
  for (const entry of asArray(bom.components)) builder.addComponent(entry);
  for (const entry of asArray(bom.dependencies)) builder.addDependency(entry);
  return builder.finish(bom, format, specVersion);
}
