// A project's vulnerability findings (VulnerabilityFindingService; docs/findings.md): the per-project list with its
// filters, sort and offset paging, one finding, and the VEX status change (If-Match on the finding's version).
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { VulnerabilityFinding } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { requiredIfMatch } from "../../api/if-match.ts";
import { offsetPagination } from "../../api/pagination.ts";
import { booleanParam, listParam, listValues, snapshotAnchorQuery } from "../../api/query-params.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { PROJECT_PAGE_SIZE } from "@sca/paging";
import { FINDING_SEVERITIES, VEX_JUSTIFICATIONS, VEX_RESPONSES, VEX_STATES } from "@sca/vocabulary";

const TAGS = ["vulnerabilities"];

const findingQuery = snapshotAnchorQuery.extend({
  severity: listParam().meta({ description: FINDING_SEVERITIES.join(", ") }),
  "severity[]": listParam(),
  status: listParam().meta({ description: `VEX states: ${VEX_STATES.join(", ")}` }),
  "status[]": listParam(),
  known_exploited: booleanParam().meta({ description: "On the known-exploited catalog" }),
  has_fix: booleanParam().meta({ description: "A fixed version is known" }),
  pending_confirmation: booleanParam().meta({
    description: "A status change waits for a second person's confirmation (true), or none does (false)",
  }),
  epss_min: z.coerce.number().min(0).max(1).optional().meta({ description: "EPSS score at least this (0..1)" }),
  component_id: z.uuid().optional(),
  search: z.string().max(255).optional().meta({
    description: "Case-insensitive part of the component's name or purl, or of the vulnerability id or an alias",
  }),
  sort: z
    .string()
    .max(200)
    .optional()
    .meta({
      description:
        "Comma-separated fields among severity, cvss, epss, published, vulnerability, component, status, detected; a " +
        "leading - sorts that field descending. Default -severity,-epss; ties end in vulnerability id, component name, id",
    }),
});

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export function findingJson(f: VulnerabilityFinding) {
  return {
    id: f.id,
    project_id: f.projectId,
    scan_id: f.scanId,
    component_id: f.componentId,
    component_row_id: f.componentRowId,
    component_name: f.componentName,
    component_version: f.componentVersion ?? null,
    purl: f.purl ?? null,
    ecosystem: f.ecosystem,
    vulnerability_id: f.vulnerabilityId,
    aliases: f.aliases,
    summary: f.summary,
    severity: f.severity,
    cvss_score: f.cvssScore ?? null,
    cvss_vector: f.cvssVector || null,
    epss_score: f.epssScore ?? null,
    epss_percentile: f.epssPercentile ?? null,
    known_exploited: f.knownExploited,
    kev_due_date: f.kevDueDate || null,
    fixed_versions: f.fixedVersions,
    published_at: iso(f.publishedAt),
    references: f.references,
    status: f.status,
    justification: f.justification || null,
    response: f.responses,
    detail: f.detail || null,
    version: f.version,
    first_detected_at: iso(f.firstDetectedAt)!,
    detected_at: iso(f.detectedAt)!,
    removed_at: iso(f.removedAt),
    status_updated_at: iso(f.statusUpdatedAt)!,
    status_updated_by: f.statusUpdatedBy || null,
    pending_status_change: f.pendingStatus
      ? {
          status: f.pendingStatus,
          justification: f.pendingJustification || null,
          response: f.pendingResponses,
          detail: f.pendingDetail || null,
          requested_by: f.pendingRequestedBy || null,
          requested_at: iso(f.pendingRequestedAt),
        }
      : null,
  };
}

