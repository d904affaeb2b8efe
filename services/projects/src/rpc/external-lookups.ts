// GET /v1/external-packages and /v1/external-advisories/{id}: the advisories from the scanner-runner's local
// vulnerability database (every advisory it imported), the internal projects and licenses from the newest snapshots
// (docs/findings.md, "External lookups"); NotFound when EXTERNAL_PACKAGE_LOOKUP_ENABLED is false.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  InternalProjectSchema,
  LookupExternalAdvisoryResponseSchema,
  LookupExternalPackageResponseSchema,
} from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { requireCaller } from "@sca/rpc";
import type { AdvisoryDatabase } from "../clients/advisory-database.ts";
import { LOOKUP_ECOSYSTEMS, lookupPackage, type LookupEcosystem } from "../domain/package-version.ts";
import { mayRead } from "../domain/project-access.ts";
import { holdingProjects } from "../store/findings/holding-projects.ts";
import { projectById } from "../store/projects.ts";
import type { FindingHandlers, FindingServiceDeps } from "./vulnerability-findings.ts";

const disabled = () => ProblemError.notFound("External package lookup is disabled on this deployment.");

export function externalLookupHandlers(
  deps: FindingServiceDeps,
): FindingHandlers<"lookupExternalPackage" | "lookupExternalAdvisory"> {
  const enabled = (): AdvisoryDatabase => {
    if (!deps.advisoryDatabase) throw disabled();
    return deps.advisoryDatabase;
  };
  return {
    async lookupExternalPackage(req, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const advisories = enabled();
      const v: FieldViolation[] = [];
      const ecosystem = req.ecosystem.trim().toLowerCase();
      if (!(ecosystem in LOOKUP_ECOSYSTEMS))
        v.push({ path: "query.ecosystem", message: `must be one of ${Object.keys(LOOKUP_ECOSYSTEMS).join(", ")}` });
      const name = req.name.trim();
      if (name.length < 1 || [...name].length > 255)
        v.push({ path: "query.name", message: "must be 1..255 characters" });
      const pkg = v.length ? null : lookupPackage(ecosystem as LookupEcosystem, name);
      if (!v.length && !pkg) v.push({ path: "query.name", message: "is not a package name of that ecosystem" });
      if (v.length || !pkg) throw ProblemError.validation(v);
      const em = deps.orm.em.fork();
      const [advisoryIds, holders] = await Promise.all([
        advisories.packageAdvisories(caller, pkg.ecosystem, pkg.name),
        holdingProjects(em, pkg.ecosystem, pkg.name),
      ]);
      const internal = [];
      const licenses = new Set<string>();
      for (const h of holders) {
        const project = await projectById(em, h.projectId);
        if (!project || !mayRead(caller, project)) continue;
        internal.push(
          create(InternalProjectSchema, { projectId: project.id, name: project.name, versions: h.versions.sort() }),
        );
        for (const l of h.licenses) licenses.add(l);
      }
      return create(LookupExternalPackageResponseSchema, {
        found: advisoryIds.length > 0 || internal.length > 0,
        ecosystem,
        name,
        purl: pkg.purl,
        advisoryIds,
        internalProjects: internal,
        licenses: [...licenses].sort(),
        // The highest version a readable project holds (text order: registries' orders differ per ecosystem).
        version:
          internal
            .flatMap((p) => p.versions)
            .sort()
            .at(-1) ?? "",
      });
    },

    async lookupExternalAdvisory(req, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const advisories = enabled();
      const id = req.advisoryId.trim();
      if (id.length < 1 || id.length > 64)
        throw ProblemError.validation([{ path: "path.advisory_id", message: "must be 1..64 characters" }]);
      const a = await advisories.advisory(caller, id);
      if (!a.found) return create(LookupExternalAdvisoryResponseSchema, { found: false, advisoryId: id });
      return create(LookupExternalAdvisoryResponseSchema, {
        found: true,
        advisoryId: a.name,
        aliases: a.aliases,
        title: a.summary,
        cvss3Score: a.cvss3Score,
        cvss3Vector: a.cvss3Vector,
      });
    },
  };
}
