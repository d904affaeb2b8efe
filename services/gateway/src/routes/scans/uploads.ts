// Uploads (docs/scans.md, "Uploads"): an SBOM (multipart/form-data field `file`, or the document itself as a raw
// JSON, XML or SPDX tag-value body) and a source archive (multipart field `upload`, a .zip or .tar.gz). The bytes stream into
// the artefact store under uploads/<project id>/<upload id>, counted and hashed on the way, never held whole; a
// declared Content-Length past the cap is 413 before a byte is read, and a body that grows past it stops at the
// cap (413, nothing stored). The scan-orchestrator then registers the artefact as the caller (developer+ on the
// project's team, project not archived); when it refuses, the bytes are deleted and its problem is the answer.
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Request } from "express";
import { z } from "zod";
import { openArtefactStore, type ArtefactStore } from "@sca/artefacts";
import { ProblemError } from "@sca/problem";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { multipartFile } from "../../http/multipart.ts";

/** Media types a raw SBOM body may have (parameters such as charset aside). */
const RAW_SBOM_TYPES =
  /^(application\/([a-z0-9.+-]+\+)?json|application\/([a-z0-9.+-]+\+)?xml|text\/xml|text\/plain|text\/spdx)$/;

export const binary = () => z.string().meta({ format: "binary" });

const tooLarge = (maxBytes: number) =>
  new ProblemError({
    status: 413,
    code: "artefact_too_large",
    detail: `The upload is larger than ${maxBytes} bytes, the limit.`,
    extensions: { max_bytes: maxBytes },
  });

const mediaTypeOf = (req: Request) => (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();

interface Received {
  key: string;
  sizeBytes: number;
  sha256: string;
  mediaType: string;
  fileName: string;
}

async function receive(
  store: ArtefactStore,
  req: Request,
  projectId: string,
  maxBytes: number,
  source: () => Promise<{ body: Readable; mediaType: string; fileName: string }>,
): Promise<Received> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024 && mediaTypeOf(req) === "multipart/form-data")
    throw tooLarge(maxBytes);
  if (Number.isFinite(declared) && declared > maxBytes && mediaTypeOf(req) !== "multipart/form-data")
    throw tooLarge(maxBytes);
  const { body, mediaType, fileName } = await source();
  const key = `uploads/${projectId}/${randomUUID()}`;
  try {
    const stored = await store.put(key, body, { maxBytes });
    return { key, sizeBytes: stored.sizeBytes, sha256: stored.sha256, mediaType, fileName };
  } catch (err) {
    body.resume();
    if (err instanceof ProblemError && err.init.status === 413) throw tooLarge(maxBytes);
    throw err;
  }
}

/** Registers what was stored; the bytes go when the registration is refused. */
async function registered<T>(store: ArtefactStore, key: string, register: () => Promise<T>): Promise<T> {
  try {
    return await register();
  } catch (err) {
    await store.delete(key).catch(() => undefined);
    throw err;
  }
}

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : new Date(0).toISOString());

/** A stored artefact as a registration names it. */
type StoredArtefact = { key: string; sizeBytes: bigint; sha256: string };

/**
 * An archive upload (multipart field `upload`: a source archive, an image archive): received into the store up to
 * `maxBytes`, then registered by `register` (its bytes deleted when refused); the 201 body. `what` names the archive
 * in the 415 answer.
 */
export async function receiveArchive(
  store: ArtefactStore,
  req: Request,
  projectId: string,
  maxBytes: number,
  what: string,
  register: (artefact: StoredArtefact, fileName: string) => Promise<{ archiveId: string; expiresAt?: Timestamp }>,
) {
  if (mediaTypeOf(req) !== "multipart/form-data")
    throw new ProblemError({
      status: 415,
      code: "unsupported_media_type",
      detail: `Send the ${what} as multipart/form-data (field upload).`,
    });
  const got = await receive(store, req, projectId, maxBytes, () => multipartFile(req, "upload", maxBytes));
  const answer = await registered(store, got.key, () =>
    register({ key: got.key, sizeBytes: BigInt(got.sizeBytes), sha256: got.sha256 }, got.fileName),
  );
  return {
    archive_id: answer.archiveId,
    expires_at: iso(answer.expiresAt),
    size_bytes: got.sizeBytes,
    sha256: got.sha256,
  };
}

export const projectParams = z.object({ id: z.uuid() });
const time = () => z.iso.datetime();

const sbomUploadSchema = z
  .object({
    upload_id: z.uuid().meta({ description: "What a scan of kind sbom names (sbom_upload_id)" }),
    expires_at: time().meta({ description: "Deleted by then unless a scan names it" }),
    size_bytes: z.number().int(),
    sha256: z.string(),
    media_type: z.string(),
    file_name: z.string().nullable(),
  })
  .meta({ id: "SbomUpload" });

