// VEX documents, both ways (docs/findings.md, "VEX export and import"): OpenVEX 0.2.0 and CycloneDX 1.6 built from
// the findings' triage, and the statements of an OpenVEX (0.0.1 or 0.2.0) or CycloneDX VEX document read back as
// (vulnerability ids, product purls, triage). The state vocabulary is CycloneDX's; OpenVEX statuses map onto it.
import { PackageURL } from "packageurl-js";
import {
  VEX_JUSTIFICATIONS,
  VEX_STATES,
  VEX_RESPONSES,
  type VexJustification,
  type VexResponse,
  type VexState,
} from "@sca/vocabulary";
import type { Triage } from "./vex-status.ts";

export const OPENVEX_CONTEXT = "https://openvex.dev/ns/v0.2.0";
export const TOOL_NAME = "sca-portal";

/** What the export needs of a finding. */
export interface VexFinding {
  vulnerabilityId: string;
  aliases: string[];
  severity: string;
  cvssScore: number | null;
  cvssVector: string;
  componentKey: string;
  componentName: string;
  componentVersion: string | null;
  purl: string | null;
  triage: Triage;
  firstDetectedAt: Date;
  statusUpdatedAt: Date;
}

export interface VexDocumentMeta {
  documentId: string;
  projectName: string;
  projectId: string;
  at: Date;
}

type OpenVexStatus = "not_affected" | "affected" | "fixed" | "under_investigation";

const OPENVEX_STATUS: Record<VexState, OpenVexStatus> = {
  in_triage: "under_investigation",
  exploitable: "affected",
  false_positive: "not_affected",
  not_affected: "not_affected",
  resolved: "fixed",
  resolved_with_pedigree: "fixed",
};

const OPENVEX_JUSTIFICATION: Record<VexJustification, string> = {
  code_not_present: "vulnerable_code_not_present",
  code_not_reachable: "vulnerable_code_not_in_execute_path",
  requires_configuration: "vulnerable_code_cannot_be_controlled_by_adversary",
  requires_dependency: "component_not_present",
  requires_environment: "vulnerable_code_cannot_be_controlled_by_adversary",
  protected_by_compiler: "inline_mitigations_already_exist",
  protected_at_runtime: "inline_mitigations_already_exist",
  protected_at_perimeter: "inline_mitigations_already_exist",
  protected_by_mitigating_control: "inline_mitigations_already_exist",
};

const FROM_OPENVEX_JUSTIFICATION: Record<string, VexJustification> = {
  component_not_present: "requires_dependency",
  vulnerable_code_not_present: "code_not_present",
  vulnerable_code_not_in_execute_path: "code_not_reachable",
  vulnerable_code_cannot_be_controlled_by_adversary: "requires_environment",
  inline_mitigations_already_exist: "protected_by_mitigating_control",
};

/** The product a finding is: its purl, else its inventory key (`component:<type>/<group>/<name>@<version>`). */
const productOf = (f: VexFinding) => f.purl ?? f.componentKey;

export function openVexDocument(findings: VexFinding[], meta: VexDocumentMeta): Record<string, unknown> {
  return {
    "@context": OPENVEX_CONTEXT,
    "@id": `urn:uuid:${meta.documentId}`,
    author: `${TOOL_NAME} (project ${meta.projectName})`,
    role: "Document Creator",
    timestamp: meta.at.toISOString(),
    version: 1,
    tooling: TOOL_NAME,
    statements: findings.map((f) => {
      const status = OPENVEX_STATUS[f.triage.status];
      const statement: Record<string, unknown> = {
        vulnerability: { name: f.vulnerabilityId, ...(f.aliases.length ? { aliases: f.aliases } : {}) },
        timestamp: f.statusUpdatedAt.toISOString(),
        products: [{ "@id": productOf(f) }],
        status,
      };
      if (f.triage.detail) statement.status_notes = f.triage.detail;
      if (status === "not_affected") {
        if (f.triage.status === "false_positive") statement.justification = "vulnerable_code_not_present";
        else if (f.triage.justification) statement.justification = OPENVEX_JUSTIFICATION[f.triage.justification];
        if (f.triage.detail) statement.impact_statement = f.triage.detail;
      }
      if (status === "affected")
        statement.action_statement =
          f.triage.detail ??
          (f.triage.responses.length ? `Response: ${f.triage.responses.join(", ")}.` : "No remediation decided yet.");
      return statement;
    }),
  };
}

function cvssMethod(vector: string): string {
  if (vector.startsWith("CVSS:4")) return "CVSSv4";
  if (vector.startsWith("CVSS:3.1")) return "CVSSv31";
  if (vector.startsWith("CVSS:3")) return "CVSSv3";
  return vector ? "CVSSv2" : "other";
}

