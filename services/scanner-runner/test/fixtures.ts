// The scanner-runner's fixtures for the tests of other services (see @sca/testkit fixturesOf): what it hands the
// projects service for an SBOM, so projects' tests ingest real documents without importing the reader.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import {
  InventoryComponentSchema,
  InventoryRecordSchema,
  type InventoryComponent,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type { ServiceFixtures } from "@sca/testkit";
import type { SbomComponent } from "../src/domain/sbom/inventory.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";

const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function componentOf(c: SbomComponent): InventoryComponent {
  const init: MessageInitShape<typeof InventoryComponentSchema> = {
    key: c.key,
    bomRefs: c.refs,
    type: optional(c.type),
    group: optional(c.group),
    name: c.name,
    version: optional(c.version),
    purl: optional(c.purl),
    cpe: optional(c.cpe),
    hashes: c.hashes,
    declaredLicense: optional(c.declaredLicense),
    concludedLicense: optional(c.concludedLicense),
    licenseIds: c.licenseIds,
    supplier: optional(c.supplier),
    author: optional(c.author),
    description: optional(c.description),
    direct: optional(c.direct),
    depth: optional(c.depth),
    dependencyScope: c.scope === null || c.scope === "excluded" ? undefined : c.scope,
    rawData: Buffer.from(JSON.stringify(c.rawData), "utf8"),
  };
  return create(InventoryComponentSchema, init);
}

function dateOf(iso: string | null): Date | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export const fixtures: ServiceFixtures["scanner-runner"] = {
  inventoryArtefactOf(sbom, opts = {}) {
    const inventory = readSbom(sbom);
    const filter = opts.scopeFilter ?? true;
    const kept = inventory.components.filter((c) => !(filter && c.scope === "excluded"));
    const keys = new Set(kept.map((c) => c.key));
    const d = inventory.document;
    const created = dateOf(d.createdAt);
    const parts: Uint8Array[] = [
      sizeDelimitedEncode(
        InventoryRecordSchema,
        create(InventoryRecordSchema, {
          record: {
            case: "document",
            value: {
              format: d.format,
              specVersion: d.specVersion,
              serialNumber: optional(d.serialNumber),
              bomVersion: optional(d.bomVersion),
              name: optional(d.name),
              createdAt: created ? timestampFromDate(created) : undefined,
              tools: d.tools,
              primaryComponent: d.primaryComponent ? componentOf(d.primaryComponent) : undefined,
              release: optional(d.release),
              declaredComponentCount: inventory.declaredComponentCount,
              graphRooted: inventory.graph.rooted,
              warnings: inventory.warnings,
            },
          },
        }),
      ),
    ];
    for (const c of kept)
      parts.push(
        sizeDelimitedEncode(
          InventoryRecordSchema,
          create(InventoryRecordSchema, { record: { case: "component", value: componentOf(c) } }),
        ),
      );
    for (const e of inventory.dependencies) {
      if ((e.from !== null && !keys.has(e.from)) || !keys.has(e.to)) continue;
      const scope = e.scope === null || e.scope === "excluded" ? undefined : e.scope;
      parts.push(
        sizeDelimitedEncode(
          InventoryRecordSchema,
          create(InventoryRecordSchema, {
            record: { case: "edge", value: { from: optional(e.from), to: e.to, scope } },
          }),
        ),
      );
    }
    return Buffer.concat(parts);
  },
};
