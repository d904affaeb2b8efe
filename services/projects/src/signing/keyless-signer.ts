// Keyless signing (docs/signing.md, "Keyless"): the workload identity token read from SIGNING_OIDC_TOKEN_PATH at
// each signing (a projected token is renewed in place), and signers whose key pair is made for one signature and
// certified by the Fulcio CA at SIGNING_CA_URL for the token's identity (@sigstore/sign's FulcioSigner). Nothing is
// sent to a transparency log: none runs beside this portal yet, so SIGNING_LOG_URL is not used.
import { readFile } from "node:fs/promises";
import { FulcioSigner, type Signer } from "@sigstore/sign";
import { tokenIssuer } from "../domain/sbom-signing/keyless-identity.ts";
import type { UnsignedReason } from "../domain/sbom-signing/signing-files.ts";

export interface KeylessSettings {
  /** SIGNING_CA_URL: the Fulcio CA's base URL. */
  caUrl: string;
  /** SIGNING_OIDC_ISSUER: the issuer the token must name, and the certificate then names. */
  oidcIssuer: string;
  /** SIGNING_OIDC_TOKEN_PATH: the file holding the identity token (JWT). */
  oidcTokenPath: string;
}

export type IdentityToken = { token: string; issuer: string } | { unsigned: UnsignedReason };

/** The identity token as the file holds it now; never logged or stored (it is a bearer credential). */
export async function readIdentityToken(s: KeylessSettings): Promise<IdentityToken> {
  if (!s.caUrl || !s.oidcIssuer || !s.oidcTokenPath) return { unsigned: "keyless_not_configured" };
  let token: string;
  try {
    token = (await readFile(s.oidcTokenPath, "utf8")).trim();
  } catch {
    return { unsigned: "identity_token_unreadable" };
  }
  const issuer = tokenIssuer(token);
  if (issuer === null || issuer !== s.oidcIssuer) return { unsigned: "identity_token_unusable" };
  return { token, issuer };
}

export interface CertifiedSigner {
  signer: Signer;
  /** The leaf certificate (PEM) the CA issued, once it signed; null before or when the CA refused. */
  certificate(): string | null;
}

/** A signer with a key pair of its own (ephemeral, in memory), certified by the CA when it signs. */
export function certifiedSigner(caUrl: string, token: string): CertifiedSigner {
  const fulcio = new FulcioSigner({
    fulcioBaseURL: caUrl,
    identityProvider: { getToken: () => Promise.resolve(token) },
    timeout: 10_000,
  });
  let certificate: string | null = null;
  return {
    signer: {
      sign: async (data) => {
        const signature = await fulcio.sign(data);
        if (signature.key.$case === "x509Certificate") certificate = signature.key.certificate;
        return signature;
      },
    },
    certificate: () => certificate,
  };
}
