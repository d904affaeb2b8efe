// Why an SBOM could not be read. A ProblemError so the upload route can answer it as it is (413 past the size
// cap, 422 otherwise) and a scan can store its message as error_message: English, no stack, no document content
// beyond a short quoted fragment.
import { ProblemError } from "@sca/problem";

export type SbomErrorCode =
  | "sbom_unknown_format"
  | "sbom_malformed_json"
  | "sbom_malformed_xml"
  | "sbom_malformed_tag_value"
  | "sbom_xml_doctype_refused"
  | "sbom_unsupported_spec_version"
  | "sbom_too_large"
  | "sbom_not_an_sbom";

export class SbomReadError extends ProblemError {
  readonly code: SbomErrorCode;

  constructor(code: SbomErrorCode, detail: string) {
    super({ status: code === "sbom_too_large" ? 413 : 422, code, detail });
    this.name = "SbomReadError";
    this.code = code;
  }
}
