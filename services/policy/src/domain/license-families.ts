// Which family each SPDX license and exception belongs to (docs/license-catalog.md gives the reasoning per family).
// The lists are data, in license-families.json: per family, the licenses whose terms decide it by name and a pattern
// for its large families of variants (BSD-*, MIT-*, HPND-*, ...), in the order they are tried (an id two patterns
// would match takes the first). An id in no list is `unreviewed`: the SPDX list grows every release, and a license
// nobody has read is a question for a person, never silently allowed.
import lists from "./license-families.json" with { type: "json" };

export type LicenseFamily =
  | "public-domain"
  | "permissive"
  | "weak-copyleft"
  | "strong-copyleft"
  | "network-copyleft"
  | "non-commercial"
  | "source-available"
  | "restricted-use"
  | "ai-data-permissive"
  | "ai-data-share-alike"
  | "ai-computational-use"
  | "unreviewed";

export type ExceptionFamily = "additional-permission" | "foss-only-permission";

/** One family of the data file: its named ids and, for some, a pattern of ids. */
interface FamilyList<F extends string> {
  family: F;
  ids: ReadonlySet<string>;
  pattern: RegExp | null;
}

function familyLists<F extends string>(
  entries: readonly { family: string; ids: readonly string[]; pattern?: string }[],
  families: readonly F[],
): FamilyList<F>[] {
  return entries.map((e) => {
    const family = families.find((f) => f === e.family);
    if (!family) throw new Error(`license-families.json names an unknown family ${e.family}`);
    return { family, ids: new Set(e.ids), pattern: e.pattern === undefined ? null : new RegExp(e.pattern) };
  });
}

const LICENSE_FAMILIES: readonly Exclude<LicenseFamily, "unreviewed">[] = [
  "public-domain",
  "permissive",
  "weak-copyleft",
  "strong-copyleft",
  "network-copyleft",
  "non-commercial",
  "source-available",
  "restricted-use",
  "ai-data-permissive",
  "ai-data-share-alike",
  "ai-computational-use",
];
const LICENSES = familyLists(lists.licenses, LICENSE_FAMILIES);
const EXCEPTIONS = familyLists(lists.exceptions, ["foss-only-permission"] as const);

const matches = (list: FamilyList<string>, id: string) => list.ids.has(id) || (list.pattern?.test(id) ?? false);

/** The family of an SPDX license id (without `+`): the first list that names it or whose pattern it matches. */
export function familyOf(licenseId: string): LicenseFamily {
  return LICENSES.find((list) => matches(list, licenseId))?.family ?? "unreviewed";
}

/** The family of an SPDX exception id: nearly all grant extra permissions; a few only towards other FOSS. */
export function exceptionFamilyOf(exceptionId: string): ExceptionFamily {
  return EXCEPTIONS.find((list) => matches(list, exceptionId))?.family ?? "additional-permission";
}

/** Every id the lists name, for the test that each is a real SPDX id. */
export const NAMED_IDS: readonly string[] = [...LICENSES, ...EXCEPTIONS].flatMap((list) => [...list.ids]);
