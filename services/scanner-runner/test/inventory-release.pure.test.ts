// Once the inventory artefact is written, a scan keeps its inventory without raw_data (the runner's memory through a
// large scan): every other fact matching, the states and the license lookup read stays as it was.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { releaseRawData } from "../src/domain/sbom/inventory.ts";
import { sharedDir } from "./support/shared-dir.ts";

const keycloak = join(sharedDir(), "data", "sbom", "cyclonedx", "keycloak-10.0.2.cdx-1.2.json");

describe("releasing raw_data", () => {
  it("empties every component's raw_data and keeps everything else", () => {
    const inventory = readSbom(readFileSync(keycloak));
    const fields = (rawJson: string) => Object.keys(JSON.parse(rawJson) as object).length;
    expect(inventory.components.some((c) => fields(c.rawJson) > 0)).toBe(true);
    const withoutRaw = (i: typeof inventory) => ({
      ...i,
      components: i.components.map(({ rawJson: _, ...rest }) => rest),
      document: {
        ...i.document,
        primaryComponent: i.document.primaryComponent && { ...i.document.primaryComponent, rawJson: null },
      },
    });
    const before = structuredClone(withoutRaw(inventory));
    releaseRawData(inventory);
    expect(inventory.components.every((c) => fields(c.rawJson) === 0)).toBe(true);
    expect(fields(inventory.document.primaryComponent?.rawJson ?? "{}")).toBe(0);
    expect(withoutRaw(inventory)).toEqual(before);
  });
});
