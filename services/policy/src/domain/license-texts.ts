// The full texts of SPDX licenses, from spdx-license-list (a maintained copy of the SPDX License List with each
// license's text, one file per license). A text is read when a notice names its license, never all at once; an id
// the list does not index (a LicenseRef, an exception, a typo) has no text here.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const requireJson = createRequire(import.meta.url);
const INDEX = requireJson("spdx-license-list") as Record<string, { name: string; url: string }>;
const TEXTS_DIR = join(dirname(requireJson.resolve("spdx-license-list/package.json")), "licenses");

export interface LicenseText {
  id: string;
  name: string;
  url: string;
  text: string;
}

/** The license the list knows under `id` (a trailing `+` names the version it extends); null otherwise. */
export async function licenseText(id: string): Promise<LicenseText | null> {
  const known = Object.hasOwn(INDEX, id)
    ? id
    : id.endsWith("+") && Object.hasOwn(INDEX, id.slice(0, -1))
      ? id.slice(0, -1)
      : null;
  if (!known) return null;
  // The id is a key of the package's own index, so the path stays inside its licenses folder.
  const file = JSON.parse(await readFile(join(TEXTS_DIR, `${known}.json`), "utf8")) as { licenseText: string };
  return { id: known, name: INDEX[known]!.name, url: INDEX[known]!.url, text: file.licenseText };
}

/** The version of the license list the texts come from. */
export const LICENSE_TEXTS_VERSION = (requireJson("spdx-license-list/package.json") as { version: string }).version;
