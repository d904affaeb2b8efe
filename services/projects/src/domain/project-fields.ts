// The bounds and shapes of a project's fields (the spec's Project resource), and what a create body and a PATCH
// body mean. Pure: the use cases in rpc/ apply the plans these answer.
import type { FieldViolation } from "@sca/problem";
import { UUID } from "@sca/ids";

export const VISIBILITIES = ["team", "organization"] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const DISTRIBUTION_MODELS = ["internal", "saas", "binary", "source", "embedded"] as const;
export const AI_USAGE_CONTEXTS = ["internal", "product", "redistribute", "outputs-only"] as const;
/** The list filter's value for projects without a distribution model. */
export const DISTRIBUTION_MODEL_UNSET = "unset";

export const NAME_MAX = 255;
export const SLUG_MAX = 64;
export const DESCRIPTION_MAX = 10_000;
export const BRANCH_MAX = 255;
export const GIT_URL_MAX = 2048;
export const TEXT_MAX = 255;
export const LICENSE_MAX = 1024;
export const GIT_CREDENTIAL_MAX = 4096;

/** Lowercase letters and digits, with `-`, `_` or `.` between them (URL- and file-name-safe). */
const SLUG = /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** One SPDX license id (or LicenseRef-/DocumentRef-), or an expression of them with AND, OR, WITH and parentheses. */
export function isLicenseExpression(text: string): boolean {
  const tokens = text.match(/\(|\)|[^\s()]+/g);
  if (!tokens) return false;
  let depth = 0;
  let expectOperand = true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === "(") {
      if (!expectOperand) return false;
      depth++;
    } else if (t === ")") {
      if (expectOperand || --depth < 0) return false;
    } else if (t === "AND" || t === "OR") {
      if (expectOperand) return false;
      expectOperand = true;
    } else if (t === "WITH") {
      // An exception follows one license id, never a parenthesised expression.
      if (expectOperand || tokens[i - 1] === ")") return false;
      const exception = tokens[++i];
      if (!exception || !/^[A-Za-z0-9][A-Za-z0-9.+-]*$/.test(exception)) return false;
    } else {
      if (!expectOperand || !/^(?:DocumentRef-[A-Za-z0-9.-]+:)?[A-Za-z0-9][A-Za-z0-9.+-]*$/.test(t)) return false;
      expectOperand = false;
    }
  }
  return depth === 0 && !expectOperand;
}

/**
 * A repository address: http(s), ssh or git URLs, or the scp-like `user@host:path`. Never with a password in it:
 * the credential belongs in git_credential, which is stored encrypted.
 */
export function gitUrlViolation(value: string): string | null {
  if (value.length > GIT_URL_MAX) return `must be at most ${GIT_URL_MAX} characters`;
  if (/^[\w.-]+@[\w.-]+:[^\s]+$/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an http(s), ssh or git URL, or user@host:path";
  }
  if (!["http:", "https:", "ssh:", "git:"].includes(url.protocol) || !url.hostname)
    return "must be an http(s), ssh or git URL, or user@host:path";
  if (url.password) return "must not carry a password; send it as git_credential";
  return null;
}

function oneOf(value: string, allowed: readonly string[], path: string, v: FieldViolation[]): void {
  if (!allowed.includes(value)) v.push({ path, message: `must be one of ${allowed.join(", ")}` });
}

function length(value: string, min: number, max: number, path: string, v: FieldViolation[]): void {
  const n = [...value].length;
  if (n < min || n > max)
    v.push({
      path,
      message: min > 0 ? `must be between ${min} and ${max} characters` : `must be at most ${max} characters`,
    });
}

/** The optional descriptive fields, as a create body or a PATCH sets them (null: unset). */
export interface ProjectDetails {
  description: string | null;
  defaultBranch: string | null;
  gitUrl: string | null;
  businessUnit: string | null;
  declaredLicense: string | null;
  distributionModel: string | null;
  aiUsageContext: string | null;
  ownerContact: string | null;
}

export interface ProjectInputFields {
  name: string;
  slug: string;
  teamId: string;
  description?: string;
  defaultBranch?: string;
  gitUrl?: string;
  visibility?: string;
  businessUnit?: string;
  declaredLicense?: string;
  distributionModel?: string;
  aiUsageContext?: string;
  ownerContact?: string;
}

export interface NewProjectPlan extends ProjectDetails {
  name: string;
  slug: string;
  teamId: string;
  visibility: Visibility;
}

/** Checks one optional field and answers what it sets: "" and absent leave it unset (null). */
function detail(
  value: string | undefined,
  path: string,
  v: FieldViolation[],
  check: (value: string) => void,
): string | null {
  if (value === undefined || value === "") return null;
  check(value);
  return value;
}

function detailChecks(path: (field: string) => string, v: FieldViolation[]) {
  return {
    description: (s: string) => length(s, 0, DESCRIPTION_MAX, path("description"), v),
    defaultBranch: (s: string) => length(s, 1, BRANCH_MAX, path("default_branch"), v),
    gitUrl: (s: string) => {
      const why = gitUrlViolation(s);
      if (why) v.push({ path: path("git_url"), message: why });
    },
    businessUnit: (s: string) => length(s, 1, TEXT_MAX, path("business_unit"), v),
    declaredLicense: (s: string) => {
      if ([...s].length > LICENSE_MAX || !isLicenseExpression(s))
        v.push({ path: path("declared_license"), message: "must be an SPDX license id or expression" });
    },
    distributionModel: (s: string) => oneOf(s, DISTRIBUTION_MODELS, path("distribution_model"), v),
    aiUsageContext: (s: string) => oneOf(s, AI_USAGE_CONTEXTS, path("ai_usage_context"), v),
    ownerContact: (s: string) => length(s, 1, TEXT_MAX, path("owner_contact"), v),
  } satisfies Record<keyof ProjectDetails, (s: string) => void>;
}

