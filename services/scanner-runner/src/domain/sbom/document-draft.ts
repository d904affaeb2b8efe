// What a format reader hands to the inventory builder: components as the document listed them (duplicates and
// all), edges between their refs, and the document's facts. Each format has its reader; they all end here.
import type { ComponentHash, DependencyScope, SbomFormat, SbomWarning } from "./inventory.ts";
import { createLicenseNormaliser } from "./license-expression.ts";

export interface ComponentDraft {
  /** bom-ref or SPDXID; a reader gives components without one an internal ref (see internalRef). */
  ref: string;
  type: string | null;
  group: string | null;
  name: string | null;
  version: string | null;
  purlText: string | null;
  cpe: string | null;
  hashes: ComponentHash[];
  declaredLicenses: string[];
  concludedLicense: string | null;
  supplier: string | null;
  author: string | null;
  description: string | null;
  scope: DependencyScope | null;
  /**
   * The component as the document wrote it, as JSON text: every draft of a large document is held until the
   * inventory is built, and as text it weighs about its bytes, a fraction of the object tree it was parsed into.
   */
  rawJson: string;
}

export interface EdgeDraft {
  from: string;
  to: string;
  scope: DependencyScope | null;
}

export interface DocumentDraft {
  format: SbomFormat;
  specVersion: string;
  serialNumber: string | null;
  bomVersion: number | null;
  name: string | null;
  createdAt: string | null;
  tools: string[];
  primary: ComponentDraft | null;
  /** Refs that stand for the primary component or the document itself (edges from them are direct). */
  rootRefs: string[];
  components: ComponentDraft[];
  edges: EdgeDraft[];
}

/** Warnings grouped by code: a 50,000-component document with one mistake repeated gives one warning. */
export class WarningLog {
  readonly #byCode = new Map<string, SbomWarning>();

  add(code: string, message: string, example: string): void {
    const warning = this.#byCode.get(code);
    if (!warning) this.#byCode.set(code, { code, message, count: 1, examples: [example] });
    else {
      warning.count += 1;
      if (warning.examples.length < 5) warning.examples.push(example);
    }
  }

  list(): SbomWarning[] {
    return [...this.#byCode.values()];
  }
}

export interface ReadContext {
  licenses: ReturnType<typeof createLicenseNormaliser>;
  warnings: WarningLog;
}

export function createReadContext(): ReadContext {
  return { licenses: createLicenseNormaliser(), warnings: new WarningLog() };
}

/** A ref for a component the document gave none; the NUL prefix keeps it apart from any ref a document writes. */
export function internalRef(index: number): string {
  return `\u0000component-${index}`;
}

/** Normalise a license expression or name and note the text that had to become a LicenseRef. */
export function licenseOf(
  context: ReadContext,
  value: string,
  kind: "expression" | "name",
  owner: string,
): string | null {
  const normalised = kind === "expression" ? context.licenses.expression(value) : context.licenses.name(value);
  for (const unknown of normalised.unknownNames) {
    context.warnings.add(
      "license_not_spdx",
      "License text that is not an SPDX id was kept as a LicenseRef.",
      `${owner}: ${unknown}`,
    );
  }
  return normalised.expression;
}
