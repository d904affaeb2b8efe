// The six SBOM signing routes (endpoints.md, "SBOM signing artifacts"; docs/signing.md): the files of the latest
// succeeded scan's signature as projects' SbomSigningService gives them, one per route, or all of them with the
// signed SBOM (the export of that scan, checked against the signed digest) as one zip. Developer on the project's
// team; projects decides who sees what (outsiders 404) and why a scan is unsigned (404 with unsigned_reason).
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { ConnectError } from "@connectrpc/connect";
import { zipSync, type Zippable } from "fflate";
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import type { GetSbomSigningResponse } from "@sca/proto/sca/projects/v1/sbom_signing_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { binary } from "../scans/uploads.ts";

const tooLarge = (maxBytes: number) =>
  new ProblemError({
    status: 413,
    code: "body_too_large",
    detail: `The download is larger than ${maxBytes} bytes, the deployment's cap (SIGNING_DOWNLOAD_MAX_BYTES).`,
    extensions: { max_bytes: maxBytes },
  });

/** A download held in memory, as the one chunk of a streamed answer. */
const whole = (bytes: Uint8Array) => Readable.from([bytes]);

const attachment = (fileName: string) => `attachment; filename="${fileName}"`;

const common = {
  404: problemResponse(
    "No such project, not on its team, no succeeded scan, the scan is unsigned (unsigned_reason names why), or the " +
      "file is not one this deployment's signing model makes",
  ),
  403: problemResponse("A viewer on the project's team: the signing artifacts need developer"),
  413: problemResponse("Larger than SIGNING_DOWNLOAD_MAX_BYTES"),
};

interface SingleFile {
  path: string;
  kind: string;
  summary: string;
  description: string;
  mediaType: string;
  example: string;
  operationId: string;
  /** Why this file can be missing, for the 404's detail. */
  missing: string;
}

const SINGLE_FILES: SingleFile[] = [
  {
    path: "signature",
    kind: "signature",
    summary: "The detached signature of the latest succeeded scan's SBOM",
    description:
      "sbom-<slug>.cdx.json.sig: base64 of the ECDSA P-256 signature (DER, SHA-256) over the bytes of the " +
      "CycloneDX JSON export of the latest succeeded scan, as cosign sign-blob writes and verify-blob reads it.",
    mediaType: "text/plain; charset=utf-8",
    example: "sbom-shop.cdx.json.sig",
    operationId: "getSbomSignature",
    missing: "The scan has no signature.",
  },
  {
    path: "public-key",
    kind: "public-key",
    summary: "The public key the SBOM was signed with",
    description:
      "signing.pub: the SubjectPublicKeyInfo PEM of the key that signed the latest succeeded scan's SBOM. Key-based " +
      "deployments only (404 on keyless); anything that is not plainly a public key is refused.",
    mediaType: "application/x-pem-file",
    example: "signing.pub",
    operationId: "getSbomSigningPublicKey",
    missing: "This deployment signs keyless: there is no public key; verify with the certificate.",
  },
  {
    path: "certificate",
    kind: "certificate",
    summary: "The signing certificate (keyless only)",
    description: "sbom-<slug>.cdx.json.cert.pem: the short-lived certificate of a keyless signature; 404 on key-based.",
    mediaType: "application/x-pem-file",
    example: "sbom-shop.cdx.json.cert.pem",
    operationId: "getSbomSigningCertificate",
    missing: "This deployment signs with a key: there is no certificate; verify with the public key.",
  },
  {
    path: "attestation",
    kind: "attestation",
    summary: "The SLSA provenance attestation of the latest succeeded scan's SBOM",
    description:
      "sbom-<slug>.intoto.jsonl: one line, a DSSE envelope (base64 `payload`) of an in-toto Statement v1 whose " +
      "subject is the SBOM's SHA-256 and whose predicate is SLSA Provenance v1 ({base_url}, builder.id, " +
      "builder.version = SERVICE_VERSION, the scan).",
    mediaType: "application/jsonl",
    example: "sbom-shop.intoto.jsonl",
    operationId: "getSbomAttestation",
    missing: "The scan's provenance attestation failed; the signature stands without it.",
  },
  {
    path: "attestation-certificate",
    kind: "attestation-certificate",
    summary: "The attestation's signing certificate (keyless only)",
    description: "sbom-<slug>.attest.cert.pem: the certificate of a keyless attestation; 404 on key-based.",
    mediaType: "application/x-pem-file",
    example: "sbom-shop.attest.cert.pem",
    operationId: "getSbomAttestationCertificate",
    missing: "This deployment signs with a key: there is no attestation certificate.",
  },
];

