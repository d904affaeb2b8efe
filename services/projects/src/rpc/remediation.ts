// RemediationService (docs/scm.md, "Remediation"): the npm dry-run here, the pull request and its list in
// remediation-pull-requests.ts. The dry-run's recommendations come from the open npm findings of the project's newest
// snapshot; the manifest from the request (override) or, best effort, the root package.json the project's latest
// source scan that kept one preserved (preserved_source), else none. Nothing is written.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { ArtefactStore } from "@sca/artefacts";
import { ProblemError } from "@sca/problem";
import { NpmDryRunResponseSchema, RemediationService } from "@sca/proto/sca/projects/v1/remediation_pb.ts";
import { requireCaller } from "@sca/rpc";
import { editManifest, npmRecommendations } from "../domain/npm-remediation.ts";
import { mayArchive, mayRead } from "../domain/project-access.ts";
import { newestSnapshot } from "../store/inventory/snapshots.ts";
import { preservedPackageJson } from "../store/preserved-package-json.ts";
import { vulnerableNpmPackages } from "../store/remediation-inputs.ts";
import { enforce, readableProject } from "./project-lookup.ts";
import { remediationPullRequestHandlers, type RemediationPullRequestDeps } from "./remediation-pull-requests.ts";

export interface RemediationDeps extends RemediationPullRequestDeps {
  /** Where the scans' preserved package.json files are. */
  artefacts: ArtefactStore;
}

export function registerRemediationService(router: ConnectRouter, deps: RemediationDeps): void {
  router.service(RemediationService, {
    ...remediationPullRequestHandlers(deps),
    async npmDryRun(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      // The spec's "developer+": the role that may start scans and archive.
      enforce(mayArchive(caller, project), "The remediation dry-run takes the developer role (or above) on the team.");
      const em = deps.orm.em.fork();
      const snapshot = await newestSnapshot(em, project.id);
      const recommendations = snapshot ? npmRecommendations(await vulnerableNpmPackages(em, snapshot.scanId)) : [];
      const notes: string[] = [];
      if (!snapshot) notes.push("The project has no scan with an inventory yet: nothing to recommend.");
      else if (recommendations.length === 0)
        notes.push("No npm package of the newest scan has a known fix to move to.");
      const base = {
        projectId: project.id,
        ...(snapshot ? { scanId: snapshot.scanId } : {}),
        ecosystem: "npm",
        recommendations: recommendations.map((r) => ({
          package: r.package,
          currentVersion: r.current_version,
          recommendedVersion: r.recommended_version,
        })),
      };
      const preserved = req.manifest === undefined ? await preservedPackageJson(em, deps.artefacts, project.id) : null;
      const manifest = req.manifest ?? preserved?.manifest;
      if (manifest === undefined) {
        notes.push("No manifest was given and no scan source is preserved: send package.json as `manifest`.");
        return create(NpmDryRunResponseSchema, {
          ...base,
          manifestSource: "none",
          manifestFound: false,
          changed: false,
          notes,
        });
      }
      const edit = editManifest(manifest, recommendations);
      if (!edit.ok && preserved) {
        // Best effort: a preserved package.json that is not a JSON object is reported, not refused.
        notes.push(`The preserved package.json of scan ${preserved.scanId} could not be edited: ${edit.detail}`);
        return create(NpmDryRunResponseSchema, {
          ...base,
          manifestSource: "preserved_source",
          manifestFound: true,
          changed: false,
          notes,
        });
      }
      if (!edit.ok) throw ProblemError.validation([{ path: "body.manifest", message: edit.detail }]);
      if (preserved) notes.push(`The manifest is the package.json preserved by scan ${preserved.scanId}.`);
      return create(NpmDryRunResponseSchema, {
        ...base,
        manifestSource: preserved ? "preserved_source" : "override",
        manifestFound: true,
        changed: edit.changed,
        ...(edit.changed ? { editedManifest: edit.edited } : {}),
        changes: edit.changes,
        warnings: edit.warnings.map((w) => ({
          code: w.code,
          detail: w.detail,
          ...(w.package ? { package: w.package } : {}),
        })),
        notes,
      });
    },
  });
}
