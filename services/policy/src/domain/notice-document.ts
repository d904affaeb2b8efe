// The notice document of a project (docs/obligations.md, "Notice"): plain text, the attribution of every component
// of the newest snapshot in name order, then the text of each license they name, from the SPDX License
// List. Written piece by piece as the components stream in; what it keeps meanwhile is the set of license ids
// named, so memory follows the number of distinct licenses, not of components. The same scan and list version give
// the same bytes (no timestamp).
import { isCatalogException } from "./license-catalog.ts";
import { parseLicenseExpression, type LicenseTree } from "./license-expression.ts";
import type { LicenseText } from "./license-texts.ts";

export const NOTICE_MEDIA_TYPE = "text/plain; charset=utf-8";
/** The distinct license ids whose texts one notice appends; past it the rest are named without text. */
export const NOTICE_MAX_LICENSE_IDS = 2000;

const RULE = "-".repeat(78);
const DOUBLE_RULE = "=".repeat(78);

export interface NoticeProject {
  name: string;
  slug: string;
}

export interface NoticeComponent {
  name: string;
  group?: string;
  version?: string;
  purl?: string;
  license?: string;
  copyright?: string;
  supplier?: string;
  author?: string;
}

/** One line: control characters (a newline in a name) would let a field forge other lines. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();

export function noticeFileName(slug: string): string {
  return `NOTICE-${slug}.txt`;
}

export function noticeHeader(
  project: NoticeProject,
  scanId: string,
  componentCount: number,
  listVersion: string,
): string {
  return [
    "THIRD-PARTY SOFTWARE NOTICES",
    DOUBLE_RULE,
    `Project: ${oneLine(project.name)} (${project.slug})`,
    `Scan: ${scanId}`,
    `Components: ${componentCount}`,
    "",
    "This project includes the third-party components listed below, each under the license named with it. The",
    `texts of those licenses follow the list (SPDX License List, spdx-license-list ${listVersion}).`,
    "",
    "",
  ].join("\n");
}

export function componentEntry(c: NoticeComponent): string {
  const name = oneLine(c.group ? `${c.group}/${c.name}` : c.name);
  const lines = [RULE, c.version ? `${name} ${oneLine(c.version)}` : name];
  if (c.purl) lines.push(`Package URL: ${oneLine(c.purl)}`);
  lines.push(`License: ${c.license ? oneLine(c.license) : "NOASSERTION"}`);
  if (c.copyright) lines.push(`Copyright: ${oneLine(c.copyright)}`);
  if (c.supplier) lines.push(`Supplier: ${oneLine(c.supplier)}`);
  if (c.author) lines.push(`Author: ${oneLine(c.author)}`);
  lines.push("", "");
  return lines.join("\n");
}

function collect(tree: LicenseTree, into: Set<string>): void {
  if ("operator" in tree) {
    collect(tree.left, into);
    collect(tree.right, into);
    return;
  }
  into.add(tree.plus ? `${tree.license}+` : tree.license);
  if (tree.exception) into.add(tree.exception);
}

/** The license and exception ids an expression names; none for one that is no SPDX expression. */
export function licenseIdsOf(expression: string | undefined): string[] {
  const parsed = parseLicenseExpression(expression);
  if (!parsed.ok) return [];
  const ids = new Set<string>();
  collect(parsed.tree, ids);
  return [...ids];
}

export function licenseTextsHeading(): string {
  return [DOUBLE_RULE, "LICENSE TEXTS", DOUBLE_RULE, "", ""].join("\n");
}

/** The section of one id: its text when the list has it, else where to read it. */
export function licenseSection(id: string, text: LicenseText | null): string {
  if (text) {
    const body = text.text.endsWith("\n") ? text.text : `${text.text}\n`;
    return [RULE, `${id}: ${text.name}`, text.url, RULE, "", body, ""].join("\n");
  }
  const where = isCatalogException(id)
    ? `SPDX license exception; its text: https://spdx.org/licenses/${id}.html`
    : "Not in the SPDX License List: see the text distributed with the components that name it.";
  return [RULE, id, where, "", ""].join("\n");
}

export function omittedLicenses(count: number): string {
  return [
    RULE,
    `${count} further license ids are named by the components above; their texts are not repeated here.`,
    "",
  ].join("\n");
}
