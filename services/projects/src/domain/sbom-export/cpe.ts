// CPE names as the schemas accept them. The CycloneDX 1.6 XSD (bom-1.6.xsd, `cpe`) and spdx-tools require a CPE 2.2
// URI or a CPE 2.3 formatted string whose special characters are quoted; SBOM tools often write 2.3 names with a
// bare `/` or `+` (`cpe:2.3:a:golang:x/crypto:v0.0.0-...`). Such a name is quoted (the same name, well-formed);
// one that still does not parse is left out.

// The XSD's pattern, anchored (XSD patterns match the whole value).
const VALUE =
  String.raw`(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@\[\]^` + "`" + String.raw`{|}~]))+(\?*|\*?))|[*\-])`;
const CPE = new RegExp(
  String.raw`^(?:[c][pP][eE]:/[AHOaho]?(:[A-Za-z0-9._\-~%]*){0,6}|cpe:2\.3:[aho*\-](:${VALUE}){5}(:(([a-zA-Z]{2,3}(-([a-zA-Z]{2}|[0-9]{3}))?)|[*\-]))(:${VALUE}){4})$`,
);

/** The attributes of a 2.3 formatted string (after `cpe:2.3:`), split on the colons that are not quoted. */
function attributesOf(rest: string): string[] {
  const out: string[] = [];
  let current = "";
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i]!;
    if (ch === "\\" && i + 1 < rest.length) {
      current += ch + rest[++i]!;
    } else if (ch === ":") {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out;
}

/** Quotes what a 2.3 attribute value may not carry bare (anything but letters, digits, `.`, `_`, `-`). */
function quoted(value: string): string {
  if (value === "*" || value === "-") return value;
  return value.replace(/\\.|[^A-Za-z0-9._-]/g, (m) => (m.length === 2 ? m : `\\${m}`));
}

/** The CPE as a well-formed name, or null when it cannot be one. */
export function wellFormedCpe(cpe: string | null): string | null {
  if (cpe === null || CPE.test(cpe)) return cpe;
  if (!cpe.startsWith("cpe:2.3:")) return null;
  const attributes = attributesOf(cpe.slice("cpe:2.3:".length));
  if (attributes.length !== 11) return null;
  const fixed = `cpe:2.3:${attributes.map(quoted).join(":")}`;
  return CPE.test(fixed) ? fixed : null;
}
