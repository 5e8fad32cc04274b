/** TextIndexMerges (src/readmodels/embedded-text-merges.ts): given writes to text-indexed collections, when steps find work or none, then. */
import { describe, expect, test } from "bun:test";
import { stepATurn, TextIndexMerges } from "../../src/readmodels/embedded-text-merges.ts";

/** A step that finds work `rounds[collection]` times, then none; records each call. */
function steps(rounds: Record<string, number>) {
  const calls: string[] = [];
  const step = (collection: string) => {
    calls.push(collection);
    return (rounds[collection] = (rounds[collection] ?? 0) - 1) >= 0;
  };
  return { calls, step };
}

describe("TextIndexMerges", () => {
  test("given a write, merges in steps until a step finds nothing, then stops", async () => {
    const { calls, step } = steps({ a: 3 });
    const merges = new TextIndexMerges(step, stepATurn);
    merges.written("a");
    expect(merges.busy).toBe(true);
    await merges.settled();
    expect(calls).toEqual(["a", "a", "a", "a"]);
    expect(merges.busy).toBe(false);
  });

  test("given writes to two collections, each is merged in turn until done; a write while merging keeps one run", async () => {
    const { calls, step } = steps({ a: 2, b: 1 });
    const merges = new TextIndexMerges(step, stepATurn);
    merges.written("a");
    merges.written("b");
    merges.written("a");
    await merges.settled();
    expect(calls.filter((c) => c === "a")).toHaveLength(3);
    expect(calls.filter((c) => c === "b")).toHaveLength(2);
    expect(calls.slice(0, 2)).toEqual(["a", "b"]);
  });

  test("given a step that throws, that collection is dropped (logged) and the others go on", async () => {
    const calls: string[] = [];
    const merges = new TextIndexMerges((collection) => {
      calls.push(collection);
      if (collection === "gone") throw new Error("no such table");
      return false;
    }, stepATurn);
    merges.written("gone");
    merges.written("kept");
    await merges.settled();
    expect(calls).toEqual(["gone", "kept"]);
  });

  test("when closed, no step starts; a forgotten collection is not merged", async () => {
    const { calls, step } = steps({ a: 100, b: 100 });
    const merges = new TextIndexMerges(step, stepATurn);
    merges.written("a");
    merges.written("b");
    merges.forget("b");
    await merges.close();
    const before = calls.length;
    merges.written("a");
    await merges.settled();
    expect(calls.length).toBe(before);
    expect(calls).not.toContain("b");
    expect(before).toBeLessThan(100);
  });

  test("given writes paused (the WAL caught up), no step runs until they go on, even one already waiting for its turn", async () => {
    const { calls, step } = steps({ a: 1 });
    let pause: PromiseWithResolvers<void> | null = null;
    const turns: (() => void)[] = [];
    // Steps run when the test says, as the turn share would run them later.
    const inBackground = (work: () => boolean) => new Promise<boolean>((done) => turns.push(() => done(work())));
    const merges = new TextIndexMerges(step, inBackground, () => pause?.promise ?? null);
    merges.written("a");
    await Bun.sleep(0);
    pause = Promise.withResolvers<void>();
    turns.shift()!();
    await Bun.sleep(0);
    expect(calls).toEqual([]);
    expect(turns).toHaveLength(0);
    const paused = pause;
    pause = null;
    paused.resolve();
    while (merges.busy) {
      turns.shift()?.();
      await Bun.sleep(0);
    }
    expect(calls).toEqual(["a", "a"]);
  });
});