/** A create body (`prefix` is where its fields sit: "body" or "body.projects[3]"). */
export function planNewProject(
  input: ProjectInputFields,
  prefix = "body",
): { ok: true; plan: NewProjectPlan } | { ok: false; violations: FieldViolation[] } {
  const v: FieldViolation[] = [];
  const path = (field: string) => `${prefix}.${field}`;
  const name = input.name.trim();
  length(name, 1, NAME_MAX, path("name"), v);
  if ([...input.slug].length < 1 || [...input.slug].length > SLUG_MAX || !SLUG.test(input.slug)) {
    v.push({
      path: path("slug"),
      message: `must be 1 to ${SLUG_MAX} lowercase letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
    });
  }
  if (!isUuid(input.teamId)) v.push({ path: path("team_id"), message: "must be a UUID" });
  const visibility = input.visibility || "team";
  oneOf(visibility, VISIBILITIES, path("visibility"), v);
  const checks = detailChecks(path, v);
  const details: ProjectDetails = {
    description: detail(input.description, path("description"), v, checks.description),
    defaultBranch: detail(input.defaultBranch, path("default_branch"), v, checks.defaultBranch),
    gitUrl: detail(input.gitUrl, path("git_url"), v, checks.gitUrl),
    businessUnit: detail(input.businessUnit, path("business_unit"), v, checks.businessUnit),
    declaredLicense: detail(input.declaredLicense, path("declared_license"), v, checks.declaredLicense),
    distributionModel: detail(input.distributionModel, path("distribution_model"), v, checks.distributionModel),
    aiUsageContext: detail(input.aiUsageContext, path("ai_usage_context"), v, checks.aiUsageContext),
    ownerContact: detail(input.ownerContact, path("owner_contact"), v, checks.ownerContact),
  };
  if (v.length) return { ok: false, violations: v };
  return {
    ok: true,
    plan: {
      name,
      slug: input.slug,
      teamId: input.teamId.toLowerCase(),
      visibility: visibility as Visibility,
      ...details,
    },
  };
}

/** A PATCH body: undefined fields are absent (unchanged). */
export interface ProjectPatchFields {
  name?: string;
  description?: string;
  defaultBranch?: string;
  gitUrl?: string;
  visibility?: string;
  businessUnit?: string;
  declaredLicense?: string;
  distributionModel?: string;
  aiUsageContext?: string;
  ownerContact?: string;
  gitCredential?: string;
  clearGitCredential: boolean;
}

/** What a PATCH changes: only the keys present; null clears. */
export interface ProjectChanges extends Partial<ProjectDetails> {
  name?: string;
  visibility?: Visibility;
  /** set: seal and store this value; clear: remove the stored credential. */
  gitCredential?: { kind: "set"; value: string } | { kind: "clear" };
}

/** The API names of what a change touches, in a fixed order (for events and audit). */
export const CHANGE_FIELD_NAMES: Record<keyof ProjectChanges, string> = {
  name: "name",
  description: "description",
  defaultBranch: "default_branch",
  gitUrl: "git_url",
  visibility: "visibility",
  businessUnit: "business_unit",
  declaredLicense: "declared_license",
  distributionModel: "distribution_model",
  aiUsageContext: "ai_usage_context",
  ownerContact: "owner_contact",
  gitCredential: "git_credential",
};

/**
 * A PATCH body's plan. An empty string clears the clearable fields (and the plain optional texts description,
 * default_branch and git_url); name and visibility cannot be cleared. An empty git_credential leaves the stored one
 * as it is; clear_git_credential with a non-empty git_credential is refused.
 */
export function planPatch(
  input: ProjectPatchFields,
): { ok: true; changes: ProjectChanges } | { ok: false; violations: FieldViolation[] } {
  const v: FieldViolation[] = [];
  const path = (field: string) => `body.${field}`;
  const changes: ProjectChanges = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    length(name, 1, NAME_MAX, path("name"), v);
    changes.name = name;
  }
  if (input.visibility !== undefined) {
    oneOf(input.visibility, VISIBILITIES, path("visibility"), v);
    changes.visibility = input.visibility as Visibility;
  }
  const checks = detailChecks(path, v);
  for (const field of Object.keys(checks) as (keyof ProjectDetails)[]) {
    const value = input[field];
    if (value !== undefined) changes[field] = detail(value, path(field), v, checks[field]);
  }
  const credential = input.gitCredential ?? "";
  if (input.clearGitCredential && credential !== "") {
    v.push({ path: path("clear_git_credential"), message: "cannot be combined with a non-empty git_credential" });
  } else if (input.clearGitCredential) {
    changes.gitCredential = { kind: "clear" };
  } else if (credential !== "") {
    if (credential.length > GIT_CREDENTIAL_MAX)
      v.push({ path: path("git_credential"), message: `must be at most ${GIT_CREDENTIAL_MAX} characters` });
    changes.gitCredential = { kind: "set", value: credential };
  }
  if (v.length) return { ok: false, violations: v };
  return { ok: true, changes };
}
