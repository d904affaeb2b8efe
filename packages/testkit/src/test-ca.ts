// A certificate authority made for one test run, and a server certificate it signs for localhost and
// 127.0.0.1, so a local provider speaks real https and the client trusts it through the CA alone.
import { webcrypto, createPrivateKey } from "node:crypto";

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface TestCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export async function makeTestCertificates(): Promise<TestCertificates> {
  // Loaded by the tests that make certificates, not by every file importing the test kit. @peculiar/x509 resolves its
  // services through tsyringe, which needs the Reflect metadata polyfill first.
  await import("reflect-metadata");
  const x509 = await import("@peculiar/x509");
  x509.cryptoProvider.set(webcrypto);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=SCA test CA",
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const serverKeys = await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "CN=localhost",
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: "dns", value: "localhost" },
        { type: "ip", value: "127.0.0.1" },
      ]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", serverKeys.privateKey));
  return {
    caPem: ca.toString("pem"),
    certPem: server.toString("pem"),
    keyPem: createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })
      .export({ format: "pem", type: "pkcs8" })
      .toString(),
  };
}
