// GET /v1/projects/{id}/governance, the governance band (docs/governance.md): the gate verdict and the approvals
// still to decide (policy), the risk score, KEV due dates, trend and scan state (projects), asked together as the
// caller, so the band is exactly as visible as the project (404 to anyone who may not read it).
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { GetGovernanceFactsResponse } from "@sca/proto/sca/projects/v1/governance_facts_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { gateResultJson, gateResultSchema } from "./gate-views.ts";

const KEV_STATES = ["none", "on_track", "due_soon", "overdue"] as const;
const DIRECTIONS = ["worsening", "improving", "steady", "unknown"] as const;
const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const day = () => z.string().nullable().meta({ description: "YYYY-MM-DD" });

const governanceSchema = z
  .object({
    project_id: z.uuid(),
    scanned: z.boolean().meta({ description: "The project has a succeeded scan" }),
    scan_id: z.uuid().nullable().meta({ description: "Its newest succeeded scan, judged by every figure below" }),
    scanned_at: z.iso.datetime().nullable(),
    risk_score: z.number().int().min(0).max(100).meta({
      description: "The overview's risk_score of the newest snapshot (docs/projects.md); 0 when not scanned",
    }),
    gate: gateResultSchema.meta({ description: "The build gate's verdict (GET /v1/projects/{id}/gate-result)" }),
    kev_sla: z
      .object({
        state: z.enum(KEV_STATES).meta({ description: "The worst that applies to the open known-exploited findings" }),
        open_count: z.number().int(),
        overdue_count: z.number().int().meta({ description: "Past the catalog's due date" }),
        due_soon_count: z.number().int().meta({ description: "Due within 7 days" }),
        without_due_date_count: z.number().int(),
        next_due_date: day(),
        oldest_overdue_date: day(),
      })
      .meta({ description: "Open findings of the newest snapshot on the known-exploited catalog, by its due dates" }),
    pending_approvals: z
      .number()
      .int()
      .meta({ description: "The project's approval requests pending or under_review" }),
    pending_approvals_by_status: z.object({ pending: z.number().int(), under_review: z.number().int() }),
    pending_status_confirmations: z.number().int().meta({
      description: "Findings whose status change waits for a second person (approval_required_statuses)",
    }),
    trend: z.object({
      direction: z.enum(DIRECTIONS).meta({
        description:
          "The newest snapshot against the one before: risk_score up is worsening, down improving; at equal " +
          "scores, open findings decide; unknown with fewer than two snapshots",
      }),
      points: z
        .array(
          z.object({
            scan_id: z.uuid(),
            scanned_at: z.iso.datetime(),
            risk_score: z.number().int(),
            open_findings: z.number().int(),
            critical: z.number().int(),
            high: z.number().int(),
            medium: z.number().int(),
            low: z.number().int(),
          }),
        )
        .meta({ description: "The newest 10 succeeded snapshots, oldest first" }),
    }),
  })
  .meta({ id: "GovernanceBand" });

function factsJson(f: GetGovernanceFactsResponse) {
  const kev = f.kevSla;
  return {
    scanned: f.scanned,
    scan_id: f.scanId ?? null,
    scanned_at: iso(f.scannedAt),
    risk_score: f.riskScore,
    kev_sla: {
      state: (kev?.state ?? "none") as (typeof KEV_STATES)[number],
      open_count: kev?.openCount ?? 0,
      overdue_count: kev?.overdueCount ?? 0,
      due_soon_count: kev?.dueSoonCount ?? 0,
      without_due_date_count: kev?.withoutDueDateCount ?? 0,
      next_due_date: kev?.nextDueDate || null,
      oldest_overdue_date: kev?.oldestOverdueDate || null,
    },
    pending_status_confirmations: f.pendingStatusConfirmations,
    trend: {
      direction: (f.trend?.direction ?? "unknown") as (typeof DIRECTIONS)[number],
      points: (f.trend?.points ?? []).map((p) => ({
        scan_id: p.scanId,
        scanned_at: iso(p.scannedAt)!,
        risk_score: p.riskScore,
        open_findings: p.openFindings,
        critical: p.critical,
        high: p.high,
        medium: p.medium,
        low: p.low,
      })),
    },
  };
}

export function governanceRoutes(ctx: GatewayContext): Route[] {
  const { gatePolicies, governance } = ctx.clients.policy;
  const facts = ctx.clients.projects.governance;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/governance",
      summary: "The governance band of a project",
      description:
        "The gate verdict, the KEV due-date state of the open findings, the approvals still to decide, the risk " +
        "score, whether the project was scanned and its trend over the recent snapshots, in one answer. Anyone who " +
        "may read the project (people and API keys); others 404.",
      tags: ["governance"],
      operationId: "getGovernanceBand",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ id: z.uuid() }) },
      responses: {
        200: { description: "The band", schema: governanceSchema },
        404: problemResponse("No such project, or the caller may not read it"),
      },
      handler: async ({ params, call }) => {
        // Projects answers first: an unreadable project is one 404, before policy is asked anything.
        const known = await facts.getGovernanceFacts({ projectId: params.id }, call);
        const [gate, approvals] = await Promise.all([
          gatePolicies.getGateResult({ projectId: known.projectId }, call),
          governance.getPendingApprovals({ projectId: known.projectId }, call),
        ]);
        return {
          status: 200,
          body: {
            project_id: known.projectId,
            ...factsJson(known),
            gate: gateResultJson(gate.result!),
            pending_approvals: approvals.pending + approvals.underReview,
            pending_approvals_by_status: { pending: approvals.pending, under_review: approvals.underReview },
          },
        };
      },
    }),
  ];
}
