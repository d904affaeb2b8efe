// GateFactsService: what policy's build gate reads of a project (docs/gate.md): its team and organization, and the
// aggregate facts of its latest succeeded scan. As the caller behind the gate request: an unreadable project is 404.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { FieldViolation } from "@sca/problem";
import {
  GateFactsService,
  GetGateFactsResponseSchema,
  GetGateSubjectResponseSchema,
} from "@sca/proto/sca/projects/v1/gate_facts_pb.ts";
import { requireCaller } from "@sca/rpc";
import { rejectViolations } from "../domain/component-list.ts";
import { epssThresholdViolations, gateItemLimitOf } from "../domain/gate-facts.ts";
import { mayRead } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import type { KeptFindingReads } from "../store/findings/finding-orders.ts";
import { gateFactsOf, type GateFactComponentRow, type GateFactFindingRow } from "../store/findings/gate-facts.ts";
import { waivedPurls } from "../store/malicious-waivers.ts";
import { projectWithNewestSnapshot, type ProjectAndSnapshot } from "../store/inventory/snapshots.ts";
import { projectNotFound } from "./readable-inventory.ts";

export interface GateFactsDeps {
  orm: MikroORM;
  /** The facts of a snapshot kept under its count of writes (FINDING_READ_CACHE_MB). */
  findingReads: KeptFindingReads;
}

/**
 * The services that read any project's gate with no person behind them: policy judging each scan once it succeeded
 * (docs/gate.md, "Evaluated after each scan") and projects itself asking policy for the gate a pull-request
 * webhook's scan comments (docs/scm.md, "Pull-request comments"), policy passing it on here.
 */
const GATE_EVALUATORS: ReadonlySet<string> = new Set(["policy", "projects"]);

async function readable(deps: GateFactsDeps, ctx: HandlerContext, id: string): Promise<ProjectAndSnapshot> {
  const caller = requireCaller(ctx);
  if (!isUuid(id)) throw projectNotFound();
  // With the count of writes its findings and components have had: the version kept facts are valid for.
  const found = await projectWithNewestSnapshot(deps.orm.em.fork(), id.toLowerCase(), "findings");
  const evaluator = caller.kind === "service" && GATE_EVALUATORS.has(caller.service ?? "");
  if (!found || !(evaluator || mayRead(caller, found.project))) throw projectNotFound();
  return found;
}

const findingOf = (f: GateFactFindingRow) => ({
  findingId: f.finding_id,
  vulnerabilityId: f.vulnerability_id,
  severity: f.severity,
  ...(f.epss_score === null ? {} : { epssScore: f.epss_score }),
  status: f.status,
  componentId: f.component_id,
  componentName: f.component_name,
  ...(f.component_version === null ? {} : { componentVersion: f.component_version }),
  ...(f.purl === null ? {} : { purl: f.purl }),
});

const componentOf = (c: GateFactComponentRow) => ({
  componentId: c.component_id,
  name: c.name,
  ...(c.version === null ? {} : { version: c.version }),
  ...(c.purl === null ? {} : { purl: c.purl }),
  ...(c.license === null ? {} : { license: c.license }),
  ...(c.license_category === null ? {} : { licenseCategory: c.license_category }),
  ...(c.malicious_state === null ? {} : { maliciousState: c.malicious_state }),
});

export function registerGateFactsService(router: ConnectRouter, deps: GateFactsDeps): void {
  router.service(GateFactsService, {
    async getGateSubject(req, ctx) {
      const { project } = await readable(deps, ctx, req.projectId);
      return create(GetGateSubjectResponseSchema, {
        projectId: project.id,
        teamId: project.teamId,
        ...(project.organizationId ? { organizationId: project.organizationId } : {}),
      });
    },

    async getGateFacts(req, ctx) {
      const v: FieldViolation[] = [];
      const itemLimit = gateItemLimitOf(req.itemLimit, v);
      epssThresholdViolations(req.epssThreshold, v);
      rejectViolations(v);
      const { project, snapshot } = await readable(deps, ctx, req.projectId);
      // The subject travels with the facts, so the gate needs no GetGateSubject call when it knew the project.
      const subject = {
        teamId: project.teamId,
        ...(project.organizationId ? { organizationId: project.organizationId } : {}),
      };
      if (!snapshot) return create(GetGateFactsResponseSchema, subject);
      const threshold = req.epssThreshold ?? null;
      // Waivers change and expire without a write to the snapshot: the active ones are part of the facts' key.
      const waived = await waivedPurls(deps.orm.em.fork(), project.id, new Date());
      const facts = await deps.findingReads.read(snapshot, ["gate facts", threshold, itemLimit, waived], () =>
        gateFactsOf(deps.orm.em.fork(), snapshot.scanId, threshold, itemLimit, waived),
      );
      return create(GetGateFactsResponseSchema, {
        ...subject,
        scanId: snapshot.scanId,
        scannedAt: timestampFromDate(snapshot.ingestedAt),
        // No scan carries reachability analysis yet: reachable_critical_only cannot narrow the count.
        reachabilityAnalysed: false,
        openFindingCount: facts.openFindingCount,
        triagedFindingCount: facts.triagedFindingCount,
        criticalCount: facts.criticalCount,
        criticalFindings: facts.criticalFindings.map(findingOf),
        epssScoredCount: facts.epssScoredCount,
        epssAtOrAboveCount: facts.epssAtOrAboveCount,
        epssFindings: facts.epssFindings.map(findingOf),
        forbiddenLicenseCount: facts.forbiddenLicenseCount,
        forbiddenComponents: facts.forbiddenComponents.map(componentOf),
        maliciousCount: facts.maliciousCount,
        maliciousComponents: facts.maliciousComponents.map(componentOf),
        maliciousWaivedCount: facts.maliciousWaivedCount,
      });
    },
  });
}