export function cyclonedxVexDocument(findings: VexFinding[], meta: VexDocumentMeta): Record<string, unknown> {
  const components = new Map<string, Record<string, unknown>>();
  for (const f of findings)
    if (!components.has(f.componentKey))
      components.set(f.componentKey, {
        type: "library",
        "bom-ref": f.componentKey,
        name: f.componentName,
        ...(f.componentVersion ? { version: f.componentVersion } : {}),
        ...(f.purl ? { purl: f.purl } : {}),
      });
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    serialNumber: `urn:uuid:${meta.documentId}`,
    version: 1,
    metadata: {
      timestamp: meta.at.toISOString(),
      tools: { components: [{ type: "application", name: TOOL_NAME }] },
      component: { type: "application", "bom-ref": `project:${meta.projectId}`, name: meta.projectName },
    },
    components: [...components.values()],
    vulnerabilities: findings.map((f) => ({
      id: f.vulnerabilityId,
      ...(f.aliases.length ? { references: f.aliases.map((id) => ({ id, source: { name: sourceOfId(id) } })) } : {}),
      ratings: [
        {
          severity: f.severity,
          ...(f.cvssScore !== null ? { score: f.cvssScore } : {}),
          ...(f.cvssVector ? { vector: f.cvssVector, method: cvssMethod(f.cvssVector) } : {}),
        },
      ],
      analysis: {
        state: f.triage.status,
        ...(f.triage.justification ? { justification: f.triage.justification } : {}),
        ...(f.triage.responses.length ? { response: f.triage.responses } : {}),
        ...(f.triage.detail ? { detail: f.triage.detail } : {}),
        firstIssued: f.firstDetectedAt.toISOString(),
        lastUpdated: f.statusUpdatedAt.toISOString(),
      },
      affects: [{ ref: f.componentKey }],
    })),
  };
}

/** The database an id comes from, by its prefix (CVE-, GHSA-, ...), for CycloneDX's reference source. */
function sourceOfId(id: string): string {
  const prefix = /^([A-Za-z]+)-/.exec(id)?.[1]?.toUpperCase();
  if (prefix === "CVE") return "NVD";
  if (prefix === "GHSA") return "GitHub";
  return prefix ?? "OSV";
}

/** A statement of an imported document: the vulnerability's ids, the products it speaks of, the triage it gives. */
export interface VexStatement {
  vulnerabilityIds: string[];
  /** Product ids as written (purls, or a ref that named none). */
  products: { id: string; purl: string | null }[];
  triage: Triage | null;
  /** Why the statement carries no usable triage. */
  problem?: "unsupported_status";
}

export type ParsedVex = { format: "openvex" | "cyclonedx"; statements: VexStatement[] };