export function sbomSigningRoutes(ctx: GatewayContext): Route[] {
  const { signing, sbom } = ctx.clients.projects;
  const maxBytes = ctx.config.SIGNING_DOWNLOAD_MAX_BYTES;

  /** The export of the signed scan, collected up to the cap and held to the signed digest. */
  async function signedSbom(projectId: string, s: GetSbomSigningResponse, call: object): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const part of sbom.exportSbom(
      { projectId, format: "cyclonedx-json", anchor: { scanId: s.scanId } },
      call,
    )) {
      if (part.part.case !== "chunk") continue;
      size += part.part.value.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(part.part.value);
    }
    const bytes = Buffer.concat(chunks);
    if (createHash("sha256").update(bytes).digest("hex") !== s.sbomSha256)
      throw new ProblemError({
        status: 409,
        code: "conflict",
        detail:
          "The scan's SBOM export is no longer the document that was signed (SERVICE_VERSION or SBOM_AUTHOR changed " +
          "since); the next scan is signed afresh.",
      });
    return bytes;
  }

  const singles = SINGLE_FILES.map((f) =>
    defineRoute({
      method: "get",
      path: `/v1/projects/{project_id}/sbom/${f.path}`,
      summary: f.summary,
      description: f.description,
      tags: ["components"],
      operationId: f.operationId,
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ project_id: z.uuid() }) },
      responses: {
        200: {
          description: f.summary,
          content: { [f.mediaType]: binary() },
          headers: z.object({ "Content-Disposition": z.string().meta({ example: attachment(f.example) }) }),
          stream: true,
        },
        ...common,
      },
      handler: async ({ params, call }) => {
        const s = await signing.getSbomSigning({ projectId: params.project_id }, call);
        const file = s.files.find((x) => x.kind === f.kind);
        if (!file) throw ProblemError.notFound(f.missing);
        if (file.content.length > maxBytes) throw tooLarge(maxBytes);
        return {
          status: 200,
          stream: whole(file.content),
          headers: { "Content-Type": file.mediaType, "Content-Disposition": attachment(file.fileName) },
        };
      },
    }),
  );

  const zip = defineRoute({
    method: "get",
    path: "/v1/projects/{project_id}/sbom/signature-bundle",
    summary: "The latest succeeded scan's signed SBOM with its signature, key, attestation and VERIFY.md, as a zip",
    description:
      "sbom-signature-<slug>.zip: sbom-<slug>.cdx.json (the signed bytes), its .sig, signing.pub (key-based), " +
      "sbom-<slug>.intoto.jsonl (when the attestation succeeded), the same signatures as Sigstore bundles " +
      "(.sigstore.json) and VERIFY.md, which names the files and the exact cosign commands. 409 when the scan's " +
      "export no longer matches what was signed (the deployment's SERVICE_VERSION or SBOM_AUTHOR changed).",
    tags: ["components"],
    operationId: "getSbomSignatureBundle",
    auth: ctx.auth.route("caller"),
    request: { params: z.object({ project_id: z.uuid() }) },
    responses: {
      200: {
        description: "The zip",
        content: { "application/zip": binary() },
        headers: z.object({
          "Content-Disposition": z.string().meta({ example: attachment("sbom-signature-shop.zip") }),
        }),
        stream: true,
      },
      409: problemResponse("The scan's export changed since it was signed"),
      ...common,
    },
    handler: async ({ params, call }) => {
      const s = await signing.getSbomSigning({ projectId: params.project_id }, call);
      const filesSize = s.files.reduce((n, f) => n + f.content.length, 0);
      if (Number(s.sbomSize) + filesSize > maxBytes) throw tooLarge(maxBytes);
      const entries: Zippable = { [s.sbomFileName]: await signedSbom(params.project_id, s, call) };
      for (const f of s.files) entries[f.fileName] = f.content;
      if (!entries["VERIFY.md"]) throw new ConnectError("the signing answer has no VERIFY.md");
      return {
        status: 200,
        stream: whole(zipSync(entries, { level: 6, mtime: new Date("1980-01-01T00:00:00Z") })),
        headers: {
          "Content-Type": "application/zip",
          "Content-Disposition": attachment(`sbom-signature-${s.slug}.zip`),
        },
      };
    },
  });

  return [zip, ...singles];
}
