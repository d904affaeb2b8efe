// Pure tests of the collection after large work: V8's own collector on this process, no servers.
import { describe, expect, it } from "@jest/globals";
import { setTimeout as delay } from "node:timers/promises";
import { idleCollection, LARGE_WORK_ITEMS } from "../src/idle-collection.ts";

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

  it("collectNow() frees the garbage at once", async () => {
    const collection = idleCollection(60_000);
    const dropped = garbage();
    await delay(1);
    expect(dropped.deref()).toBeDefined();
    // A WeakRef's target lives at least to the end of the job that made it or last dereferenced it.
    await delay(1);
    collection.collectNow();
    expect(dropped.deref()).toBeUndefined();
    collection.stop();
  });

  it("waits while work given to during() runs, and collects after it only when it was large or failed", async () => {
    const collection = idleCollection(20);
    const small = garbage();
    await collection.during(
      () => Promise.resolve(10),
      (n) => n,
    );
    await delay(100);
    // Small work: no collection scheduled.
    expect(small.deref()).toBeDefined();

    let finish!: () => void;
    const running = collection.during(
      () => new Promise<number>((r) => (finish = () => r(LARGE_WORK_ITEMS))),
      (n) => n,
    );
    collection.workEnded();
    await delay(100);
    // The quiet ended while that work ran: nothing collected.
    expect(small.deref()).toBeDefined();
    finish();
    await running;
    await delay(100);
    expect(small.deref()).toBeUndefined();

    const afterFailure = garbage();
    await expect(
      collection.during(
        () => Promise.reject(new Error("failed")),
        () => 0,
      ),
    ).rejects.toThrow("failed");
    await delay(100);
    expect(afterFailure.deref()).toBeUndefined();
    collection.stop();
  });
});
