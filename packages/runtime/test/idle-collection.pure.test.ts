// Pure tests of the collection after large work: V8's own collector on this process, no servers.
import { describe, expect, it } from "@jest/globals";
import { setTimeout as delay } from "node:timers/promises";
import { idleCollection } from "../src/idle-collection.ts";

/** A large object only a full collection frees (V8 puts it in its large-object space), watched through a WeakRef. */
function garbage(): WeakRef<object> {
  return new WeakRef(new Array<number>(4 * 1024 * 1024).fill(1));
}

describe("idleCollection", () => {
  it("collects the garbage of the work once the process was quiet, and not while work runs", async () => {
    let busy = true;
    const collection = idleCollection(20, () => busy);
    const kept = garbage();
    collection.workEnded();
    await delay(100);
    // Work was running when the quiet ended: nothing collected it (the test allocates next to nothing).
    expect(kept.deref()).toBeDefined();

    busy = false;
    collection.workEnded();
    await delay(100);
    expect(kept.deref()).toBeUndefined();
    collection.stop();
  });

  it("starts the quiet again at each end of work, and stop() cancels it", async () => {
    const collection = idleCollection(60, () => false);
    const kept = garbage();
    collection.workEnded();
    await delay(30);
    collection.workEnded();
    await delay(30);
    collection.stop();
    await delay(100);
    expect(kept.deref()).toBeDefined();
  });
});
