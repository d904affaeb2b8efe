// npm remediation's manifest edit (the spec's "Remediation (npm)"; docs/scm.md, "Remediation"): each recommended
// package's range in package.json is rewritten to reach the fixed version, keeping the operator style and changing
// only the number; every other byte of the manifest stays as it was. The lockfile is never edited.
//
// Range rewrite: caret, tilde, pinned, a single `>=` and a `v` prefix keep their form; `1.2.x` and `1.x` become a
// caret range; `*`, empty and `latest` are left as they are; alias, file, git and compound ranges are left with a
// warning; a range whose lower bound is at or above the fix is left and flagged.

export const DEPENDENCY_SECTIONS = [
  "dependencies",
  "devDependencies",
  "optionalDependencies",
  "peerDependencies",
] as const;
export type DependencySection = (typeof DEPENDENCY_SECTIONS)[number];

export type WarningCode =
  | "lockfile_regeneration_required"
  | "package_not_present"
  | "value_not_string"
  | "unparseable_range"
  | "already_satisfied"
  | "target_unparseable"
  | "duplicate_keys_collapsed";

export interface Recommendation {
  package: string;
  current_version: string;
  recommended_version: string;
}

export interface ManifestChange {
  package: string;
  section: DependencySection;
  before: string;
  after: string;
  changed: boolean;
}

export interface RemediationWarning {
  code: WarningCode;
  package: string | null;
  detail: string;
}

export type ManifestEdit =
  | { ok: false; detail: string }
  | {
      ok: true;
      changed: boolean;
      /** The manifest with the edits; the input itself when nothing changed. */
      edited: string;
      changes: ManifestChange[];
      warnings: RemediationWarning[];
    };

// ---- Versions -----------------------------------------------------------------------------------------------

type Version = [number, number, number, string];
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(text: string): Version | null {
  const m = VERSION.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? ""] : null;
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  if (a[3] === b[3]) return 0;
  if (a[3] === "") return 1;
  if (b[3] === "") return -1;
  return a[3] < b[3] ? -1 : 1;
}

// ---- Ranges -------------------------------------------------------------------------------------------------

type Rewrite =
  { kind: "rewrite"; after: string; lower: Version } | { kind: "keep" } | { kind: "unparseable"; why: string };

const SIMPLE = /^(\^|~|>=|=)?(v)?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;
const WILDCARD = /^(v)?(\d+)(?:\.(\d+))?\.[xX*]$/;

/** How one range reaches `fix` (a version without a `v`). */
export function rewriteRange(range: string, fix: string): Rewrite {
  const text = range.trim();
  if (text === "" || text === "*" || text === "latest") return { kind: "keep" };
  if (/^npm:/.test(text)) return { kind: "unparseable", why: "an alias (npm:)" };
  if (/^(file|link|workspace):/.test(text)) return { kind: "unparseable", why: "a local path" };
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|https?:)/.test(text) || /^[\w.-]+\/[\w.-]+(#.*)?$/.test(text))
    return { kind: "unparseable", why: "a git or URL source" };
  const simple = SIMPLE.exec(text);
  if (simple) {
    const lower = parseVersion(simple[3]!)!;
    return { kind: "rewrite", after: `${simple[1] ?? ""}${simple[2] ?? ""}${fix}`, lower };
  }
  const wildcard = WILDCARD.exec(text);
  if (wildcard) {
    const lower: Version = [Number(wildcard[2]), Number(wildcard[3] ?? 0), 0, ""];
    return { kind: "rewrite", after: `^${wildcard[1] ?? ""}${fix}`, lower };
  }
  return { kind: "unparseable", why: "a compound or unrecognised range" };
}

// ---- The manifest's text, with where each value lies ------------------------------------------------------------

interface Member {
  key: string;
  /** The value's span in the text (a string value's span includes its quotes). */
  start: number;
  end: number;
  value: unknown;
}

