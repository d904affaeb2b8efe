// The closed set of problem codes: what a problem document's `code` (and the last segment of its type) can be, so
// that a client may switch on it; the gateway's OpenAPI document shows it as the Problem's `code` enum. The codes
// live here rather than in each service because the gateway renders and documents every service's problems while
// reaching a service only through its contract: they are the API's vocabulary, grouped by the one that raises them.
// The spec fixes forbidden, last-super-admin, disk-pressure, last-oauth-link (a urn type), demo_read_only and
// oauth_provider_disabled; the others are ours.

/** The code of a problem that names none, by status: any service may raise these. */
export const STATUS_PROBLEM_CODES = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  408: "request_timeout",
  409: "conflict",
  411: "length_required",
  412: "precondition_failed",
  413: "body_too_large",
  415: "unsupported_media_type",
  422: "validation_error",
  429: "rate_limited",
  431: "request_header_fields_too_large",
  500: "internal_error",
  501: "not_implemented",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
} as const;

/** The codes each raiser names beyond its statuses' own; a code may belong to two raisers. */
export const RAISED_PROBLEM_CODES = {
  gateway: [
    "artefact_too_large",
    "cors_origin_not_allowed",
    "demo_read_only",
    "if_match_required",
    "malformed_body",
    "malformed_json",
    "malformed_request",
    "not_ready",
    "origin_rejected",
    "payload_too_large",
    "project_archived",
    "restore_not_confirmed",
  ],
  /** @sca/artefacts: an upload past its cap, refused by the store. */
  artefacts: ["artefact_too_large"],
  identity: [
    "account_inactive",
    "email_registered",
    "invalid_credentials",
    "invalid_refresh_token",
    "invalid_reset_token",
    "invalid_second_factor",
    "invalid_second_factor_code",
    "last-super-admin",
    "last_oauth_link",
    "no_enrolment_pending",
    "oauth_provider_disabled",
    "oauth_provider_unavailable",
    "second_factor_enabled",
    "session_ended",
    "sign_in_throttled",
    "slug_taken",
    "team_has_subteams",
  ],
  projects: [
    "app_credential_revoked",
    "inventory_artefact_malformed",
    "inventory_artefact_mismatch",
    "no_pending_status_change",
    "not_opted_in",
    "project_archived",
    "project_slug_taken",
    "remote_write_failed",
    "scan_has_no_inventory",
    "second_person_required",
    "version_mismatch",
    "vex_document_invalid",
    "vex_status_move_not_allowed",
  ],
  policy: [
    "approval_is_final",
    "approval_transition_not_allowed",
    "verdict_exists",
    "verdict_move_not_allowed",
    "version_mismatch",
  ],
  "scan-orchestrator": ["disk-pressure", "project_archived", "scan_finished"],
  admin: ["backup_protected"],
} as const;

export type ProblemCode =
  | (typeof STATUS_PROBLEM_CODES)[keyof typeof STATUS_PROBLEM_CODES]
  | (typeof RAISED_PROBLEM_CODES)[keyof typeof RAISED_PROBLEM_CODES][number];

/** Every code once, sorted. */
export const PROBLEM_CODES: readonly ProblemCode[] = [
  ...new Set<ProblemCode>([...Object.values(STATUS_PROBLEM_CODES), ...Object.values(RAISED_PROBLEM_CODES).flat()]),
].sort();