const text = () => z.string().nullable();
const time = () => z.iso.datetime();
const findingSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    scan_id: z.uuid(),
    component_id: z.uuid().meta({ description: "The component's identity (GET .../components/{component_id})" }),
    component_row_id: z.uuid(),
    component_name: z.string(),
    component_version: text(),
    purl: text(),
    ecosystem: z.string().meta({ description: "The OSV ecosystem the component was matched in" }),
    vulnerability_id: z.string().meta({ description: "Canonical id: the CVE when there is one" }),
    aliases: z.array(z.string()),
    summary: z.string(),
    severity: z.string(),
    cvss_score: z.number().nullable(),
    cvss_vector: text(),
    epss_score: z.number().nullable(),
    epss_percentile: z.number().nullable(),
    known_exploited: z.boolean(),
    kev_due_date: text(),
    fixed_versions: z.array(z.string()),
    published_at: time().nullable(),
    references: z.array(z.string()),
    status: z.string().meta({ description: `The VEX status (CycloneDX analysis state): ${VEX_STATES.join(", ")}` }),
    justification: text(),
    response: z.array(z.string()),
    detail: text(),
    version: z.number().int().meta({ description: "The If-Match counter; increments on every status change" }),
    first_detected_at: time(),
    detected_at: time(),
    removed_at: time().nullable(),
    status_updated_at: time(),
    status_updated_by: text(),
    pending_status_change: z
      .object({
        status: z.string(),
        justification: text(),
        response: z.array(z.string()),
        detail: text(),
        requested_by: text().meta({ description: "The user (or API key) who asked for it" }),
        requested_at: time().nullable(),
      })
      .nullable()
      .meta({
        description:
          "A change into a status the gate policy's approval_required_statuses names, waiting for a different " +
          "person to confirm it (POST .../status/confirm); the status above stays in force until then",
      }),
  })
  .meta({ id: "VulnerabilityFinding" });

const statusBody = z
  .object({
    status: z
      .string()
      .max(64)
      .meta({ description: VEX_STATES.join(", ") }),
    justification: z
      .string()
      .max(64)
      .nullable()
      .optional()
      .meta({
        description: `Only with not_affected: ${VEX_JUSTIFICATIONS.join(", ")}`,
      }),
    response: z
      .array(z.string().max(64))
      .max(5)
      .optional()
      .meta({ description: VEX_RESPONSES.join(", ") }),
    detail: z.string().max(10_000).nullable().optional(),
  })
  .meta({ id: "VulnerabilityFindingStatusChange" });

const etag = (f: VulnerabilityFinding) => ({ ETag: `"${f.version}"` });
const etagHeader = z.object({ ETag: z.string().meta({ description: 'The finding\'s version, quoted ("3")' }) });

