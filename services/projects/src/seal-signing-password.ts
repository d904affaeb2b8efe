// Seals the signing key's password for SIGNING_KEY_PASSWORD_ENCRYPTED (docs/signing.md): the password from stdin,
// the deployment's SECRET_KEY from the environment; prints the sealed value, the only form the portal accepts.
//   printf %s 'the password' | SECRET_KEY=... node services/projects/src/seal-signing-password.ts
import { text } from "node:stream/consumers";
import { seal } from "@sca/secret-box";
import { signingPasswordBoxKey } from "./signing/sbom-signer.ts";

const secretKey = process.env.SECRET_KEY;
if (!secretKey) {
  process.stderr.write("SECRET_KEY is required: the deployment's own, which opens the sealed password\n");
  process.exit(2);
}
const password = (await text(process.stdin)).replace(/\r?\n$/, "");
process.stdout.write(`${seal(password, signingPasswordBoxKey(secretKey))}\n`);
