// sca verify BUNDLE: a downloaded signed SBOM bundle (`sca export signature-bundle`, or the web UI's download)
// checked offline, as its VERIFY.md says (signed-bundle.ts). Exit 0 when every check passes, 1 when one fails (the
// answer is "no", as a failed gate), 2 when the bundle cannot be read.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { CliError, EXIT } from "../exit-codes.ts";
import type { Session } from "../session.ts";
import { readBundle, verifyBundle } from "../signed-bundle.ts";

interface VerifyOptions {
  key?: string;
  keySha256?: string;
}

export function verifyCommand(program: Command, session: Session): void {
  program
    .command("verify <bundle>")
    .description("check a signed SBOM bundle (the zip, or its extracted directory) as its VERIFY.md says, offline")
    .option("--key <file>", "the supplier's published public key (PEM): signing.pub must be this key")
    .option("--key-sha256 <hex>", "the SHA-256 of the supplier's published key's DER (VERIFY.md prints it)")
    .action(async (path: string, opts: VerifyOptions) => {
      if (opts.keySha256 !== undefined && !/^[0-9a-f]{64}$/i.test(opts.keySha256))
        throw new CliError("--key-sha256 takes 64 hexadecimal digits");
      const pem = opts.key === undefined ? undefined : await readFile(opts.key, "utf8").catch(() => null);
      if (pem === null) throw new CliError(`${opts.key}: no such file`);
      const verdict = verifyBundle(await readBundle(path), { pem, sha256: opts.keySha256 });
      const { terminal } = session;
      for (const c of verdict.checks)
        terminal.result(`${c.ok ? terminal.paint("green", "ok  ") : terminal.paint("red", "FAIL")} ${c.what}`);
      if (!verdict.verified) {
        terminal.result(terminal.paint("red", `verify: fail - ${verdict.sbomFile} is not what was signed`));
        process.exitCode = EXIT.failed;
        return;
      }
      terminal.result(
        `${terminal.paint("green", "verify: ok")} - ${verdict.sbomFile} (SHA-256 ${verdict.sbomSha256}) ` +
          `signed with the key of SHA-256 ${verdict.keySha256}`,
      );
      // VERIFY.md: a key taken from the bundle alone proves only that the files match each other.
      if (!verdict.keyPinned)
        terminal.info(
          "note: the key came from the bundle itself; compare its SHA-256 with the one your supplier published, " +
            "or give --key / --key-sha256",
        );
      process.exitCode = EXIT.ok;
    });
}
