import { describe, expect, it } from "@jest/globals";
import { countedRequester } from "../src/domain/scan-count.ts";

describe("whose scan_count a scan's news raises", () => {
  const person = "0195f3c2-7b1e-7c3a-9d4e-1a2b3c4d5e6f";

  it("the requester's, on the scan's creation only (lower case)", () => {
    expect(countedRequester({ previousStatus: "", requestedByUserId: person })).toBe(person);
    expect(countedRequester({ previousStatus: "", requestedByUserId: person.toUpperCase() })).toBe(person);
    expect(countedRequester({ previousStatus: "queued", requestedByUserId: person })).toBeNull();
    expect(countedRequester({ previousStatus: "running", requestedByUserId: person })).toBeNull();
  });

  it("nobody's for a scan no person asked for (webhook, API key, schedule) or a malformed requester", () => {
    expect(countedRequester({ previousStatus: "" })).toBeNull();
    expect(countedRequester({ previousStatus: "", requestedByUserId: "" })).toBeNull();
    expect(countedRequester({ previousStatus: "", requestedByUserId: "not-a-uuid" })).toBeNull();
  });
});