class JsonSpans {
  private pos = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at offset ${this.pos}`);
  }

  private space(): void {
    while (this.pos < this.text.length && /[ \t\r\n]/.test(this.text[this.pos]!)) this.pos++;
  }

  /** The top-level object's members, each object member's own members beside it. */
  document(): { members: Member[]; nested: Map<string, Member[]> } {
    this.space();
    if (this.text[this.pos] !== "{") this.fail("expected an object");
    const nested = new Map<string, Member[]>();
    const members = this.object((key, member, inner) => {
      if (inner) nested.set(key, inner);
      return member;
    });
    this.space();
    if (this.pos !== this.text.length) this.fail("unexpected text after the object");
    return { members, nested };
  }

  private object(onMember?: (key: string, m: Member, inner: Member[] | null) => Member): Member[] {
    const members: Member[] = [];
    this.pos++; // {
    this.space();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return members;
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') this.fail("expected a key");
      const key = this.string();
      this.space();
      if (this.text[this.pos] !== ":") this.fail("expected :");
      this.pos++;
      this.space();
      const start = this.pos;
      let inner: Member[] | null = null;
      let value: unknown;
      if (this.text[this.pos] === "{" && onMember) {
        inner = this.object();
        value = Object.fromEntries(inner.map((m) => [m.key, m.value]));
      } else value = this.value();
      const member = { key, start, end: this.pos, value };
      members.push(onMember ? onMember(key, member, inner) : member);
      this.space();
      const c = this.text[this.pos];
      this.pos++;
      if (c === "}") return members;
      if (c !== ",") this.fail("expected , or }");
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.text.length && this.text[this.pos] !== '"') this.pos += this.text[this.pos] === "\\" ? 2 : 1;
    if (this.pos >= this.text.length) this.fail("unterminated string");
    this.pos++;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }

  private value(): unknown {
    const c = this.text[this.pos];
    if (c === '"') return this.string();
    if (c === "{") return Object.fromEntries(this.object().map((m) => [m.key, m.value]));
    if (c === "[") {
      const items: unknown[] = [];
      this.pos++;
      this.space();
      if (this.text[this.pos] === "]") {
        this.pos++;
        return items;
      }
      for (;;) {
        this.space();
        items.push(this.value());
        this.space();
        const d = this.text[this.pos];
        this.pos++;
        if (d === "]") return items;
        if (d !== ",") this.fail("expected , or ]");
      }
    }
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(this.text.slice(this.pos));
    if (!literal) this.fail("unexpected character");
    this.pos += literal[0].length;
    return JSON.parse(literal[0]) as unknown;
  }
}

// ---- The edit ---------------------------------------------------------------------------------------------------

/** Edits `manifest` (raw package.json) so each recommendation's range reaches its version. */
export function editManifest(manifest: string, recommendations: readonly Recommendation[]): ManifestEdit {
  let doc: { members: Member[]; nested: Map<string, Member[]> };
  try {
    doc = new JsonSpans(manifest).document();
  } catch (err) {
    return { ok: false, detail: `The manifest is not a JSON object: ${(err as Error).message}.` };
  }
  const warnings: RemediationWarning[] = [];
  const changes: ManifestChange[] = [];
  const edits: { start: number; end: number; text: string }[] = [];

  // The last member of a repeated key wins (JSON.parse's reading); the repetition is reported once per key.
  const sections = new Map<DependencySection, Map<string, Member>>();
  const sectionOf = (name: DependencySection) => {
    const all = doc.members.filter((m) => m.key === name);
    const last = all[all.length - 1];
    if (!last) return null;
    if (all.length > 1)
      warnings.push({
        code: "duplicate_keys_collapsed",
        package: null,
        detail: `"${name}" appears ${all.length} times; the last is read.`,
      });
    const members = doc.nested.get(name) ?? null;
    // nested keeps the last object member of that name (a Map set in order).
    if (!members || typeof last.value !== "object" || last.value === null || Array.isArray(last.value)) return null;
    const byKey = new Map<string, Member>();
    const seen = new Map<string, number>();
    for (const m of members) {
      byKey.set(m.key, m);
      seen.set(m.key, (seen.get(m.key) ?? 0) + 1);
    }
    for (const [key, count] of seen)
      if (count > 1)
        warnings.push({
          code: "duplicate_keys_collapsed",
          package: key,
          detail: `"${key}" appears ${count} times in ${name}; the last is read and edited.`,
        });
    return byKey;
  };
  for (const name of DEPENDENCY_SECTIONS) {
    const section = sectionOf(name);
    if (section) sections.set(name, section);
  }

  for (const rec of recommendations) {
    const target = parseVersion(rec.recommended_version);
    if (!target) {
      warnings.push({
        code: "target_unparseable",
        package: rec.package,
        detail: `The recommended version "${rec.recommended_version}" is not a version.`,
      });
      continue;
    }
    const fix = rec.recommended_version.trim().replace(/^v/, "");
    let present = false;
    for (const [name, section] of sections) {
      const member = section.get(rec.package);
      if (!member) continue;
      present = true;
      if (typeof member.value !== "string") {
        warnings.push({ code: "value_not_string", package: rec.package, detail: `Its ${name} entry is not a string.` });
        continue;
      }
      const before = member.value;
      const rewrite = rewriteRange(before, fix);
      if (rewrite.kind === "unparseable") {
        warnings.push({
          code: "unparseable_range",
          package: rec.package,
          detail: `"${before}" in ${name} is ${rewrite.why}; left as it is.`,
        });
        changes.push({ package: rec.package, section: name, before, after: before, changed: false });
        continue;
      }
      if (rewrite.kind === "keep") {
        changes.push({ package: rec.package, section: name, before, after: before, changed: false });
        continue;
      }
      if (compare(rewrite.lower, target) >= 0) {
        warnings.push({
          code: "already_satisfied",
          package: rec.package,
          detail: `"${before}" in ${name} already starts at or above ${fix}.`,
        });
        changes.push({ package: rec.package, section: name, before, after: before, changed: false });
        continue;
      }
      edits.push({ start: member.start, end: member.end, text: JSON.stringify(rewrite.after) });
      changes.push({ package: rec.package, section: name, before, after: rewrite.after, changed: true });
    }
    if (!present)
      warnings.push({
        code: "package_not_present",
        package: rec.package,
        detail: `${rec.package} is not a direct dependency in package.json.`,
      });
  }

  if (edits.length === 0) return { ok: true, changed: false, edited: manifest, changes, warnings };
  let edited = manifest;
  for (const e of [...edits].sort((a, b) => b.start - a.start))
    edited = edited.slice(0, e.start) + e.text + edited.slice(e.end);
  warnings.push({
    code: "lockfile_regeneration_required",
    package: null,
    detail: "package.json changed: regenerate the lockfile (npm install) so it pins the new versions.",
  });
  return { ok: true, changed: true, edited, changes, warnings };
}

// ---- Recommendations ----------------------------------------------------------------------------------------

/** A vulnerable npm package of a snapshot, with each of its vulnerabilities' fixed versions. */
export interface VulnerablePackage {
  name: string;
  version: string;
  fixedVersions: readonly (readonly string[])[];
}

/**
 * The version each vulnerable package should move to: for each vulnerability, the lowest fixed version above the
 * current one; of those, the highest (so one bump clears them all). A package with a vulnerability that names no
 * such fix is still recommended what the others fix. By package name.
 */
export function npmRecommendations(packages: readonly VulnerablePackage[]): Recommendation[] {
  const best = new Map<string, Recommendation & { at: Version }>();
  for (const p of packages) {
    const current = parseVersion(p.version);
    if (!current) continue;
    for (const fixes of p.fixedVersions) {
      const above = fixes
        .map((f) => ({ text: f.trim().replace(/^v/, ""), at: parseVersion(f) }))
        .filter((f): f is { text: string; at: Version } => f.at !== null && compare(f.at, current) > 0)
        .sort((a, b) => compare(a.at, b.at))[0];
      if (!above) continue;
      const key = `${p.name}@${p.version}`;
      const held = best.get(key);
      if (!held || compare(above.at, held.at) > 0)
        best.set(key, { package: p.name, current_version: p.version, recommended_version: above.text, at: above.at });
    }
  }
  return [...best.values()]
    .map(({ at: _at, ...r }) => r)
    .sort((a, b) => (a.package === b.package ? 0 : a.package < b.package ? -1 : 1));
}
