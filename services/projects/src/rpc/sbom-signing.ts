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
  type Signer,
  UNSIGNED_REASONS,
  verifyInstructions,
} from "../domain/sbom-signing/signing-files.ts";
import { publicKeyHint } from "../signing/sbom-signer.ts";
import { sbomSignatureOf, type SbomSignatureRecord } from "../store/sbom-signatures.ts";
import { anchoredSnapshot, projectNotFound, readableProject } from "./readable-inventory.ts";

// The bundles say their version in their own mediaType (v0.3; a keyless signature's, with its certificate chain, v0.2).
const SIGSTORE_BUNDLE = "application/vnd.dev.sigstore.bundle+json";
const PEM = "application/x-pem-file";

/** Who signed the row's scan, from what it stored; null when the row lacks what its model needs. */
function signerOf(row: SbomSignatureRecord): Signer | null {
  if (row.model === "keyless")
    return row.certificate && row.certificateIdentity && row.certificateIssuer
      ? { model: "keyless", identity: row.certificateIdentity, issuer: row.certificateIssuer }
      : null;
  return row.publicKey ? { model: "key-based", publicKeySha256: publicKeyHint(row.publicKey) } : null;
}

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
      const signer = signerOf(row);
      if (
        row.unsignedReason !== null ||
        !signer ||
        !row.signature ||
        !row.sbomSha256 ||
        typeof row.sbomSize !== "number"
      ) {
        const reason = row.unsignedReason ?? "signing_failed";
        throw unsigned(scanId, reason, isUnsignedReason(reason) ? UNSIGNED_REASONS[reason] : reason);
      }
      const names = signingFileNames(project.slug);
      const files = [file("signature", names.signature, "text/plain; charset=utf-8", row.signature)];
      if (signer.model === "key-based") {
        if (!isPlainPublicKey(row.publicKey ?? ""))
          throw new ProblemError({ status: 500, detail: "The stored public key is not a plain public key; refused." });
        files.push(file("public-key", names.publicKey, PEM, row.publicKey!));
      } else files.push(file("certificate", names.certificate, PEM, row.certificate!));
      files.push(file("sigstore-bundle", names.sigstoreBundle, SIGSTORE_BUNDLE, row.sigstoreBundle ?? ""));
      if (row.attestation) {
        files.push(file("attestation", names.attestation, "application/jsonl", row.attestation));
        if (signer.model === "keyless" && row.attestationCertificate)
          files.push(file("attestation-certificate", names.attestationCertificate, PEM, row.attestationCertificate));
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
        signer,
      });
      files.push(file("verify", "VERIFY.md", "text/markdown; charset=utf-8", instructions));
      return create(GetSbomSigningResponseSchema, {
        scanId,
        model: signer.model,
        slug: project.slug,
        sbomFileName: names.sbom,
        sbomSha256: row.sbomSha256,
        sbomSize: BigInt(row.sbomSize),
        files,
      });
    },
  });
}
