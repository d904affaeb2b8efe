// Uploaded image archives (docs/container-scans.md): a `docker save` tar or an OCI image layout tar (gzipped or not)
// as multipart field `upload`, streamed into the artefact store as the other uploads are (uploads.ts), capped by
// SCAN_IMAGE_MAX_BYTES (the cap of a pull's downloads), then registered as the caller. A container scan names the
// answer's archive_id (image_archive_id) instead of pulling; the archive is read by the scan, not here.
import { z } from "zod";
import { openArtefactStore, type ArtefactStore } from "@sca/artefacts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { binary, projectParams, receiveArchive } from "./uploads.ts";

const imageArchiveSchema = z
  .object({
    archive_id: z.uuid().meta({ description: "What a container scan may name (image_archive_id)" }),
    expires_at: z.iso.datetime().meta({ description: "Deleted by then unless a scan names it" }),
    size_bytes: z.number().int(),
    sha256: z.string(),
  })
  .meta({ id: "ImageArchive" });

export function imageArchiveRoutes(ctx: GatewayContext, store?: ArtefactStore): Route[] {
  const artefacts = store ?? openArtefactStore(ctx.config);
  const scans = ctx.clients["scan-orchestrator"].scans;
  const maxBytes = ctx.config.SCAN_IMAGE_MAX_BYTES;
  return [
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/image-archives",
      summary: "Upload an image archive for a container scan",
      description:
        "developer or above on the project's team. multipart/form-data field `upload`: a `docker save` tar or an OCI " +
        "image layout tar (gzipped or not), at most SCAN_IMAGE_MAX_BYTES (413 past it). The answer's archive_id is " +
        "what a container scan may name (image_archive_id) instead of pulling; an archive no scan names within " +
        "ARTEFACT_UPLOAD_TTL_HOURS is deleted. The archive is read by the scan, not here.",
      tags: ["scans"],
      operationId: "uploadImageArchive",
      auth: ctx.auth.route("caller"),
      request: {
        params: projectParams,
        streamedBody: {
          description: "The image archive",
          content: { "multipart/form-data": z.object({ upload: binary() }) },
        },
      },
      responses: {
        201: { description: "The archive", schema: imageArchiveSchema },
        400: problemResponse("A malformed multipart body"),
        403: problemResponse("Below developer on the project's team"),
        404: problemResponse("No such project"),
        409: problemResponse("The project is archived"),
        413: problemResponse("Larger than SCAN_IMAGE_MAX_BYTES"),
        415: problemResponse("Not multipart/form-data"),
        422: problemResponse("No `upload` part"),
      },
      handler: async ({ params, req, call }) => ({
        status: 201,
        body: await receiveArchive(artefacts, req, params.id, maxBytes, "image archive", (artefact, fileName) =>
          scans.registerImageArchive({ projectId: params.id, artefact, fileName }, call),
        ),
      }),
    }),
  ];
}
