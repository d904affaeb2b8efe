// A message encoded once goes out as its own bytes (the patched toBinary), and can never say other than they do.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "@jest/globals";
import { ListComponentsResponseSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { encodedMessage } from "../src/encoded-message.ts";

const init = {
  itemsJson: new TextEncoder().encode(JSON.stringify([{ name: "lodash", version: "4.17.21" }])),
  total: 10_000,
  limit: 50,
  offset: 5_000,
  scanId: "0193b0c2-6f1e-7b5c-9a3e-2f4d5c6b7a80",
};

describe("encodedMessage", () => {
  it("is encoded as the bytes a plain message of the same fields has, the same bytes object every time", () => {
    const message = encodedMessage(ListComponentsResponseSchema, init);
    const first = toBinary(ListComponentsResponseSchema, message);
    expect(Buffer.from(first)).toEqual(
      Buffer.from(toBinary(ListComponentsResponseSchema, create(ListComponentsResponseSchema, init))),
    );
    expect(toBinary(ListComponentsResponseSchema, message)).toBe(first);
  });

  it("holds its fields, its bytes fields as views into its encoding", () => {
    const message = encodedMessage(ListComponentsResponseSchema, init);
    expect(message).toMatchObject({ total: 10_000, limit: 50, offset: 5_000, scanId: init.scanId });
    expect(Buffer.from(message.itemsJson)).toEqual(Buffer.from(init.itemsJson));
    expect(message.itemsJson.buffer).toBe(toBinary(ListComponentsResponseSchema, message).buffer);
  });

  it("cannot be changed, so its bytes stay what it says", () => {
    const message = encodedMessage(ListComponentsResponseSchema, init);
    expect(() => Object.assign(message, { total: 1 })).toThrow(TypeError);
    expect(message.total).toBe(10_000);
  });

  it("leaves every other message to be encoded as before", () => {
    const plain = create(ListComponentsResponseSchema, init);
    expect(toBinary(ListComponentsResponseSchema, plain)).not.toBe(toBinary(ListComponentsResponseSchema, plain));
  });
});
