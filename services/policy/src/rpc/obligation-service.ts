// ObligationService: a project's license obligations (derived at read time from the licenses of its newest
// snapshot, which projects counts in SQL), their fulfilments (stored here; a change runs in one transaction on the
// locked row with its audit event) and the notice document, streamed (docs/obligations.md).
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  DeleteFulfilmentResponseSchema,
  ExportNoticeResponseSchema,
  FulfilmentSchema,
  GetObligationResponseSchema,
  ListFulfilmentsResponseSchema,
  ListObligationsResponseSchema,
  ObligationSchema,
  ObligationService,
  PutFulfilmentResponseSchema,
  type ExportNoticeResponse,
  type Fulfilment,
  type Obligation,
} from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import type { SummariseProjectLicensesResponse } from "@sca/proto/sca/projects/v1/license_inventory_pb.ts";
import { byteChunks, requireCaller, type Caller } from "@sca/rpc";
import type { LicenseInventory } from "../clients/license-inventory.ts";
import {
  AI_USAGE_CONTEXTS,
  DISTRIBUTION_MODELS,
  type AiUsageContext,
  type DistributionModel,
  type UseContext,
} from "../domain/license-catalog.ts";
import { CATALOG_ONLY } from "../domain/license-policy.ts";
import { licenseText, LICENSE_TEXTS_VERSION } from "../domain/license-texts.ts";
import {
  componentEntry,
  licenseIdsOf,
  licenseSection,
  licenseTextsHeading,
  NOTICE_MAX_LICENSE_IDS,
  NOTICE_MEDIA_TYPE,
  noticeFileName,
  noticeHeader,
  omittedLicenses,
} from "../domain/notice-document.ts";
import { mayFulfil, planFulfilment } from "../domain/obligation-fulfilment.ts";
import {
  deriveObligations,
  parseObligationSort,
  sortObligations,
  type ProjectObligation,
} from "../domain/project-obligations.ts";
import { emitAudit } from "../events/policy-events.ts";
import {
  deleteFulfilment,
  fulfilmentsOf,
  insertFulfilment,
  listFulfilments,
  lockFulfilment,
  updateFulfilment,
  type ObligationFulfilmentRow,
} from "../store/obligation-fulfilments.ts";
import { policyInForce } from "./license-policy-service.ts";
import { rulesOf } from "./license-policy-views.ts";
import { PROJECT_PAGE_SIZE } from "@sca/paging";
import { UUID } from "@sca/ids";