const archiveSchema = z
  .object({
    archive_id: z.uuid().meta({ description: "What a source scan may name (source_archive_id)" }),
    expires_at: time(),
    size_bytes: z.number().int(),
    sha256: z.string(),
  })
  .meta({ id: "SourceArchive" });

export function uploadRoutes(ctx: GatewayContext, store?: ArtefactStore): Route[] {
  const artefacts = store ?? openArtefactStore(ctx.config);
  const scans = ctx.clients["scan-orchestrator"].scans;
  const caller = ctx.auth.route("caller");
  const sbomMax = ctx.config.SBOM_UPLOAD_MAX_BYTES;
  const archiveMax = ctx.config.SOURCE_ARCHIVE_MAX_BYTES;
  return [
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/sbom-uploads",
      summary: "Upload an SBOM for a scan",
      description:
        "developer or above on the project's team. The document as multipart/form-data (field `file`) or as the raw " +
        "body (CycloneDX or SPDX JSON, CycloneDX XML, SPDX tag-value as text/plain). At most SBOM_UPLOAD_MAX_BYTES " +
        "(50 MiB): 413 past it, checked on Content-Length before reading and while streaming. The answer's upload_id " +
        "is what POST /v1/projects/{id}/scans with kind sbom names; an upload no scan names within " +
        "ARTEFACT_UPLOAD_TTL_HOURS is deleted. The document is read by the scan, not here.",
      tags: ["scans"],
      operationId: "uploadSbom",
      auth: caller,
      request: {
        params: projectParams,
        streamedBody: {
          description: "The SBOM",
          content: {
            "multipart/form-data": z.object({ file: binary() }),
            "application/json": binary(),
            "application/xml": binary(),
            "text/plain": binary(),
          },
        },
      },
      responses: {
        201: { description: "The upload", schema: sbomUploadSchema },
        400: problemResponse("A malformed multipart body"),
        403: problemResponse("Below developer on the project's team"),
        404: problemResponse("No such project"),
        409: problemResponse("The project is archived"),
        413: problemResponse("Larger than SBOM_UPLOAD_MAX_BYTES"),
        415: problemResponse("Neither multipart/form-data nor a JSON, XML or text body"),
      },
      handler: async ({ params, req, call }) => {
        const type = mediaTypeOf(req);
        let source: () => Promise<{ body: Readable; mediaType: string; fileName: string }>;
        if (type === "multipart/form-data") source = () => multipartFile(req, "file", sbomMax);
        else if (RAW_SBOM_TYPES.test(type))
          source = () => Promise.resolve({ body: req, mediaType: type, fileName: "" });
        else
          throw new ProblemError({
            status: 415,
            code: "unsupported_media_type",
            detail: "Send the SBOM as multipart/form-data (field file) or as a JSON, XML or text/plain body.",
          });
        const got = await receive(artefacts, req, params.id, sbomMax, source);
        const answer = await registered(artefacts, got.key, () =>
          scans.registerSbomUpload(
            {
              projectId: params.id,
              artefact: { key: got.key, sizeBytes: BigInt(got.sizeBytes), sha256: got.sha256 },
              mediaType: got.mediaType,
              fileName: got.fileName,
            },
            call,
          ),
        );
        return {
          status: 201,
          body: {
            upload_id: answer.uploadId,
            expires_at: iso(answer.expiresAt),
            size_bytes: got.sizeBytes,
            sha256: got.sha256,
            media_type: got.mediaType,
            file_name: got.fileName || null,
          },
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/source-archives",
      summary: "Upload a source archive for a scan",
      description:
        "developer or above on the project's team. multipart/form-data field `upload`: a .zip or .tar.gz of the source tree, at " +
        "most SOURCE_ARCHIVE_MAX_BYTES (413 past it). The answer's archive_id is what a source scan may name " +
        "(source_archive_id) instead of cloning.",
      tags: ["scans"],
      operationId: "uploadSourceArchive",
      auth: caller,
      request: {
        params: projectParams,
        streamedBody: {
          description: "The archive",
          content: { "multipart/form-data": z.object({ upload: binary() }) },
        },
      },
      responses: {
        201: { description: "The archive", schema: archiveSchema },
        400: problemResponse("A malformed multipart body"),
        403: problemResponse("Below developer on the project's team"),
        404: problemResponse("No such project"),
        413: problemResponse("Larger than SOURCE_ARCHIVE_MAX_BYTES"),
        415: problemResponse("Not multipart/form-data"),
      },
      handler: async ({ params, req, call }) => ({
        status: 201,
        body: await receiveArchive(artefacts, req, params.id, archiveMax, "archive", (artefact, fileName) =>
          scans.registerSourceArchive({ projectId: params.id, artefact, fileName }, call),
        ),
      }),
    }),
  ];
}
