// SPDX 2 tag-value converted to the JSON shape readSpdx2 reads. No maintained npm package parses tag-value
// (the registry has SPDX expression and license-list packages only), so this is a small line reader: `Tag: value`
// lines, `<text>...</text>` values that may span lines, `#` comments; a package, file or snippet section starts
// at its name tag and owns the SPDXID that follows it.
import { SbomReadError } from "./errors.ts";

type Section = { kind: "document" | "package" | "file" | "snippet" | "license"; record: Record<string, unknown> };

const PACKAGE_FIELDS: Record<string, string> = {
  PackageName: "name",
  SPDXID: "SPDXID",
  PackageVersion: "versionInfo",
  PackageFileName: "packageFileName",
  PackageSupplier: "supplier",
  PackageOriginator: "originator",
  PackageDownloadLocation: "downloadLocation",
  FilesAnalyzed: "filesAnalyzed",
  PackageHomePage: "homepage",
  PackageSourceInfo: "sourceInfo",
  PackageLicenseConcluded: "licenseConcluded",
  PackageLicenseDeclared: "licenseDeclared",
  PackageLicenseComments: "licenseComments",
  PackageCopyrightText: "copyrightText",
  PackageSummary: "summary",
  PackageDescription: "description",
  PackageComment: "comment",
  PrimaryPackagePurpose: "primaryPackagePurpose",
  ReleaseDate: "releaseDate",
  BuiltDate: "builtDate",
  ValidUntilDate: "validUntilDate",
};

const DOCUMENT_FIELDS: Record<string, string> = {
  SPDXVersion: "spdxVersion",
  DataLicense: "dataLicense",
  SPDXID: "SPDXID",
  DocumentName: "name",
  DocumentNamespace: "documentNamespace",
  DocumentComment: "comment",
};

function push(record: Record<string, unknown>, key: string, value: unknown): void {
  const list = (record[key] as unknown[] | undefined) ?? [];
  list.push(value);
  record[key] = list;
}

/** Splits a tag-value document into [tag, value, line] triples, joining <text> values across lines. */
function* tagValues(source: string): Generator<[string, string, number]> {
  const lines = source.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const match = /^\s*([A-Za-z][A-Za-z0-9_-]*)\s*:\s?(.*)$/.exec(line);
    if (!match)
      throw new SbomReadError(
        "sbom_malformed_tag_value",
        `The SPDX tag-value document is malformed: line ${i + 1} is not "Tag: value".`,
      );
    const tag = match[1]!;
    let value = match[2]!.trim();
    const start = i + 1;
    if (value.startsWith("<text>")) {
      value = value.slice("<text>".length);
      while (!value.includes("</text>")) {
        i += 1;
        if (i >= lines.length)
          throw new SbomReadError(
            "sbom_malformed_tag_value",
            `The SPDX tag-value document is truncated: the <text> value of ${tag} on line ${start} never ends.`,
          );
        value += `\n${lines[i]}`;
      }
      value = value.slice(0, value.indexOf("</text>"));
    }
    yield [tag, value, start];
  }
}

export function spdxTagValueToJsonShape(source: string): Record<string, unknown> {
  const document: Record<string, unknown> = { creationInfo: { creators: [] as string[] } };
  const creationInfo = document.creationInfo as Record<string, unknown>;
  let section: Section = { kind: "document", record: document };
  for (const [tag, value] of tagValues(source)) {
    if (tag === "PackageName") {
      section = { kind: "package", record: {} };
      push(document, "packages", section.record);
    } else if (tag === "FileName") {
      section = { kind: "file", record: {} };
      push(document, "files", section.record);
    } else if (tag === "SnippetSPDXID") {
      section = { kind: "snippet", record: { SPDXID: value } };
      push(document, "snippets", section.record);
      continue;
    } else if (tag === "LicenseID") {
      // Extracted licensing info: its tags belong to no package.
      section = { kind: "license", record: {} };
    }
    if (tag === "Relationship") {
      const [element, type, related] = value.split(/\s+/);
      if (element && type && related)
        push(document, "relationships", {
          spdxElementId: element,
          relationshipType: type,
          relatedSpdxElement: related,
        });
      continue;
    }
    if (tag === "Creator") push(creationInfo, "creators", value);
    else if (tag === "Created") creationInfo.created = value;
    else if (section.kind === "document" && DOCUMENT_FIELDS[tag]) document[DOCUMENT_FIELDS[tag]] = value;
    else if (section.kind === "package") {
      if (tag === "PackageChecksum") {
        const [algorithm, checksumValue] = value.split(/:\s*/);
        push(section.record, "checksums", { algorithm, checksumValue });
      } else if (tag === "ExternalRef") {
        const [referenceCategory, referenceType, ...locator] = value.split(/\s+/);
        push(section.record, "externalRefs", { referenceCategory, referenceType, referenceLocator: locator.join(" ") });
      } else if (tag === "PackageLicenseInfoFromFiles") push(section.record, "licenseInfoFromFiles", value);
      else if (PACKAGE_FIELDS[tag]) section.record[PACKAGE_FIELDS[tag]] = value;
    } else if (section.kind === "file" && (tag === "SPDXID" || tag === "FileName")) {
      section.record[tag === "SPDXID" ? "SPDXID" : "fileName"] = value;
    }
  }
  return document;
}
