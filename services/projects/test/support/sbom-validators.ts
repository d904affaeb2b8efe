// Validators we did not write, for the documents the SBOM export produces: the official CycloneDX 1.6 JSON schema
// (@cyclonedx/cyclonedx-library's strict ajv validator), the official CycloneDX 1.6 XSD (shipped by the same
// library, checked by libxml2's xmllint compiled to WebAssembly: xmllint-wasm) and the SPDX project's own
// validator for SPDX 2.3 (spdx-tools' pyspdxtools, installed by scripts/setup/spdx-tools.sh under .tools/).
import { execFile } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
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
  return (await cyclonedxXmlErrorsOfEach([text]))[0]!;
}

/**
 * cyclonedxXmlErrors of each text, in one xmllint run: each run starts a worker and compiles the XSD again, which
 * cost more than validating most documents.
 */
export async function cyclonedxXmlErrorsOfEach(texts: readonly string[]): Promise<(string[] | null)[]> {
  const fileName = (i: number) => `bom-${i}.xml`;
  const result = await validateXML({
    xml: texts.map((contents, i) => ({ fileName: fileName(i), contents })),
    schema: [{ fileName: "bom-1.6.SNAPSHOT.xsd", contents: XSD }],
    preload: [{ fileName: "spdx.SNAPSHOT.xsd", contents: SPDX_XSD }],
    // All documents are in memory at once: room for the largest set the tests export (about 6 MB of XML).
    maxMemoryPages: 16_384,
  });
  if (result.valid) return texts.map(() => null);
  // A message without a position names its file in the text ("bom-3.xml fails to validate") or none: one naming
  // none is charged to every document, so a document never passes on a message that may be its own.
  const namesOf = (e: (typeof result.errors)[number]) =>
    e.loc !== null ? [e.loc.fileName] : (e.rawMessage.match(/bom-\d+\.xml/g) ?? texts.map((_, i) => fileName(i)));
  return texts.map((_, i) => {
    const mine = result.errors.filter((e) => namesOf(e).includes(fileName(i)));
    return mine.length === 0 ? null : mine.map((e) => e.message);
  });
}

const PYSPDXTOOLS = join(import.meta.dirname, "..", "..", "..", "..", ".tools", "bin", "pyspdxtools");

// pyspdxtools' own command, run on each document in one Python process (an interpreter start and the library's
// imports cost more than validating most documents): per document, null when it exits 0, else what it logged.
const SPDX_EACH = `
import json, logging, sys
from spdx_tools.spdx.clitools.pyspdxtools import main

class Messages(logging.Handler):
    lines = []
    def emit(self, record):
        self.lines.append(self.format(record))

messages = Messages()
logging.getLogger().addHandler(messages)
for infile in sys.argv[1:]:
    messages.lines = []
    try:
        main.main(["--infile", infile], standalone_mode=False)
        code = 0
    except SystemExit as exit:
        code = exit.code
    except Exception as err:
        code, messages.lines = 1, messages.lines + [repr(err)]
    print(json.dumps(None if code in (0, None) else "\\n".join(messages.lines) or f"exit status {code}"), flush=True)
`;

/** For each SPDX JSON document: null when spdx-tools finds it valid, else what it says. */
export async function spdxErrors(texts: readonly string[]): Promise<(string | null)[]> {
  if (!existsSync(PYSPDXTOOLS)) throw new Error(`${PYSPDXTOOLS} is missing: run bash scripts/setup/spdx-tools.sh`);
  const python = join(dirname(realpathSync(PYSPDXTOOLS)), "python3");
  const dir = await mkdtemp(join(tmpdir(), "sca-spdx-"));
  try {
    const files = texts.map((_, i) => join(dir, `document-${i}.spdx.json`));
    await Promise.all(files.map((file, i) => writeFile(file, texts[i]!)));
    const { stdout } = await promisify(execFile)(python, ["-c", SPDX_EACH, ...files], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const verdicts = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string | null);
    if (verdicts.length !== texts.length) throw new Error(`spdx-tools answered ${verdicts.length} of ${texts.length}`);
    return verdicts;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
