// The SBOM export's pure part: formats, the document's facts, and one writer per format (docs/sbom-export.md).
import { cycloneDxJsonWriter, cycloneDxXmlWriter } from "./cyclonedx.ts";
import type { SbomDocumentFacts, SbomFormat } from "./export-format.ts";
import type { SbomWriter } from "./sbom-writer.ts";
import { spdxJsonWriter } from "./spdx.ts";

export * from "./export-format.ts";
export * from "./snapshot-rows.ts";
export type { SbomWriter } from "./sbom-writer.ts";

export function sbomWriterOf(format: SbomFormat, facts: SbomDocumentFacts): SbomWriter {
  switch (format) {
    case "cyclonedx-json":
      return cycloneDxJsonWriter(facts);
    case "cyclonedx-xml":
      return cycloneDxXmlWriter(facts);
    case "spdx-json":
      return spdxJsonWriter(facts);
  }
}