export class VexDocumentError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
// An imported document's text: NUL (which PostgreSQL text refuses) dropped, lone surrogates made well-formed.
const text = (v: unknown): string | null => {
  if (typeof v !== "string") return null;
  const t = v.replaceAll("\0", "").toWellFormed().trim();
  return t ? t : null;
};
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A purl when the text is one (a BOM-link's fragment may be one, percent-encoded), else null. */
export function purlIn(ref: string): string | null {
  try {
    const candidate =
      ref.startsWith("urn:cdx:") && ref.includes("#") ? decodeURIComponent(ref.slice(ref.indexOf("#") + 1)) : ref;
    if (!candidate.startsWith("pkg:")) return null;
    return PackageURL.fromString(candidate).toString();
  } catch {
    return null;
  }
}

function triageFrom(
  status: VexState,
  justification: string | null,
  responses: string[],
  detail: string | null,
): Triage {
  return {
    status,
    justification:
      status === "not_affected" && (VEX_JUSTIFICATIONS as readonly string[]).includes(justification ?? "")
        ? (justification as VexJustification)
        : null,
    responses: [...new Set(responses)].filter((r): r is VexResponse =>
      (VEX_RESPONSES as readonly string[]).includes(r),
    ),
    detail: detail ? [...detail].slice(0, 10_000).join("") : null,
  };
}

function openVexStatements(doc: Record<string, unknown>): VexStatement[] {
  return arrayOf(doc.statements)
    .filter(isObject)
    .map((s) => {
      const vuln = s.vulnerability;
      const vulnerabilityIds = isObject(vuln)
        ? [text(vuln.name), ...arrayOf(vuln.aliases).map(text)].filter((x): x is string => x !== null)
        : [text(vuln)].filter((x): x is string => x !== null);
      const products: { id: string; purl: string | null }[] = [];
      for (const p of arrayOf(s.products)) {
        if (typeof p === "string") {
          products.push({ id: p, purl: purlIn(p) });
          continue;
        }
        if (!isObject(p)) continue;
        const subs = arrayOf(p.subcomponents).filter(isObject);
        // An image with subcomponents speaks of the packages in it: those are what findings are about.
        const items = subs.length ? subs : [p];
        for (const item of items) {
          const id = text(item["@id"]) ?? (isObject(item.identifiers) ? text(item.identifiers.purl) : null) ?? "";
          const purl = (isObject(item.identifiers) ? text(item.identifiers.purl) : null) ?? purlIn(id);
          if (id || purl) products.push({ id: id || purl!, purl: purl ? purlIn(purl) : null });
        }
      }
      const status = text(s.status);
      const detail = text(s.impact_statement) ?? text(s.action_statement) ?? text(s.status_notes);
      let triage: Triage | null = null;
      if (status === "not_affected") {
        const j = FROM_OPENVEX_JUSTIFICATION[text(s.justification) ?? ""] ?? null;
        triage = triageFrom("not_affected", j, [], detail ?? (j ? null : "Not affected (imported VEX statement)."));
      } else if (status === "affected") triage = triageFrom("exploitable", null, [], detail);
      else if (status === "fixed") triage = triageFrom("resolved", null, [], detail);
      else if (status === "under_investigation") triage = triageFrom("in_triage", null, [], detail);
      return { vulnerabilityIds, products, triage, ...(triage ? {} : { problem: "unsupported_status" as const }) };
    });
}

function cyclonedxStatements(doc: Record<string, unknown>): VexStatement[] {
  // bom-refs of the document's own components (nested ones included) and of its metadata component.
  const refs = new Map<string, string | null>();
  const visit = (c: unknown) => {
    if (!isObject(c)) return;
    const ref = text(c["bom-ref"]);
    if (ref) refs.set(ref, text(c.purl));
    arrayOf(c.components).forEach(visit);
  };
  arrayOf(doc.components).forEach(visit);
  if (isObject(doc.metadata)) visit(doc.metadata.component);
  return arrayOf(doc.vulnerabilities)
    .filter(isObject)
    .map((v) => {
      const vulnerabilityIds = [
        text(v.id),
        ...arrayOf(v.references).map((r) => (isObject(r) ? text(r.id) : null)),
      ].filter((x): x is string => x !== null);
      const products = arrayOf(v.affects)
        .filter(isObject)
        .map((a) => text(a.ref))
        .filter((r): r is string => r !== null)
        .map((ref) => {
          const own = refs.get(ref);
          const purl = own ? purlIn(own) : purlIn(ref);
          return { id: ref, purl };
        });
      const a = isObject(v.analysis) ? v.analysis : null;
      const state = a ? text(a.state) : null;
      const known: readonly string[] = VEX_STATES;
      const triage =
        a && state && known.includes(state)
          ? triageFrom(
              state as VexState,
              text(a.justification),
              arrayOf(a.response)
                .map(text)
                .filter((x): x is string => x !== null),
              text(a.detail) ??
                (state === "not_affected" && !text(a.justification) ? "Not affected (imported VEX statement)." : null),
            )
          : null;
      return { vulnerabilityIds, products, triage, ...(triage ? {} : { problem: "unsupported_status" as const }) };
    });
}

/** The document's format and statements; VexDocumentError when it is neither OpenVEX nor CycloneDX JSON. */
export function parseVex(bytes: Uint8Array): ParsedVex {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new VexDocumentError("The document is not JSON.");
  }
  if (!isObject(doc)) throw new VexDocumentError("The document is not a JSON object.");
  const context = text(doc["@context"]);
  if (context?.startsWith("https://openvex.dev/ns")) return { format: "openvex", statements: openVexStatements(doc) };
  if (doc.bomFormat === "CycloneDX") return { format: "cyclonedx", statements: cyclonedxStatements(doc) };
  throw new VexDocumentError("The document is neither OpenVEX (@context openvex.dev) nor CycloneDX (bomFormat).");
}

export interface PurlIdentity {
  /** type, namespace and name, canonical */
  base: string;
  version: string | null;
  qualifiers: Record<string, string>;
}

/** A purl's parts for matching (the subpath is ignored). */
export function purlIdentity(purl: string): PurlIdentity | null {
  try {
    const p = PackageURL.fromString(purl);
    const base = new PackageURL(p.type, p.namespace, p.name, undefined, undefined, undefined).toString();
    return { base, version: p.version ?? null, qualifiers: { ...(p.qualifiers ?? {}) } };
  } catch {
    return null;
  }
}

/**
 * Whether a VEX product names this component: the same package; the same version unless the product names none
 * (then every version); and no qualifier both name with different values (`arch=armv7` is not the x86_64 build), a
 * qualifier only one of them carries being no contradiction.
 */
export function productNames(product: PurlIdentity, component: PurlIdentity): boolean {
  if (product.base !== component.base) return false;
  if (product.version !== null && product.version !== component.version) return false;
  return Object.entries(product.qualifiers).every(
    ([k, v]) => component.qualifiers[k] === undefined || component.qualifiers[k] === v,
  );
}
