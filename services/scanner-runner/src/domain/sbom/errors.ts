// Why an SBOM could not be read: a problem (413 past the size cap, 422 otherwise) whose message a scan stores as
// error_message: English, no stack, no document content beyond a short quoted fragment. Its codes are a closed set
// of their own, apart from the API's problem codes (@sca/problem): no client is answered with them, only the message.
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

export class SbomReadError extends ProblemError<SbomErrorCode> {
  readonly code: SbomErrorCode;

  constructor(code: SbomErrorCode, detail: string) {
    super({ status: code === "sbom_too_large" ? 413 : 422, code, detail });
    this.name = "SbomReadError";
    this.code = code;
  }
}
