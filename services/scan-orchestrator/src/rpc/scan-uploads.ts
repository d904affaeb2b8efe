// The upload registrations (RegisterSbomUpload, RegisterSourceArchive, RegisterImageArchive): an artefact the
// gateway stored under the project's uploads/ becomes an upload a scan may name until it expires.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import { uuidv7 } from "@sca/kafka";
import {
  RegisterImageArchiveResponseSchema,
  RegisterSbomUploadResponseSchema,
  RegisterSourceArchiveResponseSchema,
  type ArtefactReference,
} from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { requireCaller } from "@sca/rpc";
import * as uploads from "../store/uploads.ts";
import { invalid } from "./fields.ts";
import { projectAccess, projectPathId } from "./project-access.ts";
import type { ScanHandlers, ScanServiceDeps } from "./scan-deps.ts";

export function scanUploadHandlers(
  deps: ScanServiceDeps,
): ScanHandlers<"registerSbomUpload" | "registerSourceArchive" | "registerImageArchive"> {
  const projects = projectAccess(deps);

  /** Registers the request's artefact as an upload of `kind`; answers its id and expiry. */
  async function register(
    ctx: HandlerContext,
    req: { projectId: string; artefact?: ArtefactReference | undefined; fileName: string },
    kind: uploads.ScanUploadRow["kind"],
    mediaType: string,
  ) {
    const caller = requireCaller(ctx);
    const { artefact } = req;
    const project = await projects.writable(caller, projectPathId(req.projectId));
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
      fileName: req.fileName.slice(0, 255),
      uploadedByUserId: caller.kind === "user" ? caller.user_id : null,
      uploadedByApiKeyId: caller.kind === "api_key" ? caller.api_key_id : null,
      expiresAt: new Date(now.getTime() + deps.settings.uploadTtlHours * 3_600_000),
    });
    return { id: row.id, expiresAt: timestampFromDate(row.expiresAt) };
  }

  return {
    async registerSbomUpload(req, ctx) {
      const { id, expiresAt } = await register(ctx, req, "sbom", req.mediaType);
      return create(RegisterSbomUploadResponseSchema, { uploadId: id, expiresAt });
    },

    async registerSourceArchive(req, ctx) {
      const { id, expiresAt } = await register(ctx, req, "source_archive", "application/zip");
      return create(RegisterSourceArchiveResponseSchema, { archiveId: id, expiresAt });
    },

    async registerImageArchive(req, ctx) {
      const { id, expiresAt } = await register(ctx, req, "image_archive", "application/x-tar");
      return create(RegisterImageArchiveResponseSchema, { archiveId: id, expiresAt });
    },
  };
}
