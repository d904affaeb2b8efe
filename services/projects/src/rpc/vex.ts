// VEX export and import (docs/findings.md, "VEX export and import"): documents built from the triage of the
// project's newest snapshot, and documents applied to its findings with a report of what matched.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  ExportVexResponseSchema,
  ImportVexResponseSchema,
  VexStatementOutcomeSchema,
  type VexStatementOutcome,
} from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { requireCaller } from "@sca/rpc";
import { mayImportVex } from "../domain/project-access.ts";
import {
  cyclonedxVexDocument,
  openVexDocument,
  parseVex,
  productNames,
  purlIdentity,
  VexDocumentError,
  type VexStatement,
} from "../domain/vex-documents.ts";
import { needsConfirmation } from "../domain/triage-confirmation.ts";
import { isVexState, sameTriage } from "../domain/vex-status.ts";
import { emitAudit } from "../events/project-events.ts";
import { approvalRequiredStatusesFor } from "../store/approval-required-statuses.ts";
import { snapshotFindings, type FindingRow } from "../store/findings/reads.ts";
import { lockTriage, writePendingTriage, writeTriage } from "../store/findings/triage.ts";
import { triageOfRow, vexFindingOf } from "./finding-views.ts";
import { anchoredSnapshot, readableProject } from "./readable-inventory.ts";
import { changedBy, type FindingHandlers, type FindingServiceDeps } from "./vulnerability-findings.ts";
import { refreshProjectFigures } from "../store/portfolio/figures.ts";

/** Findings a VEX export or import reads at most (a snapshot holds far fewer). */
export const VEX_FINDINGS_MAX = 100_000;
/** Statements an import reads at most, and outcomes it reports at most per list. */
export const VEX_STATEMENTS_MAX = 10_000;
export const VEX_REPORT_MAX = 1000;

const MEDIA_TYPES = { openvex: "application/json", cyclonedx: "application/vnd.cyclonedx+json" } as const;

/** The findings a statement speaks of: a vulnerability id or alias in common, a product naming the component. */
function findingsOf(statement: VexStatement, product: { purl: string | null }, findings: FindingRow[]): FindingRow[] {
  const wanted = purlIdentity(product.purl ?? "");
  if (!wanted) return [];
  const ids = new Set(statement.vulnerabilityIds.map((i) => i.toUpperCase()));
  return findings.filter((f) => {
    if (!f.purl) return false;
    if (![f.vulnerabilityId, ...f.aliases].some((id) => ids.has(id.toUpperCase()))) return false;
    const have = purlIdentity(f.purl);
    return have !== null && productNames(wanted, have);
  });
}

