// The upload registrations (RegisterSbomUpload, RegisterSourceArchive, RegisterImageArchive): an artefact the
// gateway stored under the project's uploads/ becomes an upload a scan may name until it expires.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { uuidv7 } from "@sca/kafka";
import {
  RegisterImageArchiveResponseSchema,
  RegisterSbomUploadResponseSchema,
  RegisterSourceArchiveResponseSchema,
  type ArtefactReference,
} from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { requireCaller, type Caller } from "@sca/rpc";
import * as uploads from "../store/uploads.ts";
import { invalid } from "./fields.ts";
import { projectAccess, projectPathId } from "./project-access.ts";
import type { ScanHandlers, ScanServiceDeps } from "./scan-deps.ts";

export function scanUploadHandlers(
  deps: ScanServiceDeps,
): ScanHandlers<"registerSbomUpload" | "registerSourceArchive" | "registerImageArchive"> {
  const projects = projectAccess(deps);

  async function register(
    caller: Caller,
    projectIdRaw: string,
    artefact: ArtefactReference | undefined,
    kind: uploads.ScanUploadRow["kind"],
    mediaType: string,
    fileName: string,
  ) {
    const project = await projects.writable(caller, projectPathId(projectIdRaw));
    if (!artefact || artefact.key === "") throw invalid("artefact.key", "is required");
    if (!artefact.key.startsWith(`uploads/${project.id}/`))
      throw invalid("artefact.key", "must be under the project's uploads/<project id>/");
    if (!/^[0-9a-f]{64}$/.test(artefact.sha256)) throw invalid("artefact.sha256", "must be a hex SHA-256");
    if (artefact.sizeBytes < 0n) throw invalid("artefact.size_bytes", "must not be negative");
    const now = new Date();
    const row = await uploads.insertUpload(deps.orm.em.fork(), {
      id: uuidv7(),
      projectId: project.id,
      teamId: project.teamId,
      kind,
      artefactKey: artefact.key,
      sizeBytes: Number(artefact.sizeBytes),
      sha256: artefact.sha256,
      mediaType: mediaType.slice(0, 255),
      fileName: fileName.slice(0, 255),
      uploadedByUserId: caller.kind === "user" ? caller.user_id : null,
      uploadedByApiKeyId: caller.kind === "api_key" ? caller.api_key_id : null,
      expiresAt: new Date(now.getTime() + deps.settings.uploadTtlHours * 3_600_000),
    });
    return { id: row.id, expiresAt: timestampFromDate(row.expiresAt) };
  }

  return {
    async registerSbomUpload(req, ctx) {
      const caller = requireCaller(ctx);
      const { id, expiresAt } = await register(
        caller,
        req.projectId,
        req.artefact,
        "sbom",
        req.mediaType,
        req.fileName,
      );
      return create(RegisterSbomUploadResponseSchema, { uploadId: id, expiresAt });
    },

    async registerSourceArchive(req, ctx) {
      const caller = requireCaller(ctx);
      const { id, expiresAt } = await register(
        caller,
        req.projectId,
        req.artefact,
        "source_archive",
        "application/zip",
        req.fileName,
      );
      return create(RegisterSourceArchiveResponseSchema, { archiveId: id, expiresAt });
    },

    async registerImageArchive(req, ctx) {
      const caller = requireCaller(ctx);
      const { id, expiresAt } = await register(
        caller,
        req.projectId,
        req.artefact,
        "image_archive",
        "application/x-tar",
        req.fileName,
      );
      return create(RegisterImageArchiveResponseSchema, { archiveId: id, expiresAt });
    },
  };
}
