// Validators we did not write, for the documents the SBOM export produces: the official CycloneDX 1.6 JSON schema
// (@cyclonedx/cyclonedx-library's strict ajv validator), the official CycloneDX 1.6 XSD (shipped by the same
// library, checked by libxml2's xmllint compiled to WebAssembly: xmllint-wasm) and the SPDX project's own
// validator for SPDX 2.3 (spdx-tools' pyspdxtools, installed by scripts/setup/spdx-tools.sh under .tools/).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Spec, Validation } from "@cyclonedx/cyclonedx-library";
import { validateXML } from "xmllint-wasm";

const require = createRequire(import.meta.url);
const SCHEMA_DIR = join(dirname(require.resolve("@cyclonedx/cyclonedx-library/package.json")), "res", "schema");
const XSD = readFileSync(join(SCHEMA_DIR, "bom-1.6.SNAPSHOT.xsd"), "utf8");
const SPDX_XSD = readFileSync(join(SCHEMA_DIR, "spdx.SNAPSHOT.xsd"), "utf8");

const jsonValidator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);

/** null when the text is a valid CycloneDX 1.6 JSON document, else the schema's complaints. */
export async function cyclonedxJsonErrors(text: string): Promise<unknown> {
  return jsonValidator.validate(text);
}

/** null when the text is a valid CycloneDX 1.6 XML document, else xmllint's messages. */
export async function cyclonedxXmlErrors(text: string): Promise<string[] | null> {
  const result = await validateXML({
    xml: [{ fileName: "bom.xml", contents: text }],
    schema: [{ fileName: "bom-1.6.SNAPSHOT.xsd", contents: XSD }],
    preload: [{ fileName: "spdx.SNAPSHOT.xsd", contents: SPDX_XSD }],
  });
  return result.valid ? null : result.errors.map((e) => e.message);
}

const PYSPDXTOOLS = join(import.meta.dirname, "..", "..", "..", "..", ".tools", "bin", "pyspdxtools");

/** null when spdx-tools finds the SPDX JSON document valid, else what it says. */
export async function spdxErrors(text: string): Promise<string | null> {
  if (!existsSync(PYSPDXTOOLS)) throw new Error(`${PYSPDXTOOLS} is missing: run bash scripts/setup/spdx-tools.sh`);
  const dir = await mkdtemp(join(tmpdir(), "sca-spdx-"));
  try {
    const file = join(dir, "document.spdx.json");
    await writeFile(file, text);
    await promisify(execFile)(PYSPDXTOOLS, ["--infile", file], { maxBuffer: 16 * 1024 * 1024 });
    return null;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    return `${e.stderr ?? ""}${e.stdout ?? ""}` || e.message;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
