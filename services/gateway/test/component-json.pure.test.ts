// The component list is sent without parsing its reply by the schema again (`shaped`): componentJson must name
// exactly the fields of componentSchema, in their declared types, for a row with every field set and for one with
// none. Every field of the Connect message is filled generically, so a field added to it later is covered too.
import { describe, expect, it } from "@jest/globals";
import { create, ScalarType, type DescField } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ComponentHashSchema, ComponentSchema, type Component } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { offsetPagination } from "../src/api/pagination.ts";
import { componentJson, componentPageSchema, componentSchema } from "../src/routes/projects/components.ts";

const UUID = "0b4f1a52-4f34-4d0e-9c5b-1f7e3a3c9d11";

function valueOf(field: DescField): unknown {
  if (field.fieldKind === "list") {
    return field.listKind === "message" ? [create(ComponentHashSchema, { algorithm: "SHA-256", value: "ab" })] : ["a"];
  }
  if (field.fieldKind === "message") return timestampFromDate(new Date("2026-11-24T10:00:00.123Z"));
  if (field.fieldKind !== "scalar") throw new Error(`no test value for ${field.name}`);
  if (field.scalar === ScalarType.BOOL) return true;
  if (field.scalar === ScalarType.BYTES) return new Uint8Array();
  if (field.scalar === ScalarType.STRING) return field.name.endsWith("id") ? UUID : "text";
  return 3;
}

function everyFieldSet(): Component {
  const init: Record<string, unknown> = {};
  for (const field of ComponentSchema.fields) init[field.localName] = valueOf(field);
  return create(ComponentSchema, init);
}

describe("componentJson", () => {
  it.each([
    ["every field set", everyFieldSet()],
    ["no field set", create(ComponentSchema, { id: UUID, componentId: UUID, projectId: UUID, scanId: UUID })],
  ])("names exactly the schema's fields, each of its type (%s)", (_, component) => {
    const json = componentJson(component);
    expect(Object.keys(json).sort()).toEqual(Object.keys(componentSchema.shape).sort());
    expect(componentSchema.strict().parse(json)).toEqual(json);
    const page = offsetPagination.page([json], 1, { limit: 50, offset: 0 });
    expect(componentPageSchema.strict().parse(page)).toEqual(page);
  });
});
