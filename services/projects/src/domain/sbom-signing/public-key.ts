// The public-key route serves only what is plainly a public key (endpoints.md: it "refuses anything that looks like a
// private key"): one SubjectPublicKeyInfo PEM block and nothing else.
const PUBLIC_KEY_PEM = /^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----\r?\n?$/;

export function isPlainPublicKey(pem: string): boolean {
  return PUBLIC_KEY_PEM.test(pem) && !/PRIVATE/i.test(pem);
}