export function vexHandlers(deps: FindingServiceDeps): FindingHandlers<"exportVex" | "importVex"> {
  return {
    async exportVex(req, ctx: HandlerContext) {
      const project = await readableProject(deps, ctx, req.projectId);
      const format = req.format.trim().toLowerCase();
      if (format !== "openvex" && format !== "cyclonedx")
        throw ProblemError.validation([{ path: "query.format", message: "must be openvex or cyclonedx" }]);
      const snapshot = await anchoredSnapshot(deps, project.id, undefined);
      const rows = snapshot ? await snapshotFindings(deps.orm.em.fork(), snapshot.scanId, VEX_FINDINGS_MAX) : [];
      const meta = { documentId: randomUUID(), projectName: project.name, projectId: project.id, at: new Date() };
      const findings = rows.map(vexFindingOf);
      const doc = format === "openvex" ? openVexDocument(findings, meta) : cyclonedxVexDocument(findings, meta);
      return create(ExportVexResponseSchema, {
        document: Buffer.from(JSON.stringify(doc, null, 2)),
        mediaType: MEDIA_TYPES[format],
      });
    },

    async importVex(req, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, ctx, req.projectId);
      if (!mayImportVex(caller, project).ok)
        throw ProblemError.forbidden("Importing a VEX document needs the team_admin role on the project's team.");
      let parsed;
      try {
        parsed = parseVex(req.document);
      } catch (err) {
        if (err instanceof VexDocumentError)
          throw new ProblemError({ status: 422, code: "vex_document_invalid", detail: err.message });
        throw err;
      }
      if (parsed.statements.length > VEX_STATEMENTS_MAX)
        throw new ProblemError({
          status: 422,
          code: "vex_document_invalid",
          detail: `The document has more than ${VEX_STATEMENTS_MAX} statements.`,
        });
      const snapshot = await anchoredSnapshot(deps, project.id, undefined);
      const now = new Date();
      const matched: VexStatementOutcome[] = [];
      const unmatched: VexStatementOutcome[] = [];
      const updatedKeys = new Set<string>();
      const pendingKeys = new Set<string>();
      await deps.orm.em.fork().transactional(async (em) => {
        const required = await approvalRequiredStatusesFor(em, project.teamId, project.organizationId);
        const findings = snapshot ? await snapshotFindings(em, snapshot.scanId, VEX_FINDINGS_MAX) : [];
        for (const s of parsed.statements) {
          const vulnerability = s.vulnerabilityIds[0] ?? "";
          if (s.products.length === 0)
            unmatched.push(create(VexStatementOutcomeSchema, { vulnerability, product: "", reason: "no_product" }));
          for (const product of s.products) {
            const outcome = { vulnerability, product: product.id };
            if (!s.triage) {
              unmatched.push(
                create(VexStatementOutcomeSchema, { ...outcome, reason: s.problem ?? "unsupported_status" }),
              );
              continue;
            }
            if (!product.purl) {
              unmatched.push(create(VexStatementOutcomeSchema, { ...outcome, reason: "unresolved_product" }));
              continue;
            }
            const hits = findingsOf(s, product, findings);
            if (hits.length === 0) {
              unmatched.push(create(VexStatementOutcomeSchema, { ...outcome, reason: "no_finding" }));
              continue;
            }
            for (const f of hits) {
              const key = { projectId: f.projectId, componentKey: f.componentKey, vulnerabilityId: f.vulnerabilityId };
              const current = await lockTriage(em, key);
              if (!current || sameTriage(triageOfRow({ ...f, ...current }), s.triage)) continue;
              const from = isVexState(current.status) ? current.status : "in_triage";
              // A status the gate policy names waits for a second person, as through the PATCH.
              if (needsConfirmation(from, s.triage.status, required)) {
                await writePendingTriage(em, current, s.triage, changedBy(caller));
                pendingKeys.add(`${f.componentKey}\u0000${f.vulnerabilityId}`);
                continue;
              }
              await writeTriage(em, current, s.triage, `vex-import:${changedBy(caller) ?? "unknown"}`);
              updatedKeys.add(`${f.componentKey}\u0000${f.vulnerabilityId}`);
            }
            matched.push(
              create(VexStatementOutcomeSchema, {
                ...outcome,
                status: s.triage.status,
                findingIds: hits.map((f) => f.id),
              }),
            );
          }
        }
        if (updatedKeys.size > 0) await refreshProjectFigures(em, [project.id]);
        emitAudit(em, {
          action: "vulnerability_finding.vex_imported",
          actor: callerActor(caller),
          targetId: project.id,
          teamId: project.teamId,
          organizationId: project.organizationId,
          outcome: "success",
          at: now,
          details: {
            format: parsed.format,
            statements: String(parsed.statements.length),
            matched: String(matched.length),
            unmatched: String(unmatched.length),
            findings_updated: String(updatedKeys.size),
            findings_pending_confirmation: String(pendingKeys.size),
          },
        });
      });
      deps.wakeRelay();
      return create(ImportVexResponseSchema, {
        format: parsed.format,
        statements: parsed.statements.length,
        findingsUpdated: updatedKeys.size,
        findingsPendingConfirmation: pendingKeys.size,
        matched: matched.slice(0, VEX_REPORT_MAX),
        unmatched: unmatched.slice(0, VEX_REPORT_MAX),
      });
    },
  };
}
