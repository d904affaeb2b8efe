// SbomSigningService: the signing artifacts of a project's latest succeeded scan (the scan the SBOM export serves
// without an anchor) as the files of its signature bundle, VERIFY.md included (docs/signing.md).
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import {
  GetSbomSigningResponseSchema,
  SbomSigningFileSchema,
  SbomSigningService,
  type GetSbomSigningRequest,
  type SbomSigningFile,
} from "@sca/proto/sca/projects/v1/sbom_signing_pb.ts";
import { requireCaller } from "@sca/rpc";
import { signingAccess } from "../domain/project-access.ts";
import { isPlainPublicKey } from "../domain/sbom-signing/public-key.ts";
import {
  isUnsignedReason,
  signingFileNames,
  UNSIGNED_REASONS,
  verifyInstructions,
} from "../domain/sbom-signing/signing-files.ts";
import { publicKeyHint } from "../signing/sbom-signer.ts";
import { sbomSignatureOf } from "../store/sbom-signatures.ts";
import { anchoredSnapshot, projectNotFound, readableProject } from "./readable-inventory.ts";

const SIGSTORE_BUNDLE = "application/vnd.dev.sigstore.bundle.v0.3+json";

function unsigned(scanId: string, reason: string, sentence: string): ProblemError {
  return new ProblemError({
    status: 404,
    code: "not_found",
    detail: `The latest succeeded scan is unsigned: ${sentence}`,
    extensions: { unsigned_reason: reason, scan_id: scanId },
  });
}

const file = (kind: string, fileName: string, mediaType: string, content: string): SbomSigningFile =>
  create(SbomSigningFileSchema, { kind, fileName, mediaType, content: Buffer.from(content, "utf8") });

export function registerSbomSigningService(router: ConnectRouter, deps: { orm: MikroORM }): void {
  router.service(SbomSigningService, {
    async getSbomSigning(req: GetSbomSigningRequest, ctx: HandlerContext) {
      const project = await readableProject(deps, ctx, req.projectId);
      const access = signingAccess(requireCaller(ctx), project);
      if (access === "hide") throw projectNotFound();
      if (access === "forbid") throw ProblemError.forbidden("Signing artifacts need developer on the project's team.");
      const scanId = (await anchoredSnapshot(deps, project.id, undefined))?.scanId;
      if (!scanId) throw ProblemError.notFound("The project has no succeeded scan yet.");
      const row = await sbomSignatureOf(deps.orm.em.fork(), scanId);
      if (!row) throw unsigned(scanId, "pending", "it has not been signed yet; try again shortly.");
      if (
        row.unsignedReason !== null ||
        !row.signature ||
        !row.publicKey ||
        !row.sbomSha256 ||
        typeof row.sbomSize !== "number"
      ) {
        const reason = row.unsignedReason ?? "signing_failed";
        throw unsigned(scanId, reason, isUnsignedReason(reason) ? UNSIGNED_REASONS[reason] : reason);
      }
      if (!isPlainPublicKey(row.publicKey))
        throw new ProblemError({ status: 500, detail: "The stored public key is not a plain public key; refused." });
      const names = signingFileNames(project.slug);
      const files = [
        file("signature", names.signature, "text/plain; charset=utf-8", row.signature),
        file("public-key", names.publicKey, "application/x-pem-file", row.publicKey),
        file("sigstore-bundle", names.sigstoreBundle, SIGSTORE_BUNDLE, row.sigstoreBundle ?? ""),
      ];
      if (row.attestation) {
        files.push(file("attestation", names.attestation, "application/jsonl", row.attestation));
        files.push(
          file(
            "attestation-sigstore-bundle",
            names.attestationSigstoreBundle,
            SIGSTORE_BUNDLE,
            row.attestationBundle ?? "",
          ),
        );
      }
      const instructions = verifyInstructions({
        names,
        scanId,
        sbomSha256: row.sbomSha256,
        withAttestation: !!row.attestation,
        publicKeySha256: publicKeyHint(row.publicKey),
      });
      files.push(file("verify", "VERIFY.md", "text/markdown; charset=utf-8", instructions));
      return create(GetSbomSigningResponseSchema, {
        scanId,
        model: row.model ?? "key-based",
        slug: project.slug,
        sbomFileName: names.sbom,
        sbomSha256: row.sbomSha256,
        sbomSize: BigInt(row.sbomSize),
        files,
      });
    },
  });
}