export interface ObligationDeps {
  orm: MikroORM;
  inventory: LicenseInventory;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

/** Bytes gathered before a notice chunk is sent. */
const NOTICE_CHUNK_BYTES = 64 * 1024;
const AUDIT_TABLE = "obligation_fulfilments";

const noSuchObligation = () => ProblemError.notFound("The project has no such obligation.");

function window(limit: number, offset: number): { limit: number; offset: number } {
  const v: FieldViolation[] = [];
  if (limit < 0 || limit > PROJECT_PAGE_SIZE.maxSize)
    v.push({ path: "query.limit", message: `must be between 1 and ${PROJECT_PAGE_SIZE.maxSize}` });
  if (offset < 0) v.push({ path: "query.offset", message: "must be at least 0" });
  if (v.length) throw ProblemError.validation(v);
  return { limit: limit || PROJECT_PAGE_SIZE.defaultSize, offset };
}

function oneOf<T extends string>(values: readonly T[], value: string | undefined): T | null {
  return value !== undefined && (values as readonly string[]).includes(value) ? (value as T) : null;
}

interface Derived {
  summary: SummariseProjectLicensesResponse;
  projectId: string;
  teamId: string;
  organizationId: string | null;
  obligations: ProjectObligation[];
}

/** The project (as the caller may read it; projects answers 404 otherwise) and its obligations now. */
async function derive(deps: ObligationDeps, caller: Caller, projectId: string): Promise<Derived> {
  if (!UUID.test(projectId)) throw ProblemError.notFound("No such project.");
  const summary = await deps.inventory.summarise(caller, projectId.toLowerCase());
  const project = summary.project!;
  const organizationId = project.organizationId ?? null;
  const inForce = await policyInForce(deps.orm.em.fork(), { id: project.teamId, organizationId });
  // A stored value the catalog does not know is judged as unset (every way), the cautious reading.
  const use: UseContext = {
    distributionModel: oneOf<DistributionModel>(DISTRIBUTION_MODELS, project.distributionModel),
    aiUsageContext: oneOf<AiUsageContext>(AI_USAGE_CONTEXTS, project.aiUsageContext),
  };
  const obligations = deriveObligations(
    project.id,
    summary.expressions.map((e) => ({ expression: e.expression || null, componentCount: e.componentCount })),
    inForce ? rulesOf(inForce) : CATALOG_ONLY,
    use,
    new Date(),
  );
  return { summary, projectId: project.id, teamId: project.teamId, organizationId, obligations };
}

function fulfilmentView(row: ObligationFulfilmentRow, current: boolean): Fulfilment {
  return create(FulfilmentSchema, {
    id: row.id,
    projectId: row.projectId,
    obligationId: row.obligationId,
    obligation: row.obligation,
    license: row.license,
    ...(row.note !== null ? { note: row.note } : {}),
    ...(row.evidenceUrl !== null ? { evidenceUrl: row.evidenceUrl } : {}),
    ...(row.fulfilledByUserId !== null ? { fulfilledByUserId: row.fulfilledByUserId } : {}),
    version: row.version,
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
    current,
  });
}

function obligationView(d: Derived, o: ProjectObligation, fulfilment: ObligationFulfilmentRow | undefined): Obligation {
  return create(ObligationSchema, {
    id: o.id,
    projectId: d.projectId,
    obligation: o.obligation,
    title: o.title,
    license: o.license,
    licenseCategory: o.licenseCategory,
    componentCount: o.componentCount,
    fulfilled: fulfilment !== undefined,
    ...(fulfilment ? { fulfilment: fulfilmentView(fulfilment, true) } : {}),
    scanId: d.summary.scanId,
  });
}

function requireFulfiller(caller: Caller, d: Derived): void {
  if (!mayFulfil(caller, d.teamId))
    throw ProblemError.forbidden(
      "Recording an obligation's fulfilment needs the developer role on the project's team.",
    );
}

const versionMismatch = (expected: number, current: ObligationFulfilmentRow | null) =>
  new ProblemError({
    status: 412,
    code: "version_mismatch",
    detail: current
      ? `If-Match names version ${expected}; the fulfilment is at version ${current.version}.`
      : `If-Match names version ${expected}; the obligation has no fulfilment yet.`,
    extensions: { current_version: current ? current.version : null },
    ...(current ? { headers: { ETag: `"${current.version}"` } } : {}),
  });

async function* noticePieces(
  deps: ObligationDeps,
  caller: Caller,
  projectId: string,
  signal: AbortSignal,
): AsyncGenerator<string | { header: { fileName: string; scanId: string } }> {
  const { header, chunks } = await deps.inventory.attributions(caller, projectId, signal);
  const project = header.project!;
  yield { header: { fileName: noticeFileName(project.slug), scanId: header.scanId } };
  yield noticeHeader(project, header.scanId, header.componentCount, LICENSE_TEXTS_VERSION);
  const ids = new Set<string>();
  let omitted = 0;
  for await (const components of chunks) {
    for (const c of components) {
      yield componentEntry(c);
      for (const id of licenseIdsOf(c.license)) {
        if (ids.has(id)) continue;
        if (ids.size < NOTICE_MAX_LICENSE_IDS) ids.add(id);
        else omitted++;
      }
    }
  }
  yield licenseTextsHeading();
  const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  for (const id of [...ids].sort(byBytes)) yield licenseSection(id, await licenseText(id));
  if (omitted) yield omittedLicenses(omitted);
}

export function registerObligationService(router: ConnectRouter, deps: ObligationDeps): void {
  router.service(ObligationService, {
    async listObligations(req, ctx) {
      const caller = requireCaller(ctx);
      const page = window(req.limit, req.offset);
      const sort = parseObligationSort(req.sort);
      if (!sort.ok)
        throw ProblemError.validation([
          {
            path: "query.sort",
            message: `unknown field ${sort.field}: license, obligation, license_category, component_count, fulfilled`,
          },
        ]);
      const d = await derive(deps, caller, req.projectId);
      const fulfilments = await fulfilmentsOf(
        deps.orm.em.fork(),
        d.projectId,
        d.obligations.map((o) => o.id),
      );
      const all = d.obligations
        .map((o) => ({ ...o, fulfilled: fulfilments.has(o.id) }))
        .filter((o) => req.fulfilled === undefined || o.fulfilled === req.fulfilled);
      const sorted = sortObligations(all, sort.keys);
      return create(ListObligationsResponseSchema, {
        items: sorted
          .slice(page.offset, page.offset + page.limit)
          .map((o) => obligationView(d, o, fulfilments.get(o.id))),
        total: sorted.length,
        truncated: d.summary.truncated,
      });
    },

    async getObligation(req, ctx) {
      const caller = requireCaller(ctx);
      const d = await derive(deps, caller, req.projectId);
      const o = UUID.test(req.obligationId)
        ? d.obligations.find((x) => x.id === req.obligationId.toLowerCase())
        : undefined;
      if (!o) throw noSuchObligation();
      const fulfilments = await fulfilmentsOf(deps.orm.em.fork(), d.projectId, [o.id]);
      return create(GetObligationResponseSchema, {
        obligation: obligationView(d, o, fulfilments.get(o.id)),
        expressions: o.expressions.map((e) => ({ expression: e.expression ?? "", componentCount: e.componentCount })),
      });
    },

    async putFulfilment(req, ctx) {
      const caller = requireCaller(ctx);
      const plan = planFulfilment({ note: req.note, evidenceUrl: req.evidenceUrl });
      if (!plan.ok) throw ProblemError.validation(plan.violations);
      const d = await derive(deps, caller, req.projectId);
      requireFulfiller(caller, d);
      const o = UUID.test(req.obligationId)
        ? d.obligations.find((x) => x.id === req.obligationId.toLowerCase())
        : undefined;
      if (!o) throw noSuchObligation();
      const attempt = () =>
        deps.orm.em.fork().transactional(async (em: EntityManager) => {
          const now = new Date();
          const current = await lockFulfilment(em, d.projectId, o.id);
          if (req.expectedVersion !== undefined && current?.version !== req.expectedVersion)
            throw versionMismatch(req.expectedVersion, current);
          const audit = (action: string, targetId: string, version: number) =>
            emitAudit(em, {
              action,
              actor: callerActor(caller),
              targetTable: AUDIT_TABLE,
              targetId,
              teamId: d.teamId,
              organizationId: d.organizationId,
              outcome: "success",
              at: now,
              // Which obligation and version, never the note (it may say anything).
              details: {
                project_id: d.projectId,
                obligation_id: o.id,
                obligation: o.obligation,
                license: o.license,
                version: String(version),
              },
            });
          const columns = { ...plan.fields, fulfilledByUserId: caller.user_id };
          if (!current) {
            const row = await insertFulfilment(em, {
              id: randomUUID(),
              projectId: d.projectId,
              obligationId: o.id,
              obligation: o.obligation,
              license: o.license,
              ...columns,
              createdAt: now,
            });
            audit("obligation_fulfilment.created", row.id, row.version);
            return { row, created: true, changed: true };
          }
          if (current.note === plan.fields.note && current.evidenceUrl === plan.fields.evidenceUrl)
            return { row: current, created: false, changed: false };
          const row = await updateFulfilment(em, current, { ...columns, updatedAt: now });
          audit("obligation_fulfilment.updated", row.id, row.version);
          return { row, created: false, changed: true };
        });
      let answer;
      try {
        answer = await attempt();
      } catch (err) {
        // Two first PUTs at once: the loser sees the winner's row on the second try.
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
        answer = await attempt();
      }
      if (answer.changed) deps.wakeRelay();
      return create(PutFulfilmentResponseSchema, {
        fulfilment: fulfilmentView(answer.row, true),
        created: answer.created,
      });
    },

    async deleteFulfilment(req, ctx) {
      const caller = requireCaller(ctx);
      const d = await derive(deps, caller, req.projectId);
      requireFulfiller(caller, d);
      if (!UUID.test(req.obligationId)) throw noSuchObligation();
      const obligationId = req.obligationId.toLowerCase();
      const deleted = await deps.orm.em.fork().transactional(async (em: EntityManager) => {
        const current = await lockFulfilment(em, d.projectId, obligationId);
        if (!current) {
          if (!d.obligations.some((o) => o.id === obligationId)) throw noSuchObligation();
          return false;
        }
        await deleteFulfilment(em, current.id);
        emitAudit(em, {
          action: "obligation_fulfilment.deleted",
          actor: callerActor(caller),
          targetTable: AUDIT_TABLE,
          targetId: current.id,
          teamId: d.teamId,
          organizationId: d.organizationId,
          outcome: "success",
          at: new Date(),
          details: {
            project_id: d.projectId,
            obligation_id: obligationId,
            obligation: current.obligation,
            license: current.license,
            version: String(current.version),
          },
        });
        return true;
      });
      if (deleted) deps.wakeRelay();
      return create(DeleteFulfilmentResponseSchema, { deleted });
    },

    async listFulfilments(req, ctx) {
      const caller = requireCaller(ctx);
      const page = window(req.limit, req.offset);
      const d = await derive(deps, caller, req.projectId);
      const derivedIds = new Set(d.obligations.map((o) => o.id));
      const { rows, total } = await listFulfilments(deps.orm.em.fork(), d.projectId, page);
      return create(ListFulfilmentsResponseSchema, {
        items: rows.map((r) => fulfilmentView(r, derivedIds.has(r.obligationId))),
        total,
      });
    },

    async *exportNotice(req, ctx: HandlerContext): AsyncGenerator<ExportNoticeResponse> {
      const caller = requireCaller(ctx);
      if (!UUID.test(req.projectId)) throw ProblemError.notFound("No such project.");
      const pieces = noticePieces(deps, caller, req.projectId.toLowerCase(), ctx.signal);
      const first = await pieces.next();
      if (first.done || typeof first.value === "string") throw new Error("the notice began without its header");
      const { fileName, scanId } = first.value.header;
      yield create(ExportNoticeResponseSchema, {
        part: { case: "header", value: { mediaType: NOTICE_MEDIA_TYPE, fileName, scanId } },
      });
      async function* text(): AsyncGenerator<string> {
        for await (const piece of pieces) if (typeof piece === "string") yield piece;
      }
      for await (const chunk of byteChunks(text(), NOTICE_CHUNK_BYTES)) {
        if (ctx.signal.aborted) return;
        yield create(ExportNoticeResponseSchema, { part: { case: "chunk", value: chunk } });
      }
    },
  });
}
