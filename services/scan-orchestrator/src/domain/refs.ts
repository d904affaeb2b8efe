// Ref normalisation: the form in which two scans' refs are compared by the supersede rule, the release filter
// and the batch's already_exists check (docs/scans.md, "Ref normalisation").
//   git refs (source and sbom scans):  ""            -> ""              (no ref)
//                                      main          -> refs/heads/main (a bare name is a branch)
//                                      refs/tags/v1  -> refs/tags/v1    (fully qualified refs as given)
//                                      <40 or 64 hex> -> lower-case commit id
//   image references (container scans): nginx -> docker.io/library/nginx:latest, registry host lower-cased,
//                                      index.docker.io -> docker.io, a tag or a digest kept as given.
import type { ScanKind } from "./scan-state.ts";

export const REF_MAX_CHARS = 255;
export const IMAGE_REF_MAX_CHARS = 512;

export type RefReading = { ok: true; ref: string; normalized: string } | { ok: false; message: string };

const invalid = (message: string): RefReading => ({ ok: false, message });

// git check-ref-format's rules, for one whole ref.
function gitRefProblem(ref: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref))
    return "must not contain spaces, control characters or any of ~ ^ : ? * [ \\";
  if (ref.includes("..")) return "must not contain ..";
  if (ref.includes("@{") || ref === "@") return "must not contain @{ or be @";
  if (ref.includes("//") || ref.startsWith("/") || ref.endsWith("/"))
    return "must not start or end with / or contain //";
  if (ref.endsWith(".")) return "must not end with .";
  if (ref.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock")))
    return "must not have a part starting with . or ending with .lock";
  return null;
}

/** A git ref as a source or sbom scan names it. */
export function normalizeGitRef(raw: string): RefReading {
  const ref = raw.trim();
  if (ref === "") return { ok: true, ref, normalized: "" };
  if (ref.length > REF_MAX_CHARS) return invalid(`must be at most ${REF_MAX_CHARS} characters`);
  const problem = gitRefProblem(ref);
  if (problem) return invalid(problem);
  if (/^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(ref)) return { ok: true, ref, normalized: ref.toLowerCase() };
  if (ref.startsWith("refs/")) {
    if (ref.split("/").length < 3)
      return invalid("a fully qualified ref names its namespace and name, e.g. refs/heads/main or refs/tags/v1.0");
    return { ok: true, ref, normalized: ref };
  }
  return { ok: true, ref, normalized: `refs/heads/${ref}` };
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[A-Fa-f0-9]{32,}$/;

/** An image reference as a container scan names it (required). */
export function normalizeImageRef(raw: string): RefReading {
  const ref = raw.trim();
  if (ref === "")
    return invalid("is required for a container scan (an image reference such as registry.example.com/team/app:1.2)");
  if (ref.length > IMAGE_REF_MAX_CHARS) return invalid(`must be at most ${IMAGE_REF_MAX_CHARS} characters`);
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return invalid("has a digest that is not algorithm:hex");
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag))
      return invalid("has a tag that is not 1 to 128 of A-Z a-z 0-9 _ . - (not starting with . or -)");
  }
  const parts = rest.split("/");
  const first = parts[0]!;
  const hasRegistry = parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost");
  let registry = hasRegistry ? first.toLowerCase() : "docker.io";
  if (registry === "index.docker.io" || registry === "registry-1.docker.io") registry = "docker.io";
  const path = hasRegistry ? parts.slice(1) : parts;
  if (!/^[a-z0-9.-]+(:\d{1,5})?$/.test(registry))
    return invalid("has a registry host that is not a host name with an optional port");
  if (path.length === 0 || !path.every((p) => PATH_COMPONENT.test(p)))
    return invalid("has a repository path that is not lower-case letters, digits and separators");
  if (registry === "docker.io" && path.length === 1) path.unshift("library");
  const normalized = `${registry}/${path.join("/")}${tag !== undefined ? `:${tag}` : digest ? "" : ":latest"}${digest ? `@${digest}` : ""}`;
  return { ok: true, ref, normalized };
}

/** The ref of a scan of `kind`, read and normalised. */
export function normalizeScanRef(kind: ScanKind, raw: string): RefReading {
  return kind === "container" ? normalizeImageRef(raw) : normalizeGitRef(raw);
}