export function vulnerabilityRoutes(ctx: GatewayContext): Route[] {
  const findings = ctx.clients.projects.findings;
  const caller = ctx.auth.route("caller");
  const findingParams = z.object({ finding_id: z.uuid() });
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/vulnerabilities",
      summary: "List a project's vulnerability findings",
      description:
        "The open findings (one per component and vulnerability) of the anchor's snapshot: scan_id wins over release; " +
        "neither: the newest succeeded scan. A project not scanned or not matched yet answers an empty page.",
      tags: TAGS,
      operationId: "listVulnerabilityFindings",
      auth: caller,
      request: {
        params: z.object({ id: z.uuid() }),
        query: offsetPagination.query(PROJECT_PAGE_SIZE).extend(findingQuery.shape),
      },
      responses: {
        // Rows as projects writes them in JSON, held equal to findingJson (test/vulnerability-findings.test.ts).
        200: { description: "A page of findings", schema: offsetPagination.envelope(findingSchema), shaped: true },
        404: problemResponse("No such project (or not readable), or no succeeded scan for scan_id / release"),
      },
      handler: async ({ params, query, call }) => {
        const page = await findings.listVulnerabilityFindings(
          {
            projectId: params.id,
            anchor: { scanId: query.scan_id, release: query.release },
            filter: {
              severity: listValues(query.severity, query["severity[]"]),
              status: listValues(query.status, query["status[]"]),
              knownExploited: query.known_exploited,
              hasFix: query.has_fix,
              pendingConfirmation: query.pending_confirmation,
              epssMin: query.epss_min,
              componentId: query.component_id,
              search: query.search,
            },
            sort: query.sort ?? "",
            limit: query.limit,
            offset: query.offset,
            itemsAsJson: true,
          },
          call,
        );
        return { status: 200, body: offsetPagination.serialisedPage(page.itemsJson, page.total, query) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/vulnerability_findings/{finding_id}",
      summary: "Get a vulnerability finding",
      description: "The finding with its vulnerability, component and triage; ETag carries its version.",
      tags: TAGS,
      operationId: "getVulnerabilityFinding",
      auth: caller,
      request: { params: findingParams },
      responses: {
        200: { description: "The finding", schema: findingSchema, headers: etagHeader },
        404: problemResponse("No such finding, or its project is not readable"),
      },
      handler: async ({ params, call }) => {
        const { finding } = await findings.getVulnerabilityFinding({ findingId: params.finding_id }, call);
        return { status: 200, body: findingJson(finding!), headers: etag(finding!) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/vulnerability_findings/{finding_id}/status",
      summary: "Set a vulnerability finding's VEX status",
      description:
        "Developer or above on the project's team. If-Match must carry the finding's current version; a mismatch is " +
        "412 with current_version. The triage belongs to the project's component and vulnerability, so it carries " +
        "over to later scans. Allowed moves: docs/findings.md (a closing state is left through in_triage or " +
        "exploitable; 409 otherwise). The same status again changes nothing. A move into a status the gate policy's " +
        "approval_required_statuses names is not applied: it answers 202 with the change waiting in " +
        "pending_status_change until a different person confirms it (docs/findings.md).",
      tags: TAGS,
      operationId: "setVulnerabilityFindingStatus",
      auth: caller,
      request: { params: findingParams, body: statusBody },
      responses: {
        200: { description: "The finding after the change", schema: findingSchema, headers: etagHeader },
        202: {
          description: "The change waits for a second person's confirmation (pending_status_change)",
          schema: findingSchema,
          headers: etagHeader,
        },
        403: problemResponse("Below developer on the project's team, or a read-only key"),
        404: problemResponse("No such finding, or its project is not readable"),
        409: problemResponse("The move from the current status to this one is not allowed"),
        412: problemResponse("If-Match is not the current version (current_version says which is)"),
        422: problemResponse("Invalid status, justification, response or detail"),
        428: problemResponse("If-Match is missing or names no version"),
      },
      handler: async ({ params, body, req, call }) => {
        const expected = requiredIfMatch(req, "finding");
        const { finding, pendingConfirmation } = await findings.updateFindingStatus(
          {
            findingId: params.finding_id,
            expectedVersion: expected,
            status: body.status,
            justification: body.justification ?? undefined,
            responses: body.response ?? [],
            detail: body.detail ?? undefined,
          },
          call,
        );
        return { status: pendingConfirmation ? 202 : 200, body: findingJson(finding!), headers: etag(finding!) };
      },
    }),
    ...(["confirm", "decline"] as const).map((action) =>
      defineRoute({
        method: "post",
        path: `/v1/vulnerability_findings/{finding_id}/status/${action}`,
        summary:
          action === "confirm"
            ? "Confirm a vulnerability finding's pending status change"
            : "Decline a vulnerability finding's pending status change",
        description:
          action === "confirm"
            ? "Applies the change waiting in pending_status_change. Developer or above on the project's team, a " +
              "person (not an API key) other than the one who asked for it (403 second_person_required). If-Match " +
              "carries the finding's version; 409 no_pending_status_change when nothing waits."
            : "Drops the change waiting in pending_status_change without applying it (developer or above, the " +
              "requester included). If-Match carries the finding's version; 409 when nothing waits.",
        tags: TAGS,
        operationId: action === "confirm" ? "confirmVulnerabilityFindingStatus" : "declineVulnerabilityFindingStatus",
        auth: caller,
        request: { params: findingParams },
        responses: {
          200: { description: "The finding after the change", schema: findingSchema, headers: etagHeader },
          403: problemResponse(
            action === "confirm"
              ? "Below developer, a read-only key, an API key, or the person who asked for the change"
              : "Below developer on the project's team, or a read-only key",
          ),
          404: problemResponse("No such finding, or its project is not readable"),
          409: problemResponse("No status change is waiting for confirmation"),
          412: problemResponse("If-Match is not the current version (current_version says which is)"),
          428: problemResponse("If-Match is missing or names no version"),
        },
        handler: async ({ params, req, call }) => {
          const request = { findingId: params.finding_id, expectedVersion: requiredIfMatch(req, "finding") };
          const { finding } =
            action === "confirm"
              ? await findings.confirmFindingStatus(request, call)
              : await findings.declineFindingStatus(request, call);
          return { status: 200, body: findingJson(finding!), headers: etag(finding!) };
        },
      }),
    ),
  ];
}
